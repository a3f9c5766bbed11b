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
import type { SessionMessage, WorkerReply } from '../presentations/session.js';

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
  /** Told when a presentation waits for a prover window to be opened (true), and when it has one (false). */
  onWaiting?: (waiting: boolean) => void;
}

const openChannel = () => new BroadcastChannel(PROVER_CHANNEL) as unknown as ProverChannel;
const randomId = () => Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('');

/**
 * The wallet window's side: a `BrowserProver` (for `useBrowserProver`) that runs each presentation's Worker in a
 * prover window. When none is open it waits for the user to open one (`onWaiting` says so); the call's signal ends
 * the wait.
 */
export function proverWindowProver(options: ProverWindowOptions = {}): BrowserProver {
  const channelOf = options.channel ?? openChannel;
  return async (signal) => {
    const channel = channelOf();
    const run = randomId();
    const handlers: RunHandlers = { onReply: () => {}, onFailure: () => {} };
    channel.onmessage = (event) => routeToRun(event.data as Record<string, unknown> | null, run, handlers);
    let prover: string;
    try {
      prover = await startInProverWindow(channel, run, handlers, signal, options);
    } catch (error) {
      // Cancelled while the prover window starts the run's Worker: that Worker is ended there when it comes.
      if (handlers.prover) channel.postMessage({ to: handlers.prover, run, terminate: true });
      channel.close();
      throw error;
    }
    const worker: WorkerChannel = {
      post: (message: SessionMessage) => channel.postMessage({ to: prover, run, message }),
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

/** Finds an open prover window (waiting for one while none answers) and has it start the run's Worker: its id. */
async function startInProverWindow(
  channel: ProverChannel,
  run: string,
  handlers: RunHandlers,
  signal: AbortSignal | undefined,
  options: ProverWindowOptions,
): Promise<string> {
  const prover = await until<string>(signal, (settle) => askForProver(channel, handlers, signal, options, settle));
  handlers.prover = prover;
  channel.postMessage({ to: prover, run, start: true });
  if (!(await until<boolean>(signal, (settle) => (handlers.started = settle)))) {
    throw new ProviderError(ErrorCode.Internal, { reason: 'the prover window could not start the presentation Worker' });
  }
  return prover;
}

/** What `wait` settles with, or the signal's reason when the call is aborted first. */
function until<T>(signal: AbortSignal | undefined, wait: (settle: (value: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    wait((value) => {
      signal?.removeEventListener('abort', onAbort);
      resolve(value);
    });
  });
}

/**
 * Asks the open prover windows to answer, and settles with the first id heard. When none has answered within half a
 * second, `onWaiting` tells the user to open one (and is told when the wait ends, answered or aborted).
 */
function askForProver(
  channel: ProverChannel,
  handlers: RunHandlers,
  signal: AbortSignal | undefined,
  options: ProverWindowOptions,
  settle: (id: string) => void,
): void {
  let waiting = false;
  const timer = setTimeout(() => {
    waiting = true;
    options.onWaiting?.(true);
  }, 500);
  handlers.found = (id) => {
    handlers.found = undefined;
    clearTimeout(timer);
    if (waiting) options.onWaiting?.(false);
    settle(id);
  };
  signal?.addEventListener('abort', () => {
    clearTimeout(timer);
    if (waiting) options.onWaiting?.(false);
  });
  channel.postMessage({ ask: 'prover' });
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
      runs.get(run)?.post(data.message as SessionMessage);
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
