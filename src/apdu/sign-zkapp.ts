/**
 * Extension SIGN_ZKAPP (INS 0xA3, docs/apdu-extensions.md): a zkApp command streamed to the device in clear, so that
 * it shows what the command does and signs commitments it computed itself from what it showed. The host never sends
 * a commitment; it compares the device's with its own afterwards.
 *
 * Payload (chunked as every extension request):
 *
 *   account u32 BE ‖ network u8 ‖ era u8 ‖ N u8                       (N account updates, 0 ≤ N ≤ 16)
 *   fee payer: public key ‖ fee u64 BE ‖ nonce u32 BE ‖ validUntil option (u8 isSome ‖ u32 BE)
 *   memo: 34 bytes (0x01 ‖ length ‖ 32 bytes, the memo's binary form)
 *   N × (callDepth u8 ‖ body)                                           (body: zkapp-body.ts)
 *
 * Reply: commitment ‖ fullCommitment (32 bytes BE each) ‖ K u8 ‖ K × (which u8 ‖ r ‖ s): one signature per distinct
 * value this account must sign (which: 0 fullCommitment, 1 commitment), 1 ≤ K ≤ 2.
 */
import { ByteReader, bytesToUintBE, bytesToUintLE, concatBytes, keyOf, uintToBytesBE, uintToBytesLE } from './bytes.js';
import { checkAccountIndex, replyError, type ApduRequest } from './codec.js';
import { PALLAS_P, PALLAS_Q } from './constants.js';
import { LedgerInputError, LedgerReplyError } from './errors.js';
import { decodeDisplayText } from './display-text.js';
import { chunk } from './extension.js';
import { decodeZkappBody, encodeZkappBody, maxBodyBytes, ZkappBodyError, type ZkappEra } from './zkapp-body.js';

export const INS_SIGN_ZKAPP = 0xa3;

/** Account updates one SIGN_ZKAPP request may carry (a node accepts at most 11 besides the fee payer). */
export const MAX_ZKAPP_UPDATES = 16;
/** The memo's binary form: 0x01 ‖ length ‖ 32 bytes. */
export const MEMO_BYTES = 34;
/** The largest call depth the device accepts (o1js nests far less in practice). */
export const MAX_CALL_DEPTH = 16;
/** Header (account, network, era, N), fee payer (key, fee, nonce, validUntil option), memo. */
const PREFIX_BYTES = 4 + 3 + 33 + 8 + 4 + 5 + MEMO_BYTES;
/**
 * The largest SIGN_ZKAPP payload: 16 account updates of the largest Mesa body (every option set, a 255-byte URI),
 * 52,411 bytes. A real device parses the stream as it arrives and never holds it (docs/apdu-extensions.md); the
 * software Ledger buffers it.
 */
export const MAX_SIGN_ZKAPP_PAYLOAD = PREFIX_BYTES + MAX_ZKAPP_UPDATES * (1 + maxBodyBytes('mesa'));

export type ZkappNetwork = 'testnet' | 'mainnet';
const NETWORK_BYTES: Record<ZkappNetwork, number> = { testnet: 0x00, mainnet: 0x01 };
const ERA_BYTES: Record<ZkappEra, number> = { berkeley: 0x00, mesa: 0x01 };

export interface ZkappStream {
  account: number;
  network: ZkappNetwork;
  era: ZkappEra;
  feePayer: { publicKey: { x: bigint; isOdd: boolean }; fee: bigint; nonce: bigint; validUntil: bigint | undefined };
  /** The memo's 34 bytes (mina-signer `Memo.fromBase58`, as bytes). */
  memo: Uint8Array;
  /** Each account update's call depth and body (mina-signer's bigint body; zkapp-body.ts). */
  updates: { callDepth: number; body: unknown }[];
}

/**
 * The memo's text from its binary form (0x01 ‖ length ‖ 32 bytes): UTF-8 without control characters, as the text
 * rule wants it (display-text.ts); undefined otherwise, or for a memo not of that form.
 */
