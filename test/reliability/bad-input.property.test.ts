/**
 * Bad input, property-based: every provider method and `request({ method, params })` get thousands of generated and
 * mutated arguments — wrong types, huge strings, deep nesting, non-canonical numbers, prototype-pollution keys, and
 * one-leaf mutations of valid arguments. For every call:
 *
 *   - it settles, in bounded time, with a result or a documented `ProviderError`, never anything else;
 *   - an argument this test knows to be invalid (an oracle per method written from docs/provider.md, or invalid by
 *     construction) is refused with 20003; an argument known to be valid gets a result; a mutated argument the test
 *     cannot classify ("either") gets one or the other — and a refusal never follows a device request for that call
 *     (the connect exchanges happen once, before the properties);
 *   - a result is correct: signatures verify for the connected key and the network, a nullifier passes o1js
 *     `Nullifier.verify` for the message as given, a signed zkApp command round-trips through its era's mina-signer
 *     unchanged and keeps the layout's leaf types (a boolean stays a boolean);
 *
 * and after all of it, no built-in prototype was polluted.
 *
 * One connected provider on the software Ledger (extension on, blind signing on), network devnet, no graphqlUrl, the
 * default credential store (files) under a temporary XDG_DATA_HOME. Presentation requests are only generated
 * INVALID (schema-rejected), so nothing is ever proved. Through `request`, the sendTransaction, storePrivateCredential
 * and requestPresentation params are the invalid ones (the per-method properties cover their valid mutations).
 *
 * A bug these properties find is reduced to a minimal input and pinned by a test in the file of its subject
 * (docs/reliability.md lists them).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { METHODS } from '../../src/index.js';
import Client from 'mina-signer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureFromBase58 } from '../../src/apdu/signature.js';
import { loadAttestations, type AttestationsModules } from '../../src/upstream/attestations.js';
import { minaSignerInternals, type Era, type MinaSignerInternals } from '../../src/upstream/mina-signer-internals.js';
import { loadO1js } from '../../src/upstream/o1js.js';

import { createLedgerProvider, ERROR_MESSAGES, type LedgerProvider } from '../../src/index.js';
import { addressOf } from '../support/vectors.js';
import { berkeleyCommand } from '../support/zkapp.js';
import { DEFAULT_BASE_FEE, DEFAULT_FEE_PER_ACCOUNT_UPDATE } from '../../src/zkapp/send-transaction.js';
import { type Key, defineOwn, describeValue, stableStringify, withinBounds } from '../support/json-values.js';
import {
  HUGE,
  P,
  deepArb,
  deepTextArb,
  exoticValue,
  garbageArb,
  hugeString,
  nonCanonicalString,
  oddNumber,
  pollutionArb,
  prototypeSnapshot,
} from '../support/odd-values.js';
import { type Settled, settle } from '../support/settle.js';
import { type Mutation, type MutationOp, keyArb, mutate, mutationArb, replacementArb } from '../support/value-mutations.js';
import { ORIGIN, quietLedger } from '../support/rig.js';

// The tests come first; the rig and the oracles they use follow them, at the end of the file.

// ---- the properties ----
describe('bad input never escapes as anything but a documented ProviderError, and never reaches the device', () => {
  it(`signMessage: ${RUNS.signMessage} generated and mutated arguments`, async () => {
    await fc.assert(
      fc.asyncProperty(signMessageArgs.map(signMessageCase), (c) => run('signMessage', c, () => chain.signMessage(c.args as never))),
      { numRuns: RUNS.signMessage },
    );
  }, 300_000);

  it(`createNullifier: ${RUNS.createNullifier} generated and mutated arguments`, async () => {
    await fc.assert(
      fc.asyncProperty(createNullifierArgs.map(createNullifierCase), (c) =>
        run('createNullifier', c, () => chain.createNullifier(c.args as never)),
      ),
      { numRuns: RUNS.createNullifier },
    );
  }, 300_000);

  it(`sendTransaction: ${RUNS.sendTransactionGarbage} arguments invalid by construction → 20003, nothing sent`, async () => {
    await fc.assert(
      fc.asyncProperty(
        sendTransactionGarbageArgs.map((args) => makeCase({ args, expect: 'invalid', note: 'invalid by construction' })),
        (c) => run('sendTransaction (invalid)', c, () => chain.sendTransaction(c.args as never)),
      ),
      { numRuns: RUNS.sendTransactionGarbage },
    );
  }, 300_000);

  it(`sendTransaction: ${RUNS.commandLeaves} one-leaf mutations of the committed zkApp command (onlySign), booleans aside`, async () => {
    await fc.assert(
      fc.asyncProperty(
        commandMutation(OTHER_OPS).map((m) => commandMutationCase(m, notBooleanLeaf)),
        (c) => run('sendTransaction (command mutations)', c, () => chain.sendTransaction(c.args as never)),
      ),
      { numRuns: RUNS.commandLeaves },
    );
  }, 300_000);

  it(`sendTransaction: ${RUNS.commandBooleans} mutations of the command's boolean leaves (onlySign)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        commandMutation(['replace', 'tweak', 'wrap', 'stringify', 'delete']).map((m) => commandMutationCase(m, booleanLeaf)),
        (c) => run('sendTransaction (boolean mutations)', c, () => chain.sendTransaction(c.args as never)),
      ),
      { numRuns: RUNS.commandBooleans },
    );
  }, 300_000);

  it(`sendTransaction: ${RUNS.commandKeys} keys added to the command, prototype-pollution names first → 20003 (onlySign)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        commandMutation(['addKey']).map((m) => commandMutationCase(m, isContainer)),
        (c) => run('sendTransaction (added keys)', c, () => chain.sendTransaction(c.args as never)),
      ),
      { numRuns: RUNS.commandKeys },
    );
  }, 300_000);

  it(`sendTransaction: ${RUNS.onlySign} values of onlySign around a valid command, no graphqlUrl: only true may reach the device`, async () => {
    await fc.assert(
      fc.asyncProperty(onlySignMutation.map(optionMutationCase), (c) =>
        run('sendTransaction (onlySign)', c, () => chain.sendTransaction(c.args as never)),
      ),
      { numRuns: RUNS.onlySign },
    );
  }, 300_000);

  it(`sendTransaction: ${RUNS.options} mutations of nonce / feePayer / extra keys around a valid command (onlySign)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(optionMutation, fc.boolean()).map(([m, zeroFee]) => optionMutationCase({ ...m, zeroFee })),
        (c) => run('sendTransaction (option mutations)', c, () => chain.sendTransaction(c.args as never)),
      ),
      { numRuns: RUNS.options },
    );
  }, 300_000);

  it(`storePrivateCredential: ${RUNS.storePrivateCredential} garbage, invalid and mutated credentials`, async () => {
    await fc.assert(
      fc.asyncProperty(storePrivateCredentialArgs, (c) =>
        run('storePrivateCredential', c, () => chain.storePrivateCredential(c.args as never)),
      ),
      { numRuns: RUNS.storePrivateCredential },
    );
  }, 300_000);

  it(`requestPresentation: ${RUNS.requestPresentation} invalid requests → 20003, nothing sent, nothing proved`, async () => {
    await fc.assert(
      fc.asyncProperty(presentationCases, (c) => run('requestPresentation', c, () => chain.requestPresentation(c.args as never))),
      { numRuns: RUNS.requestPresentation },
    );
  }, 300_000);

  it(`request({ method, params }): ${RUNS.request} arbitrary methods and params, object and array forms`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { weight: 6, arbitrary: knownMethodArb },
          { weight: 2, arbitrary: unknownMethodArb },
          { weight: 1, arbitrary: badRequestArb },
        ),
        async (c) => {
          try {
            await run('request', c, () => chain.request(c.request as never), c.expectedError);
          } finally {
            if (chain.network !== 'devnet') await chain.switchChain({ networkID: 'mina:devnet' });
          }
        },
      ),
      { numRuns: RUNS.request },
    );
  }, 300_000);

  it('counted every device request (fewer than the 10 000 exchanges the software Ledger keeps)', () => {
    expect(ledger.exchanges.length).toBeGreaterThan(3);
    expect(ledger.exchanges.length).toBeLessThan(10_000);
  });

  it('left every built-in prototype as it was', () => {
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(([] as unknown as { polluted?: unknown }).polluted).toBeUndefined();
    expect(prototypeSnapshot()).toEqual(prototypesBefore);
    expect(Object.keys(Object.prototype)).toEqual([]);
  });
});

// ---- the rig and the oracles used above (module code: it runs before vitest collects the tests) ----

const ADDRESS = addressOf(0);
const EMPTY_KEY = 'B62qiTKpEPjGTSHZrtM8uXiKgn8So916pLmNJKDhKeyBQL9TDb3nvBG';
const DOCUMENTED_CODES = [1001, 1002, 20003, 20004, 20006, 21001, 22001, 23001];
/** A call that has not settled after this is a hang. */
const CALL_TIMEOUT_MS = 20_000;
/** A call slower than this fails too: a dapp must not be able to stall the wallet with a small argument. */
/** A hang guard, not a speed check: a call still unsettled after this long counts as hanging. */
const SLOW_CALL_MS = 30_000;

