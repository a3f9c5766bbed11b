/**
 * Bad replies to the client, property-based: the APDU reply parsers and the `MinaLedgerApp` client get random and
 * mutated device replies through a structural transport: random bytes, genuine replies of the software Ledger with
 * bit flips, truncation, extension or a byte replaced, wrong status words (test/support/reply-mutations.ts).
 *
 * Every call ends in a typed error (a name of LEDGER_ERROR_NAMES; a status word maps to its class with its
 * statusCode) or a value, exactly as an independent decoder of the documented layouts (docs/apdu.md,
 * docs/apdu-extensions.md) predicts from the replies the client saw. A value from genuine replies is CORRECT (the
 * real address, a signature that verifies with mina-signer for that key and payload, a nullifier o1js verifies). A
 * value from altered replies is either correct too or — where the client documents that it checks shapes only
 * (signatures, nullifier values, the version and capability bytes within their ranges: docs/architecture.md "It
 * does not verify signatures cryptographically … the provider checks every signature") — exactly the faithful decoding of
 * well-formed bytes; those cases are counted. An address is never accepted unless it is the real one. The provider
 * with corrupted replies: provider.property.test.ts.
 */
import fc from 'fast-check';
import Client from 'mina-signer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEDGER_ERROR_NAMES, MinaLedgerApp, signatureToBase58, type ApduTransport, type PaymentOrDelegation } from '../../../src/apdu.js';
import { PALLAS_P, PALLAS_Q } from '../../../src/apdu/constants.js';
import { bytesToUintBE, concatBytes, toHex, uintToBytesLE } from '../../../src/apdu/bytes.js';
import { loadO1js } from '../../../src/upstream/o1js.js';
import { completeNullifier } from '../../../src/nullifier/complete.js';
import { describeValue } from '../../support/json-values.js';
import {
  type ReplyMutation,
  type Seen,
  apduOf,
  applyMutation,
  replyMutationArb,
  sameSeen,
  statusError,
} from '../../support/reply-mutations.js';
import { ORIGIN, quietLedger } from '../../support/rig.js';
import { runs } from '../../support/runs.js';
import { settle } from '../../support/settle.js';
import { statusClass } from '../../support/status-words.js';
import { addressOf, exchange, txOf } from '../../support/vectors.js';

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
    expect(testnet.verifyPayment({ data: paymentData(tx), signature, publicKey: tx.from })).toBe(false);
  });
});

// ---- the rig and the oracles used above (module code: it runs before vitest collects the tests) ----

const ADDRESS = addressOf(0);
const testnet = new Client({ network: 'testnet' });
const CALL_TIMEOUT_MS = 20_000;

/** Full counts in CI (CHAIN_LEDGER_FULL_RUNS=1), fewer by default (test/support/runs.ts); × 8 methods. */
const RUNS = { client: runs(250, 100) };

// ---- the independent model of the client (docs/apdu.md, docs/apdu-extensions.md) ----

type Expected = { error: string; statusCode?: number } | { value: unknown };

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

/** A payment or delegation as mina-signer's verifyPayment takes it. */
const paymentData = (tx: PaymentOrDelegation) => ({
  to: tx.to,
  from: tx.from,
  fee: tx.fee.toString(),
  amount: tx.amount.toString(),
  nonce: tx.nonce,
  memo: tx.memo ?? '',
  validUntil: tx.validUntil!,
});
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
      // docs/apdu-extensions.md: protocol major 1, bits 0x01–0x20 only, 1–64 fields; anything else is refused. The
      // nullifier takes an origin from version 1.1 on.
      if (d.length !== 4 || d[3] === 0 || d[3]! > 64 || d[0] !== 1 || (d[2]! & ~0x3f) !== 0) throw replyError();
      return {
        version: `${d[0]}.${d[1]}`,
        signFields: (d[2]! & 1) !== 0,
        createNullifier: (d[2]! & 2) !== 0,
        signZkapp: (d[2]! & 4) !== 0,
        signPresentation: (d[2]! & 8) !== 0,
        signText: (d[2]! & 0x10) !== 0,
        storeKey: (d[2]! & 0x20) !== 0,
        nullifierOrigin: d[1]! >= 1 && (d[2]! & 2) !== 0,
        maxFields: d[3],
      };
    },
    correct: (v) =>
      JSON.stringify(v) ===
      JSON.stringify({
        version: '1.4', // the software Ledger's latest (extensions: true)
        signFields: true,
        createNullifier: true,
        signZkapp: true,
        signPresentation: true,
        signText: true,
        storeKey: true,
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
        try {
          return testnet.verifyPayment({ data: paymentData(tx), signature: v as { field: string; scalar: string }, publicKey: tx.from });
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

afterAll(() => {
  const altered = [...clientStats.acceptedAltered].map(([k, n]) => `${k}: ${n}`).join(', ');
  console.log(
    `bad-replies: client ${clientStats.runs} calls (${clientStats.values} values, ${clientStats.errors} typed errors: ` +
      `${[...clientStats.errorNames].map(([k, n]) => `${k} ${n}`).join(', ')}); values accepted from altered replies ` +
      `(shape-only, documented): ${altered || 'none'}`,
  );
});
