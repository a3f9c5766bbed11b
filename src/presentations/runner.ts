/**
 * Where a presentation's compile and proof run: off the caller's thread, in a worker, so that the Node event loop or
 * the page's main thread stays free while o1js works, and an AbortSignal rejects at once (the worker is terminated,
 * its work dropped).
 *
 * - Node: a `worker_threads` worker (worker.ts), kept warm for the next presentation of the process when
 *   a run ended normally (proved, or prepared and then refused on the device): o1js loaded and its SRS decoded there,
 *   the last specs' programs compiled, which a fresh worker pays again (seconds; docs/performance.md). One idle worker
 *   at most, unref'd (it never keeps the process alive) and terminated after IDLE_WORKER_MS; an aborted or failed run
 *   terminates its worker as before. Node's native backend has no o1js#2870 (that hang is in o1js's web worker
 *   bridge). With o1js's wasm backend there is no Node worker (it cannot start in one, see nodeWorker): in-thread.
 * - Browsers: a dedicated module Worker (worker.browser.ts), found by bundlers through the standard
 *   `new Worker(new URL(…, import.meta.url), { type: 'module' })` form. A fresh one per presentation: o1js 2.x can
 *   hang on a second proof in one instance (o1js#2870), and terminating the worker frees o1js's wasm memory.
 *
 * Both speak presentation-worker.ts's protocol. Where no worker can be started (no `Worker`, a bundle that left the
 * worker file out, a worker script that fails to load), `startPresentationRun` resolves to undefined and the caller
 * runs the same presentation worker in its own thread over `runOver` (channel-run.ts, in-thread.ts), with a warning in browsers: the page is busy
 * meanwhile, which is why a worker is preferred.
 */
import { DEFAULT_PRESENTATION_LIMITS, type PresentationLimits, type PresentationRun, runOver, type WorkerChannel } from './channel-run.js';
import type { WorkerReply } from './presentation-worker.js';

export {
  DEFAULT_PRESENTATION_LIMITS,
  type PresentationLimits,
  type PresentationRun,
  PresentationLimitError,
  PresentationRunError,
  PresentationWorkerError,
  runOver,
  type WorkerChannel,
} from './channel-run.js';

/**
 * The browser's Worker as it was when this module loaded (the name shadows the global on purpose: bundlers recognise
 * `new Worker(new URL(…), …)` by its text), and its `postMessage`: a script of the page that replaces `Worker` or
 * wraps `Worker.prototype.postMessage` afterwards does not see the credentials sent to the presentation Worker
 * (docs/security.md, "In-page mode"). Undefined in Node.
 */
const Worker: typeof globalThis.Worker | undefined = globalThis.Worker;
const postToWorker = Worker?.prototype.postMessage;
const apply = Reflect.apply;

/** How long a browser Worker may take to load its module graph before the page proves in its own thread instead. */
const START_TIMEOUT_MS = 30_000;
/** How long Node keeps an idle warm worker (≈ 0.25 GB more resident, measured with one spec) before terminating it. */
export const IDLE_WORKER_MS = 120_000;

const isNode = () =>
  typeof process !== 'undefined' &&
  typeof process.versions?.node === 'string' &&
  typeof (globalThis as { document?: unknown }).document === 'undefined';

/**
 * Starts a browser's presentation worker somewhere: this page's own Worker (the default), or another window's.
 * `onWaiting` is told when the start waits for the user (true: the wallet's prover window is not open yet) and when
 * that wait is over (false).
 */
export type BrowserProver = (signal: AbortSignal | undefined, onWaiting?: (waiting: boolean) => void) => Promise<WorkerChannel | undefined>;
let browserProver: BrowserProver | undefined;

/**
 * Where a browser's presentations run from now on: `prover` (the wallet page sets one that reaches its isolated
 * prover window when its own window is not cross-origin isolated), or this page's own Worker (undefined).
 */
export function useBrowserProver(prover: BrowserProver | undefined): void {
  browserProver = prover;
}

/**
 * A run for one presentation in a worker, or undefined when none can be started (the caller runs it in-thread).
 * `onWaiting`: as `BrowserProver`'s (a start that waits for the user).
 */
