/**
 * Bad replies, property-based: the APDU reply parsers, the `MinaLedgerApp` client and the provider get random and
 * mutated device replies through a structural transport:
 *
 *   (a) random byte arrays (with random or 0x9000 status words),
 *   (b) the genuine reply of the software Ledger to the same request, with bit flips, truncation, extension or a byte
 *       replaced, and
 *   (c) genuine replies with a wrong status word (returned, or thrown the way @ledgerhq transports throw it).
 *
 * Client: every call ends in a typed error (a name of LEDGER_ERROR_NAMES; a status word maps to its class with its
 * statusCode) or a value, exactly as an independent decoder of the documented layouts (docs/apdu.md,
 * docs/apdu-extensions.md) predicts from the replies the client saw. A value from genuine replies is CORRECT (the
 * real address, a signature that verifies with mina-signer for that key and payload, a nullifier o1js verifies). A
 * value from altered replies is either correct too or — where the client documents that it checks shapes only
 * (signatures, nullifier values, the version and capability bytes within their ranges: docs/architecture.md "It
 * does not verify signatures cryptographically … the provider checks every signature") — exactly the faithful decoding of
 * well-formed bytes; those cases are counted. An address is never accepted unless it is the real one.
 *
 * Provider: with INS 05 / INS 06 / 0xA2 replies corrupted, signMessage, sendTransaction (onlySign) and
 * createNullifier never return anything that fails host verification; they reject with the ProviderError the
 * corruption calls for (the status word's mapping, else 22001), and with genuine replies they succeed.
 */
import fc from 'fast-check';
import Client from 'mina-signer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEDGER_ERROR_NAMES, MinaLedgerApp, signatureToBase58, type ApduTransport, type PaymentOrDelegation } from '../../src/apdu.js';
import { PALLAS_P, PALLAS_Q } from '../../src/apdu/constants.js';
import { bytesToUintBE, concatBytes, toHex, uintToBytesLE } from '../../src/apdu/bytes.js';
import { loadO1js } from '../../src/upstream/o1js.js';

import { createLedgerProvider, ERROR_MESSAGES, type LedgerProvider } from '../../src/index.js';
import { completeNullifier } from '../../src/nullifier/complete.js';
import { addressOf, exchange, txOf } from '../support/vectors.js';
import { runs } from '../support/runs.js';
import { berkeleyCommand, manyUpdates, verifySigned } from '../support/zkapp.js';
import { describeValue } from '../support/json-values.js';
import { settle } from '../support/settle.js';
import { ORIGIN, quietLedger } from '../support/rig.js';

// The tests come first; the rig and the oracles they use follow them, at the end of the file.

