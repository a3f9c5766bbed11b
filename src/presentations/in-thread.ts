/**
 * The presentation worker (presentation-worker.ts) served in this thread: the fallback where no worker can start (no `Worker`, a
 * bundle that left the worker file out, a worker script that fails to load, o1js's wasm backend in Node). The runner
 * drives it as it drives a worker, so a presentation runs the same stages either way; only the thread differs, and
 * this one is busy while o1js works (which is why a worker is preferred).
 *
 * Replies are copies, as a worker's are (structured clone), so neither side holds the other's objects. An aborted run
 * "terminates" this channel: the step in flight cannot be stopped, its late reply is dropped, and the worker is
 * closed after it (its key cache persisted and dropped).
 */
import type { WorkerChannel } from './runner.js';
import { presentationWorker, type WorkerMessage, type WorkerReply } from './presentation-worker.js';

/** A channel to `worker` (by default a fresh presentation worker, without reuse of compiled programs) in this thread. */
export function inThreadChannel(worker: (message: WorkerMessage) => Promise<WorkerReply> = presentationWorker()): WorkerChannel {
  let onReply: (reply: WorkerReply) => void = () => {};
  let onFailure: (error: unknown) => void = () => {};
  let ended = false;
  // One message at a time, in order, as a worker takes them.
  let queue: Promise<unknown> = Promise.resolve();
  const serve = (message: WorkerMessage) => {
    queue = queue
      .then(async () => {
        const reply = await worker(message);
        if (!ended) onReply(structuredClone(asThisThreads(reply)));
      })
      .catch((error: unknown) => ended || onFailure(error)); // the worker replies to its own errors: this is ours
  };
  return {
    post: serve,
    listen(reply, failure) {
      onReply = reply;
      onFailure = failure;
    },
    terminate() {
      if (ended) return;
      ended = true;
      queue = queue.then(() => worker({ close: true })).catch(() => {});
    },
  };
}

/**
 * A wasm trap here is not a worker's failure to retry elsewhere: a fresh run would be served by this very thread's
 * o1js instance. It is reported as the step's error, as any other.
 */
function asThisThreads(reply: WorkerReply): WorkerReply {
  if (!('error' in reply) || !reply.error.trapped) return reply;
  const { stage, message } = reply.error;
  return { error: { stage, message } };
}
