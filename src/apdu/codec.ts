/**
 * Pure encoders and decoders for the Mina app's instructions (v1.6.0). Encoders validate their input and throw
 * `LedgerInputError` naming the field, so nothing invalid is ever sent; decoders validate the reply and throw
 * `LedgerReplyError`, so a malformed reply never becomes a result. No I/O here.
 */
import { decodeAddress } from './address.js';
import { ByteReader, asciiDecode, concatBytes, equalBytes, uintToBytesBE, uintToBytesLE, utf8 } from './bytes.js';
import {
  ADDRESS_LENGTH,
  INS_GET_ADDRESS,
  INS_GET_VERSION,
  INS_SIGN_FIELD_ELEMENT,
  INS_SIGN_MESSAGE,
  INS_SIGN_TX,
  MAX_ACCOUNT,
  MAX_U32,
  MAX_U64,
  MEMO_MAX_BYTES,
  MESSAGE_PREFIX,
  PALLAS_P,
  SIGNED_TEXT_MAX_BYTES,
  SIGN_TX_BODY_LENGTH,
  TX_TAG_DELEGATION,
  TX_TAG_PAYMENT,
  VALID_UNTIL_NONE,
} from './constants.js';
import { LedgerInputError, LedgerReplyError } from './errors.js';
import { signatureFromDeviceBytes, type MinaSignature } from './signature.js';
import { parseVersion, type AppVersion } from './version.js';

export type NetworkId = 0 | 1;

export interface PaymentOrDelegation {
  txType: 'payment' | 'delegation';
  account: number;
  from: string;
  to: string;
  /** nanomina; must be 0 for a delegation. */
  amount: bigint;
  /** nanomina. */
  fee: bigint;
  nonce: number;
  /** Global slot; default 4294967295 (no expiry). */
  validUntil?: number;
  /** ≤ 32 UTF-8 bytes, no NUL. */
  memo?: string;
  networkId: NetworkId;
}

/** One request for the device: the header bytes besides CLA and the data. */
export interface ApduRequest {
  ins: number;
  p1: number;
  p2: number;
  data: Uint8Array;
}

// ---- input checks (each names the field it refuses) ----

/** An account index N of m/44'/12586'/N'/0/0: an integer from 0 to 2^31 - 1. */
export function checkAccountIndex(account: unknown, field = 'account'): number {
  if (typeof account !== 'number' || !Number.isInteger(account) || account < 0 || account > MAX_ACCOUNT) {
    throw new LedgerInputError(field, `must be an integer from 0 to ${MAX_ACCOUNT} (2^31 - 1)`);
  }
  return account;
}

export function checkNetworkId(networkId: unknown, field = 'networkId'): NetworkId {
  if (networkId !== 0 && networkId !== 1) throw new LedgerInputError(field, 'must be 0 (testnet/devnet) or 1 (mainnet)');
  return networkId;
}

function checkU32(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_U32) {
    throw new LedgerInputError(field, `must be an integer from 0 to ${MAX_U32}`);
  }
  return value;
}

function checkU64(value: unknown, field: string): bigint {
  if (typeof value !== 'bigint' || value < 0n || value > MAX_U64) {
    throw new LedgerInputError(field, 'must be a bigint from 0 to 2^64 - 1 (nanomina)');
  }
  return value;
}

function checkAddress(value: unknown, field: string): string {
  const decoded = typeof value === 'string' ? decodeAddress(value) : 'not a string';
  if (typeof decoded === 'string') throw new LedgerInputError(field, `not a Mina address (${decoded})`);
  return value as string;
}

/** The memo as the device stores it: its UTF-8 bytes, NUL-padded to 32. */
export function encodeMemo(memo: unknown, field = 'memo'): Uint8Array {
  if (typeof memo !== 'string') throw new LedgerInputError(field, 'must be a string');
  const bytes = utf8.encode(memo);
  if (bytes.length > MEMO_MAX_BYTES) {
    throw new LedgerInputError(field, `must be at most ${MEMO_MAX_BYTES} UTF-8 bytes, got ${bytes.length}`);
  }
  // The device reads the memo up to the first NUL: an embedded NUL would sign a different memo than asked.
  if (bytes.includes(0)) throw new LedgerInputError(field, 'must not contain NUL characters');
  const out = new Uint8Array(MEMO_MAX_BYTES);
  out.set(bytes);
  return out;
}

