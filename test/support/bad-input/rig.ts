/**
 * The rig of the bad-input properties (test/reliability/bad-input/): every provider method and
 * `request({ method, params })` get thousands of generated and mutated arguments — wrong types, huge strings, deep
 * nesting, non-canonical numbers, prototype-pollution keys, and one-leaf mutations of valid arguments. For every call
 * (`run`, judged by `judge`):
 *
 *   - it settles, in bounded time, with a result or a documented `ProviderError`, never anything else;
 *   - an argument the test knows to be invalid (an oracle per method written from docs/provider.md, or invalid by
 *     construction) is refused with 20003; an argument known to be valid gets a result; a mutated argument the test
 *     cannot classify ("either") gets one or the other — and a refusal never follows a device request for that call
 *     (the connect exchanges happen once, before the properties);
 *   - a result is correct: signatures verify for the connected key and the network, a nullifier passes o1js
 *     `Nullifier.verify` for the message as given, a signed zkApp command round-trips through its era's mina-signer
 *     unchanged and keeps the layout's leaf types (a boolean stays a boolean);
 *
 * and after all of it, no built-in prototype was polluted (checked after every file's properties).
 *
 * One connected provider per file on the software Ledger (extension on, blind signing on), network devnet, no
 * graphqlUrl, the default credential store (files) under a temporary XDG_DATA_HOME. Presentation requests are only
 * generated INVALID (schema-rejected), so nothing is ever proved.
 *
 * A bug these properties find is reduced to a minimal input and pinned by a test in the file of its subject
 * (docs/reliability.md lists them).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect } from 'vitest';
import { createLedgerProvider, ERROR_MESSAGES, type LedgerProvider } from '../../../src/index.js';
import { loadAttestations, type AttestationsModules } from '../../../src/upstream/attestations.js';
import { minaSignerInternals, type Era, type MinaSignerInternals } from '../../../src/upstream/mina-signer-internals.js';
import { loadO1js } from '../../../src/upstream/o1js.js';
import { describeValue } from '../json-values.js';
import { prototypeSnapshot } from '../odd-values.js';
import { ORIGIN, quietLedger } from '../rig.js';
import { type Settled, settle } from '../settle.js';
import { addressOf } from '../vectors.js';

export const ADDRESS = addressOf(0);
const EMPTY_KEY = 'B62qiTKpEPjGTSHZrtM8uXiKgn8So916pLmNJKDhKeyBQL9TDb3nvBG';
/** Addresses a mutation puts where one belongs: the connected one, the empty key, other accounts', a cut one. */
export const addressArb = fc.constantFrom(
  ADDRESS,
  EMPTY_KEY,
  addressOf(1),
  'B62qnzbXmRNo9q32n4SNu2mpB8e7FYYLH8NmaX6oFCBYjjQ8SbD7uzW',
  'B62q',
);
const DOCUMENTED_CODES = [1001, 1002, 20003, 20004, 20006, 21001, 22001, 23001];
/** A call that has not settled after this is a hang. */
const CALL_TIMEOUT_MS = 20_000;
/** A hang guard, not a speed check: a call still unsettled after this long counts as hanging. */
const SLOW_CALL_MS = 30_000;

// ---- the provider under test ----

export const ledger = quietLedger({ extensions: true, blindSigning: true });
/**
 * Device requests so far, every one counted as it is made (`ledger.exchanges` keeps only the last 10 000, which the
 * fuzz mode's calls outnumber).
 */
let exchangeCount = 0;
const exchangeOnce = ledger.exchange.bind(ledger);
ledger.exchange = (apdu) => {
  exchangeCount++;
  return exchangeOnce(apdu);
};
const exchanges = () => exchangeCount;

/** What the rig makes before the properties (in the file's beforeAll): read it inside tests and arbitraries' maps. */
export const made = {} as {
  chain: LedgerProvider;
  o1js: Awaited<ReturnType<typeof loadO1js>>;
  attestations: AttestationsModules;
  internals: Record<Era, MinaSignerInternals>;
  /** A native credential of the connected account, and a presentation request (JSON objects). */
  validCredential: Record<string, unknown>;
  validRequest: Record<string, unknown>;
};

let prototypesBefore: ReturnType<typeof prototypeSnapshot>;
const stats: Record<string, { runs: number; results: number; refused: number }> = {};

/**
 * Sets up a test file's properties: before them, the connected provider and what the oracles need (`made`); after
 * them, the exchange count and the built-in prototypes checked (as the request file's last tests do), and the calls
 * counted in the log.
 */
