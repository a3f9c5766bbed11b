/**
 * The bounds on a presentation request (src/presentations/request-bounds.ts), all checked before the store key, any
 * compile or the device: the request's size, depth and number of values (mina-attestations' schemas cost seconds and
 * gigabytes on a small request of many values), and the circuit's cost, every operation charged what it really reads,
 * so that operations whose operand is a whole credential (126 × hash(credential), ≈ 423,000 rows) cannot pass it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../src/credentials-node.js';
import { MAX_PRESENTATION_COST, measurePresentationSpec } from '../../src/presentations/request-bounds.js';
import { presentationWorkers } from '../../src/presentations/runner.js';
import { loadAttestations, type AttestationsModules } from '../../src/upstream/attestations.js';
import { presentationSpec } from '../support/credentials.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { connectedProvider, outcome, tempDirs } from '../support/rig.js';
import { dagValue, deepValue } from '../support/odd-values.js';

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

/** A presentation request over `inputs` credentials whose output claim is `hashes` hashes of a `maxLength`-character string. */
function hashingRequest(maxLength: number, hashes: number, inputs = 1) {
  const { UInt64, Field } = A.o1js;
  const { PresentationSpec, Claim, Operation, Credential, DynamicString, PresentationRequest } = A.attestations;
  const Str = DynamicString({ maxLength });
  const credentialInputs = Object.fromEntries(
    Array.from({ length: inputs }, (_, i) => [`c${i}`, Credential.Native({ s: Str, expiresAt: UInt64 })]),
  );
  const spec = PresentationSpec({ ...credentialInputs, createdAt: Claim(UInt64) }, (all: any) => ({
    assert: [Operation.lessThanEq(all.createdAt, Operation.property(all.c0, 'expiresAt'))],
    outputClaim: Operation.record(
      Object.fromEntries(
        Array.from({ length: hashes }, (_, i) => [`h${i}`, Operation.hash(Operation.property(all.c0, 's'), Operation.constant(Field(i)))]),
      ),
    ),
  }));
  return JSON.parse(PresentationRequest.toJSON(PresentationRequest.https(spec, { createdAt: UInt64.from(1) }, { action: 'login' })));
}

/** The tests' https request (test/support/credentials.ts presentationSpec), as JSON. */
function loginRequest(): Record<string, any> {
  const { UInt64 } = A.o1js;
  const { PresentationRequest } = A.attestations;
  return JSON.parse(
    PresentationRequest.toJSON(PresentationRequest.https(presentationSpec(A), { createdAt: UInt64.from(1) }, { action: 'login' })),
  );
}

describe('the cost of hashing strings, and the number of inputs', () => {
  it('the measure: a real request passes; the 17 kB amplification request (198k rows) and its smaller cousins are over the bound', () => {
    const cost = (maxLength: number, hashes: number) => measurePresentationSpec(hashingRequest(maxLength, hashes).spec).cost;
    expect(cost(50, 1)).toBeLessThan(MAX_PRESENTATION_COST);
    expect(cost(1000, 1)).toBeLessThan(MAX_PRESENTATION_COST); // 10,967 rows: allowed
    expect(cost(1000, 10)).toBeGreaterThan(MAX_PRESENTATION_COST); // 32,315 rows
    expect(cost(1000, 80)).toBeGreaterThan(MAX_PRESENTATION_COST); // 198,355 rows: a 13-minute compile and proof
    expect(cost(1000, 80)).toBeGreaterThan(cost(1000, 10));
  });

  it.each([
    ['80 hashes of a 1,000-character string', () => hashingRequest(1000, 80), /too large to prove/],
    ['5 credential inputs', () => hashingRequest(8, 1, 5), /at most 4/],
  ])('%s → 20003 naming the spec, before the store key, any compile or any device request', async (_name, make, reason) => {
    const { chain, ledger } = await connectedProvider({ extensions: true }, { credentialStore: new FileCredentialStore(tempDir()) });
    const before = ledger.exchanges.length;
    const error = await failure(chain.requestPresentation({ presentation: { presentationRequest: make() } }));
    expect(error).toMatchObject({
      code: 20003,
      data: { field: 'presentation.presentationRequest.spec', reason: expect.stringMatching(reason) },
    });
    expect(ledger.exchanges.length).toBe(before);
  });
});