export async function startPresentationRun(
  signal?: AbortSignal,
  limits: PresentationLimits = DEFAULT_PRESENTATION_LIMITS,
  onWaiting?: (waiting: boolean) => void,
): Promise<PresentationRun | undefined> {
  signal?.throwIfAborted();
  const channel = isNode() ? await nodeWorker(limits.memoryMb) : await (browserProver ?? startBrowserWorker)(signal, onWaiting);
  if (signal?.aborted) {
    channel?.terminate(); // never left running (a Node worker would keep the process alive)
    signal.throwIfAborted();
  }
  if (channel === undefined) return undefined;
  return runOver(channel, signal, limits.timeMs);
}

/** Node's presentation workers: how many were started and are alive, and whether one is idle (for tests). */
export function presentationWorkers(): { started: number; live: number; idle: boolean } {
  return { started: nodeWorkers.started, live: nodeWorkers.live, idle: nodeWorkers.idle !== undefined };
}

/** Terminates Node's idle warm worker, if any (its memory back at once; the next presentation starts a new one). */
export function closeIdlePresentationWorker(): void {
  const entry = nodeWorkers.idle;
  if (entry === undefined) return;
  takeIdle();
  void entry.worker.terminate();
}

/** One Node worker thread across the runs that reuse it: the current run's handlers receive its messages. */
interface NodeWorkerEntry {
  worker: import('node:worker_threads').Worker;
  /** Its heap limit (MB): a warm worker is reused only under the same limit. */
  memoryMb: number;
  onReply: (reply: WorkerReply) => void;
  onFailure: (error: unknown) => void;
  exited: boolean;
  idleTimer?: ReturnType<typeof setTimeout>;
}

const nodeWorkers: { started: number; live: number; idle: NodeWorkerEntry | undefined } = { started: 0, live: 0, idle: undefined };
const ignore = () => {};

function takeIdle(): NodeWorkerEntry | undefined {
  const entry = nodeWorkers.idle;
  nodeWorkers.idle = undefined;
  if (entry?.idleTimer !== undefined) clearTimeout(entry.idleTimer);
  return entry?.exited ? undefined : entry;
}

function keepIdle(entry: NodeWorkerEntry): void {
  entry.onReply = ignore;
  entry.onFailure = ignore;
  // One warm worker at most (concurrent presentations had one each): any other ends here.
  if (entry.exited || nodeWorkers.idle !== undefined) {
    void entry.worker.terminate();
    return;
  }
  entry.worker.unref(); // an idle worker never keeps the process alive
  entry.idleTimer = setTimeout(closeIdlePresentationWorker, IDLE_WORKER_MS);
  entry.idleTimer.unref?.();
  nodeWorkers.idle = entry;
}

async function nodeWorker(memoryMb: number): Promise<WorkerChannel | undefined> {
  // o1js's wasm backend cannot start in a Node worker thread: its bindings take any thread that is not the main one
  // for one of their own rayon workers (kimchi_wasm.cjs reads `workerData.memory`; node-backend.js starts a rayon
  // worker loop there). So with wasm (O1JS_BACKEND=wasm, or no native backend installed) the presentation runs in
  // this thread (in-thread.ts). The worker's loader chooses as this thread's did (same environment).
  const { loadO1js } = await import('../upstream/o1js.js');
  if ((await loadO1js()).getBackendPreference() !== 'native') return undefined;
  const idle = takeIdle();
  if (idle !== undefined && idle.memoryMb !== memoryMb) void idle.worker.terminate();
  const entry = (idle?.memoryMb === memoryMb ? idle : undefined) ?? (await startNodeWorker(memoryMb));
  if (entry === undefined) return undefined;
  // In use: a CLI awaiting only this presentation must stay alive; the run terminates or releases the worker.
  entry.worker.ref();
  return {
    post: (message) => entry.worker.postMessage(message),
    listen(onReply, onFailure) {
      entry.onReply = onReply;
      entry.onFailure = onFailure;
    },
    terminate: () => void entry.worker.terminate(),
    release: () => keepIdle(entry),
  };
}