/** Printable ASCII (0x20–0x7E) plus CR and LF: what the app accepts in a message. */
export function isPrintableMessageByte(b: number): boolean {
  return (b >= 0x20 && b <= 0x7e) || b === 0x0a || b === 0x0d;
}

/** Field elements for INS 06: canonical, 0 ≤ x < p (the device does not reduce, so the host must not send more). */
export function checkFieldElement(value: unknown, field = 'field'): bigint {
  if (typeof value !== 'bigint') throw new LedgerInputError(field, 'must be a bigint');
  if (value < 0n || value >= PALLAS_P) throw new LedgerInputError(field, 'must be a Pallas field element (0 ≤ x < p)');
  return value;
}

// ---- INS 01: version ----

export function encodeGetVersion(): ApduRequest {
  return { ins: INS_GET_VERSION, p1: 0, p2: 0, data: new Uint8Array(0) };
}

/**
 * The versions a Mina app can claim. Every release so far is 1.x (1.0.2 … 1.6.0: mina-ledger-app.md §1); a major
 * version up to 9 and minor and patch numbers up to 99 leave room for every plausible release, and refuse what only
 * a corrupted or lying reply says (such as 0.0.0, 114.47.110 or 2.227.35 from fuzzed replies).
 */
const APP_VERSION_LIMITS = { major: [1, 9], minor: [0, 99], patch: [0, 99] } as const;

export function decodeVersion(reply: Uint8Array): AppVersion {
  if (reply.length !== 3) throw new LedgerReplyError(`version reply must be 3 bytes, got ${reply.length}`);
  const reader = new ByteReader(reply, replyError);
  const version = parseVersion(`${reader.u8()}.${reader.u8()}.${reader.u8()}`);
  for (const part of ['major', 'minor', 'patch'] as const) {
    const [min, max] = APP_VERSION_LIMITS[part];
    if (version[part] < min || version[part] > max) {
      throw new LedgerReplyError(`the device claims Mina app ${version.version}, which no Mina app is (${part} must be ${min}–${max})`);
    }
  }
  return version;
}

// ---- INS 02: address ----

export function encodeGetAddress(account: number, display: boolean): ApduRequest {
  checkAccountIndex(account);
  return { ins: INS_GET_ADDRESS, p1: display ? 0x00 : 0x01, p2: 0, data: uintToBytesBE(account, 4) };
}

export function decodeAddressReply(reply: Uint8Array): string {
  if (reply.length !== ADDRESS_LENGTH + 1 || reply[ADDRESS_LENGTH] !== 0) {
    throw new LedgerReplyError(`address reply must be ${ADDRESS_LENGTH} characters and a NUL, got ${reply.length} bytes`);
  }
  const address = asciiDecode(new ByteReader(reply, replyError).bytes(ADDRESS_LENGTH));
  const decoded = address === undefined ? 'not ASCII' : decodeAddress(address);
  if (typeof decoded === 'string') throw new LedgerReplyError(`the device returned an invalid address (${decoded})`);
  return address!;
}

// ---- INS 03: payment / delegation ----

/**
 * The INS 03 body, 172 bytes, integers big-endian (the app's src/parse_tx.c):
 *
 *   account u32 ‖ from (55 ASCII) ‖ to (55 ASCII) ‖ amount u64 ‖ fee u64 ‖ nonce u32 ‖ valid_until u32
 *     ‖ memo (32, NUL-padded) ‖ tag u8 (0 payment, 4 delegation) ‖ network id u8
 *
 * Written here once: the encoder writes it with `writeSignTxBody`, the software Ledger reads it with
 * `readSignTxBody`. Neither checks the values: the encoder checks them before, the device model after.
 */
