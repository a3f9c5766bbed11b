/**
 * The byte layout of a zkApp account-update body in SIGN_ZKAPP (extension INS 0xA3, docs/apdu-extensions.md): every
 * leaf the protocol hashes, in the order of mina-signer's generated layout (`jsLayout.AccountUpdate.body`), so that a
 * device can rebuild the body, show it and hash it itself. `test/extension/clear-signing.test.ts` keeps this table equal
 * to mina-signer's layout in both eras (Berkeley: 8 app-state fields, o1js 2.15 and mina-signer 3.1.0; Mesa: 32,
 * mina-signer 4.0.0).
 *
 * The values are mina-signer's bigint representation (`AccountUpdate.fromJSON(json).body`), with four exceptions the
 * device completes with the protocol's own functions, since they are hashes of data it either shows or cannot show:
 * - `zkappUri` carries its text (the device hashes it: `ZkappUri.fromJSON`), `tokenSymbol` its text (≤ 6 bytes);
 * - `verificationKey`, `events` and `actions` carry only their hash (the device cannot show a verification key or
 *   arbitrary event data; it shows that they are set);
 * - an option that is absent (`isSome` false) carries no value: the device takes the protocol's empty value (which
 *   the hash covers) from its own table, never from the host.
 *
 * Encodings: field 32 bytes little-endian (< p, as INS 06 and the other extension instructions); public key x (32
 * LE) ‖ isOdd u8; bool u8 (0 or 1); u32 4 bytes and u64 8 bytes big-endian (as INS 03); sign u8 (0 positive, 1
 * negative); permission u8 (bit 0 constant, bit 1 signatureNecessary, bit 2 signatureSufficient, only the five
 * combinations the protocol names); option u8 isSome (0 or 1) then the value when 1; text u8 length ‖ UTF-8 bytes,
 * without control characters (display-text.ts).
 */
import { type ByteReader, bytesToUintBE, concatBytes, encodeText, uintToBytesBE, uintToBytesLE } from './bytes.js';
import { PALLAS_P } from './constants.js';
import { displayTextProblem } from './display-text.js';

/** A leaf type of the layout. */
export type Leaf =
  | 'field'
  | 'publicKey'
  | 'bool'
  | 'u32'
  | 'u64'
  | 'sign'
  | 'permission'
  /** zkappUri: the text (≤ 255 bytes of UTF-8); the device computes the hash. */
  | 'uri'
  /** tokenSymbol: the text (≤ 6 bytes); the device computes the field. */
  | 'symbol'
  /** verificationKey, events, actions: only the hash. */
  | 'hashOnly';

export type Node =
  | { kind: 'leaf'; leaf: Leaf }
  | { kind: 'object'; entries: [string, Node][] }
  | { kind: 'option'; inner: Node; flavour: 'flagged' | 'interval' }
  | { kind: 'array'; length: number; inner: Node };

const leaf = (l: Leaf): Node => ({ kind: 'leaf', leaf: l });
const obj = (entries: Record<string, Node>): Node => ({ kind: 'object', entries: Object.entries(entries) });
const opt = (inner: Node): Node => ({ kind: 'option', inner, flavour: 'flagged' });
const range = (l: Leaf): Node => ({ kind: 'option', inner: obj({ lower: leaf(l), upper: leaf(l) }), flavour: 'interval' });
const arr = (length: number, inner: Node): Node => ({ kind: 'array', length, inner });

const FIELD = leaf('field');
const BOOL = leaf('bool');
const AUTH = leaf('permission');

/** The zkApp protocol eras: the number of app-state fields of an account. */
export const APP_STATE_FIELDS = { berkeley: 8, mesa: 32 } as const;
export type ZkappEra = keyof typeof APP_STATE_FIELDS;

const epochData = () =>
  obj({
    ledger: obj({ hash: opt(FIELD), totalCurrency: range('u64') }),
    seed: opt(FIELD),
    startCheckpoint: opt(FIELD),
    lockCheckpoint: opt(FIELD),
    epochLength: range('u32'),
  });

