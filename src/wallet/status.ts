/**
 * A payment's or delegation's status, for the wallet's Activity: pending (in the node's pool), included (in a recent
 * block of the best chain, its failure reason if the chain applied it as failed), or not seen. One GraphQL query by
 * the hash the broadcast returned (validated against the daemon's schema in test/wallet/status.test.ts). The daemon's
 * own `transactionStatus` takes the command's `id`, which `chain_sendPayment` does not return (Auro returns the hash
 * only), so the pool and the recent blocks are asked for the hash instead. Public data: it asks the holder nothing.
 */
import { z } from 'zod';
import { MinaNodeError, graphqlRequest, type GraphqlRequestOptions } from '../zkapp/graphql.js';

/** Blocks of the best chain searched for the hash: about an hour of mainnet's 3-minute slots. */
export const STATUS_BLOCKS = 20;

/** The pool, by hash, and the recent blocks' signed commands with their failure reason. */
export const COMMAND_STATUS_QUERY = `query walletCommandStatus($hashes: [String!]) { pooledUserCommands(hashes: $hashes) { hash } bestChain(maxLength: ${STATUS_BLOCKS}) { transactions { userCommands { hash failureReason } } } }`;

/**
 * `pending`: in the pool; `included`: in a block of the best chain; `failed`: in a block, applied as failed (the fee
 * is paid, nothing else happens); `unknown`: neither (dropped, or older than the blocks searched).
 */
export type CommandStatus = { status: 'pending' } | { status: 'included' } | { status: 'failed'; reason: string } | { status: 'unknown' };

const answer = z.object({
  pooledUserCommands: z.array(z.object({ hash: z.string() })),
  bestChain: z
    .array(
      z.object({
        transactions: z.object({ userCommands: z.array(z.object({ hash: z.string(), failureReason: z.string().nullable().optional() })) }),
      }),
    )
    .nullable(),
});

/**
 * The status of the signed command (payment or delegation) with `hash`, from the node at `url`.
 *
 * @example
 * ```ts
 * import { fetchCommandStatus } from 'chain-ledger/wallet';
 * const { status } = await fetchCommandStatus('https://api.minascan.io/node/devnet/v1/graphql', '5Ju…');
 * ```
 * @throws `MinaNodeError` (kind `network`, `http`, `graphql`, or `response` for an answer that does not fit, naming
 *   the field).
 */
export async function fetchCommandStatus(url: string, hash: string, options?: GraphqlRequestOptions): Promise<CommandStatus> {
  const data = await graphqlRequest<unknown>(url, COMMAND_STATUS_QUERY, { hashes: [hash] }, options);
  const parsed = answer.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new MinaNodeError('response', url, `${issue.path.join('.') || 'the answer'}: ${issue.message}`);
  }
  for (const block of parsed.data.bestChain ?? []) {
    const command = block.transactions.userCommands.find((c) => c.hash === hash);
    if (command === undefined) continue;
    return typeof command.failureReason === 'string' && command.failureReason !== ''
      ? { status: 'failed', reason: command.failureReason }
      : { status: 'included' };
  }
  if (parsed.data.pooledUserCommands.some((c) => c.hash === hash)) return { status: 'pending' };
  return { status: 'unknown' };
}
