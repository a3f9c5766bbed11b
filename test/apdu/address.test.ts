/**
 * Addresses are curve points (src/apdu/address.ts): `decodeAddress` takes an address only when mina-signer can make a
 * point of it (`PublicKey.toGroup`, mina-signer's own square root), so every address the host accepts is one some key
 * can sign for. The client's input checks, the zkApp command check and the credential store use it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeAddress, decodeAddressBytes } from '../../src/apdu/address.js';
import { base58check, concatBytes, uintToBytesLE } from '../../src/apdu/bytes.js';
import { PALLAS_P } from '../../src/apdu/constants.js';
import { MinaLedgerApp } from '../../src/apdu.js';
import { checkAccountAddress } from '../../src/credentials/store.js';
import { minaSignerInternals } from '../../src/upstream/mina-signer-internals.js';
import { quietLedger } from '../support/rig.js';
import { NOT_A_CURVE_POINT, addressOf, vectors } from '../support/vectors.js';

/** The address of (x, parity), whatever x is. */
const addressOfX = (x: bigint, isOdd: boolean) =>
  base58check.encode(concatBytes(Uint8Array.of(0xcb, 0x01, 0x01), uintToBytesLE(x, 32), Uint8Array.of(isOdd ? 1 : 0)));

describe('an address is a point of the curve', () => {
  it('decodeAddress takes exactly the (x, parity) that mina-signer makes a point of, for random x below p', async () => {
    const { PublicKey } = await minaSignerInternals('mesa');
    let points = 0;
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: PALLAS_P - 1n }), fc.boolean(), (x, isOdd) => {
        const address = addressOfX(x, isOdd);
        let point: boolean;
        try {
          PublicKey.toGroup(PublicKey.fromBase58(address));
          point = true;
        } catch {
          point = false;
        }
        const decoded = decodeAddress(address);
        expect(typeof decoded !== 'string', `${address} (x ${x})`).toBe(point);
        if (point) {
          expect(decoded).toEqual({ x, isOdd });
          points++;
        } else expect(decoded).toMatch(/not a point of the Pallas curve/);
        // Asked again (now from the cache): the same answer.
        expect(decodeAddress(address)).toEqual(decoded);
      }),
      { numRuns: 1000 },
    );
    // About half of all x have a point: both answers were seen many times.
    expect(points).toBeGreaterThan(400);
    expect(points).toBeLessThan(600);
  });

  it('the accounts of the test mnemonic are points; the empty key is well-formed but no point', () => {
    for (const { address } of vectors.accounts) expect(typeof decodeAddress(address)).toBe('object');
    expect(decodeAddressBytes(NOT_A_CURVE_POINT)).toEqual({ x: 0n, isOdd: false });
    expect(decodeAddress(NOT_A_CURVE_POINT)).toBe('not a point of the Pallas curve (no key has this address)');
  });

  it("the client's input check refuses a receiver that is no point before anything is sent; the credential store refuses such an account", async () => {
    const device = quietLedger();
    const app = new MinaLedgerApp(device);
    const payment = { txType: 'payment', account: 0, from: addressOf(0), amount: 1n, fee: 10_000_000n, nonce: 0, memo: '', networkId: 0 };
    await expect(app.signTransaction({ ...payment, to: NOT_A_CURVE_POINT } as never)).rejects.toMatchObject({
      name: 'LedgerInputError',
      message: expect.stringMatching(/not a point of the Pallas curve/),
    });
    expect(device.exchanges).toHaveLength(0);
    expect(() => checkAccountAddress(NOT_A_CURVE_POINT)).toThrow(/not a point of the Pallas curve/);
  });
});