describe('client: random and mutated replies give a typed error or a correct value', () => {
  beforeAll(async () => {
    await loadO1js();
    for (const c of CASES) await recordingOf(c);
  }, 120_000);

  const planArb = fc.oneof(
    { weight: 1, arbitrary: fc.constant([] as { at: number; mutation: ReplyMutation }[]) },
    { weight: 6, arbitrary: fc.array(fc.record({ at: fc.nat(), mutation: replyMutationArb }), { minLength: 1, maxLength: 3 }) },
  );

  it(`${RUNS.client * 8} calls over the 8 client methods (${CASES.length} method/argument pairs), each with 0–3 replies altered`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...CASES), planArb, async (c, plan) => {
        const recorded = await recordingOf(c);
        const mutations = new Map<number, ReplyMutation>();
        for (const { at, mutation } of plan) mutations.set(at % recorded.length, mutation);
        const seen: Seen[] = [];
        let altered = false;
        let index = 0;
        const transport: ApduTransport = {
          async send(cla, ins, p1, p2, data = new Uint8Array(0)) {
            const i = index++;
            const apdu = toHex(apduOf(cla, ins, p1, p2, data));
            const rec = recorded[i];
            if (!rec || rec.request !== apdu) throw new Error(`${c.name}: exchange ${i} is not the recorded request (${apdu})`);
            const s = applyMutation(rec.reply, mutations.get(i) ?? { kind: 'genuine' });
            seen.push(s);
            if (!sameSeen(s, rec.reply)) altered = true;
            if ('thrown' in s) throw statusError(s.thrown);
            return 'bytes' in s ? s.bytes : new Uint8Array(0);
          },
        };
        const settled = await settle(
          () => c.call(new MinaLedgerApp(transport)),
          () => 0,
          CALL_TIMEOUT_MS,
        );
        let expected: Expected;
        try {
          expected = { value: c.model(seen) };
        } catch (stop) {
          if (!(stop instanceof Stop)) throw stop;
          expected = stop.expected;
        }
        clientStats.runs++;
        const where = `${c.name} with replies ${seen.map((s) => ('thrown' in s ? `throw 0x${s.thrown.toString(16)}` : toHex(s.bytes).slice(0, 80))).join(' | ')}`;
        if (!settled.ok) {
          const e = settled.error as { name?: unknown; statusCode?: unknown } | null;
          const name = typeof e?.name === 'string' ? e.name : undefined;
          if (!name || !(LEDGER_ERROR_NAMES as readonly string[]).includes(name)) {
            throw new Error(`${where}: rejected with something other than a typed Ledger error: ${describeValue(settled.error)}`);
          }
          clientStats.errors++;
          clientStats.errorNames.set(name, (clientStats.errorNames.get(name) ?? 0) + 1);
          if (!('error' in expected)) throw new Error(`${where}: expected the value ${describeValue(expected.value)}, got ${name}`);
          expect({ name, statusCode: e!.statusCode }, where).toEqual({ name: expected.error, statusCode: expected.statusCode });
          return;
        }
        clientStats.values++;
        if (!('value' in expected)) throw new Error(`${where}: expected ${expected.error}, got the value ${describeValue(settled.value)}`);
        expect(settled.value, where).toEqual(expected.value);
        if (await c.correct(settled.value)) return;
        // Not correct: only allowed for shape-only values decoded from altered replies.
        if (!altered) throw new Error(`${where}: genuine replies gave an incorrect value ${describeValue(settled.value)}`);
        if (!c.shapeOnly) throw new Error(`${where}: accepted an incorrect value ${describeValue(settled.value)}`);
        const kind = c.name.replace(/\(.*$/, '');
        clientStats.acceptedAltered.set(kind, (clientStats.acceptedAltered.get(kind) ?? 0) + 1);
      }),
      { numRuns: RUNS.client * 8 },
    );
  }, 300_000);
});

describe('documented limits of the client, and the provider covering them', () => {
  // docs/architecture.md: "It does not verify signatures cryptographically: that needs the public key and the signed
  // payload, which the provider layer has, and the provider checks every signature before using it."
  it('a bit flipped in s of a payment signature reply is returned as is by the client (shape-only), and does not verify', async () => {
    const e = exchange('sign_tx_1');
    const tx = txOf(e);
    const reply = Uint8Array.from(await ledger.exchange(apduOf(0xe0, 0x03, 0, 0, Buffer.from(e.request.slice(10), 'hex'))));
    reply[63] = reply[63]! ^ 1;
    const app = new MinaLedgerApp({ send: async () => reply });
    const signature = await app.signTransaction(tx);
    expect(signature.field).toBe(e.signature!.field);
    expect(signature.scalar).not.toBe(e.signature!.scalar);
    const data = {
      to: tx.to,
      from: tx.from,
      fee: tx.fee.toString(),
      amount: tx.amount.toString(),
      nonce: tx.nonce,
      memo: tx.memo ?? '',
      validUntil: tx.validUntil!,
    };
    expect(testnet.verifyPayment({ data, signature, publicKey: tx.from })).toBe(false);
  });
});