export interface SignTxBody {
  account: number;
  from: Uint8Array;
  to: Uint8Array;
  amount: bigint;
  fee: bigint;
  nonce: number;
  validUntil: number;
  memo: Uint8Array;
  tag: number;
  networkId: number;
}

export function writeSignTxBody(body: SignTxBody): Uint8Array {
  return concatBytes(
    uintToBytesBE(body.account, 4),
    body.from,
    body.to,
    uintToBytesBE(body.amount, 8),
    uintToBytesBE(body.fee, 8),
    uintToBytesBE(body.nonce, 4),
    uintToBytesBE(body.validUntil, 4),
    body.memo,
    Uint8Array.of(body.tag, body.networkId),
  );
}

/** Reads a body of exactly SIGN_TX_BODY_LENGTH bytes; anything shorter or longer throws `overrun`'s error. */
export function readSignTxBody(data: Uint8Array, overrun?: (message: string) => unknown): SignTxBody {
  const reader = new ByteReader(data, overrun);
  const body: SignTxBody = {
    account: reader.u32be(),
    from: reader.bytes(ADDRESS_LENGTH),
    to: reader.bytes(ADDRESS_LENGTH),
    amount: reader.u64be(),
    fee: reader.u64be(),
    nonce: reader.u32be(),
    validUntil: reader.u32be(),
    memo: reader.bytes(MEMO_MAX_BYTES),
    tag: reader.u8(),
    networkId: reader.u8(),
  };
  reader.end();
  return body;
}

export function encodeSignTransaction(tx: PaymentOrDelegation): ApduRequest {
  if (typeof tx !== 'object' || tx === null) throw new LedgerInputError('tx', 'must be an object');
  if (tx.txType !== 'payment' && tx.txType !== 'delegation') {
    throw new LedgerInputError('txType', 'must be "payment" or "delegation"');
  }
  const account = checkAccountIndex(tx.account);
  checkAddress(tx.from, 'from');
  checkAddress(tx.to, 'to');
  const amount = checkU64(tx.amount, 'amount');
  const fee = checkU64(tx.fee, 'fee');
  if (tx.txType === 'delegation' && amount !== 0n) throw new LedgerInputError('amount', 'must be 0 for a delegation');
  // The app refuses amount + fee overflowing u64 (after the user reviewed it); refuse before that.
  if (amount + fee > MAX_U64) throw new LedgerInputError('amount', 'amount + fee must not exceed 2^64 - 1');
  const nonce = checkU32(tx.nonce, 'nonce');
  const validUntil = checkU32(tx.validUntil ?? VALID_UNTIL_NONE, 'validUntil');
  const memo = encodeMemo(tx.memo ?? '');
  const networkId = checkNetworkId(tx.networkId);

  const data = writeSignTxBody({
    account,
    from: utf8.encode(tx.from),
    to: utf8.encode(tx.to),
    amount,
    fee,
    nonce,
    validUntil,
    memo,
    tag: tx.txType === 'payment' ? TX_TAG_PAYMENT : TX_TAG_DELEGATION,
    networkId,
  });
  if (data.length !== SIGN_TX_BODY_LENGTH) throw new LedgerInputError('tx', 'does not encode to 172 bytes');
  return { ins: INS_SIGN_TX, p1: 0, p2: 0, data };
}

export function decodeSignatureReply(reply: Uint8Array): MinaSignature {
  if (reply.length !== 64) throw new LedgerReplyError(`signature reply must be 64 bytes, got ${reply.length}`);
  const sig = signatureFromDeviceBytes(reply);
  if (!sig) throw new LedgerReplyError('the device returned a signature outside the Pallas fields');
  return sig;
}

// ---- INS 05: message ----

/**
 * Messages are printable ASCII of 1–65 bytes on every version: ≥ 1.4.5 signs "Message : " + message in a 75-byte
 * buffer, so a 66-byte message would be shown and fail only after the user approved it. (Apps that sign the raw
 * message could take 75 bytes; one limit for all keeps the check independent of the version.)
 */
