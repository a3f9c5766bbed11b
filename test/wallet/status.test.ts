/**
 * The wallet's Activity reads each payment's status from the node (src/wallet/status.ts): the query fits the daemon's
 * schema (the fake node validates every request against it), and the answer is read as pending (in the pool),
 * included or failed (in a block of the best chain) or unknown; an answer that does not fit names its field.
 */
import { describe, expect, it } from 'vitest';
import { fetchCommandStatus } from '../../src/wallet/status.js';
import { fakeMinaNodes } from '../support/mina-node.js';

const start = fakeMinaNodes();
const HASH = '5JuSRViCY1GbnnpExLhoYLkD96vwnA97ZrbE2UFTFzBk9SPLsAyE';
const OTHER = '5JtkxWhYHxgAs6FYB6XMi8VXFhYyoQikwaJkdwK8TsyR5EQmsWXV';
const block = (...commands: { hash: string; failureReason?: string | null }[]) => ({
  transactions: { userCommands: commands.map((c) => ({ failureReason: null, ...c })) },
});

describe("the wallet's transaction status", () => {
  it('pending in the pool, then included in a block, with a query the daemon schema accepts', async () => {
    let included = false;
    const node = await start({
      walletCommandStatus: ({ variables }) => ({
        data: {
          pooledUserCommands: included ? [] : (variables.hashes as string[]).filter((h) => h === HASH).map((hash) => ({ hash })),
          bestChain: included ? [block({ hash: OTHER }), block({ hash: HASH })] : [block({ hash: OTHER })],
        },
      }),
    });
    expect(await fetchCommandStatus(node.url, HASH)).toEqual({ status: 'pending' });
    included = true;
    expect(await fetchCommandStatus(node.url, HASH)).toEqual({ status: 'included' });
    expect(await fetchCommandStatus(node.url, '5JunknownHash')).toEqual({ status: 'unknown' });
    expect(node.requests.map((r) => [r.valid, r.errors])).toEqual([
      [true, []],
      [true, []],
      [true, []],
    ]);
  });

  it('failed: in a block with a failure reason', async () => {
    const node = await start({
      walletCommandStatus: () => ({
        data: { pooledUserCommands: [], bestChain: [block({ hash: HASH, failureReason: 'Amount_insufficient_to_create_account' })] },
      }),
    });
    expect(await fetchCommandStatus(node.url, HASH)).toEqual({ status: 'failed', reason: 'Amount_insufficient_to_create_account' });
  });

  it('an answer that does not fit is a MinaNodeError naming the field', async () => {
    const node = await start({ walletCommandStatus: () => ({ data: { pooledUserCommands: [{ hash: 7 }], bestChain: [] } }) });
    await expect(fetchCommandStatus(node.url, HASH)).rejects.toMatchObject({
      name: 'MinaNodeError',
      kind: 'response',
      message: expect.stringContaining('pooledUserCommands.0.hash'),
    });
  });
});
