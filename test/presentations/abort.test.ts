/**
 * An `AbortSignal` reaches a presentation in each of its long host steps, on the real o1js: fired during the compile,
 * the call rejects with 1002 at once and the device is never asked for the owner signature; fired during the proof,
 * after the owner signed, the caller gets 1002 and never the presentation. That the event loop stays free while a
 * presentation compiles and proves (its timers keep firing) is checked on the proof
 * test/credentials/provider-credentials.test.ts makes anyway.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { credentialIssuer, type Issuer } from '../support/credentials.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { quietLedger, storeProvider, storeRig, tempDirs, within } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

const ACCOUNT0 = addressOf(0);
const tempDir = tempDirs('abort');

let issuer: Issuer;
beforeAll(async () => {
  issuer = await credentialIssuer();
}, 120_000);

/** Another request for the same credential, revealing the age: a circuit of its own. */
function ageRequest() {
  const { UInt64: U } = issuer.A.o1js;
  const { PresentationSpec, Claim, Operation, Credential, PresentationRequest } = issuer.A.attestations;
  const spec = PresentationSpec(
    { credential: Credential.Native({ nationality: issuer.Nationality, age: U, expiresAt: U }), createdAt: Claim(U) },
    ({ credential, createdAt }: any) => ({
      assert: [Operation.lessThanEq(createdAt, Operation.property(credential, 'expiresAt'))],
      outputClaim: Operation.property(credential, 'age'),
    }),
  );
  return JSON.parse(PresentationRequest.toJSON(PresentationRequest.https(spec, { createdAt: U.from(Date.now()) }, { action: 'age' })));
}

describe('an abort during a presentation', () => {
  it('an abort 0.3 s after the call starts (during the compile) → 1002 within a bounded time, and no device request', async () => {
    // The owner signature with SIGN_FIELDS (extension 1.0): what this test measures is the host's work around it.
    const ledger = quietLedger({ extensions: '1.0', blindSigning: true });
    const chain = storeProvider(ledger, tempDir());
    await chain.requestAccounts();
    await chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0) });
    const before = ledger.exchanges.length;
    const controller = new AbortController();
    const started = performance.now();
    // A spec no worker has compiled in this process (a warm worker keeps the last specs' programs: their prepare is quick).
    const call = chain.requestPresentation({ presentation: { presentationRequest: ageRequest() } }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    const error = await failure(within(call, 'the aborted presentation', 10_000));
    const settledAfter = performance.now() - started;
    expect(error).toMatchObject({ code: 1002 });
    expect(settledAfter).toBeLessThan(3_000); // the compile alone takes tens of seconds
    expect(
      ledger.exchanges.slice(before).map((e) => e.request.slice(0, 4)),
      `${settledAfter}`,
    ).toEqual([]); // the owner signature was never asked
  }, 120_000);

  it('an AbortSignal fired while the proof is made: 1002, and the aborted caller never gets the presentation', async () => {
    const dir = tempDir();
    // SIGN_FIELDS (extension 1.0): the owner signature this test recognises on the device.
    const first = storeRig(dir, { extensions: '1.0' });
    await first.chain.requestAccounts();
    await first.chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0) });
    const second = storeRig(dir, { extensions: '1.0' });
    await second.chain.requestAccounts();
    const controller = new AbortController();
    // The user approves the owner signature; the caller gives up right after (during the proof).
    second.ledger.approve = (review) => {
      if (review.screens.some((s) => s.title === 'Sign fields' || s.text === 'Sign fields')) setTimeout(() => controller.abort(), 0);
      return true;
    };
    // A request the stored credential satisfies: without the abort, a presentation would come back.
    const presentationRequest = issuer.presentationRequest().json;
    const before = second.ledger.exchanges.length;
    const error = await failure(second.chain.requestPresentation({ presentation: { presentationRequest } }, { signal: controller.signal }));
    expect(error, JSON.stringify(error)).toMatchObject({ code: 1002 });
    expect(controller.signal.aborted).toBe(true);
    const sent = second.ledger.exchanges.slice(before).map((e) => e.request.slice(2, 4));
    expect(sent).toContain('a1'); // the abort came after the owner signature, as intended
  }, 300_000);
});
