import { describe, expect, it } from 'vitest';
import {
  isLedgerError,
  signatureFromBase58,
  signatureFromRawHex,
  signatureFromRosettaHex,
  signatureToBase58,
  signatureToRawHex,
  signatureToRosettaHex,
  toLedgerError,
} from '../../src/apdu.js';
import { statusToError } from '../../src/apdu/errors.js';
import { exchange } from '../support/vectors.js';

describe('status words map to error classes matched by name', () => {
  it.each([
    [0x6985, 'LedgerUserRejectedError'],
    [0x6986, 'LedgerUserRejectedError'],
    [0x5501, 'LedgerUserRejectedError'],
    [0x6802, 'LedgerInvalidDataError'],
    [0x6807, 'LedgerInvalidDataError'],
    [0x6d00, 'LedgerUnsupportedInstructionError'],
    [0x6e00, 'LedgerAppNotOpenError'],
    [0x6e01, 'LedgerAppNotOpenError'],
    [0x6511, 'LedgerAppNotOpenError'],
    [0x6d02, 'LedgerAppNotOpenError'],
    [0x5515, 'LedgerDeviceLockedError'],
    [0x6f00, 'LedgerStatusError'],
  ])('0x%s → %s', (sw, name) => {
    const error = statusToError(sw, 0x03);
    expect(error.name).toBe(name);
    expect(error.statusCode).toBe(sw);
    expect(error.ins).toBe(0x03);
    expect(isLedgerError(error)).toBe(true);
    expect(error.message).toContain(`0x${sw.toString(16).padStart(4, '0')}`);
  });

  it('a rejection of INS 06 says blind signing may be off', () => {
    expect(statusToError(0x6985, 0x06).message).toMatch(/enable "Blind signing"/);
    expect(statusToError(0x6985, 0x03).message).not.toMatch(/Blind/);
  });

  it('errors from any copy of @ledgerhq/hw-transport are recognised by shape, not class', () => {
    const foreign = Object.assign(new Error('Ledger device: Condition of use not satisfied (0x6985)'), {
      name: 'TransportStatusError',
      statusCode: 0x6985,
    });
    expect((toLedgerError(foreign, 0x02) as Error).name).toBe('LedgerUserRejectedError');
    expect((toLedgerError(Object.assign(new Error('locked'), { name: 'LockedDeviceError' })) as Error).name).toBe(
      'LedgerDeviceLockedError',
    );
    expect((toLedgerError(Object.assign(new Error('x'), { name: 'DisconnectedDeviceDuringOperation' })) as Error).name).toBe(
      'LedgerDisconnectedError',
    );
    expect((toLedgerError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })) as Error).name).toBe(
      'LedgerDisconnectedError',
    );
    const abort = new DOMException('stop', 'AbortError');
    expect(toLedgerError(abort)).toBe(abort);
    const other = new TypeError('bug');
    expect(toLedgerError(other)).toBe(other);
  });

  it('error objects keep name, code and message through structuredClone and JSON', () => {
    const error = statusToError(0x5515);
    expect(JSON.parse(JSON.stringify({ name: error.name, statusCode: error.statusCode }))).toEqual({
      name: 'LedgerDeviceLockedError',
      statusCode: 0x5515,
    });
    expect(structuredClone(error).message).toBe(error.message);
  });
});

describe('signature encodings (vector sign_tx_1 of mina-ledger-app.md §10.2)', () => {
  const e = exchange('sign_tx_1');
  const sig = { field: e.signature!.field, scalar: e.signature!.scalar };
  const rosetta =
    'c653e3caae6470903aebf4e61a4133eac3627cb1b7a7a2957b855bfe8d6aa311af99e20704a887f0b283879fd0f8157cfdd4ab6f9db68b3ffe228328d0f19407';

  it('raw device hex', () => {
    expect(signatureToRawHex(sig)).toBe(e.signature!.rawHex);
    expect(signatureFromRawHex(e.signature!.rawHex)).toEqual(sig);
  });
  it('Rosetta little-endian hex', () => {
    expect(signatureToRosettaHex(sig)).toBe(rosetta);
    expect(signatureFromRosettaHex(rosetta)).toEqual(sig);
  });
  it('base58', () => {
    expect(signatureToBase58(sig)).toBe(e.signature!.base58);
    expect(signatureFromBase58(e.signature!.base58)).toEqual(sig);
  });
  it('refuses out-of-range and malformed values', () => {
    expect(() => signatureToRawHex({ field: '-1', scalar: '1' })).toThrow(RangeError);
    expect(() => signatureFromRawHex('00')).toThrow(RangeError);
    expect(() => signatureFromBase58(`${e.signature!.base58.slice(0, -1)}x`)).toThrow();
  });
});
