/**
 * One device, one user at a time. `@ledgerhq` transports answer a second concurrent exchange with
 * `TransportRaceCondition` (and Speculos and the software Ledger would interleave); here a second caller waits its
 * turn instead, in arrival order. The unit of exclusivity is a whole command, not an APDU: `exclusive(task)` holds
 * the device for every exchange the task makes (the chunks of one request, a version read and the request that
 * depends on it, the prompts of one provider method), as hw-transport's app API lock does for an app method, so two
 * callers' chunks can never interleave. `send()` is a command of one exchange.
 *
 * Calls can be cancelled with an AbortSignal, and a disconnect rejects every pending call with
 * `LedgerDisconnectedError` and is re-emitted as a "disconnect" event. There are deliberately no timeouts: a device
 * waiting for the user may take minutes to answer.
 */
import { LedgerDisconnectedError, toLedgerError } from '../apdu/errors.js';
import { FifoLock } from '../util/fifo-lock.js';
import { guardStoreKeyReplies } from './quiet-exchange.js';
import type { ApduTransport, SendOptions } from './types.js';

type Listener = (error: LedgerDisconnectedError) => void;

/** The device while a command holds it: exchanges go straight to it, in the order the command makes them. */
export interface HeldDevice {
  /** One exchange (the `ApduTransport.send` contract); `options.signal` also cancels it. */
  send(
    cla: number,
    ins: number,
    p1: number,
    p2: number,
    data?: Uint8Array,
    statusList?: readonly number[],
    options?: SendOptions,
  ): Promise<Uint8Array>;
}

const instances = new WeakMap<object, ExclusiveTransport>();

/**
 * A device's queue: one command at a time, in arrival order, across every client and provider of that device. Get it
 * with `ExclusiveTransport.for(transport)` (the same transport always gets the same queue; `MinaLedgerApp` and the
 * provider use it already), then hold the device for a whole command with `exclusive(task)`, or send one exchange
 * with `send()`. A waiting or running command is cancelled with an `AbortSignal`; there are no timeouts, because a
 * device waiting for its user may take minutes. When the device goes, every pending command rejects with
 * `LedgerDisconnectedError`.
 *
 * @example
 * ```ts
 * const device = ExclusiveTransport.for(transport);
 * const reply = await device.exclusive((held) => held.send(0xe0, 0x01, 0x00, 0x00), { signal });
 * ```
 */
export class ExclusiveTransport implements ApduTransport {
  readonly inner: ApduTransport;
  #lock = new FifoLock();
  #inFlight = new Set<(reason: unknown) => void>();
  #listeners = new Set<Listener>();
  #disconnected: LedgerDisconnectedError | undefined;
  #onInnerDisconnect = (cause?: unknown) => this.markDisconnected(cause);

  /** The queue for a device: the same transport object always gets the same queue, so every client shares it. */
  static for(transport: ApduTransport): ExclusiveTransport {
    if (transport instanceof ExclusiveTransport) return transport;
    let queue = instances.get(transport);
    if (!queue) {
      queue = new ExclusiveTransport(transport);
      instances.set(transport, queue);
    }
    return queue;
  }

