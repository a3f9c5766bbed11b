/**
 * chain_requestPresentation: prove, with mina-attestations, that stored credentials satisfy a verifier's request.
 * The proof runs on the host (in a worker where one can start, else in this thread); the owner's signature over the
 * request's message fields is made on the Ledger and checked on the host before proving.
 *
 * Ask, then compute (docs/credentials.md, "The order"): what the request says is checked and its circuit's compile
 * started (it depends on the request alone, and is told to nobody), then the holder reviews the request
 * (`confirmPresentation`, consent.ts) before anything is read from the store or evaluated on it; only once they
 * approved are their credentials chosen and evaluated, and the stages told as they start (`ctx.progress`, and
 * `ctx.onConfirm` for the device step):
 *
 *   load the prover (`loading-prover`) → validate the request (validate.ts) → precompile (prove.ts, silent)
 *     → the holder's review (consent.ts, `awaiting-approval`) → choose and check them (choose.ts, satisfies.ts)
 *     → prepare (prove.ts, `compiling`) → sign on the device (sign-on-device.ts, `confirm-on-device`)
 *     → finalize (prove.ts, `proving`) → { presentation }
 *
 * Nothing from the prover, the compiler or mina-attestations reaches the page: each stage's page-facing reason is a
 * fixed text, its detail for the host's log only (`withHostDetail`).
 */
import type { AttestationsModules } from '../upstream/attestations.js';
import { attestationsLoaded, loadAttestations } from '#upstream/attestations';
import { askHolder, requireReviewer, tellHolder } from './consent.js';
import { type PresentationContext, isDeclined } from './context.js';
import { PresentationProof } from './prove.js';
import { NOT_SATISFIED } from './satisfies.js';
import { signOnDevice } from './sign-on-device.js';
import { validateRequest } from './validate.js';

export type {
  ConfirmPresentation,
  CredentialCandidate,
  CredentialChoice,
  PresentationAnswer,
  PresentationContext,
  PresentationNotSatisfied,
  PresentationReview,
  SelectCredentials,
} from './context.js';

/** A presentation of the account's stored credentials for `requestJson` (mina-attestations' request JSON). */
export async function requestPresentation(
  ctx: PresentationContext,
  requestJson: Record<string, unknown>,
): Promise<{ presentation: string }> {
  const modules = await loadProver(ctx);
  const request = validateRequest(ctx, modules, requestJson);
  requireReviewer(ctx); // after what the request says (public, as is who reviews it), before anything else
  const { type, text, verifierIdentity } = request;
  const proof = new PresentationProof(ctx, { type, request: text, verifierIdentity });
  try {
    // The compile depends on the request alone: it runs while the holder reads it, and nobody is told.
    const compiled = proof.precompile();
    compiled.catch(() => {}); // observed by the review; without one, `prepare` meets the same failure
    const { chosen, review } = await askHolder(ctx, modules, request, compiled);
    const prepared = await proof.prepare(chosen.map(({ key, json }) => ({ key, json })));
    const signature = await signOnDevice(ctx, modules.o1js, request, prepared);
    const presentation = await proof.finalize(signature).catch(async (error: unknown) => {
      // A proof that fails (mina-attestations matched the credential loosely): the holder is told, as after the check.
      if (isDeclined(error)) await tellHolder(ctx, review, NOT_SATISFIED);
      throw error;
    });
    ctx.signal?.throwIfAborted(); // an aborted call never gets a result
    return { presentation };
  } finally {
    proof.close();
  }
}

/** o1js and mina-attestations, told as a stage when they must be imported (seconds, the first time in a page or process). */
function loadProver(ctx: Pick<PresentationContext, 'progress'>): Promise<AttestationsModules> {
  if (!attestationsLoaded()) ctx.progress?.('loading-prover');
  return loadAttestations();
}