export function badInputRig(): void {
  let dataHome: string | undefined;
  const savedDataHome = process.env.XDG_DATA_HOME;

  beforeAll(async () => {
    dataHome = mkdtempSync(join(tmpdir(), 'chain-ledger-reliability-'));
    process.env.XDG_DATA_HOME = dataHome; // the default file store, in a temporary directory
    // The integrator's opt-ins: switches without a hook, and blind signing (the released app) without a host review.
    made.chain = createLedgerProvider({
      transport: ledger,
      network: 'devnet',
      origin: ORIGIN,
      allowUnconfirmedSwitchChain: true,
      allowUnreviewedBlindSigning: true,
    });
    expect(await made.chain.requestAccounts()).toEqual([ADDRESS]);
    const [o1js, attestations, berkeley, mesa] = await Promise.all([
      loadO1js(),
      loadAttestations(),
      minaSignerInternals('berkeley'),
      minaSignerInternals('mesa'),
    ]);
    Object.assign(made, { o1js, attestations, internals: { berkeley, mesa } });
    const { UInt64, PublicKey, PrivateKey } = o1js;
    const { Credential, DynamicString, PresentationSpec, Claim, Operation, PresentationRequest } = attestations.attestations;
    const Nationality = DynamicString({ maxLength: 50 });
    const data = { nationality: Nationality.from('Austria'), age: UInt64.from(30) };
    made.validCredential = JSON.parse(
      Credential.toJSON(Credential.sign(PrivateKey.random(), { owner: PublicKey.fromBase58(ADDRESS), data })),
    );
    const spec = PresentationSpec(
      { credential: Credential.Native({ nationality: Nationality, age: UInt64 }), createdAt: Claim(UInt64) },
      ({ credential, createdAt }) => ({
        assert: [Operation.lessThanEq(createdAt, Operation.property(credential, 'age'))],
        outputClaim: Operation.issuer(credential),
      }),
    );
    made.validRequest = JSON.parse(
      PresentationRequest.toJSON(PresentationRequest.https(spec, { createdAt: UInt64.from(1) }, { action: 'login' })),
    );
    expect(attestations.validation.PresentationRequestSchema.safeParse(made.validRequest).success).toBe(true);
    expect(attestations.validation.StoredCredentialSchema.safeParse(made.validCredential).success).toBe(true);
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
    if (prototypesBefore) {
      expectExchangesCounted();
      expectPrototypesUnchanged();
    }
  });
}

/** The device requests were counted: the connect's and more, and as many as the software Ledger answered. */
export function expectExchangesCounted(): void {
  expect(exchangeCount).toBeGreaterThan(3);
  expect(ledger.exchanges.length).toBe(Math.min(exchangeCount, 10_000));
}

/** No built-in prototype has a key it did not have before the properties. */
export function expectPrototypesUnchanged(): void {
  expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  expect(([] as unknown as { polluted?: unknown }).polluted).toBeUndefined();
  expect(prototypeSnapshot()).toEqual(prototypesBefore);
  expect(Object.keys(Object.prototype)).toEqual([]);
}

// ---- cases, and how a call is judged ----

export type Expect = 'valid' | 'invalid' | 'either';

export interface Case {
  args: unknown;
  expect: Expect;
  note: string;
  check?: (value: unknown) => void;
  /**
   * The refusal's code when it is not the caller's default (20006: well-formed, but beyond what the device signs), or
   * the codes an "either" argument may be refused with (a network id the provider does not know: 20004).
   */
  code?: number | number[];
}

export function fail(message: string): never {
  throw new Error(message);
}

/** Cases print briefly in fast-check's reports (a 100 kB string or 2000 levels would drown the counterexample). */
export function makeCase(c: Case): Case {
  const text = () => `${c.expect} (${c.note}): ${describeValue(c.args, 400)}`;
  return Object.assign(c, { [fc.toStringMethod]: text, toString: text });
}

function judge(name: string, c: Case, s: Settled, callerError: number | number[] = 20003): void {
  const expectedErrors = [c.code ?? callerError].flat();
  const expectedError = expectedErrors.join(' or ');
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
    if (!expectedErrors.includes(e.code))
      fail(`${at()}: expected ${expectedError}, got ${e.code} (${e.data?.field ?? ''}: ${e.data?.reason})`);
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

/** Runs one call of the property `name` on case `c`, bounded, and judges what it settled with. */
export const run = (name: string, c: Case, call: () => Promise<unknown>, expectedError?: number | number[]) =>
  settle(call, exchanges, CALL_TIMEOUT_MS).then((s) => judge(name, c, s, expectedError));
