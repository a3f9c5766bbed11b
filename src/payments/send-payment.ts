/**
 * `sendPayment` and `sendStakeDelegation`: the one thing the released Mina app shows in clear on its screen (INS 03:
 * amount, fee, receiver or delegate, memo, nonce, network). Signed on the device, verified on the host with
 * mina-signer (`verifyPayment` / `verifyStakeDelegation` on the provider's network), then broadcast through the
 * daemon's `sendPayment` / `sendDelegation` mutations with the `{ field, scalar }` signature.
 *
 * The o1js LocalBlockchain applies zkApp commands only (its `sendTransaction` takes a `Transaction`; it has no path
 * for a signed payment or delegation), so on `network: 'local'` these methods answer 20006 before the device is
 * asked, never a pending promise.
 */
import type { NetworkId, PaymentOrDelegation } from '../apdu/codec.js';
import type { MinaLedgerApp } from '../device/client.js';
import { minaSigners } from '../upstream/mina-signers.js';
import { ErrorCode, ProviderError, invalidParams } from '../errors/provider-error.js';
import { fetchAccountNonce, graphqlRequest, MinaNodeError } from '../zkapp/graphql.js';
import type { NonceTracker } from '../zkapp/nonces.js';
import type { ReportProgress } from '../util/progress.js';

/** Default fee of a payment or delegation when the dapp gives none: Auro's built-in "medium" fee, 0.0101 MINA. */
export const DEFAULT_PAYMENT_FEE = 10_100_000n;
/** INS 03's "no expiry" global slot. */
const VALID_UNTIL_NONE = 4294967295;

/** Payment broadcast with a mina-signer signature; validated against the daemon's schema in the tests. */
export const SEND_PAYMENT_MUTATION =
  'mutation sendPayment($input: SendPaymentInput!, $signature: SignatureInput!) { sendPayment(input: $input, signature: $signature) { payment { hash id } } }';
/** Stake delegation broadcast, as above. */
export const SEND_DELEGATION_MUTATION =
  'mutation sendDelegation($input: SendDelegationInput!, $signature: SignatureInput!) { sendDelegation(input: $input, signature: $signature) { delegation { hash id } } }';

/** Parsed arguments: amounts already in nanomina. */
export interface LegacyCommandParams {
  to: string;
  /** nanomina; absent for a delegation. */
  amount?: bigint;
  fee?: bigint;
  memo?: string;
  nonce?: number;
  /** The last global slot it is valid in (default: no expiry). */
  validUntil?: number;
}

export interface LegacyCommandContext {
  app: MinaLedgerApp;
  address: string;
  accountIndex: number;
  network: 'mainnet' | 'devnet' | 'local';
  feeCap: bigint;
  graphqlUrl?: string;
  /** Extra headers for `graphqlUrl` (credentials go here, never in the URL). */
  graphqlHeaders?: Record<string, string>;
  nonces: NonceTracker;
  signal?: AbortSignal;
  /** Called before the device request with what the user is asked to check on the device. */
  onConfirm?: (prompt: string) => void;
  /** Told when the broadcast starts. */
  progress?: ReportProgress;
}

/** What the device signed, in mina-signer's `Json.Payment` / `Json.StakeDelegation` form. */
export interface LegacyCommandJson {
  to: string;
  from: string;
  fee: string;
  amount?: string;
  nonce: string;
  memo: string;
  validUntil: string;
}

/** A payment or delegation as the device signed it (mina-signer's `Json.Payment` form) and its signature, verified. */
export interface SignedLegacyCommand {
  data: LegacyCommandJson;
  signature: { field: string; scalar: string };
}

/**
 * Auro's `sendPayment` / `sendStakeDelegation`: the command signed on the device (`signLegacyCommand`), then
 * broadcast through the node.
 */
export async function sendLegacyCommand(
  kind: 'payment' | 'delegation',
  ctx: LegacyCommandContext,
  params: LegacyCommandParams,
): Promise<{ hash: string }> {
  const method = kind === 'payment' ? 'sendPayment' : 'sendStakeDelegation';
  if (ctx.network === 'local') {
    throw new ProviderError(ErrorCode.MethodNotSupported, {
      reason: `${method} is not supported on network "local": o1js's LocalBlockchain applies zkApp commands only and has no signed payments or delegations to apply this to; use network "devnet" with a graphqlUrl, or move MINA with a zkApp command (sendTransaction)`,
    });
  }
  if (!ctx.graphqlUrl) throw invalidParams('graphqlUrl', `${method} broadcasts through a Mina node: configure the provider's graphqlUrl`);
  const { data, signature } = await signLegacyCommand(kind, ctx, params);
  // A refusal by the node is a MinaNodeError, which toProviderError turns into 21001 with the node's message.
  ctx.progress?.('broadcasting');
  const hash = await broadcastLegacy(kind, ctx.graphqlUrl, data, signature, { signal: ctx.signal, headers: ctx.graphqlHeaders });
  // Only a nonce the host chose is remembered: a page's (a far one, 2^32 − 1) would become every later call's.
  if (params.nonce === undefined) ctx.nonces.used(ctx.address, Number(data.nonce));
  return { hash };
}