async function startNodeWorker(memoryMb: number): Promise<NodeWorkerEntry | undefined> {
  const { Worker } = await import('node:worker_threads');
  // From dist: the compiled .js next to this file. From the TypeScript sources (tests, tsx): the .ts, through tsx.
  const fromSource = import.meta.url.endsWith('.ts');
  // A variable, not a literal: bundlers must not treat the Node worker as a browser asset.
  const file = fromSource ? './worker.source.mjs' : './worker.js';
  const url = new URL(file, import.meta.url);
  // A bundle that left the worker file behind runs the presentation in this thread rather than fail.
  const [{ existsSync }, { fileURLToPath }] = await Promise.all([import('node:fs'), import('node:url')]);
  if (url.protocol !== 'file:' || !existsSync(fileURLToPath(url))) return undefined;
  const worker = new Worker(url, { execArgv: workerExecArgv(process.execArgv), resourceLimits: { maxOldGenerationSizeMb: memoryMb } });
  const entry: NodeWorkerEntry = { worker, memoryMb, onReply: ignore, onFailure: ignore, exited: false };
  nodeWorkers.started++;
  nodeWorkers.live++;
  entry.worker.on('message', (reply: WorkerReply) => entry.onReply(reply));
  entry.worker.on('error', (error) => entry.onFailure(error));
  entry.worker.on('exit', (code) => {
    entry.exited = true;
    nodeWorkers.live--;
    if (nodeWorkers.idle === entry) takeIdle();
    entry.onFailure(new Error(`the presentation worker stopped (exit code ${code})`));
  });
  return entry;
}

/**
 * The Node options a presentation worker inherits: the host's, without `--input-type`, which Node refuses for a
 * worker started from a file ("--input-type can only be used with string input"): a host run as
 * `node --input-type=module -e …` (or with a program on stdin) could otherwise make no presentation.
 */
export function workerExecArgv(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const option = execArgv[i]!;
    if (option === '--input-type')
      i++; // its value is the next element
    else if (!option.startsWith('--input-type=')) kept.push(option);
  }
  return kept;
}

/**
 * The browser's presentation Worker, once it has said it is ready (its module graph loaded), or undefined when it
 * cannot start: the page then proves in its own thread (in-thread.ts), and says why. (The wallet's prover window
 * starts it for the wallet window too: src/wallet/prover.ts.)
 */
export async function startBrowserWorker(signal: AbortSignal | undefined): Promise<WorkerChannel | undefined> {
  if (Worker === undefined || postToWorker === undefined) return undefined;
  const { publishKeyCacheReport } = await import('./indexeddb-key-cache.js');
  let worker: Worker;
  try {
    // This exact form (`new Worker(new URL('<literal relative path>', import.meta.url), { type: 'module' })`) is what
    // Vite, webpack 5 and Parcel recognise to bundle the worker's module graph as an entry of its own.
    worker = new Worker(new URL('./worker.browser.js', import.meta.url), {
      type: 'module',
      name: 'chain-ledger presentation',
    });
  } catch (error) {
    console.warn(`chain-ledger: no presentation Worker (${(error as Error)?.message ?? error}); proving in the page`);
    return undefined;
  }
  let onReply: (reply: WorkerReply) => void = () => {};
  let onFailure: (error: unknown) => void = () => {};
  const ready = new Promise<boolean>((resolve) => {
    worker.addEventListener('message', (event: MessageEvent) => {
      const data = event.data as
        | WorkerReply
        | { ready: true }
        | { warn: string }
        | { keyCacheReport: Parameters<typeof publishKeyCacheReport>[0] };
      if ('ready' in data) return resolve(true);
      if ('warn' in data) return console.warn(data.warn);
      if ('keyCacheReport' in data) return publishKeyCacheReport(data.keyCacheReport);
      onReply(data);
    });
    worker.addEventListener('error', (event: ErrorEvent) => {
      resolve(false); // before `ready`: the script did not load
      onFailure(new Error(`the presentation worker failed: ${event.message ?? 'its script could not run'}`));
    });
    worker.addEventListener('messageerror', () => onFailure(new Error('the presentation worker sent an unreadable message')));
    setTimeout(() => resolve(false), START_TIMEOUT_MS);
    signal?.addEventListener('abort', () => resolve(false), { once: true });
  });
  if (!(await ready)) {
    worker.terminate();
    signal?.throwIfAborted();
    console.warn('chain-ledger: the presentation Worker did not start (is its file in the bundle?); proving in the page');
    return undefined;
  }
  return {
    post: (message) => apply(postToWorker, worker, [message]),
    listen(reply, failure) {
      onReply = reply;
      onFailure = failure;
    },
    terminate: () => worker.terminate(),
  };
}
