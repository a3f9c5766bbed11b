/**
 * A worker that dies while proving (o1js's wasm has trapped that way in the browser: "operation does not support
 * unaligned accesses", "memory access out of bounds") does not cost the user the presentation they approved: the
 * proof is made once more in a fresh worker, prepared with the same client nonce and context, so that the owner's
 * signature still fits. A failure of the presentation itself (an error the worker reports) is not retried.
 *
 * The first run's proof is made to fail as a dying worker fails (a plain Error from the worker channel); everything
 * else is the real pipeline, and the presentation is checked by mina-attestations' verifier.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FileCredentialStore } from '../../src/credentials/node.js';
import * as runner from '../../src/credentials/presentation-runner.js';
import type { PrepareMessage } from '../../src/credentials/presentation-session.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { credentialIssuer, issuerHash, verifiedOutput, type Issuer } from '../support/credentials.js';
import { addressOf } from '../support/vectors.js';
import { ORIGIN, connectedWith, tempDirs } from '../support/rig.js';

/** How the first run's proof fails in this test, and what the runs were asked to prepare. */
const plan: { firstFinalize?: () => Error; prepared: PrepareMessage[]; started: number } = { prepared: [], started: 0 };

vi.mock('../../src/credentials/presentation-runner.js', async (importOriginal) => {
  const actual = await importOriginal<typeof runner>();
  return {
    ...actual,
    async startPresentationRun(signal?: AbortSignal) {
      const run = await actual.startPresentationRun(signal);
      if (run === undefined) return undefined;
      const first = plan.started++ === 0;
      return {
        prepare: (input: PrepareMessage) => (plan.prepared.push(input), run.prepare(input)),
        finalize: (signature: string) => {
          if (first && plan.firstFinalize) {
            run.close(); // the worker is gone
            return Promise.reject(plan.firstFinalize());
          }
          return run.finalize(signature);
        },
        close: () => run.close(),
      };
    },
  };
});

const tempDir = tempDirs('retry');
let issuer: Issuer;
beforeAll(async () => {
  issuer = await credentialIssuer();
}, 60_000);
afterAll(() => runner.closeIdlePresentationWorker());

const connected = connectedWith({ extensions: true }, () => ({ credentialStore: new FileCredentialStore(tempDir()) }));

describe('a presentation whose worker dies while proving', () => {
  it('is proved once more in a fresh worker with the same client nonce and context; the owner signs once; it verifies', async () => {
    Object.assign(plan, {
      started: 0,
      prepared: [],
      firstFinalize: () =>
        new Error('the presentation worker failed: Uncaught RuntimeError: operation does not support unaligned accesses'),
    });
    const { chain, reviews } = await connected();
    await chain.storePrivateCredential({ credential: issuer.issue(addressOf(0)) });
    const { req, json } = issuer.presentationRequest();
    const { presentation } = await chain.requestPresentation({ presentation: { presentationRequest: json } });
    expect(plan.started).toBe(2);
    expect(plan.prepared[0]!.again).toBeUndefined();
    expect(plan.prepared[1]!.again).toEqual({ clientNonce: expect.stringMatching(/^\d+$/), context: expect.stringMatching(/^\d+$/) });
    expect(JSON.parse(presentation).clientNonce.value).toBe(plan.prepared[1]!.again!.clientNonce);
    expect(reviews.filter((r) => r.kind === 'presentation')).toHaveLength(1); // one approval on the device
    expect(await verifiedOutput(issuer.A, req, presentation, ORIGIN)).toBe(issuerHash(issuer.A, issuer.key));
  }, 300_000);

  it('an error the worker reports for the presentation itself is not retried (20003)', async () => {
    Object.assign(plan, {
      started: 0,
      prepared: [],
      firstFinalize: () => new runner.PresentationRunError('finalize', 'constraint not satisfied'),
    });
    const { chain } = await connected();
    await chain.storePrivateCredential({ credential: issuer.issue(addressOf(0)) });
    const error = await failure(chain.requestPresentation({ presentation: { presentationRequest: issuer.presentationRequest().json } }));
    expect(error).toMatchObject({ code: 20003, data: { reason: expect.stringMatching(/constraint not satisfied/) } });
    expect(plan.started).toBe(1);
  }, 300_000);
});
