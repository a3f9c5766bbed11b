/**
 * Mina addresses: base58check of 0xCB 0x01 0x01 ‖ x (32 bytes LE) ‖ parity byte — 55 characters starting "B62".
 * An address is a point of the Pallas curve (y² = x³ + 5): one whose x has no y is no key anybody holds. Unchecked, it
 * reached the device, the user approved, and only the signature's verification failed (22001, "This is a bug"), so
 * every address the host accepts is decoded as a point first, by @noble/curves (SEC 1 decompression: the square root
 * and the curve equation), never by field arithmetic of our own.
 */
import { weierstrass } from '@noble/curves/abstract/weierstrass.js';
import { ADDRESS_LENGTH, PALLAS_P, PALLAS_Q } from './constants.js';
import { base58check, bytesToUintLE } from './bytes.js';

const ADDRESS_VERSION = [0xcb, 0x01, 0x01] as const;

/**
 * Pallas as o1js and mina-signer define it (bindings/crypto/elliptic-curve.js: a = 0, b = 5, generator (1, y)). The
 * generator is there because @noble/curves builds a curve with one; decoding an address uses p, a and b only
 * (test/apdu/address.test.ts checks the decoding against mina-signer's `PublicKey.toGroup`).
 */
const Pallas = weierstrass({
  p: PALLAS_P,
  n: PALLAS_Q,
  h: 1n,
  a: 0n,
  b: 5n,
  Gx: 1n,
  Gy: 12418654782883325593414442427049395787963493412651469444558597405572177144507n,
});

/**
 * Addresses already decoded as points (about 0.3 ms each: a square root in the field), so that the same few
 * addresses of every call cost nothing. Bounded: emptied when full.
 */
const points = new Map<string, boolean>();
const MAX_REMEMBERED = 1024;

export interface DecodedAddress {
  x: bigint;
  isOdd: boolean;
}

/**
 * Decodes an address, or returns a reason it is not one. Checks checksum, version bytes, x < p, the parity byte, and
 * that (x, parity) is a point of the curve.
 */
export function decodeAddress(address: string): DecodedAddress | string {
  const decoded = decodeAddressBytes(address);
  if (typeof decoded === 'string') return decoded;
  if (!isCurvePoint(address, decoded)) return 'not a point of the Pallas curve (no key has this address)';
  return decoded;
}

/** The checks of the encoding only (no curve point): the fee payer's placeholder (the empty key) passes these. */
export function decodeAddressBytes(address: string): DecodedAddress | string {
  if (typeof address !== 'string') return 'not a string';
  if (address.length !== ADDRESS_LENGTH) return `must be ${ADDRESS_LENGTH} characters, got ${address.length}`;
  if (!address.startsWith('B62')) return 'must start with "B62"';
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    return 'bad base58 checksum';
  }
  if (payload.length !== 36 || ADDRESS_VERSION.some((b, i) => payload[i] !== b)) return 'not a Mina public key';
  const x = bytesToUintLE(payload.subarray(3, 35));
  const parity = payload[35];
  if (x >= PALLAS_P) return 'x-coordinate out of range';
  if (parity !== 0 && parity !== 1) return 'bad parity byte';
  return { x, isOdd: parity === 1 };
}

/** Whether (x, parity) decodes to a point: SEC 1's compressed form, 0x02 / 0x03 ‖ x big-endian, decompressed. */
function isCurvePoint(address: string, { x, isOdd }: DecodedAddress): boolean {
  const known = points.get(address);
  if (known !== undefined) return known;
  const compressed = new Uint8Array(33);
  compressed[0] = isOdd ? 0x03 : 0x02;
  compressed.set(Pallas.Fp.toBytes(x), 1);
  let point: boolean;
  try {
    Pallas.fromBytes(compressed);
    point = true;
  } catch {
    point = false;
  }
  if (points.size >= MAX_REMEMBERED) points.clear();
  points.set(address, point);
  return point;
}

export function isAddress(value: unknown): value is string {
  return typeof value === 'string' && typeof decodeAddress(value) !== 'string';
}
