/**
 * mina-js's (Pallad's) sign-only flow: `signTransaction` signs a payment, a stake delegation or a zkApp command and
 * returns it in mina-signer's `Signed` shape (`{ signature, publicKey, data }`, what `verifyTransaction` takes),
 * without broadcasting; `sendTransaction({ signedTransaction, transactionType })` broadcasts one, after checking its
 * signature with mina-signer (the node would refuse a bad one too, but a page must not learn that from a node it does
 * not know); `getBalance` reads the account's balance from the node. Payments and delegations get the device review
 * `sendPayment` gets (INS 03, in clear; src/payments/send-payment.ts `signLegacyCommand`), zkApp commands the one
 * `sendTransaction({ onlySign: true })` gets (src/zkapp/send-transaction.ts).
 */
import { z } from 'zod';
import { ErrorCode, ProviderError, invalidParams } from '../errors/provider-error.js';
import type { CallContext, HostContext } from './call-context.js';
import type { sendSignedTransactionParams, signTransactionParams } from './sign-only-schemas.js';
import { legacyInput } from './sign-only-schemas.js';
import { parseParams } from './schemas.js';
import { minaSignerInternals } from '#upstream/mina-signer-internals';
import { checkShape, detectEra } from '../zkapp/command.js';
import { graphqlRequest, MinaNodeError, sendZkapp } from '../zkapp/graphql.js';
import { sendTransaction } from '../zkapp/send-transaction.js';
import { broadcastLegacy, signLegacyCommand, verifyLegacy, type LegacyCommandJson } from '../payments/send-payment.js';

const signedLegacy = z.object({ signedTransaction: z.object({ data: legacyInput }) });

/** A signed payment or delegation, as mina-signer's `signTransaction` returns it. */
export interface SignedLegacyTransaction {
  signature: { field: string; scalar: string };
  publicKey: string;
  data: LegacyCommandJson;
}

/** A signed zkApp command, as mina-signer's `signZkappCommand` returns it (`signature`: the fee payer's, base58). */
export interface SignedZkappTransaction {
  signature: string;
  publicKey: string;
  data: { zkappCommand: Record<string, unknown>; feePayer: Record<string, unknown> };
}

export type SignedTransaction = SignedLegacyTransaction | SignedZkappTransaction;

/** The account's balance query (the daemon's `account(publicKey).balance.total`, nanomina). */
export const ACCOUNT_BALANCE_QUERY =
  'query accountBalance($publicKey: PublicKey!) { account(publicKey: $publicKey) { balance { total } } }';

/** `signTransaction`: the payment or delegation on INS 03, the zkApp command as `sendTransaction` with `onlySign`. */
export async function signTransactionOnLedger(
  call: CallContext,
  params: z.output<typeof signTransactionParams>,
): Promise<SignedTransaction> {
  const { transaction, command } = params;
  if (transaction) {
    if (transaction.from !== call.address) {
      throw invalidParams('transaction.from', 'must be the connected account: the Ledger signs for it only');
    }
    const kind = transaction.amount === undefined ? 'delegation' : 'payment';
    const { data, signature } = await signLegacyCommand(kind, call, transaction);
    return { signature, publicKey: call.address, data };
  }
  const payer = command!.feePayer;
  const payerKey = payer?.feePayer ?? payer?.publicKey;
  if (payerKey !== undefined && payerKey !== call.address) {
    throw invalidParams('command.feePayer.feePayer', 'must be the connected account: the Ledger pays and signs for it only');
  }
  const signed = await sendTransaction(call, {
    transaction: command!.zkappCommand,
    onlySign: true,
    nonce: payer?.nonce,
    feePayer: { fee: payer?.fee, memo: payer?.memo },
  });
  const data = JSON.parse((signed as { signedData: string }).signedData) as SignedZkappTransaction['data'];
  const feePayer = (data.zkappCommand.feePayer ?? {}) as { authorization?: string };
  return { signature: feePayer.authorization ?? '', publicKey: call.address, data };
}

/**
 * `sendTransaction({ signedTransaction, transactionType })`: the signature checked with mina-signer for the
 * provider's network (20003 naming `signedTransaction.signature` when it does not verify), then the node's
 * `sendPayment` / `sendDelegation` / `sendZkapp` → `{ hash }`. Nothing is asked of the device.
 */
