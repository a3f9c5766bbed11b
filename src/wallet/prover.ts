/**
 * The prover window: where the wallet proves when its own window is not cross-origin isolated (a browser that ignores
 * Document-Isolation-Policy, e.g. a Chromium without strict site isolation). A second window of the wallet's origin,
 * served with `Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Embedder-Policy: require-corp` (isolated;
 * it needs no opener), opened from a click in the wallet window, starts the presentation Worker there and relays its
 * messages over a BroadcastChannel, which reaches only documents of the wallet's origin and storage partition. The
 * Worker's key cache is the wallet's IndexedDB either way.
 *
 *   wallet → all     { ask: 'prover' }                        is a prover window open?
 *   prover → all     { prover: id }                           it is (also said when it loads)
 *   wallet → prover  { to: id, run, start: true }             start a Worker for this run
 *   prover → wallet  { run, ready: true } | { run, failed }
 *   wallet → prover  { to: id, run, message } | { to: id, run, terminate: true }
 *   prover → wallet  { run, reply } | { run, failure }         the Worker's replies; its failure, or the window closing
 */
import { ErrorCode, ProviderError } from '../errors/provider-error.js';
import { startBrowserWorker, type BrowserProver, type WorkerChannel } from '../presentations/runner.js';
import type { WorkerMessage, WorkerReply } from '../presentations/presentation-worker.js';

export const PROVER_CHANNEL = 'chain-ledger:prover';

/** The part of BroadcastChannel the relay uses (the browser's, or Node's in tests). */
export interface ProverChannel {
  postMessage(message: unknown): void;
  onmessage: ((event: MessageEvent) => void) | null;
  close(): void;
}

export interface ProverWindowOptions {
  /** Opens the channel (default `new BroadcastChannel(PROVER_CHANNEL)`). */
  channel?: () => ProverChannel;
  /** Told when a presentation waits for a prover window to be opened (true), and when the wait is over (false). */
  onWaiting?: (waiting: boolean) => void;
  /**
   * How long a presentation waits for a prover window to be opened before it ends with 1002 saying so (default
   * `PROVER_WINDOW_WAIT_MS`, 2 minutes).
   */
  waitMs?: number;
}

/** How long a presentation waits, by default, for the holder to open the prover window. */
export const PROVER_WINDOW_WAIT_MS = 120_000;
/**
 * How long an open prover window may take to start a run's Worker (its own start gives up after 30 s and says so; a
 * window closed meanwhile never answers).
 */
const PROVER_START_MS = 60_000;

const openChannel = () => new BroadcastChannel(PROVER_CHANNEL) as unknown as ProverChannel;
const randomId = () => Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('');

/**
 * The wallet window's side: a `BrowserProver` (for `useBrowserProver`) that runs each presentation's Worker in a
 * prover window. When none is open it waits for the user to open one: `options.onWaiting` (the wallet's UI) and the
 * call's own `onWaiting` (its progress stage, for the dapp) say so. The call's signal ends the wait; so does
 * `waitMs` without a prover window (1002, saying what was needed).
 */
export function proverWindowProver(options: ProverWindowOptions = {}): BrowserProver {
  const channelOf = options.channel ?? openChannel;
  return async (signal, onWaiting) => {
    const channel = channelOf();
    const run = randomId();
    const handlers: RunHandlers = { onReply: () => {}, onFailure: () => {} };
    channel.onmessage = (event) => routeToRun(event.data as Record<string, unknown> | null, run, handlers);
    let prover: string;
    try {
      prover = await startInProverWindow(channel, run, handlers, signal, { ...options, onCallWaiting: onWaiting });
    } catch (error) {
      // Cancelled while the prover window starts the run's Worker: that Worker is ended there when it comes.
      if (handlers.prover) channel.postMessage({ to: handlers.prover, run, terminate: true });
      channel.close();
      throw error;
    }
    const worker: WorkerChannel = {
      post: (message: WorkerMessage) => channel.postMessage({ to: prover, run, message }),
      listen(reply, failure) {
        handlers.onReply = reply;
        handlers.onFailure = failure;
      },
      terminate: () => {
        channel.postMessage({ to: prover, run, terminate: true });
        channel.close();
      },
    };
    return worker;
  };
}

