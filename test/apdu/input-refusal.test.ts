/** Bad input is refused by the host, naming the field, before anything reaches the device. */
import { describe, expect, it } from 'vitest';
import { MinaLedgerApp, type PaymentOrDelegation } from '../../src/apdu.js';
import { PALLAS_P } from '../../src/apdu/constants.js';

import { counting } from '../support/counting.js';
import { addressOf, vectors } from '../support/vectors.js';
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

describe('an account given as its derivation path', () => {
  it("\"44'/12586'/N'/0/0\" (also with m/) sends exactly what the index N sends, to every account-taking method", async () => {
    const requests = async (account: number | string) => {
      const { app, sent } = setup();
      await app.getAddress(account);
      await app.signMessage(account, 'hi', 0);
      await app.signFieldElement(account, 7n, 1);
      return sent.map((r) => [r.ins, r.p1, [...r.data]]);
    };
    for (const { account, path, address } of vectors.accounts) {
      expect(await requests(path)).toEqual(await requests(account));
      expect(await requests(`m/${path}`)).toEqual(await requests(account));
      expect(await setup().app.getAddress(path)).toBe(address);
    }
  });

  it.each([
    ["another change or index (44'/12586'/0'/0/1)", "44'/12586'/0'/0/1"],
    ["another coin type (44'/501'/0'/0/0)", "44'/501'/0'/0/0"],
    ["an unhardened account (44'/12586'/0/0/0)", "44'/12586'/0/0/0"],
    ["an account of 2^31 (44'/12586'/2147483648'/0/0)", "44'/12586'/2147483648'/0/0"],
    ["a leading zero (44'/12586'/01'/0/0)", "44'/12586'/01'/0/0"],
    ["a shorter path (44'/12586'/0')", "44'/12586'/0'"],
    ['an account number written as text', '0'],
  ])('refuses %s, naming the path, before anything is sent', async (_name, path) => {
    await refused((app) => app.getAddress(path), 'account');
    await refused((app) => app.signMessage(path, 'hi', 0), 'account');
    await expect(setup().app.signFieldElement(path, 1n, 0)).rejects.toThrow(JSON.stringify(path));
  });
});

describe('signMessage takes the message as bytes too', () => {
  it('the UTF-8 bytes of a printable text are signed as that text', async () => {
    const bytes = new TextEncoder().encode('Hello Mina!\n');
    const fromBytes = await setup().app.signMessage(0, bytes, 0);
    expect(fromBytes).toEqual(await setup().app.signMessage(0, 'Hello Mina!\n', 0));
    expect(fromBytes.signedMessage).toBe('Message : Hello Mina!\n');
  });

  it.each([
    ['bytes that are not UTF-8', Uint8Array.of(0x48, 0xff, 0x69)],
    ['UTF-8 beyond ASCII, which INS 05 cannot sign', new TextEncoder().encode('héllo')],
    ['a byte-order mark before the text (kept: it is part of the bytes)', Uint8Array.of(0xef, 0xbb, 0xbf, 0x68, 0x69)],
    ['no bytes', new Uint8Array(0)],
  ])('refuses %s, naming the message, before anything is sent', (_name, bytes) =>
    refused((app) => app.signMessage(0, bytes, 0), 'message'),
  );
});