/** Runs per property. Valid arguments cost real signing (≈ 40 ms a message, ≈ 60 ms a nullifier, ≈ 190 ms a zkApp command). */
const RUNS = {
  signMessage: 500,
  createNullifier: 250,
  sendTransactionGarbage: 800,
  commandLeaves: 120,
  commandBooleans: 60,
  commandKeys: 100,
  onlySign: 30,
  options: 60,
  storePrivateCredential: 300,
  requestPresentation: 500,
  request: 1500,
};

// ---- the provider under test ----

const ledger = quietLedger({ extensions: true, blindSigning: true });
/** Device requests so far. `ledger.exchanges` keeps the last 10 000: the last test checks the count stayed below. */
const exchanges = () => ledger.exchanges.length;
let chain: LedgerProvider;

const testnet = new Client({ network: 'testnet' });
let o1js: Awaited<ReturnType<typeof loadO1js>>;
let attestations: AttestationsModules;
const internals = {} as Record<Era, MinaSignerInternals>;
let dataHome: string;
const savedDataHome = process.env.XDG_DATA_HOME;
let prototypesBefore: ReturnType<typeof prototypeSnapshot>;

/** A native credential of the connected account, and a presentation request (JSON objects), made in beforeAll. */
let validCredential: Record<string, unknown>;
let validRequest: Record<string, unknown>;
const fixture = berkeleyCommand() as unknown as Record<string, unknown>;
/** The same command with no fee of its own (0): then `feePayer.fee` is read (Auro's order), else the default fee. */
const zeroFeeFixture = (() => {
  const command = structuredClone(fixture) as { feePayer: { body: { fee: string } } };
  command.feePayer.body.fee = '0';
  return command as unknown as Record<string, unknown>;
})();
const DEFAULT_FEE = String(
  DEFAULT_BASE_FEE + DEFAULT_FEE_PER_ACCOUNT_UPDATE * BigInt((fixture as { accountUpdates: unknown[] }).accountUpdates.length),
);

const stats: Record<string, { runs: number; results: number; refused: number }> = {};

beforeAll(async () => {
  dataHome = mkdtempSync(join(tmpdir(), 'chain-ledger-reliability-'));
  process.env.XDG_DATA_HOME = dataHome; // the default file store, in a temporary directory
  // The integrator's opt-ins: switches without a hook, and blind signing (the released app) without a host review.
  chain = createLedgerProvider({
    transport: ledger,
    network: 'devnet',
    origin: ORIGIN,
    allowUnconfirmedSwitchChain: true,
    allowUnreviewedBlindSigning: true,
  });
  expect(await chain.requestAccounts()).toEqual([ADDRESS]);
  [o1js, attestations, internals.berkeley, internals.mesa] = await Promise.all([
    loadO1js(),
    loadAttestations(),
    minaSignerInternals('berkeley'),
    minaSignerInternals('mesa'),
  ]);
  const { UInt64, PublicKey, PrivateKey } = o1js;
  const { Credential, DynamicString, PresentationSpec, Claim, Operation, PresentationRequest } = attestations.attestations;
  const Nationality = DynamicString({ maxLength: 50 });
  const data = { nationality: Nationality.from('Austria'), age: UInt64.from(30) };
  validCredential = JSON.parse(Credential.toJSON(Credential.sign(PrivateKey.random(), { owner: PublicKey.fromBase58(ADDRESS), data })));
  const spec = PresentationSpec(
    { credential: Credential.Native({ nationality: Nationality, age: UInt64 }), createdAt: Claim(UInt64) },
    ({ credential, createdAt }) => ({
      assert: [Operation.lessThanEq(createdAt, Operation.property(credential, 'age'))],
      outputClaim: Operation.issuer(credential),
    }),
  );
  validRequest = JSON.parse(
    PresentationRequest.toJSON(PresentationRequest.https(spec, { createdAt: UInt64.from(1) }, { action: 'login' })),
  );
  expect(attestations.validation.PresentationRequestSchema.safeParse(validRequest).success).toBe(true);
  expect(attestations.validation.StoredCredentialSchema.safeParse(validCredential).success).toBe(true);
  prototypesBefore = prototypeSnapshot();
}, 120_000);