/**
 * The sign step of `sendPayment` and of the sign-only `signTransaction`: the same device review (INS 03: amount, fee,
 * receiver, memo, nonce, network in clear), the signature verified with mina-signer before it is returned. The
 * nonce, when not given, is the node's inferred one (a `graphqlUrl` is needed then).
 */
export async function signLegacyCommand(
  kind: 'payment' | 'delegation',
  ctx: LegacyCommandContext,
  params: LegacyCommandParams,
): Promise<SignedLegacyCommand> {
  const fee = params.fee ?? DEFAULT_PAYMENT_FEE;
  if (fee > ctx.feeCap) throw invalidParams('fee', `fee ${fee} nanomina is above the cap of ${ctx.feeCap}`);
  if (params.nonce === undefined && !ctx.graphqlUrl) {
    throw invalidParams(
      'nonce',
      "without a nonce the wallet asks the node for one: configure the provider's graphqlUrl, or give the nonce",
    );
  }
  const nonce = params.nonce ?? (await inferNonce(ctx));
  const networkId: NetworkId = ctx.network === 'mainnet' ? 1 : 0;
  const validUntil = params.validUntil ?? VALID_UNTIL_NONE;
  const tx: PaymentOrDelegation = {
    txType: kind,
    account: ctx.accountIndex,
    from: ctx.address,
    to: params.to,
    amount: kind === 'payment' ? (params.amount ?? 0n) : 0n,
    fee,
    nonce,
    validUntil,
    memo: params.memo ?? '',
    networkId,
  };
  ctx.onConfirm?.('Review the amount, fee and receiver on your Ledger and approve');
  const signature = await ctx.app.signTransaction(tx, { signal: ctx.signal });
  const data: LegacyCommandJson = {
    to: tx.to,
    from: tx.from,
    fee: fee.toString(),
    ...(kind === 'payment' ? { amount: tx.amount.toString() } : {}),
    nonce: String(nonce),
    memo: tx.memo!,
    validUntil: String(validUntil),
  };
  if (!(await verifyLegacy(kind, ctx.network, data, signature, ctx.address))) {
    throw new ProviderError(ErrorCode.Internal, {
      reason: 'the Ledger returned a signature that does not verify for this account and network',
    });
  }
  return { data, signature };
}

/** The node's inferred nonce (it counts mempool transactions), never below a nonce this provider broadcast. */
async function inferNonce(ctx: LegacyCommandContext): Promise<number> {
  const inferred =
    (await fetchAccountNonce(ctx.graphqlUrl!, ctx.address, { signal: ctx.signal, headers: ctx.graphqlHeaders }))?.inferredNonce ?? 0;
  return ctx.nonces.next(ctx.address, inferred);
}

/** mina-signer's verifier for the network (payments use the legacy prefixes, which differ by network). */
export async function verifyLegacy(
  kind: 'payment' | 'delegation',
  network: 'mainnet' | 'devnet' | 'local',
  data: LegacyCommandJson,
  signature: { field: string; scalar: string },
  publicKey: string,
): Promise<boolean> {
  const signers = await minaSigners();
  const client = network === 'mainnet' ? signers.mainnet : signers.testnet;
  try {
    return kind === 'payment'
      ? client.verifyPayment({ data: { ...data, amount: data.amount! }, signature, publicKey })
      : client.verifyStakeDelegation({ data, signature, publicKey });
  } catch {
    return false;
  }
}

/** Broadcasts a signed payment or delegation through the node's `sendPayment` / `sendDelegation`; its hash. */
export async function broadcastLegacy(
  kind: 'payment' | 'delegation',
  url: string,
  data: LegacyCommandJson,
  signature: { field: string; scalar: string },
  options: { signal?: AbortSignal; headers?: Record<string, string> },
): Promise<string> {
  const variables = { input: { ...data }, signature: { field: signature.field, scalar: signature.scalar } };
  if (kind === 'payment') {
    const result = await graphqlRequest<{ sendPayment?: { payment?: { hash?: unknown } } }>(url, SEND_PAYMENT_MUTATION, variables, options);
    return hashOf(result.sendPayment?.payment?.hash, url, 'sendPayment.payment');
  }
  const result = await graphqlRequest<{ sendDelegation?: { delegation?: { hash?: unknown } } }>(
    url,
    SEND_DELEGATION_MUTATION,
    variables,
    options,
  );
  return hashOf(result.sendDelegation?.delegation?.hash, url, 'sendDelegation.delegation');
}

function hashOf(hash: unknown, url: string, path: string): string {
  if (typeof hash !== 'string' || hash === '') throw new MinaNodeError('response', url, `the answer has no \`${path}.hash\` string`);
  return hash;
}