export function memoText(memo: Uint8Array): string | undefined {
  if (memo.length !== MEMO_BYTES || memo[0] !== 0x01 || memo[1]! > 32) return undefined;
  return decodeDisplayText(memo.subarray(2, 2 + memo[1]!));
}

/** The stream's payload bytes (not yet chunked). */
export function encodeZkappStream(stream: ZkappStream): Uint8Array {
  checkAccountIndex(stream.account);
  const network = NETWORK_BYTES[stream.network];
  const era = ERA_BYTES[stream.era];
  if (network === undefined) throw new LedgerInputError('network', 'must be "testnet" or "mainnet"');
  if (era === undefined) throw new LedgerInputError('era', 'must be "berkeley" or "mesa"');
  if (stream.updates.length > MAX_ZKAPP_UPDATES) {
    throw new LedgerInputError('accountUpdates', `at most ${MAX_ZKAPP_UPDATES} account updates in one request`);
  }
  if (stream.memo.length !== MEMO_BYTES) throw new LedgerInputError('memo', `must be ${MEMO_BYTES} bytes`);
  if (memoText(stream.memo) === undefined) {
    throw new LedgerInputError('memo', 'must be UTF-8 text without control characters: a device could not show it as signed');
  }
  const { publicKey, fee, nonce, validUntil } = stream.feePayer;
  const parts = [
    uintToBytesBE(stream.account, 4),
    Uint8Array.of(network, era, stream.updates.length),
    uintToBytesLE(publicKey.x, 32),
    Uint8Array.of(publicKey.isOdd ? 1 : 0),
    uintToBytesBE(fee, 8),
    uintToBytesBE(nonce, 4),
    validUntil === undefined ? Uint8Array.of(0) : concatBytes(Uint8Array.of(1), uintToBytesBE(validUntil, 4)),
    stream.memo,
  ];
  for (const [i, { callDepth, body }] of stream.updates.entries()) {
    if (!Number.isInteger(callDepth) || callDepth < 0 || callDepth > MAX_CALL_DEPTH) {
      throw new LedgerInputError(`accountUpdates[${i}].body.callDepth`, `must be 0–${MAX_CALL_DEPTH}`);
    }
    try {
      parts.push(Uint8Array.of(callDepth), encodeZkappBody(stream.era, body));
    } catch (error) {
      if (error instanceof ZkappBodyError) throw new LedgerInputError(`accountUpdates[${i}]`, error.message);
      throw error;
    }
  }
  const payload = concatBytes(...parts);
  if (payload.length > MAX_SIGN_ZKAPP_PAYLOAD) throw new LedgerInputError('transaction', `over ${MAX_SIGN_ZKAPP_PAYLOAD} bytes in clear`);
  return payload;
}

/** SIGN_ZKAPP's APDUs. */
export function encodeSignZkapp(stream: ZkappStream): ApduRequest[] {
  return chunk(INS_SIGN_ZKAPP, encodeZkappStream(stream));
}

/**
 * The device side: the stream from its payload. Anything malformed throws ZkappBodyError (the device answers
 * 0x6802): an unknown network or era, N > 16, a call depth > 16, a leaf outside its range, missing or extra bytes.
 */
