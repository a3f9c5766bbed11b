/**
 * One presentation's run over a worker channel (runner.ts starts the worker, in-thread.ts stands in for one): each step
 * is a message of presentation-worker.ts's protocol, bounded in time; the run decides when the worker ends, and whether it goes
 * back warm for the next presentation (Node) or is terminated.
 */
import type { PrecompileMessage, PrepareMessage, Prepared, WorkerMessage, WorkerReply } from './presentation-worker.js';

export interface PresentationRun {
  /** Compiles the request's circuit (the request alone); the `prepare` of the same request that follows reuses it. */
  precompile(input: PrecompileMessage): Promise<{ tagName?: string }>;
  /** Compiles (unless precompiled) and prepares; resolves with the fields the owner must sign. */
  prepare(input: PrepareMessage): Promise<Prepared>;
  /** Proves with the owner's signature (base58); resolves with the Presentation JSON text. */
  finalize(signatureBase58: string): Promise<string>;
  /** Ends the run: persists what the key cache holds (if the run did not finish), then terminates the worker. Idempotent. */
  close(): void;
}

/** A failure inside the run, with the step it happened in (the caller maps it to its error). */
export class PresentationRunError extends Error {
  override readonly name = 'PresentationRunError';
  constructor(
    readonly stage: 'precompile' | 'prepare' | 'finalize' | 'close',
    message: string,
  ) {
    super(message);
  }
}

/**
 * The worker itself failed: it stopped, or threw outside the presentation worker's handling (o1js's wasm has trapped so in browsers), not the
 * presentation. Nothing about the request is known to be wrong, so the caller may run the step again in a fresh worker.
 */
export class PresentationWorkerError extends Error {
  override readonly name = 'PresentationWorkerError';
}

/**
 * A step needed more than the host allows (`PresentationLimits`): its worker was terminated. The request's circuit is
 * what costs, so the step is not run again.
 */
export class PresentationLimitError extends Error {
  override readonly name = 'PresentationLimitError';
  constructor(
    readonly limit: 'time' | 'memory',
    message: string,
  ) {
    super(message);
  }
}

/**
 * What one presentation's host work may take, per step (the compile, then the proof): the cost bound of
 * request-bounds.ts refuses a large circuit before it starts, and these stop what gets past it.
 */
export interface PresentationLimits {
  /** Longest a step may run before its worker is terminated (ms). Node and browsers; in this thread, the call ends. */
  timeMs: number;
  /** Node: the worker thread's JavaScript heap (`resourceLimits.maxOldGenerationSizeMb`, MB). Browsers set their own. */
  memoryMb: number;
}

/**
 * The default limits: 5 minutes a step (a cold compile of a real request takes 20–60 s here, a proof 10–30 s) and a
 * 2 GiB JavaScript heap (the tests' presentation peaks well under 1 GiB of it; the review's 13-minute request grew
 * to 8.5 GB).
 */
export const DEFAULT_PRESENTATION_LIMITS: PresentationLimits = { timeMs: 300_000, memoryMb: 2048 };

/** What the runner needs of a worker, whichever platform's. */
export interface WorkerChannel {
  post(message: WorkerMessage): void;
  /** Replies, and failures of the worker itself (it stopped, or its script failed). */
  listen(onReply: (reply: WorkerReply) => void, onFailure: (error: unknown) => void): void;
  terminate(): void;
  /** Node: hands the worker back, idle and warm, for the next run (else the run terminates it). */
  release?(): void;
}
/** How long a closing run waits for the worker to persist its key cache before it is terminated anyway. */
const CLOSE_GRACE_MS = 10_000;

/**
 * A presentation run over one worker channel, each step bounded by `timeMs` (the worker terminated when it is
 * over). Exported for the runner's own tests (not part of the package's API).
 * @internal
 */
export function runOver(
  channel: WorkerChannel,
  signal: AbortSignal | undefined,
  timeMs = DEFAULT_PRESENTATION_LIMITS.timeMs,
): PresentationRun {
  const run = new ChannelRun(channel, signal, timeMs);
  return {
    precompile: async (input) => run.unwrap(await run.ask({ precompile: input }), (r) => ('precompiled' in r ? r.precompiled : undefined)),
    prepare: async (input) => run.unwrap(await run.ask({ prepare: input }), (r) => ('prepared' in r ? r.prepared : undefined)),
    finalize: async (signature) => {
      const presentation = run.unwrap(await run.ask({ finalize: { signature } }), (r) =>
        'presentation' in r ? r.presentation : undefined,
      );
      run.finished = true; // the worker persisted its key cache before replying
      return presentation;
    },
    close: () => run.close(),
  };
}

/** The step waiting for the worker's reply. */
interface PendingStep {
  resolve: (reply: WorkerReply) => void;
  reject: (error: unknown) => void;
}