export const MESSAGE_MAX_BYTES = SIGNED_TEXT_MAX_BYTES - MESSAGE_PREFIX.length;

export function encodeSignMessage(account: number, message: string, networkId: NetworkId): ApduRequest {
  checkAccountIndex(account);
  checkNetworkId(networkId);
  if (typeof message !== 'string' || message.length === 0) throw new LedgerInputError('message', 'must be a non-empty string');
  const bytes = utf8.encode(message);
  if (!bytes.every(isPrintableMessageByte)) throw new LedgerInputError('message', 'must be printable ASCII (0x20-0x7E, CR, LF)');
  if (bytes.length > MESSAGE_MAX_BYTES) {
    throw new LedgerInputError('message', `must be at most ${MESSAGE_MAX_BYTES} bytes, got ${bytes.length}`);
  }
  return { ins: INS_SIGN_MESSAGE, p1: 0, p2: 0, data: concatBytes(uintToBytesBE(account, 4), Uint8Array.of(networkId), bytes) };
}

/** ≥ 1.4.5: r ‖ s ‖ L ‖ signed text, which must equal what we expect the app to sign. Older: r ‖ s. */
export function decodeSignMessageReply(
  reply: Uint8Array,
  expectedText: string,
  echoed: boolean,
): MinaSignature & { signedMessage: string } {
  if (!echoed) return { ...decodeSignatureReply(reply), signedMessage: expectedText };
  if (reply.length < 65) throw new LedgerReplyError(`message reply too short (${reply.length} bytes)`);
  const reader = new ByteReader(reply, replyError);
  const signature = reader.bytes(64);
  const length = reader.u8();
  if (reader.remaining !== length) throw new LedgerReplyError('message reply length byte does not match the reply');
  const text = asciiDecode(reader.rest());
  if (text !== expectedText) throw new LedgerReplyError('the device signed a different text than the one sent');
  return { ...decodeSignatureReply(signature), signedMessage: text };
}

// ---- INS 06: field element ----

export function encodeSignFieldElement(account: number, field: bigint, networkId: NetworkId): ApduRequest {
  checkAccountIndex(account);
  checkFieldElement(field);
  checkNetworkId(networkId);
  return {
    ins: INS_SIGN_FIELD_ELEMENT,
    p1: 0,
    p2: 0,
    data: concatBytes(uintToBytesBE(account, 4), Uint8Array.of(networkId), uintToBytesLE(field, 32)),
  };
}

/** r ‖ s ‖ 0x20 ‖ the 32 field bytes echoed: the echo must equal what was sent. */
export function decodeSignFieldReply(reply: Uint8Array, field: bigint): MinaSignature {
  if (reply.length !== 97 || reply[64] !== 0x20) {
    throw new LedgerReplyError(`field-element reply must be 97 bytes with 0x20 at 64, got ${reply.length} bytes`);
  }
  const reader = new ByteReader(reply, replyError);
  const signature = reader.bytes(64);
  reader.u8(); // 0x20, checked above
  if (!equalBytes(reader.rest(), uintToBytesLE(field, 32))) {
    throw new LedgerReplyError('the device echoed a different field element than the one sent');
  }
  return decodeSignatureReply(signature);
}

// ---- reply framing ----

/** The error a reply parser throws when a read overruns the reply. */
export const replyError = (message: string): LedgerReplyError => new LedgerReplyError(`malformed reply: ${message}`);

/** Splits a raw reply into data and status word — the one place replies are cut. */
export function splitReply(reply: Uint8Array): { data: Uint8Array; statusCode: number } {
  if (reply.length < 2) throw new LedgerReplyError(`reply shorter than a status word (${reply.length} bytes)`);
  const n = reply.length;
  return { data: reply.subarray(0, n - 2), statusCode: (reply[n - 2]! << 8) | reply[n - 1]! };
}
