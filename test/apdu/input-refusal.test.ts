/** Bad input is refused by the host, naming the field, before anything reaches the device. */
import { describe, expect, it } from 'vitest';
import { MinaLedgerApp, type PaymentOrDelegation } from '../../src/apdu.js';
import { PALLAS_P } from '../../src/apdu/constants.js';

import { counting } from '../support/counting.js';
import { addressOf } from '../support/vectors.js';
import { quietLedger } from '../support/rig.js';

function setup() {
  const device = quietLedger({ blindSigning: true });
  const { transport, sent } = counting(device);
  return { app: new MinaLedgerApp(transport), sent };
}

const payment: PaymentOrDelegation = {
  txType: 'payment',
  account: 0,
  from: addressOf(0),
  to: addressOf(1),
  amount: 1_000_000_000n,
  fee: 10_000_000n,
  nonce: 0,
  memo: 'hello',
  networkId: 0,
};

async function refused(run: (app: MinaLedgerApp) => Promise<unknown>, field: string) {
  const { app, sent } = setup();
  const error = (await run(app).catch((e: unknown) => e)) as { name: string; field: string };
  expect(error.name).toBe('LedgerInputError');
  expect(error.field).toBe(field);
  expect(sent).toHaveLength(0);
}

describe('signTransaction refuses', () => {
  it.each<[string, Partial<PaymentOrDelegation> & Record<string, unknown>, string]>([
    ['a 33-byte memo', { memo: 'x'.repeat(33) }, 'memo'],
    ['a memo of 11 characters but 33 UTF-8 bytes', { memo: '€€€€€€€€€€€' }, 'memo'],
    ['a memo with NUL', { memo: 'a\u0000b' }, 'memo'],
    ['an account of 2^31', { account: 2 ** 31 }, 'account'],
    ['a negative account', { account: -1 }, 'account'],
    ['a fractional account', { account: 1.5 }, 'account'],
    ['an amount as a number', { amount: 5 as unknown as bigint }, 'amount'],
    ['an amount ≥ 2^64', { amount: 2n ** 64n }, 'amount'],
    ['amount + fee overflowing u64', { amount: 2n ** 64n - 1n, fee: 1n }, 'amount'],
    ['a negative fee', { fee: -1n }, 'fee'],
    ['a nonce ≥ 2^32', { nonce: 2 ** 32 }, 'nonce'],
    ['validUntil ≥ 2^32', { validUntil: 2 ** 32 }, 'validUntil'],
    ['a bad receiver checksum', { to: `${addressOf(1).slice(0, -1)}A` }, 'to'],
    ['a sender that is not an address', { from: 'B62q' }, 'from'],
    ['network id 2', { networkId: 2 as 0 }, 'networkId'],
    ['a delegation with an amount', { txType: 'delegation', amount: 1n }, 'amount'],
    ['an unknown type', { txType: 'zkapp' as 'payment' }, 'txType'],
  ])('%s', (_name, change, field) => refused((app) => app.signTransaction({ ...payment, ...change }), field));

  it('accepts a 32-byte multi-byte memo exactly at the limit', async () => {
    const { app } = setup();
    const memo = `${'€'.repeat(10)}ab`; // 30 + 2 = 32 bytes
    await expect(app.signTransaction({ ...payment, memo })).resolves.toHaveProperty('field');
  });
});

describe('signMessage refuses', () => {
  it.each([
    ['non-ASCII text', 'héllo', 'message'],
    ['a control character', 'tab\there', 'message'],
    ['66 bytes (65 + the 10-byte prefix would overflow the 75-byte buffer)', 'a'.repeat(66), 'message'],
    ['an empty message', '', 'message'],
  ])('%s', (_name, message, field) => refused((app) => app.signMessage(0, message, 0), field));

  it('an account ≥ 2^31', () => refused((app) => app.signMessage(2 ** 31, 'hi', 0), 'account'));

  it('accepts 65 printable bytes with CR/LF', async () => {
    const { app } = setup();
    const message = `line one\r\n${'x'.repeat(55)}`;
    const result = await app.signMessage(0, message, 0);
    expect(result.signedMessage).toBe(`Message : ${message}`);
  });
});

describe('signFieldElement refuses', () => {
  it('p itself', () => refused((app) => app.signFieldElement(0, PALLAS_P, 0), 'field'));
  it('a negative value', () => refused((app) => app.signFieldElement(0, -1n, 0), 'field'));
  it('a number instead of a bigint', () => refused((app) => app.signFieldElement(0, 1 as unknown as bigint, 0), 'field'));
  it('p - 1 is accepted', async () => {
    const { app } = setup();
    await expect(app.signFieldElement(0, PALLAS_P - 1n, 0)).resolves.toHaveProperty('scalar');
  });
});

describe('getAddress refuses', () => {
  it('an account ≥ 2^31', () => refused((app) => app.getAddress(2 ** 31), 'account'));
  it('a string account', () => refused((app) => app.getAddress('0' as unknown as number), 'account'));
});