describe('provider: corrupted INS 05 / INS 06 / 0xA2 replies never yield an unverified signature or nullifier', () => {
  // Extension 1.0: zkApp commands through INS 06 (in clear, SIGN_ZKAPP replies: test/extension/clear-signing.test.ts).
  const pLedger = quietLedger({ extensions: '1.0', blindSigning: true });
  const CORRUPTIBLE = new Set([0x05, 0x06, 0xa2]);
  /** The mutations of the current call, by index among its corruptible exchanges; null: pass everything through. */
  let current: Map<number, ReplyMutation> | null = null;
  let corruptible = 0;
  let firstAltered: Seen | undefined;
  const transport: ApduTransport = {
    async send(cla, ins, p1, p2, data = new Uint8Array(0)) {
      const genuine = await pLedger.exchange(apduOf(cla, ins, p1, p2, data));
      if (!current || !CORRUPTIBLE.has(ins)) return genuine;
      const s = applyMutation(genuine, current.get(corruptible++) ?? { kind: 'genuine' });
      if (!sameSeen(s, genuine)) firstAltered ??= s;
      if ('thrown' in s) throw statusError(s.thrown);
      return s.bytes;
    },
  };
  let chain: LedgerProvider;
  let o1js: Awaited<ReturnType<typeof loadO1js>>;

  beforeAll(async () => {
    o1js = await loadO1js();
    // Blind signing without a host review: the integrator's opt-in (what is tested is the check of each reply).
    chain = createLedgerProvider({ transport, network: 'devnet', origin: 'https://dapp.example', allowUnreviewedBlindSigning: true });
    expect(await chain.requestAccounts()).toEqual([ADDRESS]);
  }, 60_000);

  /** The provider's code for the first altered reply (docs/provider.md, errors). */
  function expectedCode(s: Seen): number {
    const sw = 'thrown' in s ? s.thrown : s.bytes.length < 2 ? 0x9000 : (s.bytes[s.bytes.length - 2]! << 8) | s.bytes[s.bytes.length - 1]!;
    if (sw === 0x9000) return 22001; // a malformed or wrong answer: never blamed on the user or the dapp
    const name = statusClass(sw);
    if (name === 'LedgerUserRejectedError') return 1002;
    if (name === 'LedgerDeviceLockedError' || name === 'LedgerAppNotOpenError') return 1001;
    if (name === 'LedgerUnsupportedInstructionError') return 20006;
    if (name === 'LedgerInvalidDataError') return 20003;
    return 22001;
  }

  type Call = { name: string; run: () => Promise<unknown>; verify: (v: unknown) => boolean | Promise<boolean> };
  const printable = fc
    .string({ unit: fc.constantFrom(...[...Array(95)].map((_, i) => String.fromCharCode(0x20 + i))), minLength: 1, maxLength: 65 })
    .filter((m) => !m.toLowerCase().includes('chain-ledger credential store'));
  const callArb: fc.Arbitrary<Call> = fc.oneof(
    printable.map((message) => ({
      name: `signMessage(${JSON.stringify(message)})`,
      run: () => chain.signMessage({ message }),
      verify: (v: unknown) => {
        const r = v as { publicKey: string; data: string; signature: { field: string; scalar: string } };
        return r.publicKey === ADDRESS && r.data === `Message : ${message}` && testnet.verifyMessage(r);
      },
    })),
    fc.constantFrom(0, 3).map((partial) => ({
      name: partial ? 'sendTransaction(3 updates, 1 partial: two INS 06)' : 'sendTransaction(the committed command)',
      run: () => chain.sendTransaction({ transaction: partial ? manyUpdates(berkeleyCommand(), 3, 1) : berkeleyCommand(), onlySign: true }),
      verify: (v: unknown) => verifySigned('berkeley', 'devnet', (v as { signedData: string }).signedData, ADDRESS),
    })),
    fc
      .array(fc.oneof(fc.bigInt({ min: 0n, max: PALLAS_P - 1n }).map(String), fc.maxSafeNat()), { minLength: 1, maxLength: 9 })
      .map((message) => ({
        name: `createNullifier(${message.length} fields)`,
        run: () => chain.createNullifier({ message }),
        verify: (v: unknown) => {
          const r = v as { publicKey: unknown; public: unknown; private: unknown; data: unknown[] };
          if (JSON.stringify(r.data) !== JSON.stringify(message)) return false;
          try {
            o1js.Nullifier.fromJSON({ publicKey: r.publicKey, public: r.public, private: r.private } as never).verify(
              message.map((m) => o1js.Field(BigInt(m))),
            );
            return true;
          } catch {
            return false;
          }
        },
      })),
  );
  const planArb = fc.oneof(
    { weight: 1, arbitrary: fc.constant([] as { at: number; mutation: ReplyMutation }[]) },
    // Index among the call's corruptible exchanges: 0 is the only one of signMessage and of a short nullifier.
    {
      weight: 5,
      arbitrary: fc.array(
        fc.record({
          at: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat({ max: 2 }) }),
          mutation: replyMutationArb,
        }),
        { minLength: 1, maxLength: 2 },
      ),
    },
  );

  it(`${RUNS.provider} calls with corrupted replies: a verified result, or the ProviderError the corruption calls for`, async () => {
    await fc.assert(
      fc.asyncProperty(callArb, planArb, async (call, plan) => {
        current = new Map(plan.map(({ at, mutation }) => [at, mutation]));
        corruptible = 0;
        firstAltered = undefined;
        let settled: Awaited<ReturnType<typeof settle>>;
        try {
          settled = await settle(call.run, () => 0, CALL_TIMEOUT_MS);
        } finally {
          current = null;
        }
        providerStats.runs++;
        const where = `${call.name}, mutations ${describeValue(plan)}`;
        if (settled.ok) {
          if (!(await call.verify(settled.value)))
            throw new Error(`${where}: returned a result that does not verify: ${describeValue(settled.value)}`);
          providerStats.results++;
          return;
        }
        const e = settled.error as { name?: unknown; code?: unknown; message?: unknown; data?: { reason?: string } };
        if (
          e?.name !== 'ProviderError' ||
          typeof e.code !== 'number' ||
          ERROR_MESSAGES[e.code as keyof typeof ERROR_MESSAGES] !== e.message
        ) {
          throw new Error(`${where}: rejected with something other than a ProviderError: ${describeValue(settled.error)}`);
        }
        providerStats.refused.set(e.code, (providerStats.refused.get(e.code) ?? 0) + 1);
        if (!firstAltered) throw new Error(`${where}: genuine replies, yet ${e.code} (${e.data?.reason})`);
        expect(e.code, `${where}: ${e.data?.reason}`).toBe(expectedCode(firstAltered));
      }),
      { numRuns: RUNS.provider },
    );
    // Still works with genuine replies afterwards.
    expect((await chain.signMessage({ message: 'after' })).data).toBe('Message : after');
  }, 300_000);
});

