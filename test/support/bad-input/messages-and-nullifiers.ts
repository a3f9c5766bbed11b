/**
 * The bad-input oracles of signMessage and createNullifier (written from docs/provider.md), the arguments the
 * properties draw for them, and the checks of their results. Used by their own properties and by `request`'s.
 */
import fc from 'fast-check';
import Client from 'mina-signer';
import { describeValue, isObject } from '../json-values.js';
import { P, exoticValue, deepArb, garbageArb, hugeString, nonCanonicalString, oddNumber } from '../odd-values.js';
import { mutate, mutationArb, replacementArb } from '../value-mutations.js';
import { ADDRESS, type Case, fail, made, makeCase } from './rig.js';

const testnet = new Client({ network: 'testnet' });

// ---- oracles: what a valid argument is ----

/**
 * `{ message }`: a string is well-formed (anything else is 20003), and so is its text (a lone surrogate, which UTF-8
 * cannot encode, is 20003); the store-key text is reserved (20003); the device under test has the extension's
 * SIGN_TEXT at its latest version (1.4, Blind signing on), which signs 1–16384 bytes of UTF-8 without NUL (past
 * 4,096 characters as its hash), and a well-formed text beyond that is 20006 (docs/provider.md).
 */
function signMessageVerdict(args: unknown): 'valid' | 20003 | 20006 {
  if (!isObject(args) || typeof args.message !== 'string') return 20003;
  const m = args.message;
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(m)) return 20003;
  // Reserved (src/apdu/store-key.ts): the store-key text anywhere, in any letter case.
  if (m.toLowerCase().includes('chain-ledger credential store')) return 20003;
  const bytes = new TextEncoder().encode(m).length;
  return bytes >= 1 && bytes <= 16384 && !m.includes('\0') ? 'valid' : 20006;
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
  if (!isObject(args) || !Array.isArray(args.message)) return false;
  const m = args.message;
  if (m.length > 64) return false;
  for (let i = 0; i < m.length; i++) if (!(i in m) || !validField(m[i])) return false;
  return true;
}

// ---- checks of results ----

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
    const { o1js } = made;
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
      'a'.repeat(4097),
      'a'.repeat(16384),
      'a'.repeat(16385),
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

export const signMessageArgs: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: messageArb.map((message) => ({ message })) },
  { weight: 3, arbitrary: mutationArb({ values: replacementArb([messageArb]) }).map((m) => mutate({ message: 'Hello Mina!' }, m).value) },
  { weight: 2, arbitrary: garbageArb },
);

export function signMessageCase(args: unknown): Case {
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

export const createNullifierArgs: fc.Arbitrary<unknown> = fc.oneof(
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

export function createNullifierCase(args: unknown): Case {
  return validCreateNullifier(args)
    ? makeCase({ args, expect: 'valid', note: 'oracle: valid', check: checkNullifier(args.message) })
    : makeCase({ args, expect: 'invalid', note: 'oracle: invalid' });
}