afterAll(() => {
  if (savedDataHome === undefined) delete process.env.XDG_DATA_HOME;
  else process.env.XDG_DATA_HOME = savedDataHome;
  if (dataHome) rmSync(dataHome, { recursive: true, force: true });
  const total = Object.values(stats).reduce((n, s) => n + s.runs, 0);
  console.log(
    `bad-input: ${total} calls\n` +
      Object.entries(stats)
        .map(([name, s]) => `  ${name}: ${s.runs} calls, ${s.results} results, ${s.refused} refusals`)
        .join('\n'),
  );
});

// ---- oracles: what a valid argument is, written from docs/provider.md ----

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `{ message }`: a string is well-formed (anything else is 20003), and so is its text (a lone surrogate, which UTF-8
 * cannot encode, is 20003); the store-key text is reserved (20003); the device under test has the extension's
 * SIGN_TEXT, which signs 1–1024 bytes of UTF-8 without NUL, and a well-formed text beyond that is 20006
 * (docs/provider.md).
 */
function signMessageVerdict(args: unknown): 'valid' | 20003 | 20006 {
  if (!isRecord(args) || typeof args.message !== 'string') return 20003;
  const m = args.message;
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(m)) return 20003;
  // Reserved (src/apdu/store-key.ts): the store-key text anywhere, in any letter case.
  if (m.toLowerCase().includes('chain-ledger credential store')) return 20003;
  const bytes = new TextEncoder().encode(m).length;
  return bytes >= 1 && bytes <= 1024 && !m.includes('\0') ? 'valid' : 20006;
}

/**
 * A field element as Auro reads it (`BigInt(v)`): an integral number, or text `BigInt` reads (decimal with leading
 * zeros or `+`, 0x/0o/0b, surrounding whitespace, '' as 0) of at most 1,024 characters; 0 ≤ x < p.
 */
function validField(v: unknown): boolean {
  let x: bigint;
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) return false;
    x = BigInt(v);
  } else if (typeof v === 'string' && v.length <= 1024) {
    try {
      x = BigInt(v);
    } catch {
      return false;
    }
  } else return false;
  return x >= 0n && x < P;
}

/** `{ message }`: 0–64 field elements (an empty message is a valid nullifier message). */
function validCreateNullifier(args: unknown): args is { message: unknown[] } {
  if (!isRecord(args) || !Array.isArray(args.message)) return false;
  const m = args.message;
  if (m.length > 64) return false;
  for (let i = 0; i < m.length; i++) if (!(i in m) || !validField(m[i])) return false;
  return true;
}

// ---- checks of results ----

function fail(message: string): never {
  throw new Error(message);
}

function checkSignedMessage(message: string) {
  return (value: unknown) => {
    const r = value as { publicKey: string; data: string; signature: { field: string; scalar: string } };
    if (r.publicKey !== ADDRESS) fail(`signMessage returned the key ${r.publicKey}`);
    // SIGN_TEXT signs the text itself: `data` is the dapp's own message.
    if (r.data !== message) fail(`signMessage returned data ${describeValue(r.data)}`);
    if (!testnet.verifyMessage(r)) fail('signMessage returned a signature that does not verify');
  };
}

function checkNullifier(message: unknown[]) {
  return (value: unknown) => {
    const r = value as { publicKey: { x: string; y: string }; public: unknown; private: unknown; data: unknown[] };
    const pk = o1js.PublicKey.fromBase58(ADDRESS).toGroup();
    if (r.publicKey.x !== pk.x.toString() || r.publicKey.y !== pk.y.toString()) fail('createNullifier returned another public key');
    if (r.data.length !== message.length || r.data.some((d, i) => !Object.is(d, message[i])))
      fail('createNullifier data is not the message as given');
    const fields = message.map((m) => o1js.Field(BigInt(m as string | number)));
    try {
      o1js.Nullifier.fromJSON({ publicKey: r.publicKey, public: r.public, private: r.private } as never).verify(fields);
    } catch (error) {
      fail(`createNullifier returned a nullifier that does not verify: ${(error as Error).message}`);
    }
  };
}

interface SignedExpectations {
  fee?: string;
  nonce?: string;
  memo?: string;
}

/** A signedData result: canonical for its era, every signature of the connected key verifies, at least one. */
function checkSignedCommand(expected: SignedExpectations = {}) {
  return (value: unknown) => {
    const { signedData } = value as { signedData?: unknown };
    if (typeof signedData !== 'string') fail(`sendTransaction returned ${describeValue(value)}`);
    const data = JSON.parse(signedData) as { zkappCommand: any; feePayer: { fee: string; nonce: string; memo: string } };
    const command = data.zkappCommand;
    const aus: any[] = command.accountUpdates;
    const era: Era = aus.length > 0 && aus[0].body.update.appState.length === 8 ? 'berkeley' : 'mesa';
    const lib = internals[era];
    const parsed = lib.ZkappCommand.fromJSON(command);
    if (stableStringify(command) !== stableStringify(lib.ZkappCommand.toJSON(parsed))) {
      fail(`sendTransaction signed a command that is not canonical for ${era}: ${describeValue(signedData, 200)}`);
    }
    const { commitment, fullCommitment } = lib.transactionCommitments(parsed, 'devnet');
    const pk = lib.PublicKey.toGroup(lib.PublicKey.fromBase58(ADDRESS));
    const verifies = (base58: unknown, v: bigint) => {
      if (typeof base58 !== 'string') return false;
      const sig = signatureFromBase58(base58);
      return lib.verifyFieldElement({ r: BigInt(sig.field), s: BigInt(sig.scalar) }, v, pk, 'devnet');
    };
    checkLeafTypes(command, fixture);
    let signatures = 0;
    if (command.feePayer.body.publicKey === ADDRESS) {
      if (!verifies(command.feePayer.authorization, fullCommitment)) fail('the fee payer signature does not verify');
      signatures++;
    }
    for (const au of aus) {
      if (au.body.authorizationKind?.isSigned !== true || au.body.publicKey !== ADDRESS) continue;
      if (!verifies(au.authorization.signature, au.body.useFullCommitment ? fullCommitment : commitment))
        fail('an account update signature does not verify');
      signatures++;
    }
    if (signatures === 0) fail('sendTransaction returned a command without a signature of the connected key');
    if (expected.fee !== undefined && data.feePayer.fee !== expected.fee) fail(`fee ${data.feePayer.fee}, expected ${expected.fee}`);
    if (expected.nonce !== undefined && data.feePayer.nonce !== expected.nonce)
      fail(`nonce ${data.feePayer.nonce}, expected ${expected.nonce}`);
    if (expected.memo !== undefined && data.feePayer.memo !== expected.memo)
      fail(`memo ${describeValue(data.feePayer.memo)}, expected ${describeValue(expected.memo)}`);
  };
}

