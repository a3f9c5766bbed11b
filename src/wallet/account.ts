/**
 * What the wallet's Home shows of an account, from the network's node: its balance and nonces, in one GraphQL query
 * (validated against the daemon's schema in test/wallet/account.test.ts). Read-only and public: a balance is on the
 * chain for anyone to read, so asking a node for it needs no approval; the node only learns the address, which the
 * holder chose to look up.
 */
import { z } from 'zod';
import { formatMina } from '../zkapp/summary-view.js';
import { MinaNodeError, graphqlRequest, type GraphqlRequestOptions } from '../zkapp/graphql.js';

/** The account's balance and nonces; `account` is null when the account does not exist on the chain (yet). */
export const ACCOUNT_OVERVIEW_QUERY =
  'query walletAccount($publicKey: PublicKey!) { account(publicKey: $publicKey) { balance { total } nonce inferredNonce } }';

/** An account as the wallet shows it. */
export interface AccountOverview {
  /** Total balance in nanomina. */
  balance: bigint;
  /** The balance in MINA, as a person reads it ("2.5 MINA"). */
  balanceText: string;
  /** The nonce in the best tip's ledger. */
  nonce: number;
  /** The nonce the next transaction uses (counting the mempool). */
  inferredNonce: number;
}

const decimal = z.union([z.string().regex(/^(0|[1-9][0-9]*)$/), z.number().int().nonnegative()]);
const uint32 = decimal.transform(Number).refine((n) => n <= 0xffff_ffff, 'not a uint32');
/** The answer's shape, checked: a node is outside the wallet, and what it says is shown as fact. */
const answer = z.object({
  account: z.object({ balance: z.object({ total: decimal.transform((v) => BigInt(v)) }), nonce: uint32, inferredNonce: uint32 }).nullable(),
});

/**
 * The account's balance and nonces from the node at `url`, or `undefined` when the account does not exist yet.
 *
 * @example
 * ```ts
 * import { fetchAccountOverview } from 'chain-ledger/wallet';
 * const overview = await fetchAccountOverview('https://api.minascan.io/node/devnet/v1/graphql', 'B62q…');
 * console.log(overview?.balanceText ?? 'not on the chain yet'); // "12.5 MINA"
 * ```
 * @throws `MinaNodeError` (kind `network`, `http`, `graphql`, or `response` for an answer that does not fit, naming
 *   the field).
 */
export async function fetchAccountOverview(
  url: string,
  publicKey: string,
  options?: GraphqlRequestOptions,
): Promise<AccountOverview | undefined> {
  const data = await graphqlRequest<unknown>(url, ACCOUNT_OVERVIEW_QUERY, { publicKey }, options);
  const parsed = answer.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new MinaNodeError('response', url, `${issue.path.join('.') || 'the answer'}: ${issue.message}`);
  }
  const account = parsed.data.account;
  if (account === null) return undefined;
  return {
    balance: account.balance.total,
    balanceText: formatMina(account.balance.total),
    nonce: account.nonce,
    inferredNonce: account.inferredNonce,
  };
}
