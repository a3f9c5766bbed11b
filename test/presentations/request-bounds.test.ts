/**
 * The presentation cost bound (src/presentations/request-bounds.ts): every operation is charged what it really reads,
 * so a request cannot pass the bound with operations whose operand is a whole credential (the second security
 * review's 126 × hash(credential), ≈ 423,000 rows), and is refused before the store key, any compile or the device.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../src/credentials-node.js';
import { MAX_PRESENTATION_COST, measurePresentationSpec } from '../../src/presentations/request-bounds.js';
import { presentationWorkers } from '../../src/presentations/runner.js';
import { loadAttestations, type AttestationsModules } from '../../src/upstream/attestations.js';
import { presentationSpec } from '../support/credentials.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { connectedProvider, tempDirs } from '../support/rig.js';

const tempDir = tempDirs('request-bounds');
let A: AttestationsModules;
beforeAll(async () => {
  A = await loadAttestations();
}, 60_000);

/** A no-context request over a credential of 256 Field values whose output claim is `hashes` hashes of the whole credential. */
function wholeCredentialHashes(hashes: number) {
  const { Field, Bool } = A.o1js;
  const { PresentationSpec, Operation, Credential, PresentationRequest } = A.attestations;
  const data = Object.fromEntries(Array.from({ length: 256 }, (_, i) => [`f${i}`, Field]));
  const spec = PresentationSpec({ credential: Credential.Native(data) }, ({ credential }) => ({
    assert: Operation.constant(Bool(true)),
    outputClaim: Operation.record(Object.fromEntries(Array.from({ length: hashes }, (_, i) => [`h${i}`, Operation.hash(credential)]))),
  }));
  return JSON.parse(PresentationRequest.toJSON(PresentationRequest.noContext(spec, {})));
}

describe('the presentation cost bound', () => {
  it('an operation whose operand is a whole credential is charged the whole credential: 126 hashes of 256 fields are far over', () => {
    const { cost } = measurePresentationSpec(wholeCredentialHashes(126).spec);
    expect(cost).toBeGreaterThan(32 * MAX_PRESENTATION_COST);
    // Each hash adds at least the credential's 256 × 32 bytes.
    expect(
      measurePresentationSpec(wholeCredentialHashes(2).spec).cost - measurePresentationSpec(wholeCredentialHashes(1).spec).cost,
    ).toBeGreaterThan(256 * 32);
  });

  it('the requests the tests prove stay far under the bound', () => {
    const { UInt64 } = A.o1js;
    const { PresentationRequest } = A.attestations;
    const request = PresentationRequest.noContext(presentationSpec(A), { createdAt: UInt64.from(1) });
    expect(measurePresentationSpec(JSON.parse(PresentationRequest.toJSON(request)).spec).cost).toBeLessThan(MAX_PRESENTATION_COST / 16);
  });

  it('126 hashes of a whole credential → 20003 naming the spec, before the store key, any compile or any device request', async () => {
    const { chain, ledger } = await connectedProvider({ extensions: true }, { credentialStore: new FileCredentialStore(tempDir()) });
    const exchanges = ledger.exchanges.length;
    const workers = presentationWorkers().started;
    const error = await failure(chain.requestPresentation({ presentation: { presentationRequest: wholeCredentialHashes(126) } }));
    expect(error).toMatchObject({
      code: 20003,
      data: { field: 'presentation.presentationRequest.spec', reason: expect.stringMatching(/too large to prove/) },
    });
    expect(ledger.exchanges.length).toBe(exchanges);
    expect(presentationWorkers().started).toBe(workers);
  });
});
