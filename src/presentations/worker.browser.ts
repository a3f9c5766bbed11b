/**
 * The compile and the proof of an in-browser presentation, in a dedicated module Worker, so that the page stays
 * responsive while o1js works (its calling thread busy-waits on o1js's own workers: on the page's main thread that
 * froze the tab for minutes). Started by runner.ts, one Worker per presentation (o1js 2.x can hang on a
 * second proof in one instance with a populated cache, o1js#2870; a fresh Worker also frees o1js's wasm memory).
 *
 * The work is presentation-worker.ts's, as in Node's worker thread; o1js's kimchi calls run on this thread
 * (o1js-worker-bindings.ts), not forwarded to a worker of o1js's that this thread would busy-wait for. The key cache (IndexedDB works in workers) is
 * used from here; its reports are posted to the page, which logs them and dispatches them as the page's
 * `chain-ledger:key-cache` event, as when o1js ran in the page.
 */
import { loadO1js } from '../upstream/o1js.js';
import { setKeyCacheReporter } from './indexeddb-key-cache.js';
import { runKimchiOnThisThread } from './o1js-worker-bindings.js';
import { presentationWorker, type WorkerMessage } from './presentation-worker.js';

interface WorkerScope {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (event: { data: WorkerMessage }) => void): void;
}

const scope = globalThis as unknown as WorkerScope;
setKeyCacheReporter((report) => scope.postMessage({ keyCacheReport: report }));
const worker = presentationWorker();
// Before anything else starts o1js: its kimchi calls on this thread, not forwarded to a busy-waited worker.
// Warnings go to the page, which logs them (a Worker's console is easy to miss).
const warn = (text: string) => scope.postMessage({ warn: text });
const bindings = loadO1js()
  .then(runKimchiOnThisThread)
  .then(
    (why) => why !== undefined && warn(`chain-ledger: o1js forwards its calls in the presentation Worker (${why})`),
    (error) => warn(`chain-ledger: o1js could not be prepared in the presentation Worker: ${(error as Error)?.message ?? error}`),
  );
// One message at a time, in order (the caller never sends the next before the reply, but a close may follow an abort).
let queue: Promise<unknown> = bindings;
scope.addEventListener('message', (event) => {
  queue = queue.then(async () => scope.postMessage(await worker(event.data)));
});
// The module graph loaded: the page may send the first message (it proves in its own thread if this never comes).
scope.postMessage({ ready: true });
