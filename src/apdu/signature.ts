/**
 * One Mina Schnorr signature (r, s) in the four encodings a wallet meets:
 * - device raw: r ‖ s, 32 bytes big-endian each (INS 03/05/06 replies);
 * - mina-signer JSON: { field: r, scalar: s } as decimal strings (payments, messages, GraphQL `signature`);
 * - Rosetta: r LE ‖ s LE as hex (Rosetta `hex_bytes`, GraphQL `rawSignature`);
 * - base58: base58check(0x9A 0x01 ‖ r LE ‖ s LE), strings starting "7mX" (zkApp authorizations, o1js Signature.toBase58).
 */
import { PALLAS_P, PALLAS_Q } from './constants.js';
import { base58check, bytesToUintBE, bytesToUintLE, concatBytes, fromHex, toHex, uintToBytesBE, uintToBytesLE } from './bytes.js';

export interface MinaSignature {
  /** r, the x-coordinate of the nonce point, decimal. */
  field: string;
  /** s, decimal. */
  scalar: string;
}

const SIGNATURE_VERSION = [0x9a, 0x01] as const;

function parts(sig: MinaSignature): { r: bigint; s: bigint } {
  const r = BigInt(sig.field);
  const s = BigInt(sig.scalar);
  if (r < 0n || r >= PALLAS_P) throw new RangeError('signature field (r) out of range');
  if (s < 0n || s >= PALLAS_Q) throw new RangeError('signature scalar (s) out of range');
  return { r, s };
}

/** Reads the 64-byte device form. Returns undefined for values outside the fields (a malformed reply). */
export function signatureFromDeviceBytes(bytes: Uint8Array): MinaSignature | undefined {
  if (bytes.length !== 64) return undefined;
  const r = bytesToUintBE(bytes.subarray(0, 32));
  const s = bytesToUintBE(bytes.subarray(32, 64));
  if (r >= PALLAS_P || s >= PALLAS_Q) return undefined;
  return { field: r.toString(), scalar: s.toString() };
}

/** r ‖ s, big-endian, 128 hex characters: the device's own form. */
export function signatureToRawHex(sig: MinaSignature): string {
  const { r, s } = parts(sig);
  return toHex(concatBytes(uintToBytesBE(r, 32), uintToBytesBE(s, 32)));
}

export function signatureFromRawHex(rawHex: string): MinaSignature {
  const sig = signatureFromDeviceBytes(fromHex(rawHex));
  if (!sig) throw new RangeError('not a 64-byte signature with r < p and s < q');
  return sig;
}

/** r LE ‖ s LE as hex: Rosetta and GraphQL `rawSignature`. */
export function signatureToRosettaHex(sig: MinaSignature): string {
  const { r, s } = parts(sig);
  return toHex(concatBytes(uintToBytesLE(r, 32), uintToBytesLE(s, 32)));
}

export function signatureFromRosettaHex(rosettaHex: string): MinaSignature {
  const bytes = fromHex(rosettaHex);
  if (bytes.length !== 64) throw new RangeError('not a 64-byte signature');
  return parts2json(bytesToUintLE(bytes.subarray(0, 32)), bytesToUintLE(bytes.subarray(32)));
}

/** The base58 form o1js and zkApp authorizations use. */
export function signatureToBase58(sig: MinaSignature): string {
  const { r, s } = parts(sig);
  return base58check.encode(concatBytes(Uint8Array.from(SIGNATURE_VERSION), uintToBytesLE(r, 32), uintToBytesLE(s, 32)));
}

export function signatureFromBase58(text: string): MinaSignature {
  const payload = base58check.decode(text);
  if (payload.length !== 66 || payload[0] !== SIGNATURE_VERSION[0] || payload[1] !== SIGNATURE_VERSION[1]) {
    throw new RangeError('not a base58 Mina signature');
  }
  return parts2json(bytesToUintLE(payload.subarray(2, 34)), bytesToUintLE(payload.subarray(34, 66)));
}

function parts2json(r: bigint, s: bigint): MinaSignature {
  const sig = { field: r.toString(), scalar: s.toString() };
  parts(sig);
  return sig;
}
