/**
 * chain_requestPresentation: prove, with mina-attestations, that stored credentials satisfy a verifier's request.
 * The proof runs on the host (in a worker where one can start, else in this thread); the owner's signature over the
 * request's message fields is made on the Ledger and checked on the host before proving. One stage per step, each in
 * its own module, each told as it starts (`ctx.progress`, and `ctx.onConfirm` for the device step):
 *
 *   load the prover (`loading-prover`) → validate the request (validate.ts) → choose credentials (choose.ts)
 *     → check that they satisfy it, outside the circuit (satisfies.ts) → prepare (prove.ts, `compiling`)
 *     → sign on the device (sign-on-device.ts, `confirm-on-device`) → finalize (prove.ts, `proving`) → { presentation }
 *
 * Nothing from the prover, the compiler or mina-attestations reaches the page: each stage's page-facing reason is a
 * fixed text, its detail for the host's log only (`withHostDetail`).
 */
import type { AttestationsModules } from '../upstream/attestations.js';
import { attestationsLoaded, loadAttestations } from '#upstream/attestations';
import { chooseCredentials } from './choose.js';
import type { PresentationContext } from './context.js';
import { PresentationProof } from './prove.js';
import { checkSatisfied } from './satisfies.js';
import { signOnDevice } from './sign-on-device.js';
import { validateRequest } from './validate.js';

export type { CredentialChoice, PresentationContext, SelectCredentials } from './context.js';

/** A presentation of the account's stored credentials for `requestJson` (mina-attestations' request JSON). */
export async function requestPresentation(
  ctx: PresentationContext,
  requestJson: Record<string, unknown>,
): Promise<{ presentation: string }> {
  const modules = await loadProver(ctx);
  const request = validateRequest(ctx, modules, requestJson);
  const chosen = await chooseCredentials(ctx, modules, request);
  checkSatisfied(modules, request, chosen);
  const { type, text, verifierIdentity } = request;
  const credentials = chosen.map(({ key, json }) => ({ key, json }));
  const proof = new PresentationProof(ctx, { type, request: text, credentials, verifierIdentity });
  try {
    const prepared = await proof.prepare();
    const signature = await signOnDevice(ctx, modules.o1js, request, prepared);
    const presentation = await proof.finalize(signature);
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
