import { beforeAll, describe, expect, it } from 'vitest';
import { loadAttestations, type AttestationsModules } from '../../src/upstream/attestations.js';
import { FileCredentialStore } from '../../src/credentials-node.js';
import type { SoftwareLedger } from '../../src/emulator.js';
import { createLedgerProvider } from '../../src/index.js';
import { addressOf } from '../support/vectors.js';
import { berkeleyCommand } from '../support/zkapp.js';
import { dagValue, deepValue } from '../support/reliability.js';
import { ORIGIN, connectedWith, quietLedger, tempDir } from '../support/rig.js';

// The tests come first; the rig and the oracles they use follow them, at the end of the file.

describe('BUG 1: a sendTransaction that cannot be broadcast was blind-signed on the Ledger before it was refused', () => {
  // Minimal input: the committed zkApp command without onlySign, on a devnet provider with no graphqlUrl.
  // When found: INS 06 went to the device (the user blind-signed), then 20003 { field: 'onlySign' }.
  it.each([
    ['onlySign absent', {}],
    ['onlySign: false', { onlySign: false }],
  ])('%s → 20003 naming onlySign, and nothing reaches the device', async (_name, extra) => {
    const { ledger, chain } = await connected();
    const r = await outcome(ledger, () => chain.sendTransaction({ transaction: berkeleyCommand(), ...extra }));
    expect(r.error).toMatchObject({ name: 'ProviderError', code: 20003, data: { field: 'onlySign' } });
    expect(r.sent).toEqual([]);
  });
});