/**
 * The zkApp layout's leaf types, read from the committed fixture (o1js output): where it has a boolean the signed
 * command must have a boolean, a number (callDepth) a number, a string a string or null. An independent check: the
 * era library's round trip passes other types through unchanged.
 */
function checkLeafTypes(given: unknown, reference: unknown): void {
  const stack: [unknown, unknown, string][] = [[given, reference, 'zkappCommand']];
  while (stack.length > 0) {
    const [g, r, path] = stack.pop()!;
    const wrong = (type: string) =>
      fail(`sendTransaction signed a command with ${path} = ${describeValue(g, 60)} where the layout has a ${type}`);
    if (typeof r === 'boolean' && typeof g !== 'boolean') wrong('boolean');
    else if (typeof r === 'number' && typeof g !== 'number') wrong('number');
    else if (typeof r === 'string' && g !== null && typeof g !== 'string') wrong('string');
    else if (Array.isArray(r) && Array.isArray(g))
      for (let i = 0; i < Math.min(r.length, g.length); i++) stack.push([g[i], r[i], `${path}[${i}]`]);
    else if (isRecord(r) && isRecord(g)) for (const k of Object.keys(r)) stack.push([g[k], r[k], `${path}.${k}`]);
  }
}

// ---- cases ----

type Expect = 'valid' | 'invalid' | 'either';

interface Case {
  args: unknown;
  expect: Expect;
  note: string;
  check?: (value: unknown) => void;
  /** The refusal's code when it is not the caller's default (20006: well-formed, but beyond what the device signs). */
  code?: number;
}

/** Cases print briefly in fast-check's reports (a 100 kB string or 2000 levels would drown the counterexample). */
function makeCase(c: Case): Case {
  const text = () => `${c.expect} (${c.note}): ${describeValue(c.args, 400)}`;
  return Object.assign(c, { [fc.toStringMethod]: text, toString: text });
}

function judge(name: string, c: Case, s: Settled, callerError = 20003): void {
  const expectedError = c.code ?? callerError;
  const stat = (stats[name] ??= { runs: 0, results: 0, refused: 0 });
  stat.runs++;
  const at = () => `${name} with ${c.expect} argument (${c.note}) ${describeValue(c.args)}`;
  if (s.ms > SLOW_CALL_MS) fail(`${at()}: took ${Math.round(s.ms)} ms`);
  if (!s.ok) {
    const e = s.error as { name?: unknown; code?: unknown; message?: unknown; data?: { reason?: string; field?: string } } | null;
    if (
      typeof e !== 'object' ||
      e === null ||
      e.name !== 'ProviderError' ||
      typeof e.code !== 'number' ||
      !DOCUMENTED_CODES.includes(e.code)
    ) {
      fail(`${at()}: rejected with something other than a documented ProviderError: ${describeValue(s.error)}`);
    }
    if (e.message !== ERROR_MESSAGES[e.code as keyof typeof ERROR_MESSAGES])
      fail(`${at()}: message ${describeValue(e.message)} for ${e.code}`);
    stat.refused++;
    if (c.expect === 'valid') fail(`${at()}: expected a result, got ${e.code} (${e.data?.field ?? ''}: ${e.data?.reason})`);
    if (e.code !== expectedError) fail(`${at()}: expected ${expectedError}, got ${e.code} (${e.data?.field ?? ''}: ${e.data?.reason})`);
    if (e.code === 20003 && s.exchanges !== 0) {
      fail(`${at()}: 20003 (${e.data?.field ?? ''}: ${e.data?.reason}) after ${s.exchanges} device request(s)`);
    }
    if (e.code !== 20003 && s.exchanges !== 0) fail(`${at()}: ${e.code} after ${s.exchanges} device request(s)`);
    return;
  }
  stat.results++;
  if (c.expect === 'invalid') fail(`${at()}: expected ${expectedError}, got a result ${describeValue(s.value)}`);
  c.check?.(s.value);
}

const run = (name: string, c: Case, call: () => Promise<unknown>, expectedError?: number) =>
  settle(call, exchanges, CALL_TIMEOUT_MS).then((s) => judge(name, c, s, expectedError));

// signMessage

const PRINTABLE_CHARS = [...Array(95)].map((_, i) => String.fromCharCode(0x20 + i)).concat(['\n', '\r']);
const printableChar = fc.constantFrom(...PRINTABLE_CHARS);
const messageArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: fc.string({ unit: printableChar, minLength: 1, maxLength: 65 }) },
  { weight: 2, arbitrary: fc.string({ unit: printableChar, minLength: 1000, maxLength: 1050 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 300, maxLength: 400 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 70 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      'chain-ledger credential store key v1',
      'chain-ledger credential store',
      'chain-ledger credential storeX',
      'Chain-ledger credential store key v1',
      ' chain-ledger credential store key v1',
      'héllo',
      'a'.repeat(65),
      'a'.repeat(66),
      'a'.repeat(1024),
      'a'.repeat(1025),
      `${'é'.repeat(512)}`,
      `${'é'.repeat(512)}a`,
      '\uFEFFhi',
      'a\uD800b',
      '\uDFFF',
      '\t',
      'a\u007f',
      '\r\n',
      '\u0000',
      'hi\u0000',
      'Message : hi',
    ),
  },
  { weight: 3, arbitrary: replacementArb() },
);

const signMessageArgs: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: messageArb.map((message) => ({ message })) },
  { weight: 3, arbitrary: mutationArb({ values: replacementArb([messageArb]) }).map((m) => mutate({ message: 'Hello Mina!' }, m).value) },
  { weight: 2, arbitrary: garbageArb },
);

function signMessageCase(args: unknown): Case {
  const verdict = signMessageVerdict(args);
  return verdict === 'valid'
    ? makeCase({ args, expect: 'valid', note: 'oracle: valid', check: checkSignedMessage((args as { message: string }).message) })
    : makeCase({ args, expect: 'invalid', note: `oracle: ${verdict}`, code: verdict });
}

// createNullifier

const validFieldArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.bigInt({ min: 0n, max: P - 1n }).map(String),
  fc.constantFrom<unknown>('0', '1', (P - 1n).toString(), Number.MAX_SAFE_INTEGER, 0, -0, 1),
  fc.maxSafeNat(),
);
const badFieldArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: nonCanonicalString },
  { weight: 3, arbitrary: oddNumber },
  { weight: 2, arbitrary: exoticValue },
  { weight: 2, arbitrary: fc.bigInt({ min: P - 3n, max: 2n ** 300n }).map(String) },
  { weight: 1, arbitrary: fc.bigInt({ min: 1n, max: 2n ** 200n }).map((b) => `-${b}`) },
  { weight: 1, arbitrary: hugeString },
  { weight: 1, arbitrary: deepArb([64, 1000]) },
);
const fieldArb = fc.oneof({ weight: 3, arbitrary: validFieldArb }, { weight: 2, arbitrary: badFieldArb });

const createNullifierArgs: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.array(fieldArb, { maxLength: 4 }).map((message) => ({ message })) },
  { weight: 1, arbitrary: fc.array(validFieldArb, { minLength: 62, maxLength: 66 }).map((message) => ({ message })) },
  {
    weight: 1,
    arbitrary: fc
      .array(fieldArb, { minLength: 1, maxLength: 3 })
      .map((message) =>
        JSON.parse(
          JSON.stringify({ message: message.map((m) => (typeof m === 'bigint' || typeof m === 'symbol' ? String(m) : m)) }) ?? 'null',
        ),
      ),
  },
  {
    weight: 3,
    arbitrary: mutationArb({ values: replacementArb([validFieldArb, badFieldArb]) }).map((m) => mutate({ message: ['1', '2'] }, m).value),
  },
  { weight: 2, arbitrary: garbageArb },
);

function createNullifierCase(args: unknown): Case {
  return validCreateNullifier(args)
    ? makeCase({ args, expect: 'valid', note: 'oracle: valid', check: checkNullifier(args.message) })
    : makeCase({ args, expect: 'invalid', note: 'oracle: invalid' });
}

// sendTransaction: arguments that are invalid by construction

const BAD_ONLY_SIGN: unknown[] = ['true', 'false', 1, 0, null, [], {}, 'yes', NaN, [true]];
const BAD_NONCES: unknown[] = [
  -1,
  1.5,
  Infinity,
  -Infinity,
  2 ** 32,
  '4294967296',
  '1e3',
  ' 1',
  '-0',
  '0x1',
  '12345678901',
  2 ** 53 + 2,
  true,
  false,
  [],
  {},
  '1.0',
  '+1',
  1n,
  '١',
];
/** What dapps send for an optional value left empty: "not given" (Auro's test dapp: parseInt(''), parseFloat('')). */
const EMPTY_VALUES: unknown[] = [null, '', NaN];
const GOOD_NONCES: [unknown, string][] = [
  [0, '0'],
  [1, '1'],
  ['0', '0'],
  ['7', '7'],
  ['01', '1'],
  ['0000000001', '1'],
  [4294967295, '4294967295'],
  ['4294967295', '4294967295'],
  [-0, '0'],
];
const BAD_FEES: unknown[] = [-1, '-1', '1e3', Infinity, 'abc', true, [], {}, '1,5', '.5', '1.', '+1', '0x1', '-0', '1e21', 1e21, 1n, '１'];
/** Zero is "not given" too, as Auro reads a zero fee, and so is what rounds to 0 nanomina at 9 decimals. */
const EMPTY_FEES: unknown[] = [...EMPTY_VALUES, 0, '0', -0, '0.0000000001', 1e-10, 5e-324];
/** Above the 10 MINA cap: refused when chosen (a command without a fee of its own), ignored beside the command's own fee. */
const IGNORED_FEES: unknown[] = [11, '10.000000001', 2 ** 53 + 2];
const GOOD_FEES: [unknown, string][] = [
  [0.1, '100000000'],
  ['0.1', '100000000'],
  [1, '1000000000'],
  ['1', '1000000000'],
  ['0.000000001', '1'],
  [1e-9, '1'],
  ['10', '10000000000'],
  [10, '10000000000'],
  ['9.999999999', '9999999999'],
  [1e-7, '100'],
  ['0.2', '200000000'],
];
// A memo with a control character (a NUL would cut it on the Ledger's screen) or a lone surrogate (no UTF-8 form)
// cannot be shown as signed: refused (provider.md, "Arguments").
const BAD_MEMOS: unknown[] = [
  'a'.repeat(33),
  'é'.repeat(17),
  '😀'.repeat(9),
  5,
  true,
  [],
  {},
  'x'.repeat(HUGE),
  '\ud800',
  'tab\there',
  'nul\u0000',
];
const GOOD_MEMOS: string[] = ['', 'hi', 'a'.repeat(32), 'é'.repeat(16), '😀'.repeat(8), 'caf\u00e9 \u2603'];
const BAD_FEE_PAYERS: unknown[] = [5, 'x', true, [], [{}], 'fee'];
/** What a memo becomes once encoded (a lone surrogate is not UTF-8). */
const wellFormed = (memo: string) => new TextDecoder().decode(new TextEncoder().encode(memo));
const FIXTURE_MEMO = 'chain-ledger transcript';

const invalidTransactionArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: garbageArb },
  { weight: 1, arbitrary: hugeString },
  { weight: 1, arbitrary: deepTextArb },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '{nope',
      '[]',
      'null',
      '1',
      '"x"',
      '{}',
      'true',
      ' ',
      '{"feePayer":{}}',
      '{"feePayer":{"body":null}}',
      '{"feePayer":{"body":{"publicKey":"B62"}}}',
    ),
  },
  {
    weight: 2,
    arbitrary: fc.nat().map((n) => {
      const text = JSON.stringify(fixture);
      return text.slice(0, n % text.length);
    }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      `${JSON.stringify(fixture)}x`,
      `x${JSON.stringify(fixture)}`,
      JSON.stringify([fixture]),
      JSON.stringify(fixture) + ' '.repeat(4 * 1024 * 1024),
    ),
  },
  { weight: 1, arbitrary: fc.constant([fixture]) },
);
const invalidOptionArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.constantFrom(...BAD_ONLY_SIGN).map((onlySign) => ({ onlySign })),
  fc.constantFrom(...BAD_NONCES).map((nonce) => ({ nonce })),
  fc.constantFrom(...BAD_FEE_PAYERS).map((feePayer) => ({ feePayer })),
  // feePayer.fee is read only when the command has no fee of its own (Auro's order).
  fc.constantFrom(...BAD_FEES, ...IGNORED_FEES).map((fee) => ({ transaction: structuredClone(zeroFeeFixture), feePayer: { fee } })),
  fc.constantFrom(...BAD_MEMOS).map((memo) => ({ feePayer: { memo } })),
  fc.tuple(fc.constantFrom(...BAD_MEMOS), fc.constantFrom(...GOOD_FEES)).map(([memo, [fee]]) => ({ feePayer: { fee, memo } })),
);
const sendTransactionGarbageArgs: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: garbageArb },
  { weight: 3, arbitrary: invalidTransactionArb.map((transaction) => ({ transaction, onlySign: true })) },
  { weight: 3, arbitrary: invalidOptionArb.map((option) => ({ transaction: structuredClone(fixture), onlySign: true, ...option })) },
);