/** What the wallet window does with one run's messages; each step of the run sets the handler it waits on. */
interface RunHandlers {
  /** The prover window asked to start the run's Worker, once one answered. */
  prover?: string;
  found?: (id: string) => void;
  started?: (ok: boolean) => void;
  onReply: (reply: WorkerReply) => void;
  onFailure: (error: unknown) => void;
}

/** A message on the channel, to the run's current handlers: a prover window's id, its Worker started, a reply, a failure. */
function routeToRun(data: Record<string, unknown> | null, run: string, handlers: RunHandlers): void {
  if (typeof data?.prover === 'string') handlers.found?.(data.prover);
  if (data?.run !== run) return;
  if (data.ready === true || data.failed === true) handlers.started?.(data.ready === true);
  else if ('reply' in data) handlers.onReply(data.reply as WorkerReply);
  else if (typeof data.failure === 'string') handlers.onFailure(new Error(data.failure));
}

/** The options of one run's start: the window's, and the call's own `onWaiting` (its progress stage). */
type StartOptions = ProverWindowOptions & { onCallWaiting?: (waiting: boolean) => void };

/**
 * Finds an open prover window (waiting for one while none answers, within `waitMs`) and has it start the run's
 * Worker (within PROVER_START_MS): its id.
 */
async function startInProverWindow(
  channel: ProverChannel,
  run: string,
  handlers: RunHandlers,
  signal: AbortSignal | undefined,
  options: StartOptions,
): Promise<string> {
  const waitMs = options.waitMs ?? PROVER_WINDOW_WAIT_MS;
  const notOpened = () =>
    new ProviderError(ErrorCode.UserRejected, {
      reason:
        `the prover window was not opened within ${Math.round(waitMs / 1000)} s: the wallet's window cannot prove here ` +
        '(the browser did not make it cross-origin isolated), so a presentation needs its prover window: ' +
        'click "Open the prover window" in the wallet, then ask again',
    });
  const prover = await until<string>(signal, waitMs, notOpened, (settle) => askForProver(channel, handlers, options, settle));
  handlers.prover = prover;
  channel.postMessage({ to: prover, run, start: true });
  const notStarted = () =>
    new ProviderError(ErrorCode.Internal, {
      reason: `the prover window did not start the presentation Worker within ${PROVER_START_MS / 1000} s (was it closed?)`,
    });
  const started = await until<boolean>(signal, PROVER_START_MS, notStarted, (settle) => {
    handlers.started = settle;
    return undefined;
  });
  if (!started) {
    throw new ProviderError(ErrorCode.Internal, { reason: 'the prover window could not start the presentation Worker' });
  }
  return prover;
}

/**
 * What `wait` settles with; the signal's reason when the call is aborted first; `timedOut()` when `ms` pass first.
 * `wait` may return a cleanup, run however it ends.
 */
function until<T>(
  signal: AbortSignal | undefined,
  ms: number,
  timedOut: () => unknown,
  wait: (settle: (value: T) => void) => (() => void) | undefined,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    let cleanup: (() => void) | undefined;
    const end = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      cleanup?.();
    };
    const onAbort = () => {
      end();
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      end();
      reject(timedOut());
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
    cleanup = wait((value) => {
      end();
      resolve(value);
    });
  });
}

/**
 * Asks the open prover windows to answer, and settles with the first id heard. When none has answered within half a
 * second, `onWaiting` (the window's UI) and `onCallWaiting` (the call's progress) say that the holder must open one;
 * when the wait ends, the UI hears it, and the call's progress too when a prover window answered (aborted or timed out,
 * the call ends instead). Returns the cleanup `until` runs however the wait ends.
 */