/** An account's permissions, in the protocol's order: who may do what to it. */
const permissions = () =>
  obj({
    editState: AUTH,
    access: AUTH,
    send: AUTH,
    receive: AUTH,
    setDelegate: AUTH,
    setPermissions: AUTH,
    setVerificationKey: obj({ auth: AUTH, txnVersion: leaf('u32') }),
    setZkappUri: AUTH,
    editActionState: AUTH,
    setTokenSymbol: AUTH,
    incrementNonce: AUTH,
    setVotingFor: AUTH,
    setTiming: AUTH,
  });

/** An account's vesting schedule. */
const timing = () =>
  obj({
    initialMinimumBalance: leaf('u64'),
    cliffTime: leaf('u32'),
    cliffAmount: leaf('u64'),
    vestingPeriod: leaf('u32'),
    vestingIncrement: leaf('u64'),
  });

const layouts = new Map<ZkappEra, Node>();

/**
 * The body of an account update, without `callDepth` (it travels in the record header). Built once per era and
 * shared: callers only read it.
 */
export function bodyLayout(era: ZkappEra): Node {
  let layout = layouts.get(era);
  if (layout === undefined) {
    layout = buildBodyLayout(era);
    layouts.set(era, layout);
  }
  return layout;
}

function buildBodyLayout(era: ZkappEra): Node {
  const state = APP_STATE_FIELDS[era];
  return obj({
    publicKey: leaf('publicKey'),
    tokenId: FIELD,
    update: obj({
      appState: arr(state, opt(FIELD)),
      delegate: opt(leaf('publicKey')),
      verificationKey: opt(leaf('hashOnly')),
      permissions: opt(permissions()),
      zkappUri: opt(leaf('uri')),
      tokenSymbol: opt(leaf('symbol')),
      timing: opt(timing()),
      votingFor: opt(FIELD),
    }),
    balanceChange: obj({ magnitude: leaf('u64'), sgn: leaf('sign') }),
    incrementNonce: BOOL,
    events: leaf('hashOnly'),
    actions: leaf('hashOnly'),
    callData: FIELD,
    preconditions: obj({
      network: obj({
        snarkedLedgerHash: opt(FIELD),
        blockchainLength: range('u32'),
        minWindowDensity: range('u32'),
        totalCurrency: range('u64'),
        globalSlotSinceGenesis: range('u32'),
        stakingEpochData: epochData(),
        nextEpochData: epochData(),
      }),
      account: obj({
        balance: range('u64'),
        nonce: range('u32'),
        receiptChainHash: opt(FIELD),
        delegate: opt(leaf('publicKey')),
        state: arr(state, opt(FIELD)),
        actionState: opt(FIELD),
        provedState: opt(BOOL),
        isNew: opt(BOOL),
      }),
      validWhile: range('u32'),
    }),
    useFullCommitment: BOOL,
    implicitAccountCreationFee: BOOL,
    mayUseToken: obj({ parentsOwnToken: BOOL, inheritFromParent: BOOL }),
    authorizationKind: obj({ isSigned: BOOL, isProved: BOOL, verificationKeyHash: FIELD }),
  });
}

/** The permission encodings the protocol names (AuthRequired: constant, signatureNecessary, signatureSufficient). */
export const PERMISSIONS: Record<number, string> = { 3: 'Impossible', 5: 'None', 0: 'Proof', 6: 'Signature', 4: 'Either' };

/** A permission's bits (bit 0 constant, bit 1 signatureNecessary, bit 2 signatureSufficient; only `true` sets one). */
export function permissionBits(auth: unknown): number {
  const { constant, signatureNecessary, signatureSufficient } = (auth ?? {}) as Record<string, unknown>;
  return (constant === true ? 1 : 0) | (signatureNecessary === true ? 2 : 0) | (signatureSufficient === true ? 4 : 0);
}