// sendTransaction: one mutation of the committed zkApp command (onlySign: true)

const addressArb = fc.constantFrom(ADDRESS, EMPTY_KEY, addressOf(1), 'B62qnzbXmRNo9q32n4SNu2mpB8e7FYYLH8NmaX6oFCBYjjQ8SbD7uzW', 'B62q');
const commandValues = replacementArb([addressArb, fc.bigInt({ min: 0n, max: P }).map(String), fc.constant({})]);
type CommandMutation = { mutation: Mutation; text: boolean };
/** Mutations of the command's boolean leaves (isSigned, useFullCommitment, incrementNonce, …). */
const booleanLeaf = (_path: unknown, value: unknown) => typeof value === 'boolean';
/** Everything else: any other leaf or subtree. */
const notBooleanLeaf = (_path: unknown, value: unknown) => typeof value !== 'boolean';
/** Objects and arrays: where a key (or an element) can be added. */
const isContainer = (_path: unknown, value: unknown) => typeof value === 'object' && value !== null;
const commandMutation = (ops: MutationOp[]) => fc.record({ mutation: mutationArb({ ops, values: commandValues }), text: fc.boolean() });
const OTHER_OPS: MutationOp[] = ['replace', 'replace', 'delete', 'tweak', 'tweak', 'tweak', 'wrap', 'stringify'];

function commandMutationCase({ mutation, text }: CommandMutation, where?: (path: Key[], value: unknown) => boolean): Case {
  const m = mutate(fixture, mutation, where);
  let transaction: unknown = m.value;
  let asText = false;
  if (text) {
    try {
      const json = JSON.stringify(m.value);
      if (typeof json === 'string') [transaction, asText] = [json, true];
    } catch {
      // a bigint leaf: keep the object form
    }
  }
  // An added key is unknown to the zkApp layout: refused (docs/provider.md "checked strictly"). The one exception is
  // a "__proto__" at the top level of the object form, which zod's record drops before anything sees it.
  const addedValue = m.addedKey === undefined ? undefined : (getAdded(m.value, m.path, m.addedKey) as unknown);
  const added =
    m.addedKey !== undefined &&
    (asText ? JSON.stringify({ [m.addedKey]: addedValue }) !== '{}' : addedValue !== undefined) &&
    !(!asText && m.path.length === 0 && m.addedKey === '__proto__');
  const note = `${m.description}${asText ? ', as JSON text' : ''}`;
  const args = { transaction, onlySign: true };
  return added
    ? makeCase({ args, expect: 'invalid', note: `unknown key: ${note}` })
    : makeCase({ args, expect: 'either', note, check: checkSignedCommand() });
}

function getAdded(root: unknown, path: readonly (string | number)[], key: string): unknown {
  let v: unknown = root;
  for (const k of path) v = (v as Record<string | number, unknown>)[k];
  return Object.getOwnPropertyDescriptor(v as object, key)?.value;
}

// sendTransaction: one mutation of the options around a valid command

const DELETE = Symbol('delete');
const onlySignMutation = fc.record({
  key: fc.constant('onlySign'),
  value: fc.constantFrom<unknown>(DELETE, false, true, ...BAD_ONLY_SIGN),
});
const optionMutation = fc.oneof(
  fc.record({
    key: fc.constant('nonce'),
    value: fc.oneof(
      fc.constant<unknown>(DELETE),
      fc.constantFrom(...GOOD_NONCES.map(([v]) => v), ...EMPTY_VALUES),
      fc.constantFrom(...BAD_NONCES),
    ),
  }),
  fc.record({
    key: fc.constant('feePayer'),
    value: fc.oneof(
      fc.constant<unknown>(DELETE),
      fc.constantFrom(...BAD_FEE_PAYERS, null),
      fc
        .record({
          fee: fc.constantFrom<unknown>(DELETE, ...GOOD_FEES.map(([v]) => v), ...EMPTY_FEES, ...IGNORED_FEES, ...BAD_FEES),
          memo: fc.constantFrom<unknown>(DELETE, ...GOOD_MEMOS, ...EMPTY_VALUES, ...BAD_MEMOS),
        })
        .map((fp) => {
          const out: Record<string, unknown> = { extra: 'ignored' };
          if (fp.fee !== DELETE) out.fee = fp.fee;
          if (fp.memo !== DELETE) out.memo = fp.memo;
          return out;
        }),
    ),
  }),
  fc.record({ key: fc.constantFrom('extra', '__proto__', 'constructor', 'prototype', 'transactions', 'signal'), value: replacementArb() }),
);

/** `zeroFee`: around the command without a fee of its own, where `feePayer.fee` is read (else it is ignored). */
function optionMutationCase({ key, value, zeroFee = false }: { key: string; value: unknown; zeroFee?: boolean }): Case {
  const args: Record<string, unknown> = {
    transaction: structuredClone(zeroFee ? zeroFeeFixture : fixture),
    onlySign: true,
    nonce: '7',
    feePayer: { fee: '0.2', memo: 'hi' },
  };
  if (value === DELETE) delete args[key];
  else defineOwn(args, key, value);
  // The oracle.
  const onlySign = args.onlySign;
  const isEmpty = (v: unknown) => EMPTY_VALUES.some((e) => Object.is(e, v)) || v === undefined;
  const nonce = !('nonce' in args) || isEmpty(args.nonce) ? [undefined, '0'] : GOOD_NONCES.find(([v]) => Object.is(v, args.nonce));
  const feePayer = args.feePayer;
  // Auro's order: the fixture's own fee (0.1 MINA) is signed and feePayer.fee ignored, whatever it is; without a fee
  // of its own, feePayer.fee (MINA) is read, an empty one means the default, and what is read must be a fee ≤ 10 MINA.
  let fee = zeroFee ? DEFAULT_FEE : '100000000';
  let memo: string | undefined = FIXTURE_MEMO;
  let feePayerOk = true;
  if (feePayer !== undefined && feePayer !== null) {
    if (!isRecord(feePayer)) feePayerOk = false;
    else {
      let feeOk = true;
      if (zeroFee && 'fee' in feePayer && !EMPTY_FEES.some((v) => Object.is(v, feePayer.fee))) {
        const good = GOOD_FEES.find(([v]) => Object.is(v, feePayer.fee));
        feeOk = good !== undefined;
        if (good) fee = good[1];
      }
      // An empty memo ('' or null) keeps the command's own memo.
      if ('memo' in feePayer && !isEmpty(feePayer.memo)) {
        memo = typeof feePayer.memo === 'string' && GOOD_MEMOS.includes(feePayer.memo) ? wellFormed(feePayer.memo) : undefined;
      }
      feePayerOk = feeOk && memo !== undefined;
    }
  }
  const valid = onlySign === true && nonce !== undefined && feePayerOk;
  const note = `${key} ${value === DELETE ? 'deleted' : `= ${describeValue(value, 60)}`}`;
  if (!valid) return makeCase({ args, expect: 'invalid', note });
  return makeCase({ args, expect: 'valid', note, check: checkSignedCommand({ fee, nonce: nonce[1], memo }) });
}

