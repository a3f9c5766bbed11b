/**
 * The wallet's Send form (examples/wallet/src/send-form.ts), checked as the holder types: the receiver must decode as
 * a point of the curve (an address whose x has no y is refused, as mina-signer refuses it), amount and fee are exact
 * decimals of MINA against the balance, the memo at most 32 bytes. What the form accepts, the provider's own schema
 * accepts too (its boundary stays the authority).
 */
import Client from 'mina-signer';
import { describe, expect, it } from 'vitest';
import { AURO_FEES, canSend, checkSend, type SendInput } from '../../examples/wallet/src/send-form.js';
import { sendPaymentParams, sendStakeDelegationParams } from '../../src/provider/schemas.js';
import { NOT_A_CURVE_POINT, addressOf } from '../support/vectors.js';

const payment = (over: Partial<SendInput> = {}): SendInput => ({
  kind: 'payment',
  to: addressOf(1),
  amount: '1.5',
  fee: '0.0101',
  memo: '',
  ...over,
});
const TEN_MINA = 10_000_000_000n;

describe("the wallet's Send form", () => {
  it('accepts a payment within the balance, with its total in nanomina, and the provider schema agrees', () => {
    const check = checkSend(payment({ memo: 'rent' }), TEN_MINA);
    expect(check.problems).toEqual({});
    expect(canSend(check)).toBe(true);
    expect(check.totalNanomina).toBe(1_510_100_000n);
    expect(sendPaymentParams.safeParse({ to: addressOf(1), amount: '1.5', fee: '0.0101', memo: 'rent' }).success).toBe(true);
  });

  it('refuses an address that is not a curve point (mina-signer cannot use it either), and a mistyped one', () => {
    expect(() =>
      new Client({ network: 'testnet' }).signPayment(
        { to: NOT_A_CURVE_POINT, from: addressOf(0), amount: 1n, fee: 1_000_000n, nonce: 0 },
        new Client({ network: 'testnet' }).genKeys().privateKey,
      ),
    ).toThrow();
    expect(checkSend(payment({ to: NOT_A_CURVE_POINT }), TEN_MINA).problems.to).toMatch(/point of the Pallas curve/);
    expect(checkSend(payment({ to: `${addressOf(1).slice(0, -1)}x` }), TEN_MINA).problems.to).toMatch(/^Not a Mina address/);
    expect(checkSend(payment({ to: 'B62q' }), TEN_MINA).problems.to).toMatch(/55 characters/);
    expect(checkSend(payment({ to: '  ' }), TEN_MINA).problems.to).toMatch(/Enter/);
  });

  it('checks amount and fee as decimals of MINA, and against the balance', () => {
    expect(checkSend(payment({ amount: '1.0000000001' }), TEN_MINA).problems.amount).toMatch(/9 decimals/);
    expect(checkSend(payment({ amount: '-1' }), TEN_MINA).problems.amount).toMatch(/number of MINA/);
    expect(checkSend(payment({ amount: '0' }), TEN_MINA).problems.amount).toMatch(/above 0/);
    expect(checkSend(payment({ fee: '0.0001' }), TEN_MINA).problems.fee).toMatch(/at least 0.001/);
    expect(checkSend(payment({ amount: '9.99' }), TEN_MINA).problems.amount).toMatch(/more than the balance/);
    // Exactly the balance is fine: 9.9899 + 0.0101 = 10.
    expect(checkSend(payment({ amount: '9.9899' }), TEN_MINA).problems).toEqual({});
    // No balance known (the node did not answer): only the shapes are checked.
    expect(checkSend(payment({ amount: '1000' }), undefined).problems).toEqual({});
    expect(checkSend(payment({ fee: '11' }), 100n * TEN_MINA).warnings.fee).toMatch(/higher than usual/);
  });

  it('a delegation needs no amount, only a fee within the balance', () => {
    const delegation = payment({ kind: 'delegation', amount: '' });
    expect(checkSend(delegation, TEN_MINA).problems).toEqual({});
    expect(checkSend(delegation, 1_000_000n).problems.fee).toMatch(/more than the balance/);
    expect(sendStakeDelegationParams.safeParse({ to: addressOf(1), fee: '0.0101' }).success).toBe(true);
  });

  it('the memo is at most 32 bytes of UTF-8 without control characters, as the provider schema says', () => {
    expect(checkSend(payment({ memo: 'a'.repeat(32) }), TEN_MINA).problems.memo).toBeUndefined();
    expect(checkSend(payment({ memo: 'é'.repeat(17) }), TEN_MINA).problems.memo).toMatch(/34 bytes/);
    expect(sendPaymentParams.safeParse({ to: addressOf(1), amount: '1', memo: 'é'.repeat(17) }).success).toBe(false);
    expect(checkSend(payment({ memo: 'two\nlines' }), TEN_MINA).problems.memo).toMatch(/control characters/);
    expect(sendPaymentParams.safeParse({ to: addressOf(1), amount: '1', memo: 'two\nlines' }).success).toBe(false);
  });

  it("offers Auro's fee levels, each a fee the form accepts", () => {
    expect(AURO_FEES.map((f) => f.mina)).toEqual(['0.0011', '0.0101', '0.2001']);
    for (const { mina } of AURO_FEES) expect(checkSend(payment({ fee: mina }), TEN_MINA).problems).toEqual({});
  });
});