// ---- the rig and the oracles used above (module code: it runs before vitest collects the tests) ----

const ADDRESS = addressOf(0);
const testnet = new Client({ network: 'testnet' });
const CALL_TIMEOUT_MS = 20_000;

/** Full counts in CI (CHAIN_LEDGER_FULL_RUNS=1), fewer by default (test/support/runs.ts); the client's are × 8 methods. */
const RUNS = { client: runs(250, 100), provider: runs(250, 100) };

// ---- reply mutations ----

type ReplyMutation =
  | { kind: 'genuine' }
  | { kind: 'random'; bytes: Uint8Array }
  | { kind: 'randomOk'; bytes: Uint8Array }
  | { kind: 'flip'; bits: number[]; dataOnly: boolean }
  | { kind: 'truncate'; at: number }
  | { kind: 'truncateData'; at: number }
  | { kind: 'extendData'; bytes: Uint8Array }
  | { kind: 'append'; bytes: Uint8Array }
  | { kind: 'setByte'; pos: number; value: number }
  | { kind: 'status'; sw: number; keepData: boolean; thrown: boolean }
  | { kind: 'bareOk' };

/** What the client was given for one exchange: bytes, or a thrown status word. */
type Seen = { bytes: Uint8Array } | { thrown: number };

const KNOWN_SW = [
  0x6985, 0x6986, 0x5501, 0x5515, 0x6d00, 0x6e00, 0x6e01, 0x6511, 0x6d02, 0x6802, 0x6800, 0x68ff, 0x6a80, 0x6982, 0x6700, 0x6f00, 0x9001,
  0x0000, 0xffff, 0x9100,
];
const swArb = fc.oneof(
  fc.constantFrom(...KNOWN_SW),
  fc.integer({ min: 0, max: 0xffff }).filter((sw) => sw !== 0x9000),
);