// storePrivateCredential

const credentialMutation = fc.record({
  mutation: mutationArb({
    values: replacementArb([addressArb, fc.constant(ADDRESS)]),
    keys: keyArb(['metadata', 'version', 'witness', 'credential']),
  }),
  text: fc.boolean(),
});
const metadataArb: fc.Arbitrary<unknown> = fc.oneof(replacementArb(), fc.jsonValue({ maxDepth: 3 }));

const storeInvalidCases: fc.Arbitrary<Case> = fc.oneof(
  { weight: 1, arbitrary: garbageArb.map((args) => makeCase({ args, expect: 'invalid', note: 'garbage arguments' })) },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        garbageArb.filter((v) => !isRecord(v) || !('version' in v)),
        hugeString,
        deepTextArb,
        fc.constantFrom('{nope', '[]', '{}', 'null', '"x"', JSON.stringify('{}')),
      )
      .map((credential) => makeCase({ args: { credential }, expect: 'invalid', note: 'invalid credential' })),
  },
);
const storePrivateCredentialArgs: fc.Arbitrary<Case> = fc.oneof(
  { weight: 4, arbitrary: storeInvalidCases },
  {
    weight: 4,
    arbitrary: credentialMutation.map(({ mutation, text }) => {
      const m = mutate(validCredential, mutation);
      let credential = m.value;
      if (text) {
        try {
          credential = JSON.stringify(m.value) ?? m.value;
        } catch {
          // bigint leaf
        }
      }
      return makeCase({ args: { credential }, expect: 'either', note: m.description, check: checkStored });
    }),
  },
  {
    weight: 2,
    arbitrary: metadataArb.map((metadata) => {
      const credential = structuredClone(validCredential);
      defineOwn(credential, 'metadata', metadata);
      return makeCase({ args: { credential }, expect: 'either', note: `metadata = ${describeValue(metadata, 60)}`, check: checkStored });
    }),
  },
);

function checkStored(value: unknown): void {
  const { credential } = value as { credential?: unknown };
  if (typeof credential !== 'string') fail(`storePrivateCredential returned ${describeValue(value)}`);
  const parsed = JSON.parse(credential) as { credential?: { owner?: { value?: string } } };
  if (parsed.credential?.owner?.value !== ADDRESS) fail('stored a credential of another owner');
}

// requestPresentation: invalid only (a schema-valid request would go on to the device and the prover)

const invalidPresentation = (args: unknown, note: string) => makeCase({ args, expect: 'invalid', note });
/**
 * Schema-valid and within the documented bounds (docs/provider.md: 64 KiB, 48 levels, 2 000 values). The bounds come
 * first: mina-attestations' schema takes seconds and gigabytes on large invalid values (a 16-level shared-subtree
 * value ran this test out of memory), and the provider refuses anything beyond them without asking the schema.
 */
const schemaValid = (v: unknown) =>
  withinBounds(v, { chars: 64 * 1024, depth: 48, values: 2_000 }) && attestations.validation.PresentationRequestSchema.safeParse(v).success;
/** A request as given, without an own "__proto__", and through JSON. */
function viewsOf(request: Record<string, unknown>): unknown[] {
  const views: unknown[] = [request, Object.fromEntries(Object.entries(request).filter(([k]) => k !== '__proto__'))];
  try {
    const json = JSON.stringify(request);
    if (json !== undefined) views.push(JSON.parse(json));
  } catch {
    // a bigint: not JSON at all
  }
  return views;
}

const presentationCases: fc.Arbitrary<Case> = fc.oneof(
  { weight: 2, arbitrary: garbageArb.map((args) => invalidPresentation(args, 'garbage arguments')) },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        garbageArb.filter((v) => !isRecord(v)),
        fc.constant({}),
      )
      .map((presentation) => invalidPresentation({ presentation }, 'invalid presentation')),
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(garbageArb, hugeString, deepTextArb, fc.constantFrom('{nope', '[]', '{}', 'null', JSON.stringify({ type: 'https' })))
      .map((presentationRequest) => invalidPresentation({ presentation: { presentationRequest } }, 'invalid presentationRequest')),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom<unknown>(5, 'x', [], null, true, [{}], new Date(0), new Map())
      .map((zkAppAccount) =>
        invalidPresentation({ presentation: { presentationRequest: structuredClone(validRequest), zkAppAccount } }, 'invalid zkAppAccount'),
      ),
  },
  {
    weight: 4,
    arbitrary: fc
      .record({ mutation: mutationArb({ keys: keyArb(['type', 'spec', 'claims', 'inputContext']) }), text: fc.boolean() })
      .map(({ mutation, text }) => {
        const m = mutate(validRequest, mutation);
        let note = m.description;
        let request = m.value;
        // Make sure it is schema-invalid however the provider looks at it: as given, without an own top-level
        // "__proto__" (a copy by assignment drops it), through JSON (which drops undefined values and functions), or
        // parsed when the mutation turned it into JSON text. The top level is strict: one unknown key does it.
        if (typeof request === 'string') {
          try {
            const parsed: unknown = JSON.parse(request);
            if (isRecord(parsed) && viewsOf(parsed).some(schemaValid)) {
              request = JSON.stringify({ ...parsed, chainLedgerFuzz: 1 });
              note += ', plus an unknown top-level key';
            }
          } catch {
            // not JSON text: invalid as it is
          }
        } else if (isRecord(request) && viewsOf(request).some(schemaValid)) {
          defineOwn(request, 'chainLedgerFuzz', 1);
          note += ', plus an unknown top-level key';
        }
        m.value = request;
        let presentationRequest = m.value;
        if (text) {
          try {
            presentationRequest = JSON.stringify(m.value) ?? m.value;
          } catch {
            // bigint leaf
          }
        }
        return invalidPresentation({ presentation: { presentationRequest } }, note);
      }),
  },
);

// request({ method, params })

