/**
 * The prepare and finalize stages of a presentation: its compile and its proof, on a worker where one can start
 * (runner.ts), else in this thread (in-thread.ts), over the same presentation worker protocol either way. The device step runs
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
import type { Prepared, PrepareMessage } from './presentation-worker.js';

type ProofContext = Pick<PresentationContext, 'signal' | 'o1jsCacheBytes' | 'progress' | 'presentationLimits'>;

/** The request a proof is for: everything of `PrepareMessage` but the chosen credentials. */
export type ProofRequest = Omit<PrepareMessage, 'credentials' | 'again' | 'retry'>;

/**
 * One presentation's compile and proof of `request`, on the run they happen on: a worker, else this thread; replaced
 * by a fresh one when its worker fails. The compile can start before any credential is chosen (`precompile`: it
 * depends on the request alone); `prepare` then takes the chosen credentials.
 */
export class PresentationProof {
  /** The run now (a fresh one replaces it when its worker fails), once started. */
  #run: Promise<PresentationRun> | undefined;
  /** The precompile's outcome, once asked for. */
  #compile: Promise<unknown> | undefined;
  /** What was prepared, and from what (a proof prepared again in a fresh worker needs both). */
  #prepared: { input: PrepareMessage; prepared: Prepared } | undefined;
  #closed = false;
  /**
   * The stage the call is in, once the holder approved (`prepare`): undefined while the compile runs silently
   * before consent, when nothing of it is told to the page (not even a wait for the prover window).
   */
  #stage: { step: 'compiling' | 'proving'; retry?: true } | undefined;
  /** The run's start waits for the user (the wallet's prover window). */
  #waiting = false;

  constructor(
    private readonly ctx: ProofContext,
    private readonly request: ProofRequest,
  ) {}

  /**
   * Starts compiling the request's circuit now, silently (no stage is told): it depends on the request alone, so it
   * runs while the holder reads the request. Resolves when it is done; rejects only with the request's own refusal
   * (its circuit over the host's limits, a spec that does not compile), which depends on nothing of the holder's. A
   * worker that fails is not reported here: `prepare` compiles again in a fresh one. An abort resolves.
   */
  precompile(): Promise<void> {
    this.#compile ??= this.#started().then((run) => run.precompile({ type: this.request.type, request: this.request.request }));
    return this.#compile.then(
      () => undefined,
      (error: unknown) => {
        if (this.ctx.signal?.aborted || error instanceof PresentationWorkerError) return;
        throw this.#stageError(error, 'prepare', (detail) =>
          withHostDetail(invalidParams(REQUEST_FIELD, 'cannot prepare a presentation for this request'), detail),
        );
      },
    );
  }

  /** Prepares with the chosen credentials (compiling first, unless the precompile did): resolves with the fields the owner signs. */
  async prepare(credentials: PrepareMessage['credentials']): Promise<Prepared> {
    // The holder approved: now the compile (usually done already) is the call's stage, or the wait for the prover
    // window, if the run that started silently still waits for it.
    this.#enter('compiling');
    const input: PrepareMessage = { ...this.request, credentials };
    let prepared: Prepared;
    try {
      // Nothing is signed yet: a fresh worker prepares from scratch.
      prepared = await this.#retryInFreshWorker('compiling', async (run, retry) => {
        if (!retry) await this.#compile; // its worker's failure is this attempt's (→ a fresh worker)
        return run.prepare(retry ? { ...input, retry } : input);
      });
    } catch (error) {
      throw this.#stageError(error, 'prepare', (detail) =>
        withHostDetail(invalidParams(REQUEST_FIELD, 'cannot prepare a presentation for this request'), detail),
      );
    }
    await pruneO1jsCache(prepared.tagName, this.ctx.o1jsCacheBytes ?? DEFAULT_O1JS_CACHE_BYTES);
    this.#prepared = { input, prepared };
    return prepared;
  }

  /** Proves with the owner's signature (base58): resolves with the Presentation JSON text. */
  async finalize(signatureBase58: string): Promise<string> {
    if (this.#prepared === undefined) throw new Error('finalize before prepare');
    const { input, prepared } = this.#prepared;
    // The owner has signed already: a fresh worker proves that, prepared with the same client nonce and context.
    const again = { clientNonce: prepared.clientNonce, context: prepared.messageFields[0]! };
    try {
      this.ctx.signal?.throwIfAborted(); // before proving
      this.#enter('proving');
      return await this.#retryInFreshWorker('proving', async (run, retry) => {
        if (retry) await run.prepare({ ...input, retry, again });
        return run.finalize(signatureBase58);
      });
    } catch (error) {
      // mina-attestations matches a credential to a request loosely (e.g. a data shape it cannot check before
      // proving), and not every assertion fails outside the circuit (satisfies.ts): the proof is where a credential
      // that does not satisfy the request finally fails. o1js's text then holds private wire values: host log only.
      throw this.#stageError(error, 'finalize', notSatisfied);
    }
  }

  /** Ends the run (idempotent), also one still starting: its worker kept warm where the platform reuses workers, else terminated. */
  close(): void {
    this.#closed = true;
    void this.#run?.then(
      (run) => run.close(),
      () => {},
    );
  }

  /** The call enters `step` (after the holder's approval): told now, as the wait for the prover window if the run waits. */
  #enter(step: 'compiling' | 'proving'): void {
    this.#stage = { step };
    this.#report();
  }

  /** Tells the page the call's stage: nothing before consent; the prover-window wait while the run waits for it. */
  #report(): void {
    const stage = this.#stage;
    if (stage === undefined) return;
    if (this.#waiting) this.ctx.progress?.('waiting-for-prover-window');
    else this.ctx.progress?.(stage.step, stage.retry ? { retry: true } : undefined);
  }

  /** The current run, started on first use; one started after `close` is closed at once. */
  #started(): Promise<PresentationRun> {
    this.#run ??= startRun(this.ctx, (waiting) => {
      this.#waiting = waiting;
      this.#report();
    }).then((run) => {
      if (this.#closed) run.close();
      return run;
    });
    return this.#run;
  }

  /**
   * `attempt` on the current run; if its worker fails (not the presentation: a PresentationWorkerError), once more
   * on a fresh run, the failed worker terminated first (a browser Worker outlives an uncaught error, and two o1js
   * instances' memory is more than a tab may have). The reports of the fresh run's key cache are marked `retry`.
   */
  async #retryInFreshWorker<T>(step: 'compiling' | 'proving', attempt: (run: PresentationRun, retry: boolean) => Promise<T>): Promise<T> {
    const run = await this.#started();
    try {
      return await attempt(run, false);
    } catch (error) {
      if (this.ctx.signal?.aborted || !(error instanceof PresentationWorkerError)) throw error;
      run.close();
      console.warn(`chain-ledger: the presentation worker failed while ${step} (${error.message}); ${step} once more in a fresh worker`);
      this.#stage = { step, retry: true };
      this.#report();
      this.#run = undefined;
      return await attempt(await this.#started(), true);
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
 * A start that waits for the user (the wallet's prover window) is told to `onWaiting` (true, then false once it goes
 * on), which the proof reports as the stage `waiting-for-prover-window` once the holder has approved.
 */
async function startRun(ctx: ProofContext, onWaiting: (waiting: boolean) => void): Promise<PresentationRun> {
  const { signal, presentationLimits: limits = DEFAULT_PRESENTATION_LIMITS } = ctx;
  return (await startPresentationRun(signal, limits, onWaiting)) ?? runOver(inThreadChannel(), signal, limits.timeMs);
}