const replyMutationArb: fc.Arbitrary<ReplyMutation> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'genuine' as const }) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ kind: 'random' as const, bytes })) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => ({ kind: 'randomOk' as const, bytes })) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('flip' as const),
      bits: fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
      dataOnly: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('truncateData' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('extendData' as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 40 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('append' as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 10 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('setByte' as const), pos: fc.nat(), value: fc.nat(255) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('status' as const), sw: swArb, keepData: fc.boolean(), thrown: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'bareOk' as const }) },
);

const OK = Uint8Array.of(0x90, 0x00);

function applyMutation(genuine: Uint8Array, m: ReplyMutation): Seen {
  const data = genuine.subarray(0, genuine.length - 2);
  const sw = genuine.subarray(genuine.length - 2);
  switch (m.kind) {
    case 'genuine':
      return { bytes: genuine };
    case 'random':
      return { bytes: m.bytes };
    case 'randomOk':
      return { bytes: concatBytes(m.bytes, OK) };
    case 'flip': {
      const out = Uint8Array.from(genuine);
      const span = m.dataOnly ? data.length : out.length;
      if (span === 0) return { bytes: out };
      for (const bit of m.bits) {
        const i = Math.floor(bit / 8) % span;
        out[i] = out[i]! ^ (1 << (bit % 8));
      }
      return { bytes: out };
    }
    case 'truncate':
      return { bytes: genuine.slice(0, m.at % genuine.length) };
    case 'truncateData':
      return { bytes: concatBytes(data.slice(0, data.length === 0 ? 0 : m.at % data.length), sw) };
    case 'extendData':
      return { bytes: concatBytes(data, m.bytes, sw) };
    case 'append':
      return { bytes: concatBytes(genuine, m.bytes) };
    case 'setByte': {
      if (data.length === 0) return { bytes: genuine };
      const out = Uint8Array.from(genuine);
      out[m.pos % data.length] = m.value;
      return { bytes: out };
    }
    case 'status':
      if (m.thrown) return { thrown: m.sw };
      return { bytes: concatBytes(m.keepData ? data : new Uint8Array(0), Uint8Array.of(m.sw >> 8, m.sw & 0xff)) };
    case 'bareOk':
      return { bytes: OK };
  }
}

const sameSeen = (seen: Seen, genuine: Uint8Array) => 'bytes' in seen && toHex(seen.bytes) === toHex(genuine);

/** How @ledgerhq transports report a status word outside statusList. */
function statusError(sw: number): Error {
  return Object.assign(new Error(`Ledger device: UNKNOWN_ERROR (0x${sw.toString(16).padStart(4, '0')})`), {
    name: 'TransportStatusError',
    statusCode: sw,
    statusText: 'UNKNOWN_ERROR',
  });
}

function apduOf(cla: number, ins: number, p1: number, p2: number, data: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(cla, ins, p1, p2, data.length), data);
}

// ---- the independent model of the client (docs/apdu.md, docs/apdu-extensions.md) ----

type Expected = { error: string; statusCode?: number } | { value: unknown };

/** The documented status-word table (docs/transports.md#errors). */
function statusClass(sw: number): string {
  if ([0x6985, 0x6986, 0x5501].includes(sw)) return 'LedgerUserRejectedError';
  if (sw === 0x5515) return 'LedgerDeviceLockedError';
  if (sw === 0x6d00) return 'LedgerUnsupportedInstructionError';
  if ([0x6e00, 0x6e01, 0x6511, 0x6d02].includes(sw)) return 'LedgerAppNotOpenError';
  if ((sw & 0xff00) === 0x6800) return 'LedgerInvalidDataError';
  return 'LedgerStatusError';
}

class Stop {
  constructor(readonly expected: Expected) {}
}
const replyError = () => new Stop({ error: 'LedgerReplyError' });

/** The data of one exchange, or the error the client must raise for it. */
function dataOf(seen: Seen | undefined): Uint8Array {
  if (!seen) throw new Error('model: the client made fewer exchanges than the model expects');
  if ('thrown' in seen) throw new Stop({ error: statusClass(seen.thrown), statusCode: seen.thrown });
  const b = seen.bytes;
  if (b.length < 2) throw replyError();
  const sw = (b[b.length - 2]! << 8) | b[b.length - 1]!;
  if (sw !== 0x9000) throw new Stop({ error: statusClass(sw), statusCode: sw });
  return b.subarray(0, b.length - 2);
}