/** The most bytes a body of `era` can take (every option set, the longest URI and token symbol). */
export function maxBodyBytes(era: ZkappEra): number {
  const size = (node: Node): number => {
    switch (node.kind) {
      case 'leaf':
        return LEAF_MAX_BYTES[node.leaf];
      case 'object':
        return node.entries.reduce((n, [, inner]) => n + size(inner), 0);
      case 'array':
        return node.length * size(node.inner);
      case 'option':
        return 1 + size(node.inner);
    }
  };
  return size(bodyLayout(era));
}

/** Longest zkApp URI the device accepts (one length byte). */
export const MAX_URI_BYTES = 255;
/** Longest token symbol (the protocol's limit). */
export const MAX_SYMBOL_BYTES = 6;

const LEAF_MAX_BYTES: Record<Leaf, number> = {
  field: 32,
  publicKey: 33,
  bool: 1,
  u32: 4,
  u64: 8,
  sign: 1,
  permission: 1,
  uri: 1 + MAX_URI_BYTES,
  symbol: 1 + MAX_SYMBOL_BYTES,
  hashOnly: 32,
};

/** A malformed body: the device answers 0x6802; the host never sends one. */
export class ZkappBodyError extends Error {
  override readonly name = 'ZkappBodyError';
}

const bodyError = (path: string, why: string) => new ZkappBodyError(`${path}: ${why}`);
const fail = (path: string, why: string): never => {
  throw bodyError(path, why);
};

type Value = unknown;
type Obj = Record<string, Value>;

function encodeLeaf(l: Leaf, v: Value, path: string): Uint8Array {
  switch (l) {
    case 'field': {
      if (typeof v !== 'bigint' || v < 0n || v >= PALLAS_P) return fail(path, 'not a field element');
      return uintToBytesLE(v, 32);
    }
    case 'publicKey': {
      const { x, isOdd } = (v ?? {}) as { x?: unknown; isOdd?: unknown };
      return concatBytes(
        encodeLeaf('field', x, `${path}.x`),
        Uint8Array.of(isOdd === true ? 1 : isOdd === false ? 0 : fail(path, 'isOdd')),
      );
    }
    case 'bool':
      return Uint8Array.of(v === true ? 1 : v === false ? 0 : fail(path, 'not a bool'));
    case 'u32':
      if (typeof v !== 'bigint' || v < 0n || v >= 1n << 32n) return fail(path, 'not a u32');
      return uintToBytesBE(v, 4);
    case 'u64':
      if (typeof v !== 'bigint' || v < 0n || v >= 1n << 64n) return fail(path, 'not a u64');
      return uintToBytesBE(v, 8);
    case 'sign':
      return Uint8Array.of(v === 1n ? 0 : v === PALLAS_P - 1n ? 1 : fail(path, 'not a sign (1 or -1)'));
    case 'permission': {
      const bits = permissionBits(v);
      if (PERMISSIONS[bits] === undefined) return fail(path, 'not a permission');
      return Uint8Array.of(bits);
    }
    case 'uri':
    case 'symbol': {
      const text = l === 'uri' ? (v as { data?: unknown })?.data : (v as { symbol?: unknown })?.symbol;
      if (typeof text !== 'string') return fail(path, 'not text');
      const problem = displayTextProblem(text, { ascii: l === 'symbol' });
      if (problem) return fail(path, problem);
      return encodeText(text, l === 'uri' ? MAX_URI_BYTES : MAX_SYMBOL_BYTES) ?? fail(path, 'too long');
    }
    case 'hashOnly':
      return encodeLeaf('field', (v as { hash?: unknown })?.hash, `${path}.hash`);
  }
}

