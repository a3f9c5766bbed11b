/**
 * One presentation made by the presentation domain in this process, outside vitest (a child process a test starts,
 * e.g. with `node --input-type=module -e …`): the tests' issuer and request, a store in a temporary directory, the
 * software Ledger approving; resolves with what mina-attestations' verifier says the output claim is, compared with
 * the issuer's hash ("verified", or why not).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requestPresentation } from '../../src/presentations/request-presentation.js';
import { closeIdlePresentationWorker, presentationWorkers } from '../../src/presentations/runner.js';
import { credentialIssuer, issuerHash, verifiedOutput } from './credentials.js';
import { presentationContext } from './presentation-context.js';
import { ORIGIN } from './rig.js';
import { addressOf } from './vectors.js';

export async function presentOnce(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'chain-ledger-present-once-'));
  try {
    const issuer = await credentialIssuer();
    const { ctx } = await presentationContext(dir, [issuer.issue(addressOf(0))]);
    const { req, json } = issuer.presentationRequest();
    const { presentation } = await requestPresentation(ctx, json);
    const output = await verifiedOutput(issuer.A, req, presentation, ORIGIN);
    const workers = presentationWorkers().started;
    return output === issuerHash(issuer.A, issuer.key) ? `verified, ${workers} worker(s)` : `wrong output ${output}`;
  } finally {
    closeIdlePresentationWorker();
    rmSync(dir, { recursive: true, force: true });
  }
}