function signature64(d: Uint8Array) {
  if (d.length !== 64) throw replyError();
  const r = bytesToUintBE(d.subarray(0, 32));
  const s = bytesToUintBE(d.subarray(32, 64));
  if (r >= PALLAS_P || s >= PALLAS_Q) throw replyError();
  return { field: r.toString(), scalar: s.toString() };
}

type Version = [number, number, number];
const atLeast = (v: Version, min: Version) => (v[0] !== min[0] ? v[0] > min[0] : v[1] !== min[1] ? v[1] > min[1] : v[2] >= min[2]);

/** A version no Mina app can claim (major 1–9, minor and patch 0–99: codec.ts decodeVersion) is a reply error. */
function version(seen: Seen | undefined): Version {
  const d = dataOf(seen);
  if (d.length !== 3) throw replyError();
  if (d[0]! < 1 || d[0]! > 9 || d[1]! > 99 || d[2]! > 99) throw replyError();
  return [d[0]!, d[1]!, d[2]!];
}

function gate(seen: Seen | undefined, min: Version): Version {
  const v = version(seen);
  if (!atLeast(v, min)) throw new Stop({ error: 'LedgerAppVersionError' });
  return v;
}

/** The text INS 05 signs on a version: raw on 1.4.0, 1.4.1 and 1.4.4, "Message : " + message otherwise. */
function signedText(v: Version, message: string): string {
  const raw = !atLeast(v, [1, 4, 2]) || (v[0] === 1 && v[1] === 4 && v[2] === 4);
  return raw ? message : `Message : ${message}`;
}

function chunksOf(payloadLength: number): number {
  return Math.ceil(payloadLength / 255);
}

/** A client method under test: how to call it, what the model predicts, and what a correct value is. */
interface ClientCase {
  name: string;
  call: (app: MinaLedgerApp) => Promise<unknown>;
  model: (seen: Seen[]) => unknown;
  correct: (value: unknown) => boolean | Promise<boolean>;
  /** Values the client documents it only shape-checks: may be wrong when a reply was altered. */
  shapeOnly: boolean;
}

const range = (n: number, seed = 1n) => Array.from({ length: n }, (_, i) => (seed * 7919n + BigInt(i) * 104729n) % PALLAS_P);
const verifySig = (sig: { field: string; scalar: string }, fields: bigint[]) => {
  try {
    return testnet.verifyFields({ data: fields, signature: signatureToBase58(sig), publicKey: ADDRESS });
  } catch {
    return false;
  }
};

