/**
 * The compile and the proof of presentations, off the main thread (Node `worker_threads`): started by
 * runner.ts, which terminates it when a presentation is aborted or fails, and otherwise keeps it warm for
 * the next presentation of the process (o1js loaded, its SRS decoded, the last specs' compiled programs kept:
 * `reuseCompiled`). The protocol and the work are presentation-worker.ts's (the browser's Worker,
 * worker.browser.ts, runs the same, one Worker per presentation).
 */
import { parentPort } from 'node:worker_threads';
import { presentationWorker, type WorkerMessage } from './presentation-worker.js';

export type { PrepareMessage, WorkerReply } from './presentation-worker.js';

if (parentPort) {
  const port = parentPort;
  const worker = presentationWorker({ reuseCompiled: true });
  // One message at a time, in order (the runner never sends the next before the reply).
  let queue: Promise<unknown> = Promise.resolve();
  port.on('message', (message: WorkerMessage) => {
    queue = queue.then(async () => port.postMessage(await worker(message)));
  });
}