export function decodeZkappStream(payload: Uint8Array): ZkappStream {
  const reader = new ByteReader(payload, (message) => new ZkappBodyError(message));
  const account = reader.u32be();
  const networkByte = reader.u8();
  const eraByte = reader.u8();
  const count = reader.u8();
  const network = keyOf(NETWORK_BYTES, networkByte);
  const era = keyOf(ERA_BYTES, eraByte);
  if (network === undefined) throw new ZkappBodyError(`network byte 0x${networkByte.toString(16)}`);
  if (era === undefined) throw new ZkappBodyError(`era byte 0x${eraByte.toString(16)}`);
  if (count > MAX_ZKAPP_UPDATES) throw new ZkappBodyError(`${count} account updates (at most ${MAX_ZKAPP_UPDATES})`);
  const x = bytesToUintLE(reader.bytes(32));
  const odd = reader.u8();
  if (x >= PALLAS_P || odd > 1) throw new ZkappBodyError('fee payer public key');
  const fee = reader.u64be();
  const nonce = BigInt(reader.u32be());
  const hasValidUntil = reader.u8();
  if (hasValidUntil > 1) throw new ZkappBodyError('fee payer validUntil flag');
  const validUntil = hasValidUntil === 1 ? BigInt(reader.u32be()) : undefined;
  const memo = Uint8Array.from(reader.bytes(MEMO_BYTES));
  if (memo[0] !== 0x01 || memo[1]! > 32 || memo.subarray(2 + memo[1]!).some((b) => b !== 0)) throw new ZkappBodyError('memo');
  if (memoText(memo) === undefined) throw new ZkappBodyError('memo: not UTF-8, or a control character');
  const updates: ZkappStream['updates'] = [];
  for (let i = 0; i < count; i++) {
    const callDepth = reader.u8();
    if (callDepth > MAX_CALL_DEPTH) throw new ZkappBodyError(`account update ${i}: call depth ${callDepth}`);
    updates.push({ callDepth, body: decodeZkappBody(era, reader) });
  }
  reader.end();
  return { account, network, era, feePayer: { publicKey: { x, isOdd: odd === 1 }, fee, nonce, validUntil }, memo, updates };
}

/** Which commitment a SIGN_ZKAPP signature is over. */
export type ZkappCommitmentKind = 'fullCommitment' | 'commitment';
const KIND_BYTES: Record<ZkappCommitmentKind, number> = { fullCommitment: 0x00, commitment: 0x01 };

export interface ZkappSignatures {
  /** The commitments the device computed from the command it parsed and showed. */
  commitment: bigint;
  fullCommitment: bigint;
  signatures: { kind: ZkappCommitmentKind; r: bigint; s: bigint }[];
}

/** The device side: the reply's bytes. */
export function encodeZkappSignaturesReply(reply: ZkappSignatures): Uint8Array {
  return concatBytes(
    uintToBytesBE(reply.commitment, 32),
    uintToBytesBE(reply.fullCommitment, 32),
    Uint8Array.of(reply.signatures.length),
    ...reply.signatures.map(({ kind, r, s }) => concatBytes(Uint8Array.of(KIND_BYTES[kind]), uintToBytesBE(r, 32), uintToBytesBE(s, 32))),
  );
}

/** commitment ‖ fullCommitment ‖ K ‖ K × (which ‖ r ‖ s): ranges checked here, the signatures by the caller. */
export function decodeZkappSignaturesReply(reply: Uint8Array): ZkappSignatures {
  const reader = new ByteReader(reply, replyError);
  const commitment = bytesToUintBE(reader.bytes(32));
  const fullCommitment = bytesToUintBE(reader.bytes(32));
  const count = reader.u8();
  if (count < 1 || count > 2) throw new LedgerReplyError(`SIGN_ZKAPP reply carries ${count} signatures (1 or 2 expected)`);
  const signatures = Array.from({ length: count }, () => {
    const which = reader.u8();
    const kind = keyOf(KIND_BYTES, which);
    if (kind === undefined) throw new LedgerReplyError(`SIGN_ZKAPP reply names commitment 0x${which.toString(16)}`);
    return { kind, r: bytesToUintBE(reader.bytes(32)), s: bytesToUintBE(reader.bytes(32)) };
  });
  reader.end();
  if (commitment >= PALLAS_P || fullCommitment >= PALLAS_P || signatures.some((s) => s.r >= PALLAS_P || s.s >= PALLAS_Q)) {
    throw new LedgerReplyError('the device returned values outside the Pallas fields');
  }
  if (new Set(signatures.map((s) => s.kind)).size !== signatures.length) {
    throw new LedgerReplyError('the device returned two signatures over the same commitment');
  }
  return { commitment, fullCommitment, signatures };
}

/**
 * How a review names the account updates a signature covers ("Your signature covers: …"): the device's SIGN_ZKAPP
 * screens and the host's summary for a blind device say it in the same words.
 */
export function signedUpdates(total: number): string {
  if (total === 0) return 'no account update';
  if (total === 1) return 'the account update';
  if (total === 2) return 'both account updates';
  return `all ${total} account updates`;
}