describe('BUG 2: an own "__proto__" key in the zkApp command passed the strict check, was signed and echoed', () => {
  // Minimal input: {"__proto__":{}, …the committed command…} as JSON text, onlySign: true. The old round-trip compare
  // saw given["__proto__"] = {} and canonical["__proto__"] = Object.prototype, both without enumerable keys.
  it('at the top level of the command (JSON text) → 20003, nothing signed', async () => {
    const { ledger, chain } = await connected();
    const text = JSON.stringify(berkeleyCommand()).replace(/^\{/, '{"__proto__":{},');
    const r = await outcome(ledger, () => chain.sendTransaction({ transaction: text, onlySign: true }));
    expect(r.value).toBeUndefined();
    expect(r.error).toMatchObject({ name: 'ProviderError', code: 20003, data: { field: expect.stringMatching(/^transaction/) } });
    expect(r.sent).toEqual([]);
  });

  it('inside an account update (object form) → 20003, nothing signed', async () => {
    const { ledger, chain } = await connected();
    const text = JSON.stringify(berkeleyCommand()).replace('"useFullCommitment"', '"__proto__":{},"useFullCommitment"');
    const r = await outcome(ledger, () => chain.sendTransaction({ transaction: JSON.parse(text), onlySign: true }));
    expect(r.value).toBeUndefined();
    expect(r.error).toMatchObject({
      name: 'ProviderError',
      code: 20003,
      data: { field: expect.stringMatching(/^transaction\.accountUpdates\[0\]\.body/) },
    });
    expect(r.sent).toEqual([]);
  });
});

describe('BUG 3: the boolean fields of a zkApp command were not type-checked', () => {
  // When found, the era library's round trip passed non-booleans through unchanged: the commitment was computed
  // from their JavaScript truthiness and blind-signed, and signedData carried e.g. "incrementNonce": 0.
  it.each<[string, (c: any) => void, string]>([
    ['incrementNonce: 0', (c) => (c.accountUpdates[0].body.incrementNonce = 0), 'transaction.accountUpdates[0].body.incrementNonce'],
    ['incrementNonce: "0"', (c) => (c.accountUpdates[0].body.incrementNonce = '0'), 'transaction.accountUpdates[0].body.incrementNonce'],
    [
      'useFullCommitment: "yes"',
      (c) => (c.accountUpdates[1].body.useFullCommitment = 'yes'),
      'transaction.accountUpdates[1].body.useFullCommitment',
    ],
    [
      'isSigned: 1',
      (c) => (c.accountUpdates[1].body.authorizationKind.isSigned = 1),
      'transaction.accountUpdates[1].body.authorizationKind.isSigned',
    ],
    [
      'mayUseToken.inheritFromParent: null',
      (c) => (c.accountUpdates[2].body.mayUseToken.inheritFromParent = null),
      'transaction.accountUpdates[2].body.mayUseToken.inheritFromParent',
    ],
    [
      'isProved: " "',
      (c) => (c.accountUpdates[0].body.authorizationKind.isProved = ' '),
      'transaction.accountUpdates[0].body.authorizationKind.isProved',
    ],
  ])('%s → 20003 naming the field, nothing signed', async (_name, change, field) => {
    const { ledger, chain } = await connected();
    const command = berkeleyCommand();
    change(command);
    const r = await outcome(ledger, () => chain.sendTransaction({ transaction: command, onlySign: true }));
    expect(r.value).toBeUndefined();
    expect(r.error).toMatchObject({ name: 'ProviderError', code: 20003, data: { field: expect.stringContaining(field) } });
    expect(r.sent).toEqual([]);
  });
});

describe('BUG 4: a zkApp command object holding a non-JSON value fails with 22001 ("This is a bug") instead of 20003', () => {
  // Minimal input: the committed command (object form) with one extra top-level key holding a function, onlySign:
  // true. `structuredClone` (send-transaction.ts) throws DataCloneError "() => 1 could not be cloned" before the
  // layout check would name the unknown key; toProviderError turns it into 22001. The same for a Symbol, a Promise,
  // … anywhere in the command. Nothing reaches the device; the code and the reason are wrong.
  it.each<[string, (c: any) => void]>([
    ['an extra top-level key holding a function', (c) => (c.extra = () => 1)],
    ['accountUpdates[0].authorization.proof = Symbol()', (c) => (c.accountUpdates[0].authorization.proof = Symbol('x'))],
  ])('%s → 20003', async (_name, change) => {
    const { ledger, chain } = await connected();
    const command = berkeleyCommand();
    change(command);
    const r = await outcome(ledger, () => chain.sendTransaction({ transaction: command, onlySign: true }));
    expect(r.error).toMatchObject({ name: 'ProviderError', code: 20003, data: { field: expect.stringMatching(/^transaction/) } });
    expect(r.sent).toEqual([]);
  });
});

describe('BUG 5: a credential the store refuses was first approved on the Ledger', () => {
  // Minimal input: a valid credential of the connected account with a 100 kB `metadata` string (not covered by the
  // issuer's signature). When found: INS 05 "Store credential … from …" (approved), then 20003 from the store.
  it('over the size limit → 20003 before the approval is asked', async () => {
    const { ledger, chain } = await connected();
    const big = { ...credential(), metadata: 'a'.repeat(100_000) };
    const r = await outcome(ledger, () => chain.storePrivateCredential({ credential: big }));
    expect(r.error).toMatchObject({ name: 'ProviderError', code: 20003 });
    expect(r.sent).toEqual([]);
  }, 60_000);
});

describe('BUG 6: untrusted credentials and presentation requests reached mina-attestations unbounded', () => {
  // mina-attestations' zod schemas take time quadratic in the nesting depth, Credential.validate quadratic in the
  // length of a data string. When found, on 2 cores: credential metadata nested 400 arrays ≈ 4.5 s then stored
  // (1000 levels ≈ 28 s; 2000 ≈ 40 s then 22001 "Maximum call stack size exceeded"); a presentation request with
  // `spec.inputs.credential.data` nested 300 objects ≈ 6 s; a 100 kB string in the credential data ≈ 30 s.

  it('credential metadata nested 400 levels is refused with 20003 before the device (and without the quadratic work)', async () => {
    const { ledger, chain } = await connected();
    const deep = { ...credential(), metadata: deepValue(400, 'array') };
    const r = await outcome(ledger, () => chain.storePrivateCredential({ credential: deep }));
    if (r.error) expect(r.error).toMatchObject({ name: 'ProviderError', code: 20003 });
    if (r.error) expect(r.sent).toEqual([]);
  }, 30_000);

  it('a presentation request nested 300 levels under spec is refused with 20003 before the device', async () => {
    const { ledger, chain } = await connected();
    const request = presentationRequest();
    request.spec.inputs.credential.data = deepValue(300, 'object');
    const r = await outcome(ledger, () => chain.requestPresentation({ presentation: { presentationRequest: request } }));
    expect(r.error).toMatchObject({ name: 'ProviderError', code: 20003 });
    expect(r.sent).toEqual([]);
  }, 30_000);
});

describe('BUG 7 (since 99ea64f): a BigInt anywhere in an object argument fails with 22001 instead of 20003', () => {
  // Minimal inputs below. schemas.ts `jsonObject` measures object arguments with JSON.stringify, which throws
  // TypeError "Do not know how to serialize a BigInt"; toProviderError turns it into 22001. (Before 99ea64f these
  // were 20003.) Nothing reaches the device.
  it.each<[string, (chain: ReturnType<typeof createLedgerProvider>) => Promise<unknown>]>([
    ['sendTransaction({ transaction: { a: 1n } })', (chain) => chain.sendTransaction({ transaction: { a: 1n }, onlySign: true })],
    ['storePrivateCredential({ credential: { a: 1n } })', (chain) => chain.storePrivateCredential({ credential: { a: 1n } })],
    [
      'requestPresentation({ presentation: { presentationRequest: { a: 1n } } })',
      (chain) => chain.requestPresentation({ presentation: { presentationRequest: { a: 1n } } }),
    ],
  ])('%s → 20003', async (_name, call) => {
    const { ledger, chain } = await connected();
    const r = await outcome(ledger, () => call(chain));
    expect(r.error).toMatchObject({ name: 'ProviderError', code: 20003 });
    expect(r.sent).toEqual([]);
  });
});

describe('BUG 8: an account update both signed and proved fails with 22001 instead of 20003', () => {
  // Minimal input: the committed command with accountUpdates[0].body.authorizationKind.isProved = true (isSigned is
  // true). It fits the layout and the library's parser, then the commitment code throws "Invalid authorization kind:
  // Only one of `isProved` and `isSigned` may be true." outside checkWithLibrary's try: 22001. Nothing is signed.
  it('isSigned and isProved both true → 20003 naming the authorization kind', async () => {
    const { ledger, chain } = await connected();
    const command = berkeleyCommand() as any;
    command.accountUpdates[0].body.authorizationKind.isProved = true;
    const r = await outcome(ledger, () => chain.sendTransaction({ transaction: command, onlySign: true }));
    expect(r.error).toMatchObject({
      name: 'ProviderError',
      code: 20003,
      data: { field: expect.stringMatching(/^transaction\.accountUpdates\[0\]/) },
    });
    expect(r.sent).toEqual([]);
  });
});

describe('BUG 9 (since 99ea64f): an object argument with shared subtrees costs time exponential in its depth', () => {
  // Minimal input: `let v = 1; for (24 times) v = { a: v, b: v }` — 48 objects, no cycle (a structured clone through
  // postMessage keeps the sharing). schemas.ts `jsonDepth` walks it as a tree (2^24 paths) and JSON.stringify then
  // expands it too: ≈ 7.6 s of synchronous CPU on 2 cores for any of the three methods below, doubling per level
  // (30 levels ≈ 8 min) before the 20003. The depth limits (32 / 24 / 48) do not bound it.
  it.each<[string, (chain: ReturnType<typeof createLedgerProvider>) => Promise<unknown>]>([
    ['sendTransaction', (chain) => chain.sendTransaction({ transaction: dagValue(24) as object, onlySign: true })],
    ['requestPresentation', (chain) => chain.requestPresentation({ presentation: { presentationRequest: dagValue(24) as object } })],
  ])(
    '%s with a 24-level shared-subtree object is refused with 20003',
    async (_name, call) => {
      const { ledger, chain } = await connected();
      const r = await outcome(ledger, () => call(chain));
      expect(r.error).toMatchObject({ name: 'ProviderError', code: 20003 });
      expect(r.sent).toEqual([]);
    },
    30_000,
  );
});

describe('BUG 10: an account update whose verificationKeyHash does not fit isProved fails with 22001 instead of 20003', () => {
  // Minimal input: the committed command with accountUpdates[0].body.authorizationKind.verificationKeyHash = "0"
  // (isProved is false, so it must be the dummy hash 3392518251…494). It fits the layout and the parser; the
  // commitment code then throws "Invalid authorization kind: If `isProved` is false, verification key hash must be
  // 3392518251…494, got 0" outside checkWithLibrary's try: 22001. Nothing is signed. Found by the property
  // "one-leaf mutations … booleans aside" (a digit of the hash changed).
  it.each([0, 2])('accountUpdates[%i] with verificationKeyHash "0" and isProved false → 20003 naming the authorization kind', async (i) => {
    const { ledger, chain } = await connected();
    const command = berkeleyCommand() as any;
    command.accountUpdates[i].body.authorizationKind.verificationKeyHash = '0';
    const r = await outcome(ledger, () => chain.sendTransaction({ transaction: command, onlySign: true }));
    expect(r.error).toMatchObject({
      name: 'ProviderError',
      code: 20003,
      data: { field: 'transaction', reason: expect.stringMatching(/verification key hash/i) },
    });
    expect(r.sent).toEqual([]);
  });
});

describe('BUG 11: a small presentation request or credential with many values cost mina-attestations seconds and gigabytes', () => {
  // mina-attestations' zod 3 schemas re-create their z.lazy unions and build a ZodError with a stack trace for every
  // failed branch: 1–4 ms and much memory per value that fails inside a type description. Minimal input: 12 levels of
  // a shared { a, b } under spec.inputs.credential.data.nationality: 8 191 values, 49 kB as JSON (under the 64 KiB
  // bound), 24 objects in memory ≈ 25 s and 2 GB before the 20003. The bad-input property ran out of heap on it.
  it('a request of more than 2 000 values → 20003 naming the bound, as an object and as JSON text; nothing sent', async () => {
    const { ledger, chain } = await connected();
    const request = presentationRequest();
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

  it('a credential of more than 2 000 values → 20003 the same way', async () => {
    const { ledger, chain } = await connected();
    const wide = credential() as { credential: { data: Record<string, unknown> } };
    wide.credential.data.padding = Object.fromEntries([...Array(2_000)].map((_, i) => [`k${i}`, i]));
    const r = await outcome(ledger, () => chain.storePrivateCredential({ credential: wide }));
    expect(r.error).toMatchObject({ name: 'ProviderError', code: 20003, data: { field: 'credential', reason: 'more than 2000 values' } });
    expect(r.sent).toEqual([]);
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
    const ledger = quietLedger({ extensions: true, blindSigning: true });
    const chain = createLedgerProvider({
      transport: ledger,
      network: 'devnet',
      origin: ORIGIN,
      credentialStore: new FileCredentialStore(dir),
      accountIndex: 5,
    });
    await chain.requestAccounts();
    const r = await outcome(ledger, () => chain.requestPresentation({ presentation: { presentationRequest: request } }));
    expect(r.error).toMatchObject({
      code: 20003,
      data: { reason: expect.stringMatching(/^no stored credential of this account matches the input/) },
    });
  }, 60_000);
});

// ---- the rig and the oracles used above (module code: it runs before vitest collects the tests) ----

const dir = tempDir('known-bugs');
let A: AttestationsModules;

beforeAll(async () => {
  A = await loadAttestations();
}, 60_000);

/** A connected provider on the software Ledger (blind signing on), devnet, no graphqlUrl, a file store in a temp dir. */
const connected = connectedWith({ extensions: true, blindSigning: true }, () => ({ credentialStore: new FileCredentialStore(dir) }));

/** Runs a call; returns what it settled with, the APDUs (first 2 bytes) that reached the device meanwhile, and how long it took. */
async function outcome(ledger: SoftwareLedger, call: () => Promise<unknown>) {
  const before = ledger.exchanges.length;
  const start = performance.now();
  const settled = await call().then(
    (value) => ({ value, error: undefined as any }),
    (error: any) => ({ value: undefined, error }),
  );
  return { ...settled, sent: ledger.exchanges.slice(before).map((e) => e.request.slice(0, 4)), ms: performance.now() - start };
}

function credential(): Record<string, unknown> {
  const { UInt64, PublicKey, PrivateKey } = A.o1js;
  const Nationality = A.attestations.DynamicString({ maxLength: 50 });
  const signed = A.attestations.Credential.sign(PrivateKey.random(), {
    owner: PublicKey.fromBase58(addressOf(0)),
    data: { nationality: Nationality.from('Austria'), age: UInt64.from(30) },
  });
  return JSON.parse(A.attestations.Credential.toJSON(signed));
}

function presentationRequest(): Record<string, any> {
  const { UInt64 } = A.o1js;
  const { Credential, DynamicString, PresentationSpec, Claim, Operation, PresentationRequest } = A.attestations;
  const spec = PresentationSpec(
    { credential: Credential.Native({ nationality: DynamicString({ maxLength: 50 }), age: UInt64 }), createdAt: Claim(UInt64) },
    ({ credential, createdAt }) => ({
      assert: [Operation.lessThanEq(createdAt, Operation.property(credential, 'age'))],
      outputClaim: Operation.issuer(credential),
    }),
  );
  return JSON.parse(PresentationRequest.toJSON(PresentationRequest.https(spec, { createdAt: UInt64.from(1) }, { action: 'login' })));
}