/** The provider's own table of wallet-side names. */
/** The wallet-side names, and Auro's (`mina_…`), which the provider serves as their `chain_` equivalents. */
const WALLET_METHODS: Record<string, string> = {
  ...METHODS,
  ...Object.fromEntries(Object.entries(METHODS).map(([name, method]) => [name.replace(/^chain_/, 'mina_'), method])),
};
const TRICKY_METHODS = [
  'chain_signmessage',
  'CHAIN_SIGNMESSAGE',
  ' chain_signMessage',
  'chain_signMessage ',
  'chain_signMessage\u0000',
  'signMessage',
  'chain_',
  '',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  '__defineGetter__',
  'chain_requestAccounts\n',
  'mina_requestAccounts',
  'mina_signmessage',
  'mina_',
  'chain_signFields',
  'chain_sendLegacyPayment',
  'chain_sendPayment',
  'chain_signJsonMessage',
  'chain_verifyMessage',
  'chain_addChain',
  'wallet_info',
  'chain_signMessage'.repeat(1000),
  // Host-side only (credentialManager): never served to a page.
  'chain_listCredentials',
  'chain_deleteCredential',
];

type Form = 'object' | 'array1' | 'array0' | 'array2' | 'omitted';

interface RequestCase extends Case {
  request: unknown;
  expectedError: number;
}

function requestCase(method: string, params: unknown, form: Form, inner?: Case): RequestCase {
  const request: Record<string, unknown> = { method };
  if (form === 'object') request.params = params;
  else if (form === 'array1') request.params = [params];
  else if (form === 'array0') request.params = [];
  else if (form === 'array2') request.params = [params, params];
  const name = WALLET_METHODS[method];
  const note = `${JSON.stringify(method.slice(0, 40))}, params ${form}${inner ? `, ${inner.note}` : ''}`;
  const c = (expect: Expect, expectedError: number, check?: (v: unknown) => void): RequestCase =>
    Object.assign(makeCase({ args: request, expect, note, check }), { request, expectedError });
  if (!Object.hasOwn(WALLET_METHODS, method) || name === undefined) return c('invalid', 20006);
  if (name === 'requestAccounts' || name === 'getAccounts') return c('valid', 0, (v) => expect(v).toEqual([ADDRESS]));
  if (name === 'requestNetwork') return c('valid', 0, (v) => expect(v).toEqual({ networkID: 'mina:devnet' }));
  // docs/provider.md: params may be the object or a one-element array holding it.
  let effective: unknown = request.params;
  if (Array.isArray(effective)) {
    if (effective.length !== 1) return c('invalid', 20003);
    effective = effective[0];
  }
  switch (name) {
    case 'signMessage': {
      const inner2 = signMessageCase(effective);
      return c(inner2.expect, inner2.code ?? 20003, inner2.check);
    }
    case 'createNullifier': {
      // Positional as mina-js sends it: [[fields]] is { message: fields }.
      const inner2 = createNullifierCase(Array.isArray(request.params) && Array.isArray(effective) ? { message: effective } : effective);
      return c(inner2.expect, 20003, inner2.check);
    }
    case 'switchChain': {
      // A network id (namespace:reference) is well-formed; the provider switches to the one it is on (devnet) and
      // answers 20004 for one it does not know or cannot sign for, as Auro does (the others it knows are not generated).
      const id = (effective as { networkID?: unknown } | null | undefined)?.networkID;
      if (typeof id !== 'string' || !/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/.test(id)) return c('invalid', 20003);
      return id === 'mina:devnet' ? c('valid', 0) : c('invalid', 20004);
    }
    default: {
      // sendTransaction, storePrivateCredential, requestPresentation: the inner case knows, for its own argument.
      if (effective !== (inner?.args ?? params)) return c('invalid', 20003);
      return c(inner?.expect ?? 'invalid', 20003, inner?.check);
    }
  }
}

const formArb = fc.constantFrom<Form>('object', 'object', 'array1', 'array1', 'array0', 'array2', 'omitted');
const knownMethodArb: fc.Arbitrary<RequestCase> = fc.oneof(
  fc.tuple(signMessageArgs, formArb).map(([p, f]) => requestCase('chain_signMessage', p, f)),
  fc.tuple(createNullifierArgs, formArb).map(([p, f]) => requestCase('chain_createNullifier', p, f)),
  fc
    .tuple(sendTransactionGarbageArgs, formArb)
    .map(([p, f]) => requestCase('chain_sendTransaction', p, f, makeCase({ args: p, expect: 'invalid', note: 'invalid by construction' }))),
  fc.tuple(storeInvalidCases, formArb).map(([c, f]) => requestCase('chain_storePrivateCredential', c.args, f, c)),
  fc.tuple(presentationCases, formArb).map(([c, f]) => requestCase('chain_requestPresentation', c.args, f, c)),
  fc
    .tuple(
      fc.oneof(
        garbageArb,
        fc
          .constantFrom(
            'mina:devnet',
            'mina:zeko',
            'mina:Devnet',
            ' mina:devnet',
            'mina:devnet\n',
            'mina:',
            'devnet',
            'mina:local ',
            'MINA:devnet',
            'mina:mainnet\u0000',
            'zeko:mainnet',
            'mina:berkeley',
            'mina:testnet',
          )
          .map((networkID) => ({ networkID })),
      ),
      formArb,
    )
    .map(([p, f]) => requestCase('chain_switchChain', p, f)),
  fc.tuple(garbageArb, formArb, fc.constantFrom('chain_requestAccounts', 'chain_accounts')).map(([p, f, m]) => requestCase(m, p, f)),
);
const unknownMethodArb: fc.Arbitrary<RequestCase> = fc
  .tuple(
    fc.oneof(fc.constantFrom(...TRICKY_METHODS), fc.string(), fc.string({ unit: 'binary', maxLength: 20 }), hugeString),
    garbageArb,
    formArb,
  )
  .filter(([m]) => !Object.hasOwn(WALLET_METHODS, m))
  .map(([m, p, f]) => requestCase(m, p, f));
/** `request(x)` where x is not `{ method: string, … }`. */
const badRequestArb: fc.Arbitrary<RequestCase> = fc
  .oneof(
    garbageArb.filter((v) => typeof (v as { method?: unknown } | null | undefined)?.method !== 'string'),
    fc.tuple(fc.oneof(exoticValue, oddNumber), garbageArb).map(([method, params]) => ({ method, params })),
    fc.constant({ params: { message: 'hi' } }),
    pollutionArb,
  )
  .map((request) => {
    const c = makeCase({ args: request, expect: 'invalid', note: 'not { method: string }' });
    return Object.assign(c, { request, expectedError: 20003 });
  });
