/**
 * One exchange at a time per device. `@ledgerhq` transports answer a second concurrent exchange with
 * `TransportRaceCondition` (and Speculos and the software Ledger would interleave); here a second call waits its
 * turn instead, in arrival order. Calls can be cancelled with an AbortSignal, and a disconnect rejects every
 * pending call with `LedgerDisconnectedError` and is re-emitted as a "disconnect" event.
 *
 * There are deliberately no timeouts: a device waiting for the user may take minutes to answer.
 */
import { LedgerDisconnectedError, toLedgerError } from '../apdu/errors.js';
import { FifoLock } from './lock.js';
import type { ApduTransport, SendOptions } from './types.js';

type Listener = (error: LedgerDisconnectedError) => void;

const instances = new WeakMap<object, ExclusiveTransport>();

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
    inner.on?.('disconnect', this.#onInnerDisconnect);
  }

  get disconnected(): boolean {
    return this.#disconnected !== undefined;
  }

  /** Number of calls waiting for their turn (not counting the one on the device). */
  get pending(): number {
    return this.#lock.pending;
  }

  async send(
    cla: number,
    ins: number,
    p1: number,
    p2: number,
    data: Uint8Array = new Uint8Array(0),
    statusList: readonly number[] = [0x9000],
    options: SendOptions = {},
  ): Promise<Uint8Array> {
    const { signal } = options;
    signal?.throwIfAborted();
    if (this.#disconnected) throw this.#disconnected;
    const release = await this.#lock.acquire(signal);

    let failCaller!: (reason: unknown) => void;
    const interrupted = new Promise<never>((_, reject) => (failCaller = reject));
    const onAbort = () => failCaller(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    this.#inFlight.add(failCaller);

    const exchange = Promise.resolve().then(() => this.inner.send(cla, ins, p1, p2, data, [...statusList]));
    // The slot is released only when the device has answered, even if the caller gave up earlier.
    exchange.then(release, (error: unknown) => {
      release();
      // A transport that fails with a disconnect error without emitting "disconnect" is disconnected all the same.
      if ((toLedgerError(error) as { name?: unknown }).name === 'LedgerDisconnectedError') this.markDisconnected(error);
    });
    try {
      return await Promise.race([exchange, interrupted]);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.#inFlight.delete(failCaller);
    }
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