/** The state of one run over its channel: the step waiting, and whether the worker ended or may be reused. */
class ChannelRun {
  private closed = false;
  /** The last step replied: the worker persisted its key cache. */
  finished = false;
  /** An error reply or a worker failure: the worker is not reused. */
  private failed = false;
  private pending: PendingStep | undefined;
  /** The worker's own failure, for a step asked after it (the worker failed while idle between two steps). */
  private failure: unknown;

  constructor(
    private readonly channel: WorkerChannel,
    private readonly signal: AbortSignal | undefined,
    private readonly timeMs: number,
  ) {
    channel.listen(
      (reply) => this.onReply(reply),
      (cause) => this.onWorkerFailure(cause),
    );
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** The worker's reply settles the step waiting; an error reply also means the worker is not reused. */
  private onReply(reply: WorkerReply): void {
    if ('error' in reply) this.failed = true;
    this.pending?.resolve(reply);
    this.pending = undefined;
  }

  /**
   * The worker itself failed (it stopped, ran out of memory, or threw outside the presentation worker's handling). It is ended at once, not
   * asked to close (an uncaught error: in a browser it lives on, its o1js state unknown): its work is lost anyway, and
   * the caller may start a fresh one, which must not share the tab's memory with a dead o1js instance's.
   */
  private onWorkerFailure(cause: unknown): void {
    this.failed = true;
    const error = isOutOfMemory(cause)
      ? new PresentationLimitError('memory', "the presentation needed more memory than the host's limit allows")
      : new PresentationWorkerError((cause as Error)?.message ?? String(cause), { cause });
    if (!this.closed) this.failure = error;
    this.fail(this.closed ? (this.signal?.reason ?? new Error('the presentation was cancelled')) : error);
    this.terminate();
  }

  /** The caller cancelled: the step waiting rejects with its reason, and the worker ends. A field: removable. */
  private readonly onAbort = () => {
    this.fail(this.signal!.reason);
    this.terminate();
  };

  /** Rejects the step waiting, if any. */
  private fail(error: unknown): void {
    this.pending?.reject(error);
    this.pending = undefined;
  }

  private terminate(): void {
    if (this.closed) return;
    this.closed = true;
    this.channel.terminate();
  }

  /** The run ended normally: the worker goes back warm where the platform reuses workers (Node), else it ends. */
  private release(): void {
    if (this.closed) return;
    if (this.failed || this.signal?.aborted || this.pending !== undefined || this.channel.release === undefined) {
      this.terminate();
    } else {
      this.closed = true;
      this.channel.release();
    }
  }

  /** Sends one step to the worker and waits for its reply, within the time limit (a close has its own grace period). */
  ask(message: WorkerMessage): Promise<WorkerReply> {
    if (this.closed) return Promise.reject(this.signal?.reason ?? this.failure ?? new Error('the presentation run is closed'));
    return new Promise<WorkerReply>((resolve, reject) => {
      const timer = 'close' in message ? undefined : setTimeout(() => this.overTime(), this.timeMs);
      this.pending = {
        resolve: (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.channel.post(message);
    });
  }

  /** A step over the time limit: its worker terminated, the step refused. */
  private overTime(): void {
    this.failed = true;
    this.fail(new PresentationLimitError('time', `a presentation step took longer than the host's limit (${this.timeMs / 1000} s)`));
    this.terminate();
  }

  /** The value a step's reply carries (`pick`), or the step's failure as an error. */
  unwrap<T>(reply: WorkerReply, pick: (r: WorkerReply) => T | undefined): T {
    if ('error' in reply && reply.error.trapped) {
      // o1js's wasm trapped in the worker: its instance is not to be trusted again (nor its memory kept).
      this.terminate();
      throw new PresentationWorkerError(`o1js's wasm trapped in the presentation worker: ${reply.error.message}`);
    }
    if ('error' in reply) throw new PresentationRunError(reply.error.stage, reply.error.message);
    const value = pick(reply);
    if (value === undefined) throw new Error('unexpected reply from the presentation worker');
    return value;
  }

  /** Ends the run (idempotent): the worker released, terminated, or first asked to persist its key cache. */
  close(): void {
    this.signal?.removeEventListener('abort', this.onAbort);
    if (this.closed) return;
    if (this.finished) this.release();
    else if (this.signal?.aborted || this.pending !== undefined) this.terminate();
    else this.persistThenEnd();
  }

  /**
   * Rejected or failed between the steps: lets the worker persist what o1js wrote, then ends it (never waits forever);
   * in Node a worker that acknowledged the close after a good prepare is kept warm.
   */
  private persistThenEnd(): void {
    const grace = setTimeout(() => this.terminate(), CLOSE_GRACE_MS);
    this.ask({ close: true })
      .then((reply) => ('closed' in reply ? this.release() : this.terminate()))
      .catch(() => this.terminate())
      .finally(() => clearTimeout(grace));
  }
}

/** Node's report of a worker that reached its heap limit (`resourceLimits`). */
function isOutOfMemory(cause: unknown): boolean {
  return (cause as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
}
