/**
 * sendPayment / sendStakeDelegation (src/payments/send-payment.ts) as real dapps call them (Auro's test dapp and
 * docs): INS 03, shown in clear on the device, signed payments broadcast to a node that validates every request
 * against the daemon's schema, verified with mina-signer; the refusals before the device and the node's errors.
 */
import Client from 'mina-signer';
import { describe, expect, it } from 'vitest';
import { formatMina, shownValue } from '../../src/emulator/review.js';
import type { SendPaymentArgs } from '../../src/index.js';
import { SEND_DELEGATION_MUTATION, SEND_PAYMENT_MUTATION } from '../../src/payments/send-payment.js';
import { checkOperation, fakeMinaNodes } from '../support/mina-node.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { providerRigWith } from '../support/rig.js';
import { NOT_A_CURVE_POINT, addressOf } from '../support/vectors.js';

const ACCOUNT0 = addressOf(0);
const testnet = new Client({ network: 'testnet' });
const mainnet = new Client({ network: 'mainnet' });
const setup = providerRigWith({ extensions: true });

describe('sendPayment / sendStakeDelegation: INS 03, shown in clear on the device', () => {
  const startNodeFor = fakeMinaNodes();

  const HASH = '5JuSRViCY1GbnnpExLhoYLkD96vwnCjoC1MqsWPnkBbhAm6Bt7Gu';

  function startNode(received: any[]) {
    return startNodeFor({
      accountNonce: () => ({ data: { account: { nonce: '3', inferredNonce: '4' } } }),
      sendPayment: (r) => (received.push(r.variables), { data: { sendPayment: { payment: { hash: HASH, id: 'p1' } } } }),
      sendDelegation: (r) => (received.push(r.variables), { data: { sendDelegation: { delegation: { hash: HASH, id: 'd1' } } } }),
    });
  }

  const cases: [string, Record<string, unknown>, { amount?: string; fee: string; memo: string; nonce: string }][] = [
    [
      'Auro test dapp (amount and fee from inputs, in MINA)',
      { to: addressOf(1), amount: parseFloat('1.5'), fee: parseFloat('0.02'), memo: 'test dapp' },
      { amount: '1500000000', fee: '20000000', memo: 'test dapp', nonce: '4' },
    ],
    [
      'Auro test dapp, fee and memo inputs left empty',
      { to: addressOf(1), amount: 2, fee: parseFloat(''), memo: '' },
      { amount: '2000000000', fee: '10100000', memo: '', nonce: '4' },
    ],
    [
      'Auro docs: amount as text, nonce given',
      { to: addressOf(1), amount: '0.000000001', fee: '0.01', nonce: 9 },
      { amount: '1', fee: '10000000', memo: '', nonce: '9' },
    ],
    [
      'float noise in the amount (0.1 + 0.2)',
      { to: addressOf(1), amount: 0.1 + 0.2, fee: null },
      { amount: '300000000', fee: '10100000', memo: '', nonce: '4' },
    ],
  ];
  it.each(cases)('payment, %s → { hash }; the node receives a schema-valid, verifying payment', async (_dapp, args, expected) => {
    const received: any[] = [];
    const node = await startNode(received);
    const { chain, reviews } = setup({}, { graphqlUrl: node.url });
    await chain.requestAccounts();
    expect(await chain.request({ method: 'chain_sendPayment', params: args as SendPaymentArgs })).toEqual({ hash: HASH });
    expect(node.requests.every((r) => r.valid)).toBe(true);
    const { input, signature } = received[0];
    expect(input).toMatchObject({ from: ACCOUNT0, to: addressOf(1), ...expected });
    expect(testnet.verifyPayment({ data: input, signature, publicKey: ACCOUNT0 })).toBe(true);
    expect(mainnet.verifyPayment({ data: input, signature, publicKey: ACCOUNT0 })).toBe(false);
    // What the user approved on the device is what was broadcast: the amount is on screen in clear.
    const review = reviews.find((r) => r.kind === 'transaction')!;
    // (A value is paged as the device pages it; shownValue joins its screens.)
    expect(shownValue(review, 'Amount')).toBe(formatMina(BigInt(expected.amount!), '1.6.0'));
    expect(shownValue(review, 'Receiver')).toBe(addressOf(1));
  });

  it('stake delegation (Auro test dapp) → { hash }, verified with verifyStakeDelegation; nonces are not reused while the node lags', async () => {
    const received: any[] = [];
    const node = await startNode(received);
    const { chain } = setup({}, { graphqlUrl: node.url });
    await chain.requestAccounts();
    expect(await chain.sendStakeDelegation({ to: addressOf(2), fee: '', memo: 'stake' })).toEqual({ hash: HASH });
    expect(await chain.sendStakeDelegation({ to: addressOf(2) })).toEqual({ hash: HASH });
    expect(received.map((v) => v.input.nonce)).toEqual(['4', '5']);
    for (const { input, signature } of received) {
      expect(input.amount).toBeUndefined();
      expect(testnet.verifyStakeDelegation({ data: input, signature, publicKey: ACCOUNT0 })).toBe(true);
    }
    expect(node.requests.map((r) => [r.operationName, r.valid])).toEqual([
      ['accountNonce', true],
      ['sendDelegation', true],
      ['accountNonce', true],
      ['sendDelegation', true],
    ]);
  });

  it('the mutation texts fit the daemon schema with the Ledger signature variant', () => {
    const signature = { field: '1', scalar: '2' };
    const input = { from: ACCOUNT0, to: addressOf(1), fee: '1', nonce: '0', memo: '', validUntil: '4294967295' };
    expect(checkOperation(SEND_PAYMENT_MUTATION, { input: { ...input, amount: '5' }, signature }).errors).toEqual([]);
    expect(checkOperation(SEND_DELEGATION_MUTATION, { input, signature }).errors).toEqual([]);
  });

  it('refusals: bad receiver, negative amount, fee above the cap (20003); local network (20006); node error (21001)', async () => {
    const node = await startNodeFor({
      accountNonce: () => ({ data: { account: null } }),
      sendPayment: () => ({ errors: [{ message: 'Insufficient funds' }] }),
    });
    const { chain, ledger } = setup({}, { graphqlUrl: node.url });
    await chain.requestAccounts();
    const before = ledger.exchanges.length;
    expect(await failure(chain.sendPayment({ to: 'B62nope', amount: 1 }))).toMatchObject({ code: 20003, data: { field: 'to' } });
    expect(await failure(chain.sendPayment({ to: addressOf(1), amount: -1 }))).toMatchObject({ code: 20003, data: { field: 'amount' } });
    expect(await failure(chain.sendPayment({ to: addressOf(1), amount: 1, fee: 11 }))).toMatchObject({
      code: 20003,
      data: { field: 'fee' },
    });
    expect(ledger.exchanges.length).toBe(before);
    expect(await failure(chain.sendPayment({ to: addressOf(1), amount: 1 }))).toMatchObject({
      code: 21001,
      data: { reason: expect.stringMatching(/Insufficient funds/) },
    });

    const local = setup({}, { network: 'local' });
    await local.chain.requestAccounts();
    const sent = local.ledger.exchanges.length;
    // A deliberate difference from Auro (docs/provider.md): the reason says why, and what to use instead.
    expect(await failure(local.chain.sendPayment({ to: addressOf(1), amount: 1 }))).toMatchObject({
      code: 20006,
      data: {
        reason: expect.stringMatching(
          /^sendPayment is not supported on network "local": o1js's LocalBlockchain applies zkApp commands only and has no signed payments or delegations.*use network "devnet" with a graphqlUrl/,
        ),
      },
    });
    expect(await failure(local.chain.request({ method: 'mina_sendStakeDelegation', params: { to: addressOf(2) } }))).toMatchObject({
      code: 20006,
      data: { reason: expect.stringMatching(/^sendStakeDelegation is not supported on network "local": o1js's LocalBlockchain/) },
    });
    expect(local.ledger.exchanges.length).toBe(sent);
  });

  it("a page's own nonce (2^32 − 1) is signed as asked, and never becomes the floor of the host's next nonces", async () => {
    const received: any[] = [];
    const node = await startNode(received);
    const { chain } = setup({}, { graphqlUrl: node.url });
    await chain.requestAccounts();
    await chain.sendPayment({ to: addressOf(1), amount: 1, nonce: 4_294_967_295 });
    await chain.sendPayment({ to: addressOf(1), amount: 1 });
    await chain.sendStakeDelegation({ to: addressOf(2) });
    // The node infers 4 and lags: the host's own nonces are 4 then 5, whatever the page chose before.
    expect(received.map((v) => v.input.nonce)).toEqual(['4294967295', '4', '5']);
  });

  it('a receiver or delegate whose key is no curve point (checksum, version and parity right) → 20003 naming "to", before the device or the node', async () => {
    const node = await startNodeFor({ accountNonce: () => ({ data: { account: { nonce: '0', inferredNonce: '0' } } }) });
    const { chain, ledger, reviews } = setup({}, { graphqlUrl: node.url });
    await chain.requestAccounts();
    const before = ledger.exchanges.length;
    for (const sent of [chain.sendPayment({ to: NOT_A_CURVE_POINT, amount: 1 }), chain.sendStakeDelegation({ to: NOT_A_CURVE_POINT })]) {
      expect(await failure(sent)).toMatchObject({
        code: 20003,
        data: { field: 'to', reason: expect.stringMatching(/not a point of the Pallas curve/) },
      });
    }
    expect(ledger.exchanges.length).toBe(before);
    expect(reviews).toHaveLength(1); // the address, at connect: no payment was shown
    expect(node.requests).toHaveLength(0);
  });
});