export async function sendSignedTransaction(
  host: HostContext,
  { signedTransaction, transactionType }: z.output<typeof sendSignedTransactionParams>,
): Promise<{ hash: string }> {
  host.connection.required();
  const network = host.network.kind;
  // The signature first: a page learns that its transaction is bad from the wallet, before any node is asked.
  const send =
    transactionType === 'zkapp'
      ? await checkedZkapp(signedTransaction.data, network)
      : await checkedLegacy(transactionType, signedTransaction, network);
  const endpoint = host.network.endpoint;
  if (!endpoint)
    throw invalidParams('graphqlUrl', "a signed transaction is broadcast through a Mina node: configure the provider's graphqlUrl");
  host.signal.throwIfAborted();
  return { hash: await send(endpoint.url, { signal: host.signal, headers: endpoint.headers }) };
}

type Broadcast = (url: string, options: { signal: AbortSignal; headers?: Record<string, string> }) => Promise<string>;

/** A signed zkApp command, checked: `signTransaction`'s `data` is `{ zkappCommand, feePayer }`, mina-js's `input` the command. */
async function checkedZkapp(data: unknown, network: 'mainnet' | 'devnet' | 'local'): Promise<Broadcast> {
  const zkappCommand = (data as { zkappCommand?: unknown } | undefined)?.zkappCommand ?? data;
  if (!(await zkappVerifies(zkappCommand, network))) {
    throw invalidParams('signedTransaction', "the zkApp command's fee payer signature does not verify on this network");
  }
  return async (url, options) => (await sendZkapp(url, zkappCommand as object, options)).hash;
}

/** A signed payment or delegation, checked with mina-signer's `verifyPayment` / `verifyStakeDelegation`. */
async function checkedLegacy(
  kind: 'payment' | 'delegation',
  signedTransaction: { data: unknown; signature: unknown },
  network: 'mainnet' | 'devnet' | 'local',
): Promise<Broadcast> {
  // Parsed under its own path, so that a bad field is named as the page sent it (`signedTransaction.data.fee`).
  const input = parseParams(signedLegacy, { signedTransaction: { data: signedTransaction.data } }).signedTransaction.data;
  if ((kind === 'payment') !== (input.amount !== undefined)) {
    throw invalidParams('signedTransaction.data.amount', kind === 'payment' ? 'a payment has an amount' : 'a delegation has no amount');
  }
  const signature = signedTransaction.signature;
  if (typeof signature !== 'object' || signature === null) throw invalidParams('signedTransaction.signature', 'must be { field, scalar }');
  const data: LegacyCommandJson = {
    to: input.to,
    from: input.from,
    fee: input.fee.toString(),
    ...(input.amount !== undefined ? { amount: input.amount.toString() } : {}),
    nonce: input.nonce.toString(),
    memo: input.memo ?? '',
    validUntil: (input.validUntil ?? 4294967295n).toString(),
  };
  const raw = signature as { field: string; scalar: string };
  if (!(await verifyLegacy(kind, network, data, raw, input.from))) {
    throw invalidParams('signedTransaction.signature', `does not verify for this ${kind} on this network`);
  }
  return (url, options) => broadcastLegacy(kind, url, data, raw, options);
}

/**
 * mina-signer's check (its `verifyZkappCommandSignature`, of the command's era) of a zkApp command's fee payer
 * signature and of the signatures by the fee payer's key in its account updates, on the provider's network.
 */
async function zkappVerifies(value: unknown, network: 'mainnet' | 'devnet' | 'local'): Promise<boolean> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const command = checkShape(structuredClone(value as Record<string, unknown>));
  const internals = await minaSignerInternals(detectEra(command, network === 'local' ? 'berkeley' : 'mesa'));
  try {
    return internals.verifyZkappCommandSignature(command, command.feePayer.body.publicKey, network === 'mainnet' ? 'mainnet' : 'devnet');
  } catch {
    return false;
  }
}

/** `getBalance`: the connected account's balance on the node, nanomina as decimal text ('0' for an unknown account). */
export async function balanceOnNode(host: HostContext): Promise<string> {
  const { address } = host.connection.required();
  const endpoint = host.network.endpoint;
  if (!endpoint) {
    throw new ProviderError(ErrorCode.MethodNotSupported, {
      reason: 'the balance comes from a Mina node: this provider has no graphqlUrl',
    });
  }
  const url = endpoint.url;
  const data = await graphqlRequest<{ account?: { balance?: { total?: unknown } } | null }>(
    url,
    ACCOUNT_BALANCE_QUERY,
    { publicKey: address },
    {
      signal: host.signal,
      headers: endpoint.headers,
    },
  );
  if (data.account === null) return '0';
  const total = data.account?.balance?.total;
  if (typeof total !== 'string' || !/^\d{1,20}$/.test(total))
    throw new MinaNodeError('response', url, 'the answer has no `account.balance.total`');
  return total;
}
