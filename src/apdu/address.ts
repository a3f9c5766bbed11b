/**
 * Mina addresses: base58check of 0xCB 0x01 0x01 ‖ x (32 bytes LE) ‖ parity byte — 55 characters starting "B62".
 */
import { ADDRESS_LENGTH, PALLAS_P } from './constants.js';
import { base58check, bytesToUintLE } from './bytes.js';

const ADDRESS_VERSION = [0xcb, 0x01, 0x01] as const;

export interface DecodedAddress {
  x: bigint;
  isOdd: boolean;
}

/** Decodes an address, or returns a reason it is not one. Checks checksum, version bytes, x < p and the parity byte. */
export function decodeAddress(address: string): DecodedAddress | string {
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

export function isAddress(value: unknown): value is string {
  return typeof value === 'string' && typeof decodeAddress(value) !== 'string';
}
