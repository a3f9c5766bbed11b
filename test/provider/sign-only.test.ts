/**
 * Sign-only payments, delegations and zkApp commands (mina-js's `mina_signTransaction`) and the broadcast of a signed
 * one (`mina_sendTransaction({ signedTransaction, transactionType })`), replayed with the callers' own call shapes:
 * Pallad's test dapp (palladians/mina-connector `TestZkApp`: `params: [{ transaction }]`, then
 * `params: [{ input, signature }, type]`) and TileVille (`params: { transaction }`, then
 * `params: { signedTransaction, transactionType }`). What they read back is checked with mina-signer's own
 * `verifyTransaction`; every node request is checked against the daemon's schema.
 */
import Client from 'mina-signer';
import { describe, expect, it } from 'vitest';
import { formatMina, shownValue } from '../../src/emulator/review.js';
import { fakeMinaNodes } from '../support/mina-node.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { providerRigWith } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';
import { mesaCommand } from '../support/zkapp.js';

const ACCOUNT0 = addressOf(0);
const testnet = new Client({ network: 'testnet' });
const mainnet = new Client({ network: 'mainnet' });
const HASH = '5JuSRViCY1GbnnpExLhoYLkD96vwnCjoC1MqsWPnkBbhAm6Bt7Gu';
const setup = providerRigWith(
  { extensions: true, blindSigning: true },
  { allowUnreviewedBlindSigning: true, allowUnconfirmedSwitchChain: true },
);

// mina-connector's `transactionBody` defaults (nanomina, as mina-js takes them).
const PALLAD_BODY = { to: addressOf(1), amount: '3000000000', fee: '100000000', memo: 'Hello from MinaJS!', nonce: '0' };

