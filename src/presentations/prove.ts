/**
 * The prepare and finalize stages of a presentation: its compile and its proof, on a worker where one can start
 * (runner.ts), else in this thread (in-thread.ts), over the same session protocol either way. The device step runs
 * between them, in the caller.
 *
 * A worker that fails while compiling or proving (it stopped, or o1js's wasm trapped in it: o1js#2870's family in
 * browsers, "unaligned accesses", "memory access out of bounds") is not the request's fault: the step runs once more
 * in a fresh worker (`retryInFreshWorker`); a second failure is 22001. An error of the presentation itself (one the
 * worker reports) is the request's: 20003, not retried.
 */
import { ErrorCode, ProviderError, detailOf, invalidParams, withHostDetail } from '../errors/provider-error.js';
import { REQUEST_FIELD, type PresentationContext } from './context.js';
import { inThreadChannel } from './in-thread.js';
import { DEFAULT_O1JS_CACHE_BYTES, pruneO1jsCache } from './o1js-cache.js';
import {
  DEFAULT_PRESENTATION_LIMITS,
  PresentationLimitError,
  PresentationWorkerError,
  runOver,
  startPresentationRun,
  type PresentationRun,
} from './runner.js';
import { notSatisfied } from './satisfies.js';
import type { Prepared, PrepareMessage } from './session.js';

type ProofContext = Pick<PresentationContext, 'signal' | 'o1jsCacheBytes' | 'progress' | 'presentationLimits'>;

/**
 * One presentation's compile and proof of `input` (the request and the chosen credentials), on the run they happen on:
 * a worker, else this thread; replaced by a fresh one when its worker fails.
 */
export class PresentationProof {
  #run: PresentationRun | undefined;
  #prepared: Prepared | undefined;

  constructor(
    private readonly ctx: ProofContext,
    private readonly input: PrepareMessage,
  ) {}

  /** Compiles and prepares: resolves with the fields the owner signs. */
  async prepare(): Promise<Prepared> {
    this.ctx.progress?.('compiling'); // a worker's start is part of it (its o1js loads there)
    this.#run = await startRun(this.ctx, 'compiling');
    let prepared: Prepared;
    try {
      // Nothing is signed yet: a fresh worker prepares from scratch.
      prepared = await this.#retryInFreshWorker('compiling', (run, retry) => run.prepare(retry ? { ...this.input, retry } : this.input));
    } catch (error) {
      throw this.#stageError(error, 'prepare', (detail) =>
        withHostDetail(invalidParams(REQUEST_FIELD, 'cannot prepare a presentation for this request'), detail),
      );
    }
    await pruneO1jsCache(prepared.tagName, this.ctx.o1jsCacheBytes ?? DEFAULT_O1JS_CACHE_BYTES);
    this.#prepared = prepared;
    return prepared;
  }

  /** Proves with the owner's signature (base58): resolves with the Presentation JSON text. */
  async finalize(signatureBase58: string): Promise<string> {
    const prepared = this.#prepared;
    if (prepared === undefined) throw new Error('finalize before prepare');
    // The owner has signed already: a fresh worker proves that, prepared with the same client nonce and context.
    const again = { clientNonce: prepared.clientNonce, context: prepared.messageFields[0]! };
    try {
      this.ctx.signal?.throwIfAborted(); // before proving
      this.ctx.progress?.('proving');
      return await this.#retryInFreshWorker('proving', async (run, retry) => {
        if (retry) await run.prepare({ ...this.input, retry, again });
        return run.finalize(signatureBase58);
      });
    } catch (error) {
      // mina-attestations matches a credential to a request loosely (e.g. a data shape it cannot check before
      // proving), and not every assertion fails outside the circuit (satisfies.ts): the proof is where a credential
      // that does not satisfy the request finally fails. o1js's text then holds private wire values: host log only.
      throw this.#stageError(error, 'finalize', notSatisfied);
    }
  }

  /** Ends the run (idempotent): its worker kept warm where the platform reuses workers, else terminated. */
  close(): void {
    this.#run?.close();
  }

  /**
   * `attempt` on the current run; if its worker fails (not the presentation: a PresentationWorkerError), once more
   * on a fresh run, the failed worker terminated first (a browser Worker outlives an uncaught error, and two o1js
   * instances' memory is more than a tab may have). The reports of the fresh run's key cache are marked `retry`.
   */
  async #retryInFreshWorker<T>(step: 'compiling' | 'proving', attempt: (run: PresentationRun, retry: boolean) => Promise<T>): Promise<T> {
    try {
      return await attempt(this.#run!, false);
    } catch (error) {
      if (this.ctx.signal?.aborted || !(error instanceof PresentationWorkerError)) throw error;
      this.#run!.close();
      console.warn(`chain-ledger: the presentation worker failed while ${step} (${error.message}); ${step} once more in a fresh worker`);
      this.ctx.progress?.(step, { retry: true });
      this.#run = await startRun(this.ctx, step, true);
      return await attempt(this.#run, true);
    }
  }

  /**
   * A stage's failure as the caller sees it: the abort's reason, 22001 for a worker that failed twice, else the
   * stage's own 20003 (`refusal`). Page-facing reasons are fixed texts; the prover's or worker's text (an
   * unsatisfied constraint prints private wire values) is the host log's only.
   */
  #stageError(error: unknown, stage: 'prepare' | 'finalize', refusal: (detail: string) => ProviderError): unknown {
    if (this.ctx.signal?.aborted) return this.ctx.signal.reason;
    if (error instanceof ProviderError) return error;
    const detail = `presentation ${stage}: ${detailOf(error)}`;
    if (error instanceof PresentationLimitError) {
      // The request's circuit is what costs: refused, its worker terminated (our own text, nothing of the prover's).
      return invalidParams(`${REQUEST_FIELD}.spec`, `the request needs more than this host allows: ${error.message}`);
    }
    if (error instanceof PresentationWorkerError) {
      const reason = "the presentation worker failed twice (the host's log has the details)";
      return withHostDetail(new ProviderError(ErrorCode.Internal, { reason }), detail);
    }
    return refusal(detail);
  }
}

/**
 * A run on a worker, else (none can start) in this thread: in a browser the page is busy meanwhile. Each step within
 * the limits (a step in this thread cannot be stopped: over the time limit the call ends, the step's result dropped).
 * A start that waits for the user (the wallet's prover window) is the stage `waiting-for-prover-window`, then `step`
 * again once it goes on.
 */
async function startRun(ctx: ProofContext, step: 'compiling' | 'proving', retry = false): Promise<PresentationRun> {
  const { signal, presentationLimits: limits = DEFAULT_PRESENTATION_LIMITS } = ctx;
  const onWaiting = (waiting: boolean) =>
    waiting ? ctx.progress?.('waiting-for-prover-window') : ctx.progress?.(step, retry ? { retry } : undefined);
  return (await startPresentationRun(signal, limits, onWaiting)) ?? runOver(inThreadChannel(), signal, limits.timeMs);
}