function clientCases(): ClientCase[] {
  const cases: ClientCase[] = [];
  cases.push({
    name: 'getAppVersion',
    call: (app) => app.getAppVersion(),
    model: ([v]) => {
      const [major, minor, patch] = version(v);
      return { version: `${major}.${minor}.${patch}`, major, minor, patch };
    },
    correct: (v) => (v as { version: string }).version === '1.6.0',
    shapeOnly: true,
  });
  cases.push({
    name: 'getCapabilities',
    call: (app) => app.getCapabilities(),
    model: ([c]) => {
      let d: Uint8Array;
      try {
        d = dataOf(c);
      } catch (stop) {
        if (stop instanceof Stop && 'error' in stop.expected && stop.expected.error === 'LedgerUnsupportedInstructionError') return null;
        throw stop;
      }
      // docs/apdu-extensions.md: protocol major 1, bits 0x01–0x10 only, 1–64 fields; anything else is refused. The
      // nullifier takes an origin from version 1.1 on.
      if (d.length !== 4 || d[3] === 0 || d[3]! > 64 || d[0] !== 1 || (d[2]! & ~0x1f) !== 0) throw replyError();
      return {
        version: `${d[0]}.${d[1]}`,
        signFields: (d[2]! & 1) !== 0,
        createNullifier: (d[2]! & 2) !== 0,
        signZkapp: (d[2]! & 4) !== 0,
        signPresentation: (d[2]! & 8) !== 0,
        signText: (d[2]! & 0x10) !== 0,
        nullifierOrigin: d[1]! >= 1 && (d[2]! & 2) !== 0,
        maxFields: d[3],
      };
    },
    correct: (v) =>
      JSON.stringify(v) ===
      JSON.stringify({
        version: '1.2',
        signFields: true,
        createNullifier: true,
        signZkapp: true,
        signPresentation: true,
        signText: true,
        nullifierOrigin: true,
        maxFields: 64,
      }),
    shapeOnly: true,
  });
  for (const account of [0, 1, 3]) {
    const address = addressOf(account);
    cases.push({
      name: `getAddress(${account}, silent)`,
      call: (app) => app.getAddress(account),
      model: ([v, a]) => {
        gate(v, [1, 4, 1]);
        const d = dataOf(a);
        // Only the real address's bytes decode: any other 56 bytes fail the length, NUL, ASCII or base58check test.
        if (toHex(d) !== toHex(concatBytes(new TextEncoder().encode(address), Uint8Array.of(0)))) throw replyError();
        return address;
      },
      correct: (v) => v === address,
      shapeOnly: false,
    });
  }
  for (const name of ['sign_tx_1', 'sign_tx_4']) {
    const tx: PaymentOrDelegation = txOf(exchange(name));
    cases.push({
      name: `signTransaction(${name})`,
      call: (app) => app.signTransaction(tx),
      model: ([s]) => signature64(dataOf(s)),
      correct: (v) => {
        const data = {
          to: tx.to,
          from: tx.from,
          fee: tx.fee.toString(),
          amount: tx.amount.toString(),
          nonce: tx.nonce,
          memo: tx.memo ?? '',
          validUntil: tx.validUntil!,
        };
        try {
          return testnet.verifyPayment({ data, signature: v as { field: string; scalar: string }, publicKey: tx.from });
        } catch {
          return false;
        }
      },
      shapeOnly: true,
    });
  }
  for (const message of ['Hello Mina!', 'a', 'x'.repeat(65)]) {
    cases.push({
      name: `signMessage(${JSON.stringify(message.slice(0, 12))})`,
      call: (app) => app.signMessage(0, message, 0),
      model: ([v, s]) => {
        const ver = gate(v, [1, 4, 0]);
        const text = signedText(ver, message);
        const d = dataOf(s);
        if (!atLeast(ver, [1, 4, 5])) return { ...signature64(d), signedMessage: text };
        if (d.length < 65 || d.length !== 65 + d[64]!) throw replyError();
        if (toHex(d.subarray(65)) !== toHex(new TextEncoder().encode(text))) throw replyError();
        return { ...signature64(d.subarray(0, 64)), signedMessage: text };
      },
      correct: (v) => {
        const r = v as { field: string; scalar: string; signedMessage: string };
        if (r.signedMessage !== `Message : ${message}`) return false;
        try {
          return testnet.verifyMessage({ data: r.signedMessage, signature: { field: r.field, scalar: r.scalar }, publicKey: ADDRESS });
        } catch {
          return false;
        }
      },
      shapeOnly: true,
    });
  }
  for (const field of [BigInt(exchange('sign_field_devnet').params.field), PALLAS_P - 1n, 0n]) {
    cases.push({
      name: `signFieldElement(${field.toString().slice(0, 8)}…)`,
      call: (app) => app.signFieldElement(0, field, 0),
      model: ([v, s]) => {
        gate(v, [1, 6, 0]);
        const d = dataOf(s);
        if (d.length !== 97 || d[64] !== 0x20) throw replyError();
        if (toHex(d.subarray(65)) !== toHex(uintToBytesLE(field, 32))) throw replyError();
        return signature64(d.subarray(0, 64));
      },
      correct: (v) => verifySig(v as { field: string; scalar: string }, [field]),
      shapeOnly: true,
    });
  }
  for (const n of [2, 16, 64]) {
    const fields = range(n);
    const chunks = chunksOf(6 + 32 * n);
    cases.push({
      name: `signFields(${n} fields, ${chunks} chunks)`,
      call: (app) => app.signFields(0, fields),
      model: (seen) => {
        for (let i = 0; i < chunks - 1; i++) if (dataOf(seen[i]).length !== 0) throw replyError();
        return signature64(dataOf(seen[chunks - 1]));
      },
      correct: (v) => verifySig(v as { field: string; scalar: string }, fields),
      shapeOnly: true,
    });
  }
  // SIGN_TEXT (1.2): a one-chunk sign-in line, a multi-line text with non-ASCII, and the longest (1024 bytes).
  for (const message of ['Sign in to dapp.example', `Sign in\nNonce: 7\nCafé ☕ ${'x'.repeat(280)}`, 'y'.repeat(1024)]) {
    const chunks = chunksOf(4 + 1 + 1 + ORIGIN.length + 2 + new TextEncoder().encode(message).length);
    cases.push({
      name: `signText(${new TextEncoder().encode(message).length} bytes, ${chunks} chunks)`,
      call: (app) => app.signText({ account: 0, networkId: 0, origin: ORIGIN, message }),
      model: (seen) => {
        for (let i = 0; i < chunks - 1; i++) if (dataOf(seen[i]).length !== 0) throw replyError();
        return signature64(dataOf(seen[chunks - 1]));
      },
      correct: (v) => {
        const { field, scalar } = v as { field: string; scalar: string };
        return testnet.verifyMessage({ data: message, signature: { field, scalar }, publicKey: ADDRESS });
      },
      shapeOnly: true,
    });
  }
  for (const n of [1, 9, 64]) {
    const fields = range(n, 3n);
    const chunks = chunksOf(5 + 32 * n);
    cases.push({
      name: `createNullifier(${n} fields, ${chunks} chunks)`,
      call: (app) => app.createNullifier(0, fields),
      model: (seen) => {
        for (let i = 0; i < chunks - 1; i++) if (dataOf(seen[i]).length !== 0) throw replyError();
        const d = dataOf(seen[chunks - 1]);
        if (d.length !== 128) throw replyError();
        const [x, y, c, s] = [0, 32, 64, 96].map((o) => bytesToUintBE(d.subarray(o, o + 32))) as [bigint, bigint, bigint, bigint];
        if (x >= PALLAS_P || y >= PALLAS_P || c >= PALLAS_P || s >= PALLAS_Q) throw replyError();
        return { nullifier: { x, y }, c, s };
      },
      correct: (v) =>
        completeNullifier(ADDRESS, fields, v as never).then(
          () => true,
          () => false,
        ),
      shapeOnly: true,
    });
  }
  return cases;
}