function encodeNode(node: Node, v: Value, path: string, out: Uint8Array[]): void {
  switch (node.kind) {
    case 'leaf':
      out.push(encodeLeaf(node.leaf, v, path));
      return;
    case 'object':
      for (const [key, inner] of node.entries) encodeNode(inner, (v as Obj | undefined)?.[key], `${path}.${key}`, out);
      return;
    case 'array': {
      if (!Array.isArray(v) || v.length !== node.length) fail(path, `must have ${node.length} entries`);
      for (const [i, item] of (v as Value[]).entries()) encodeNode(node.inner, item, `${path}[${i}]`, out);
      return;
    }
    case 'option': {
      const { isSome, value } = (v ?? {}) as { isSome?: unknown; value?: Value };
      if (isSome !== true && isSome !== false) fail(path, 'isSome');
      out.push(Uint8Array.of(isSome ? 1 : 0));
      if (isSome) encodeNode(node.inner, value, `${path}.value`, out);
    }
  }
}

/** The body's bytes (mina-signer's bigint body of this era; `callDepth` is not part of them). */
export function encodeZkappBody(era: ZkappEra, body: unknown): Uint8Array {
  const out: Uint8Array[] = [];
  encodeNode(bodyLayout(era), body, 'body', out);
  return concatBytes(...out);
}

function decodeLeaf(l: Leaf, r: ByteReader, path: string): Value {
  switch (l) {
    case 'field':
      return r.fieldLE(() => bodyError(path, 'field element ≥ p'));
    case 'publicKey': {
      const x = decodeLeaf('field', r, `${path}.x`) as bigint;
      return { x, isOdd: decodeLeaf('bool', r, `${path}.isOdd`) };
    }
    case 'bool': {
      const b = r.u8();
      return b === 1 ? true : b === 0 ? false : fail(path, 'bool must be 0 or 1');
    }
    case 'u32':
      return bytesToUintBE(r.bytes(4));
    case 'u64':
      return r.u64be();
    case 'sign': {
      const s = r.u8();
      return s === 0 ? 1n : s === 1 ? PALLAS_P - 1n : fail(path, 'sign must be 0 or 1');
    }
    case 'permission': {
      const bits = r.u8();
      if (PERMISSIONS[bits] === undefined) fail(path, `0x${bits.toString(16)} is not a permission`);
      return { constant: (bits & 1) !== 0, signatureNecessary: (bits & 2) !== 0, signatureSufficient: (bits & 4) !== 0 };
    }
    case 'uri':
    case 'symbol': {
      const text = r.text(l === 'symbol' ? MAX_SYMBOL_BYTES : MAX_URI_BYTES, (why) =>
        bodyError(path, why === 'too long' ? 'token symbol over 6 bytes' : 'not UTF-8'),
      );
      // The text rule (display-text.ts): a NUL or another control character could not be shown as signed.
      const problem = displayTextProblem(text, { ascii: l === 'symbol' });
      if (problem) fail(path, problem);
      return l === 'uri' ? { data: text } : { symbol: text };
    }
    case 'hashOnly':
      return { hash: decodeLeaf('field', r, path) };
  }
}

function decodeNode(node: Node, r: ByteReader, path: string): Value {
  switch (node.kind) {
    case 'leaf':
      return decodeLeaf(node.leaf, r, path);
    case 'object':
      return Object.fromEntries(node.entries.map(([key, inner]) => [key, decodeNode(inner, r, `${path}.${key}`)]));
    case 'array':
      return Array.from({ length: node.length }, (_, i) => decodeNode(node.inner, r, `${path}[${i}]`));
    case 'option': {
      const flag = r.u8();
      if (flag > 1) fail(path, 'isSome must be 0 or 1');
      return flag === 1 ? { isSome: true, value: decodeNode(node.inner, r, `${path}.value`) } : { isSome: false };
    }
  }
}

/**
 * Reads one body (the device side). Absent options come back as `{ isSome: false }` without a value, `zkappUri` as
 * `{ data }`, `tokenSymbol` as `{ symbol }`, hash-only leaves as `{ hash }`: the caller completes them with the
 * protocol's own empty values and hash functions. A malformed body throws ZkappBodyError (overruns included).
 */
export function decodeZkappBody(era: ZkappEra, reader: ByteReader): Obj {
  return decodeNode(bodyLayout(era), reader, 'body') as Obj;
}