describe('the size of the request, before mina-attestations reads it', () => {
  /** A connected provider on a device with the extension and Blind signing on: a request that got through would reach it. */
  const connected = () =>
    connectedProvider({ extensions: true, blindSigning: true }, { credentialStore: new FileCredentialStore(tempDir()) });

  it('a presentation request nested 300 levels under spec is refused with 20003 before the device', async () => {
    const { ledger, chain } = await connected();
    const request = loginRequest();
    request.spec.inputs.credential.data = deepValue(300, 'object');
    const r = await outcome(ledger, () => chain.requestPresentation({ presentation: { presentationRequest: request } }));
    expect(r.error).toMatchObject({ name: 'ProviderError', code: 20003 });
    expect(r.sent).toEqual([]);
  }, 30_000);

  // 12 levels of a shared { a, b }: 8,191 values in 49 kB of JSON (under the 64 KiB size bound), 24 objects in memory.
  it('a request of more than 2 000 values → 20003 naming the bound, as an object and as JSON text; nothing sent', async () => {
    const { ledger, chain } = await connected();
    const request = loginRequest();
    request.spec.inputs.credential.data.nationality = dagValue(12);
    for (const presentationRequest of [request, JSON.stringify(request)]) {
      const r = await outcome(ledger, () => chain.requestPresentation({ presentation: { presentationRequest } }));
      expect(r.error).toMatchObject({
        name: 'ProviderError',
        code: 20003,
        data: { field: 'presentation.presentationRequest', reason: 'more than 2000 values' },
      });
      expect(r.sent).toEqual([]);
    }
  }, 30_000);

  it('a realistic large request (three 12-field credentials, ten assertions: 284 values) is still accepted by the bounds', async () => {
    const { UInt64, Field } = A.o1js;
    const { Credential, DynamicString, PresentationSpec, Claim, Operation, PresentationRequest } = A.attestations;
    const S = DynamicString({ maxLength: 64 });
    const fields = Object.fromEntries([...Array(12)].map((_, i) => [`field${i}`, [S, UInt64, Field][i % 3]!]));
    const spec = PresentationSpec(
      { a: Credential.Native(fields), b: Credential.Native(fields), c: Credential.Native(fields), t: Claim(UInt64) },
      ({ a, b, c, t }: any) => ({
        assert: [...Array(10)].map((_, i) => Operation.lessThanEq(t, Operation.property([a, b, c][i % 3], 'field1'))),
        outputClaim: Operation.record({ a: Operation.issuer(a), b: Operation.issuer(b), c: Operation.issuer(c) }),
      }),
    );
    const request = JSON.parse(
      PresentationRequest.toJSON(PresentationRequest.https(spec as any, { t: UInt64.from(1) }, { action: 'login' })),
    );
    // Account 5 stores nothing: the request passes every bound and the schema, and fails only for want of credentials.
    const told: string[] = [];
    const { ledger, chain } = await connectedProvider(
      { extensions: true, blindSigning: true },
      {
        credentialStore: new FileCredentialStore(tempDir()),
        accountIndex: 5,
        onPresentationNotSatisfied: ({ reason }) => void told.push(reason),
      },
    );
    const r = await outcome(ledger, () => chain.requestPresentation({ presentation: { presentationRequest: request } }));
    // The holder approved (the rig's review), and was told why it cannot be presented; the page gets the refusal.
    expect(r.error).toMatchObject({ code: 1002, data: { reason: 'the presentation request was declined' } });
    expect(told).toEqual(['no stored credential fits the input "a"']);
  }, 60_000);
});