describe('mina_signTransaction: signed on the device, returned, not broadcast', () => {
  const startNode = fakeMinaNodes();
  const node = (received: unknown[] = []) =>
    startNode({
      accountNonce: () => ({ data: { account: { nonce: '6', inferredNonce: '7' } } }),
      sendPayment: (r) => (received.push(r.variables), { data: { sendPayment: { payment: { hash: HASH, id: 'p1' } } } }),
      sendDelegation: (r) => (received.push(r.variables), { data: { sendDelegation: { delegation: { hash: HASH, id: 'd1' } } } }),
      sendZkapp: (r) => (received.push(r.variables), { data: { sendZkapp: { zkapp: { hash: HASH, id: 'z1' } } } }),
    });

  it("Pallad's test dapp: signPayment, then sendTransaction([{ input, signature }, 'payment'])", async () => {
    const received: any[] = [];
    const mina = await node(received);
    const { chain, reviews } = setup({}, { graphqlUrl: mina.url });
    await chain.request({ method: 'mina_requestAccounts' });
    const accounts = await chain.request({ method: 'mina_accounts' });
    const signed: any = await chain.request({
      method: 'mina_signTransaction',
      params: [{ transaction: { ...PALLAD_BODY, from: accounts[0]! } }],
    });
    expect(signed.publicKey).toBe(ACCOUNT0);
    expect(signed.data).toMatchObject({ ...PALLAD_BODY, from: ACCOUNT0, validUntil: '4294967295' });
    expect(testnet.verifyTransaction(signed)).toBe(true);
    expect(mainnet.verifyTransaction(signed)).toBe(false);
    // The device showed what was signed, as for sendPayment; nothing was broadcast.
    const review = reviews.find((r) => r.kind === 'transaction')!;
    expect(shownValue(review, 'Amount')).toBe(formatMina(3_000_000_000n, '1.6.0'));
    expect(shownValue(review, 'Receiver')).toBe(addressOf(1));
    expect(received).toEqual([]);

    const sent = await chain.request({
      method: 'mina_sendTransaction',
      params: [{ input: signed.data, signature: signed.signature }, 'payment'] as never,
    });
    expect(sent).toEqual({ hash: HASH });
    expect(mina.requests.every((r) => r.valid)).toBe(true);
    expect(testnet.verifyPayment({ data: received[0].input, signature: received[0].signature, publicKey: ACCOUNT0 })).toBe(true);
  });

  it("Pallad's test dapp: signDelegation (no amount) → a delegation that verifies, broadcast as 'delegation'", async () => {
    const received: any[] = [];
    const mina = await node(received);
    const { chain } = setup({}, { graphqlUrl: mina.url });
    const [from] = await chain.requestAccounts();
    const { amount: _amount, ...rest } = PALLAD_BODY;
    const signed: any = await chain.request({ method: 'mina_signTransaction', params: [{ transaction: { ...rest, from: from! } }] });
    expect(signed.data.amount).toBeUndefined();
    expect(testnet.verifyTransaction(signed)).toBe(true);
    const sent = await chain.request({
      method: 'mina_sendTransaction',
      params: [{ input: signed.data, signature: signed.signature }, 'delegation'] as never,
    });
    expect(sent).toEqual({ hash: HASH });
    expect(testnet.verifyStakeDelegation({ data: received[0].input, signature: received[0].signature, publicKey: ACCOUNT0 })).toBe(true);
  });

  it('TileVille: { transaction } with numbers (nanomina), then sendTransaction({ signedTransaction, transactionType })', async () => {
    const received: any[] = [];
    const mina = await node(received);
    const { chain } = setup({}, { graphqlUrl: mina.url });
    const [from] = await chain.requestAccounts();
    const transaction = { to: addressOf(2), memo: 'game fess', fee: 100_000_000, amount: 2 * 1000_000_000, nonce: 12, from: from! };
    const signedTransaction: any = await chain.request({ method: 'mina_signTransaction', params: { transaction } });
    expect(testnet.verifyTransaction(signedTransaction)).toBe(true);
    const response = await chain.request({
      method: 'mina_sendTransaction',
      params: { signedTransaction, transactionType: 'payment' } as never,
    });
    expect(response).toEqual({ hash: HASH });
    expect(received[0].input).toMatchObject({ amount: '2000000000', fee: '100000000', nonce: '12', memo: 'game fess' });
  });

  it('without a nonce the node is asked; the direct methods serve the same', async () => {
    const mina = await node();
    const { chain } = setup({}, { graphqlUrl: mina.url });
    await chain.requestAccounts();
    const signed = await chain.signTransaction({ transaction: { from: ACCOUNT0, to: addressOf(1), fee: '10000000', amount: '1' } });
    expect(signed.data).toMatchObject({ nonce: '7', amount: '1' });
    expect(testnet.verifyTransaction(signed as never)).toBe(true);
    expect(await chain.sendSignedTransaction({ signedTransaction: signed as never, transactionType: 'payment' })).toEqual({ hash: HASH });
  });

  it('a zkApp command ({ command }) is signed as sendTransaction({ onlySign }) signs it; mina-signer verifies it; it broadcasts', async () => {
    const received: any[] = [];
    const mina = await node(received);
    const { chain } = setup({}, { graphqlUrl: mina.url });
    const [from] = await chain.requestAccounts();
    const command = { zkappCommand: mesaCommand(), feePayer: { feePayer: from!, fee: '100000000', nonce: '4', memo: 'zk' } };
    const signed: any = await chain.request({ method: 'mina_signTransaction', params: [{ command }] });
    expect(signed.publicKey).toBe(ACCOUNT0);
    expect(signed.signature).toBe(signed.data.zkappCommand.feePayer.authorization);
    expect(new Client({ network: 'devnet' }).verifyTransaction(signed)).toBe(true);
    expect(received).toEqual([]);
    const sent = await chain.request({ method: 'mina_sendTransaction', params: [{ input: signed.data.zkappCommand }, 'zkapp'] as never });
    expect(sent).toEqual({ hash: HASH });
    expect(mina.requests.every((r) => r.valid)).toBe(true);
  });

  it('the released app (no extension) signs payments and delegations on INS 03 too', async () => {
    const mina = await node();
    const { chain } = setup({ extensions: false }, { graphqlUrl: mina.url });
    await chain.requestAccounts();
    const signed: any = await chain.request({
      method: 'mina_signTransaction',
      params: [{ transaction: { ...PALLAD_BODY, from: ACCOUNT0 } }],
    });
    expect(testnet.verifyTransaction(signed)).toBe(true);
  });

  it('an app before 1.6.0 (no INS 06): a zkApp command → 20006 naming the version, before the device; a payment still signs', async () => {
    const mina = await node();
    const { chain, ledger } = setup({ version: '1.5.1', extensions: false }, { graphqlUrl: mina.url });
    await chain.requestAccounts();
    const before = ledger.exchanges.length;
    const command = { zkappCommand: mesaCommand(), feePayer: { feePayer: ACCOUNT0, fee: '100000000', nonce: '4' } };
    expect(await failure(chain.request({ method: 'mina_signTransaction', params: [{ command }] }))).toMatchObject({
      code: 20006,
      data: { reason: expect.stringMatching(/1\.5\.1 cannot sign zkApp commands/) },
    });
    expect(ledger.exchanges.length).toBe(before);
    const signed: any = await chain.request({
      method: 'mina_signTransaction',
      params: [{ transaction: { ...PALLAD_BODY, from: ACCOUNT0 } }],
    });
    expect(testnet.verifyTransaction(signed)).toBe(true);
  });

  it('refusals before the device: another from, a fractional amount, neither or both payloads; 1001 before connecting', async () => {
    const { chain, ledger } = setup();
    expect(await failure(chain.signTransaction({ transaction: { ...PALLAD_BODY, from: ACCOUNT0 } }))).toMatchObject({ code: 1001 });
    await chain.requestAccounts();
    const before = ledger.exchanges.length;
    const cases: [unknown, string][] = [
      [{ transaction: { ...PALLAD_BODY, from: addressOf(3) } }, 'transaction.from'],
      [{ transaction: { ...PALLAD_BODY, from: ACCOUNT0, amount: 1.5 } }, 'transaction.amount'],
      [{}, 'transaction'],
      [{ transaction: { ...PALLAD_BODY, from: ACCOUNT0 }, command: { zkappCommand: {} } }, 'transaction'],
    ];
    for (const [params, field] of cases) {
      expect(await failure(chain.request({ method: 'mina_signTransaction', params: params as never }))).toMatchObject({
        code: 20003,
        data: { field },
      });
    }
    // No nonce and no node to ask: named, before the device.
    expect(
      await failure(chain.signTransaction({ transaction: { from: ACCOUNT0, to: addressOf(1), fee: '1', amount: '1' } })),
    ).toMatchObject({
      code: 20003,
      data: { field: 'nonce' },
    });
    expect(ledger.exchanges.length).toBe(before);
  });

  it('a signature that does not verify (another amount, another network) is refused with 20003, the node never asked', async () => {
    const received: any[] = [];
    const mina = await node(received);
    const { chain } = setup({}, { graphqlUrl: mina.url });
    await chain.requestAccounts();
    const signed: any = await chain.request({
      method: 'mina_signTransaction',
      params: [{ transaction: { ...PALLAD_BODY, from: ACCOUNT0 } }],
    });
    const tampered = { ...signed, data: { ...signed.data, amount: '3000000001' } };
    expect(
      await failure(
        chain.request({ method: 'mina_sendTransaction', params: { signedTransaction: tampered, transactionType: 'payment' } as never }),
      ),
    ).toMatchObject({ code: 20003, data: { field: 'signedTransaction.signature' } });
    await chain.switchChain({ networkID: 'mina:mainnet' });
    expect(
      await failure(
        chain.request({ method: 'mina_sendTransaction', params: { signedTransaction: signed, transactionType: 'payment' } as never }),
      ),
    ).toMatchObject({ code: 20003, data: { field: 'signedTransaction.signature' } });
    expect(
      await failure(
        chain.request({ method: 'mina_sendTransaction', params: { signedTransaction: signed, transactionType: 'delegation' } as never }),
      ),
    ).toMatchObject({ code: 20003, data: { field: 'signedTransaction.data.amount' } });
    expect(received).toEqual([]);
  });
});