// ---- the genuine device and its recorded replies ----

const ledger = quietLedger({ extensions: true, blindSigning: true });
const recordings = new Map<string, { request: string; reply: Uint8Array }[]>();

/** The genuine exchanges of one client call (recorded once; Mina signatures are deterministic). */
async function recordingOf(c: ClientCase) {
  let recorded = recordings.get(c.name);
  if (!recorded) {
    const list: { request: string; reply: Uint8Array }[] = [];
    const recorder: ApduTransport = {
      async send(cla, ins, p1, p2, data = new Uint8Array(0)) {
        const apdu = apduOf(cla, ins, p1, p2, data);
        const reply = await ledger.exchange(apdu);
        list.push({ request: toHex(apdu), reply });
        return reply;
      },
    };
    const value = await c.call(new MinaLedgerApp(recorder));
    if (!(await c.correct(value))) throw new Error(`${c.name}: the genuine device gives an incorrect value`);
    recordings.set(c.name, (recorded = list));
  }
  return recorded;
}

const CASES = clientCases();
const clientStats = { runs: 0, values: 0, errors: 0, acceptedAltered: new Map<string, number>(), errorNames: new Map<string, number>() };
const providerStats = { runs: 0, results: 0, refused: new Map<number, number>() };

afterAll(() => {
  const altered = [...clientStats.acceptedAltered].map(([k, n]) => `${k}: ${n}`).join(', ');
  console.log(
    `bad-replies: client ${clientStats.runs} calls (${clientStats.values} values, ${clientStats.errors} typed errors: ` +
      `${[...clientStats.errorNames].map(([k, n]) => `${k} ${n}`).join(', ')}); values accepted from altered replies ` +
      `(shape-only, documented): ${altered || 'none'}\n` +
      `bad-replies: provider ${providerStats.runs} calls (${providerStats.results} verified results, refusals: ` +
      `${[...providerStats.refused].map(([k, n]) => `${k} × ${n}`).join(', ')})`,
  );
});
