/**
 * Ask, then compute: the holder's review of a presentation request, before anything is read from the credential
 * store or evaluated on it (docs/credentials.md, "The order").
 *
 * The review (`confirmPresentation`) shows only what the request says, and lets the host list the stored credentials
 * that could serve it (`candidates()`, for the holder's eyes: the store's unlocking is kept from the page's stages).
 * Until the holder answers, nothing the page can observe depends on the store: one stage (`awaiting-approval`), told
 * to every valid request at once, then nothing until the holder's answer or the page's cancel. A refusal, a cancel, a
 * request no stored credential fits and one the chosen credentials do not satisfy all end in the same `ProviderError`
 * (`declined()`: one code, one message, one reason), and the last two only after the holder approved and was told why
 * (`onPresentationNotSatisfied`).
 */
import { ErrorCode, ProviderError, detailOf, hostDetailOf, isProviderError } from '../errors/provider-error.js';
import type { AttestationsModules } from '../upstream/attestations.js';
import { type Candidates, type ChosenCredential, SelectionCancelled, candidateView, choose, findCandidates } from './choose.js';
import { declined, type PresentationAnswer, type PresentationContext, type PresentationReview } from './context.js';
import { describeRequest } from './review.js';
import { NOT_SATISFIED, checkSatisfied } from './satisfies.js';
import type { ValidRequest } from './validate.js';

/**
 * 20006 before anything else when nobody would review the request: without `confirmPresentation` the host would
 * answer for the holder, and a page could probe the store (unless `allowUnreviewedPresentations` says so on purpose).
 */
export function requireReviewer(ctx: Pick<PresentationContext, 'confirmPresentation' | 'allowUnreviewedPresentations'>): void {
  if (typeof ctx.confirmPresentation === 'function' || ctx.allowUnreviewedPresentations === true) return;
  throw new ProviderError(ErrorCode.MethodNotSupported, {
    reason:
      'requestPresentation needs the host to ask the holder first: give the provider a confirmPresentation hook (or allowUnreviewedPresentations, which lets any page it serves probe the stored credentials)',
  });
}

/**
 * The holder's review of `request`, then (approved) the credentials chosen for it, satisfying it, and the review (for
 * a later notice). `compiled` is the precompile started before the review: its failure (the request's own) ends the
 * review at once.
 * @throws `declined()` for a refusal, a cancel, no fitting credential or credentials that do not satisfy it; the
 *   compile's refusal; a 1001 when the connection ended.
 */
export async function askHolder(
  ctx: PresentationContext,
  modules: AttestationsModules,
  request: ValidRequest,
  compiled: Promise<void>,
): Promise<{ chosen: ChosenCredential[]; review: PresentationReview }> {
  const listed = onceSucceeded(() => (ctx.privately ?? ((step) => step()))(() => findCandidates(ctx, modules, request)));
  const ended = new AbortController();
  const review: PresentationReview = {
    ...describeRequest(ctx.origin, request),
    signal: ended.signal,
    candidates: async () => {
      const found = await listed();
      return Object.fromEntries(Object.entries(found).map(([key, list]) => [key, list.map((c) => candidateView(modules.attestations, c))]));
    },
  };
  let answer: PresentationAnswer;
  try {
    answer = ctx.confirmPresentation ? await reviewed(ctx, review, compiled) : true;
  } finally {
    ended.abort(new DOMException('the review is over', 'AbortError'));
  }
  if (answer !== true && !isChoice(answer)) throw declined();
  // Approved: from here on the holder has seen what the request asks, and the stages may be the page's again.
  return { chosen: await chosenAndSatisfied(ctx, modules, request, review, await listed(), answer), review };
}

/** The hook's answer, or `declined()` as soon as the page cancels; the compile's own refusal ends the review too. */
async function reviewed(ctx: PresentationContext, review: PresentationReview, compiled: Promise<void>): Promise<PresentationAnswer> {
  ctx.progress?.('awaiting-approval');
  const signal = ctx.signal;
  if (signal?.aborted) throw isProviderError(signal.reason) ? signal.reason : declined(); // cancelled already: nobody is asked
  const answer = new Promise<PresentationAnswer>((resolve) => resolve(ctx.confirmPresentation!(review))).catch(() => false as const);
  let onAbort: () => void = () => {};
  const cancelled = new Promise<never>((_, reject) => {
    onAbort = () => reject(isProviderError(signal?.reason) ? signal.reason : declined());
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  // The compile never answers for the holder: it ends the review only by failing (a refusal of the request itself).
  const compileFailed = compiled.then(() => new Promise<never>(() => {}));
  try {
    return await Promise.race([answer, cancelled, compileFailed]);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * The holder approved: the credentials of `answer`, their assertion evaluated (satisfies.ts). What cannot be made is
 * told to the holder (`onPresentationNotSatisfied`), then answered as a refusal.
 */
async function chosenAndSatisfied(
  ctx: PresentationContext,
  modules: AttestationsModules,
  request: ValidRequest,
  review: PresentationReview,
  candidates: Candidates,
  answer: true | Record<string, string>,
): Promise<ChosenCredential[]> {
  let chosen: Awaited<ReturnType<typeof choose>>;
  try {
    chosen = await choose(ctx, request.type, candidates, answer);
  } catch (error) {
    if (error instanceof SelectionCancelled) throw declined(`selectCredentials cancelled: ${error.message}`);
    throw error;
  }
  let unmet: string | undefined;
  let detail: string | undefined;
  if ('reason' in chosen) unmet = chosen.reason;
  else {
    try {
      checkSatisfied(modules, request, chosen);
      return chosen;
    } catch (error) {
      unmet = NOT_SATISFIED;
      detail = hostDetail(error);
    }
  }
  await tellHolder(ctx, review, unmet);
  throw declined(detail ?? `after approval: ${unmet}`);
}

/** Tells the holder why the approved request cannot be presented; a failing hook changes nothing. */
export async function tellHolder(ctx: PresentationContext, review: PresentationReview, reason: string): Promise<void> {
  try {
    await ctx.onPresentationNotSatisfied?.({ review, reason });
  } catch {
    // The holder's notice must not change what the page gets.
  }
}

function hostDetail(error: unknown): string {
  return `after approval: ${hostDetailOf(error) ?? detailOf(error)}`;
}

/** An object of input key → credential id (strings), as `PresentationAnswer` allows. */
function isChoice(answer: unknown): answer is Record<string, string> {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return false;
  return Object.values(answer).every((id) => typeof id === 'string');
}

/** `make()` once it has succeeded (a failure is not kept: the next call tries again, e.g. after a rejected store-key prompt). */
function onceSucceeded<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    if (made === undefined) {
      const attempt = make();
      made = attempt;
      attempt.catch(() => {
        if (made === attempt) made = undefined;
      });
    }
    return made;
  };
}
