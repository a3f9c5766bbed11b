/**
 * The wallet's Home reads the account's balance and nonces from the network's node (src/wallet/account.ts): the query
 * fits the daemon's schema (the fake node validates every request against it), the answer is read in MINA, a missing
 * account is undefined, and an answer that does not fit names its field.
 */
import { describe, expect, it } from 'vitest';
import { fetchAccountOverview } from '../../src/wallet/account.js';
import { fakeMinaNodes } from '../support/mina-node.js';
import { addressOf } from '../support/vectors.js';

const start = fakeMinaNodes();

describe("the wallet's account overview", () => {
  it('reads balance (in MINA) and nonces with a query the daemon schema accepts', async () => {
    const node = await start({
      walletAccount: ({ variables }) => ({
        data: {
          account: variables.publicKey === addressOf(0) ? { balance: { total: '12500000000' }, nonce: '3', inferredNonce: '4' } : null,
        },
      }),
    });
    expect(await fetchAccountOverview(node.url, addressOf(0))).toEqual({
      balance: 12_500_000_000n,
      balanceText: '12.5 MINA',
      nonce: 3,
      inferredNonce: 4,
    });
    expect(await fetchAccountOverview(node.url, addressOf(1))).toBeUndefined();
    expect(node.requests.map((r) => [r.valid, r.errors])).toEqual([
      [true, []],
      [true, []],
    ]);
  });

  it('an answer that does not fit is a MinaNodeError naming the field', async () => {
    const node = await start({
      walletAccount: () => ({ data: { account: { balance: { total: '-1' }, nonce: '0', inferredNonce: '0' } } }),
    });
    await expect(fetchAccountOverview(node.url, addressOf(0))).rejects.toMatchObject({
      name: 'MinaNodeError',
      kind: 'response',
      message: expect.stringContaining('account.balance.total'),
    });
  });
});