function askForProver(channel: ProverChannel, handlers: RunHandlers, options: StartOptions, settle: (id: string) => void): () => void {
  let waiting = false;
  const timer = setTimeout(() => {
    waiting = true;
    options.onWaiting?.(true);
    options.onCallWaiting?.(true);
  }, 500);
  const end = (found: boolean) => {
    handlers.found = undefined;
    clearTimeout(timer);
    if (waiting) {
      options.onWaiting?.(false);
      if (found) options.onCallWaiting?.(false);
    }
    waiting = false;
  };
  handlers.found = (id) => {
    end(true);
    settle(id);
  };
  channel.postMessage({ ask: 'prover' });
  return () => end(false);
}

/** What `catchUnisolatedO1jsStart` uses of the window. */
export interface RejectionTarget {
  addEventListener(type: 'unhandledrejection', listener: (event: PromiseRejectionEvent) => void): void;
  removeEventListener(type: 'unhandledrejection', listener: (event: PromiseRejectionEvent) => void): void;
}

/**
 * In a window that is not cross-origin isolated (the wallet's, in a browser that ignores Document-Isolation-Policy),
 * o1js still loads and checks signatures (credentials, nullifiers), but starting its bindings' Worker posts its shared
 * wasm memory there, which the browser refuses (a `DataCloneError`: "SharedArrayBuffer transfer requires
 * self.crossOriginIsolated"). o1js keeps that failure in a promise it awaits only to prove, so the page would get an
 * uncaught rejection. This window proves in its prover window instead: that one rejection is handled here and said
 * once, as what it means (`log`); every other rejection is left alone. Returns a function that stops listening.
 */
export function catchUnisolatedO1jsStart(target: RejectionTarget, log: (message: string) => void): () => void {
  const listener = (event: PromiseRejectionEvent) => {
    const reason = event.reason as { name?: unknown; message?: unknown } | null;
    if (reason?.name !== 'DataCloneError' || !/SharedArrayBuffer/.test(String(reason.message))) return;
    event.preventDefault();
    target.removeEventListener('unhandledrejection', listener);
    log(
      'chain-ledger wallet: o1js cannot start its worker threads in this window (it is not cross-origin isolated: ' +
        `${String(reason.message)}); it checks signatures here, and proves in the prover window`,
    );
  };
  target.addEventListener('unhandledrejection', listener);
  return () => target.removeEventListener('unhandledrejection', listener);
}

/**
 * The prover window's side: answers the wallet's windows, starts a presentation Worker per run (`start`, default this
 * window's own: `startBrowserWorker`) and relays its messages. Returns a function that stops (and ends its runs).
 */
export function serveProverWindow(start: BrowserProver = startBrowserWorker, channelOf: () => ProverChannel = openChannel): () => void {
  const id = randomId();
  const channel = channelOf();
  const runs = new Map<string, WorkerChannel>();
  /** Runs whose Worker is starting; those ended (cancelled) meanwhile: their Worker is terminated once started. */
  const starting = new Set<string>();
  const ended = new Set<string>();
  channel.onmessage = (event) => {
    const data = event.data as Record<string, unknown> | null;
    if (data?.ask === 'prover') return channel.postMessage({ prover: id });
    if (data?.to !== id || typeof data.run !== 'string') return;
    const run = data.run;
    if (data.start === true) {
      starting.add(run);
      const settled = () => starting.delete(run) && ended.delete(run);
      void start(undefined).then(
        (worker) => {
          if (settled()) return worker?.terminate();
          if (!worker) return channel.postMessage({ run, failed: true });
          runs.set(run, worker);
          worker.listen(
            (reply) => channel.postMessage({ run, reply }),
            (error) => channel.postMessage({ run, failure: (error as Error)?.message ?? String(error) }),
          );
          channel.postMessage({ run, ready: true });
        },
        () => {
          settled();
          channel.postMessage({ run, failed: true });
        },
      );
    } else if ('message' in data) {
      runs.get(run)?.post(data.message as WorkerMessage);
    } else if (data.terminate === true) {
      const worker = runs.get(run);
      if (worker) worker.terminate();
      else if (starting.has(run)) ended.add(run);
      runs.delete(run);
    }
  };
  channel.postMessage({ prover: id });
  return () => {
    for (const [run, worker] of runs) {
      worker.terminate();
      channel.postMessage({ run, failure: 'the prover window was closed' });
    }
    runs.clear();
    channel.close();
  };
}