  private constructor(inner: ApduTransport) {
    this.inner = inner;
    // The store-key reply never reaches @ledgerhq/logs, whoever opened the transport (quiet-exchange.ts).
    guardStoreKeyReplies(inner);
    inner.on?.('disconnect', this.#onInnerDisconnect);
  }

  get disconnected(): boolean {
    return this.#disconnected !== undefined;
  }

  /** Number of commands waiting for their turn (not counting the one holding the device). */
  get pending(): number {
    return this.#lock.pending;
  }

  /**
   * Runs `task` holding the device: no other command's exchange reaches the device until it settles. `signal`
   * takes a waiting command out of the line at once and cancels the exchange in progress (the device keeps its
   * screen: the next command waits for the user's answer there, because the device is released only once it has
   * answered).
   *
   * @example
   * ```ts
   * const reply = await ExclusiveTransport.for(transport).exclusive(async (device) => {
   *   await device.send(0xe0, 0xa1, 0x00, 0x80, firstChunk);
   *   return device.send(0xe0, 0xa1, 0x80, 0x00, lastChunk);
   * }, { signal });
   * ```
   * @throws `LedgerDisconnectedError` when the device is gone (before or during the task); the signal's reason when
   *   aborted.
   */
  async exclusive<T>(task: (device: HeldDevice) => Promise<T>, options: SendOptions = {}): Promise<T> {
    const { signal } = options;
    signal?.throwIfAborted();
    if (this.#disconnected) throw this.#disconnected;
    const release = await this.#lock.acquire(signal);
    let lastExchange: Promise<unknown> = Promise.resolve();
    const run = (send: ApduTransport['send']) =>
      task({
        send: (cla, ins, p1, p2, data = new Uint8Array(0), statusList = [0x9000], sendOptions = {}) => {
          const exchange = this.#exchange(send, cla, ins, p1, p2, data, statusList, [signal, sendOptions.signal]);
          lastExchange = exchange.settled;
          return exchange.result;
        },
      });
    // A device with units of its own (runTask) runs the whole command as one; any other gets its exchanges one by one.
    const command = this.inner.runTask
      ? this.inner.runTask(run, { signal, progress: options.progress })
      : run(this.inner.send.bind(this.inner));
    try {
      return await command;
    } finally {
      // Released only when the device has answered, even if the caller gave up earlier.
      Promise.allSettled([command]).then(() => lastExchange.then(release, release));
    }
  }

  /** A command of one exchange. */
  async send(
    cla: number,
    ins: number,
    p1: number,
    p2: number,
    data: Uint8Array = new Uint8Array(0),
    statusList: readonly number[] = [0x9000],
    options: SendOptions = {},
  ): Promise<Uint8Array> {
    return this.exclusive((device) => device.send(cla, ins, p1, p2, data, statusList), options);
  }

  /** One exchange with the inner transport; `result` rejects at once on abort or disconnect, `settled` when it ends. */
  #exchange(
    send: ApduTransport['send'],
    cla: number,
    ins: number,
    p1: number,
    p2: number,
    data: Uint8Array,
    statusList: readonly number[],
    signals: (AbortSignal | undefined)[],
  ): { result: Promise<Uint8Array>; settled: Promise<unknown> } {
    const active = signals.filter((s): s is AbortSignal => s !== undefined);
    const aborted = active.find((s) => s.aborted);
    if (aborted) return { result: Promise.reject(aborted.reason), settled: Promise.resolve() };
    if (this.#disconnected) return { result: Promise.reject(this.#disconnected), settled: Promise.resolve() };

    let failCaller!: (reason: unknown) => void;
    const interrupted = new Promise<never>((_, reject) => (failCaller = reject));
    const onAbort = (event: Event) => failCaller((event.target as AbortSignal).reason);
    for (const s of active) s.addEventListener('abort', onAbort, { once: true });
    this.#inFlight.add(failCaller);

    const exchange = Promise.resolve().then(() => send(cla, ins, p1, p2, data, [...statusList]));
    const settled = exchange.then(
      () => undefined,
      (error: unknown) => {
        // A transport that fails with a disconnect error without emitting "disconnect" is disconnected all the same.
        if ((toLedgerError(error) as { name?: unknown }).name === 'LedgerDisconnectedError') this.markDisconnected(error);
      },
    );
    const result = Promise.race([exchange, interrupted]).finally(() => {
      for (const s of active) s.removeEventListener('abort', onAbort);
      this.#inFlight.delete(failCaller);
    });
    return { result, settled };
  }

  on(event: 'disconnect', listener: Listener): void {
    if (event === 'disconnect') this.#listeners.add(listener);
  }

  off(event: 'disconnect', listener: Listener): void {
    if (event === 'disconnect') this.#listeners.delete(listener);
  }

  /**
   * Called when the device goes away (from the inner transport's "disconnect" event, or by an opener that knows
   * better). Rejects every pending call; later calls fail at once. Idempotent.
   */
  markDisconnected(cause?: unknown): void {
    if (this.#disconnected) return;
    const error = new LedgerDisconnectedError('The device was disconnected', { cause });
    this.#disconnected = error;
    // A later ExclusiveTransport.for(inner) starts afresh (a software Ledger plugged back in).
    if (instances.get(this.inner) === this) instances.delete(this.inner);
    for (const fail of this.#inFlight) fail(error);
    this.#lock.failWaiting(error);
    for (const listener of [...this.#listeners]) listener(error);
  }

  /**
   * Closes the device. Pending calls reject with `LedgerDisconnectedError`. The inner transport's `close()` is
   * awaited only when nothing is on the device: `@ledgerhq` transports wait for the exchange in flight, which after
   * an unplug (or while the user ignores a review) never ends, and closing must not hang.
   */
  async close(): Promise<void> {
    const idle = !this.#lock.busy && !this.#disconnected;
    this.inner.off?.('disconnect', this.#onInnerDisconnect);
    this.markDisconnected(new Error('closed by the host'));
    instances.delete(this.inner);
    const closing = Promise.resolve().then(() => this.inner.close?.());
    if (idle) await closing;
    else closing.catch(() => undefined);
  }
}
