/**
 * chain_sendTransaction: a zkApp command signed on the Ledger, verified, then returned or broadcast. In clear when the
 * device has the extension's SIGN_ZKAPP (it shows the command and computes the commitments itself), else blind with
 * INS 06 (it shows a hash), after the integrator's `confirmZkapp` hook has seen the host's summary.
 *
 *  1. one plain copy of the argument → shape checks and bounds (updates, URI, token symbol, events, actions, texts)
 *     → protocol era from the command's shape (8 / 32 app-state fields) → the era's library parses it, once;
 *  2. fee payer: the wallet pays when the command's fee payer is the empty key or the connected account (fee, memo
 *     and nonce filled in as documented); otherwise the command's fee payer is kept and only our account updates
 *     are signed;
 *  3. commitments with the era's mina-signer (never hand-rolled), for the provider's network;
 *  4. the summary (./summary.ts) against `spendCap`; on a device that signs blind, the integrator's hook (without
 *     it, and without `allowUnreviewedBlindSigning`, 20006); then SIGN_ZKAPP (one request, the
 *     device's commitments must equal the host's) or one INS 06 signature per distinct value (fee payer and
 *     full-commitment updates share one), each verified on the host before it is inserted;
 *  5. `onlySign` → `{ signedData }`; otherwise the local chain or the node's GraphQL `sendZkapp` → `{ hash }`.
 */
import type { MinaLedgerApp } from '../device/client.js';
import type { NetworkId } from '../apdu/codec.js';
import { signatureToBase58 } from '../apdu/signature.js';
import type { Era, MinaSignerInternals, SignerNetwork } from '../upstream/mina-signer-modules.js';
import { minaSignerInternals } from '#upstream/mina-signer-internals';
import { ErrorCode, ProviderError, invalidParams, requireApproval } from '../errors/provider-error.js';
import { memoText } from '../apdu/sign-zkapp.js';
import {
  EMPTY_PUBLIC_KEY,
  checkShape,
  checkWithLibrary,
  commitmentsOf,
  detectEra,
  signingSlots,
  withFeePayer,
  type ParsedZkappCommand,
  type ZkappCommandJson,
} from './command.js';
import { fetchAccountNonce, sendZkapp } from './graphql.js';
import type { LocalChain } from './local-chain.js';
import type { NonceTracker } from './nonces.js';
import { clearSigningMismatch, zkappStream } from './clear-signing.js';
import { summarizeZkapp, type ZkappSummary } from './summary.js';
import { beyondSpendCap, spendCapRefusal, type BeyondSpendCap } from './spend-cap.js';
import { formatMina } from './summary-view.js';
import type { ZkappCommitmentKind } from '../apdu/sign-zkapp.js';
import type { Capabilities } from '../device/capabilities.js';
import type { ReportProgress } from '../util/progress.js';

/** Default fee when neither the dapp nor the command gives one: Auro's built-in "medium" plus its per-update fee. */
export const DEFAULT_BASE_FEE = 10_100_000n;
export const DEFAULT_FEE_PER_ACCOUNT_UPDATE = 2_000_000n;

export interface SendTransactionParams {
  transaction: Record<string, unknown>;
  onlySign?: boolean;
  nonce?: number;
  /** `fee`: nanomina, or why the dapp's value is no fee (refused only if it is used, as Auro reads it only then). */
  feePayer?: { fee?: bigint | { invalid: string }; memo?: string };
}

export interface SendTransactionContext {
  app: MinaLedgerApp;
  address: string;
  accountIndex: number;
  network: 'mainnet' | 'devnet' | 'local';
  /** The network's id and name, as the summary names it (default: the Mina network of `network`). */
  chain?: ZkappSummary['chain'];
  /** The era the network runs, when known; a command of the other era is refused. */
  era?: Era;
  /** Largest fee the wallet accepts, nanomina. */
  feeCap: bigint;
  graphqlUrl?: string;
  /** Extra headers for `graphqlUrl` (credentials go here, never in the URL). */
  graphqlHeaders?: Record<string, string>;
  localChain?: () => Promise<LocalChain>;
  nonces: NonceTracker;
  signal?: AbortSignal;
  /** What the connected app can do (INS 06 at least): the extension's SIGN_ZKAPP signs in clear. */
  capabilities: Capabilities;
  /**
   * Largest amount of MINA the command may take from the account (fee included), nanomina. A change the cap cannot
   * count in MINA (the account's own permissions, verification key, delegate or timing; another token leaving it)
   * counts as the whole balance: refused, unless `confirmBeyondSpendCap` confirms it (./spend-cap.ts).
   */
  spendCap?: bigint;
  /** The integrator's look at the summary before the device is asked: false (or a throw) rejects with 1002. */
  confirmZkapp?: (summary: ZkappSummary) => boolean | Promise<boolean>;
  /** Under a spend cap, asked of each change beyond it, by name, after `confirmZkapp`: false (or a throw) → 1002. */
  confirmBeyondSpendCap?: (change: BeyondSpendCap) => boolean | Promise<boolean>;
  /**
   * Sign blind (INS 06) with no `confirmZkapp` review. Without it, and without SIGN_ZKAPP, a command is refused (20006)
   * before the device is asked: the user would see a hash and nothing else.
   */
  allowUnreviewedBlindSigning?: boolean;
  /** Called before each device request with what the user is asked to check on the device. */
  onConfirm?: (prompt: string) => void;
  /** Told when the broadcast starts. */
  progress?: ReportProgress;
}

export type SendTransactionResult = { signedData: string } | { hash: string; paymentId?: string };

/** Why a command is refused on a device that signs blind, when nothing on the host reviews it either. */
export const UNREVIEWED_BLIND_SIGNING =
  'this Ledger signs zkApp commands blind (it shows a hash, not what the command does) and this wallet shows no review of its own: the integrator must show the command first (the confirmZkapp option) or accept unreviewed blind signing (allowUnreviewedBlindSigning: true); a Ledger with the chain-ledger extension 1.1 shows the command itself';

export async function sendTransaction(ctx: SendTransactionContext, params: SendTransactionParams): Promise<SendTransactionResult> {
  // The provider checked INS 06 (app 1.6.0) before the call; SIGN_ZKAPP (extension 1.1) signs in clear.
  const clearSigning = ctx.capabilities.extension?.signZkapp === true;
  // One copy of the page's argument, taken before any check: every check and every use reads the same plain data (a
  // getter of the page's cannot answer one way to the checks and another way to the signing).
  const command = checkShape(structuredClone(params.transaction));
  const era = commandEra(ctx, command);
  const internals = await minaSignerInternals(era);
  const network: SignerNetwork = ctx.network === 'mainnet' ? 'mainnet' : 'devnet';
  const { parsed, nextNonce } = await settleFeePayer(ctx, params, command, internals);

  // Whether the result can be broadcast depends only on the arguments and the provider: refuse before signing.
  if (!params.onlySign && !(ctx.network === 'local' && ctx.localChain) && !ctx.graphqlUrl) {
    throw invalidParams('onlySign', 'this provider has no graphqlUrl to broadcast with: configure one, or pass onlySign: true');
  }

  const commitments = commitmentsOf(parsed, internals, network);
  const slots = signingSlots(command, ctx.address, commitments);
  if (slots.length === 0) throw invalidParams('transaction', 'the Ledger account is not a signer for this zkApp command');

  await reviewOnHost(ctx, command, internals, { clearSigning, nextNonce });
  ctx.signal?.throwIfAborted();

  // Each distinct value is signed once; every slot needing that value reuses the signature.
  const signing: DeviceSigning = { parsed, internals, era, network, commitments, distinct: [...new Set(slots.map((s) => s.value))] };
  const raw = clearSigning ? await signInClear(ctx, signing) : await signBlind(ctx, signing);
  const signatures = verifiedSignatures(ctx.address, signing, raw);
  for (const slot of slots) {
    const signature = signatures.get(slot.value)!;
    if (slot.target === 'feePayer') command.feePayer.authorization = signature;
    else {
      const au = command.accountUpdates[slot.target]!;
      au.authorization = { ...au.authorization, signature };
    }
  }
  // No second verification of the whole command: it would recompute every hash (doubling the host time, measured
  // in bench/) to re-check signatures already verified above against the very commitments they were inserted for.

  if (params.onlySign) return { signedData: JSON.stringify(signedData(command, internals.Memo)) };
  return broadcast(ctx, command, params.nonce === undefined);
}

/** The command's protocol era, from its shape: refused when the network is known to run the other one. */
function commandEra(ctx: SendTransactionContext, command: ZkappCommandJson): Era {
  const fallbackEra: Era = ctx.era ?? (ctx.network === 'local' ? 'berkeley' : 'mesa');
  const era = detectEra(command, fallbackEra);
  if (ctx.era && era !== ctx.era) {
    throw invalidParams(
      'transaction',
      `the command has the ${era} layout, but this network runs ${ctx.era}: rebuild it with a matching o1js`,
    );
  }
  return era;
}

/**
 * The command parsed by the era's library, its fee payer settled: the wallet pays when the fee payer is the empty key
 * or the connected account (fee, nonce and memo filled in); another account's fee payer is kept, and then only
 * `onlySign` makes sense (the Ledger signs its account updates, nobody signs the fee payer). `nextNonce`: the
 * account's next nonce as the host read it, for the summary to compare with the nonce signed (a page may choose its
 * own, to hold the command for later).
 */
async function settleFeePayer(
  ctx: SendTransactionContext,
  params: SendTransactionParams,
  command: ZkappCommandJson,
  internals: MinaSignerInternals,
): Promise<{ parsed: ParsedZkappCommand; nextNonce?: number }> {
  const feePayer = command.feePayer.body;
  const walletPays = feePayer.publicKey === EMPTY_PUBLIC_KEY || feePayer.publicKey === ctx.address;
  // The placeholder is no curve point, so the library would refuse it: the wallet's key goes in first.
  if (walletPays) feePayer.publicKey = ctx.address;
  // Parsed (and its URIs, events and actions hashed) once; after the fee payer is filled in, only that is parsed again.
  const parsed = checkWithLibrary(command, internals);
  if (!walletPays) {
    if (!params.onlySign) {
      throw invalidParams('onlySign', 'another account pays the fee: the Ledger can only sign its account updates (use onlySign: true)');
    }
    return { parsed };
  }
  const fee = chooseFee(params, command, ctx.feeCap);
  // The page's nonce is kept, but compared: a node that cannot answer then leaves it unchecked, not the call failed.
  const nextNonce =
    params.nonce === undefined
      ? await inferNonce(ctx)
      : await inferNonce(ctx).catch((error: unknown) => {
          if (ctx.signal?.aborted) throw error;
          return undefined;
        });
  const nonce = params.nonce ?? nextNonce ?? Number(feePayer.nonce);
  feePayer.fee = fee.toString();
  feePayer.nonce = String(nonce);
  // Keep the dapp's memo unless a non-empty feePayer.memo replaces it (mina-signer's helper would drop it).
  if (params.feePayer?.memo !== undefined) command.memo = internals.Memo.toBase58(internals.Memo.fromString(params.feePayer.memo));
  return { parsed: withFeePayer(parsed, command, internals), nextNonce };
}

/**
 * What the command does to the account, before any device request: the spend cap, then the integrator's hook, then
 * (under a cap) each change beyond it, by name. Blind signing is never silent by default: a hash on the device needs a
 * review on the host, or the integrator's opt-in.
 */
async function reviewOnHost(
  ctx: SendTransactionContext,
  command: ZkappCommandJson,
  internals: MinaSignerInternals,
  { clearSigning, nextNonce }: { clearSigning: boolean; nextNonce?: number },
): Promise<void> {
  const memo = memoText(Uint8Array.from(internals.Memo.toBytes(internals.Memo.fromBase58(command.memo)))) ?? '';
  const chain = ctx.chain ?? { id: `mina:${ctx.network}`, name: `Mina ${ctx.network}` };
  const summary = summarizeZkapp(command, { address: ctx.address, network: ctx.network, chain, clearSigning, memo, nextNonce });
  const { spendCap, confirmZkapp, confirmBeyondSpendCap } = ctx;
  const refusal = spendCap === undefined ? undefined : spendCapRefusal(summary, spendCap, confirmBeyondSpendCap !== undefined);
  if (refusal) throw refusal;
  if (!clearSigning && !confirmZkapp && ctx.allowUnreviewedBlindSigning !== true) {
    throw new ProviderError(ErrorCode.MethodNotSupported, { reason: UNREVIEWED_BLIND_SIGNING });
  }
  if (confirmZkapp) await requireApproval(() => confirmZkapp(summary), 'refused by the wallet before the Ledger was asked', ctx.signal);
  if (spendCap === undefined || !confirmBeyondSpendCap) return;
  for (const change of beyondSpendCap(summary)) {
    await requireApproval(
      () => confirmBeyondSpendCap(change),
      `not confirmed beyond the spend cap (${change.description}): nothing was asked of the Ledger`,
      ctx.signal,
    );
  }
}

/** What the device steps need of the command being signed. */
interface DeviceSigning {
  parsed: ParsedZkappCommand;
  internals: MinaSignerInternals;
  era: Era;
  network: SignerNetwork;
  commitments: { commitment: bigint; fullCommitment: bigint };
  /** The distinct values the account signs (each once, whatever number of slots need it). */
  distinct: bigint[];
}

/** A device signature as it came back: the signature's field and scalar, decimal. */
type RawSignature = { field: string; scalar: string };

function kindOf(value: bigint, signing: DeviceSigning): ZkappCommitmentKind {
  return value === signing.commitments.fullCommitment ? 'fullCommitment' : 'commitment';
}

/** SIGN_ZKAPP: one request, the device shows the command; its commitments must equal the host's. */
async function signInClear(ctx: SendTransactionContext, signing: DeviceSigning): Promise<Map<bigint, RawSignature>> {
  const { parsed, internals, era, network, commitments } = signing;
  ctx.onConfirm?.('Review the zkApp transaction on your Ledger: it shows what the command does');
  const reply = await ctx.app.signZkapp(zkappStream(parsed, internals, era, network, ctx.accountIndex), { signal: ctx.signal });
  const mismatch = clearSigningMismatch(
    reply,
    commitments,
    signing.distinct.map((value) => kindOf(value, signing)),
  );
  if (mismatch) throw new ProviderError(ErrorCode.Internal, { reason: mismatch });
  const raw = new Map<bigint, RawSignature>();
  for (const { kind, r, s } of reply.signatures) {
    raw.set(kind === 'fullCommitment' ? commitments.fullCommitment : commitments.commitment, {
      field: r.toString(),
      scalar: s.toString(),
    });
  }
  return raw;
}

/** INS 06: one blind signature per distinct value, the device showing only the value. */
async function signBlind(ctx: SendTransactionContext, signing: DeviceSigning): Promise<Map<bigint, RawSignature>> {
  const networkId: NetworkId = ctx.network === 'mainnet' ? 1 : 0;
  const raw = new Map<bigint, RawSignature>();
  for (const [i, value] of signing.distinct.entries()) {
    const what = kindOf(value, signing) === 'fullCommitment' ? 'full commitment' : 'partial commitment (the account updates only)';
    ctx.onConfirm?.(`Blind-sign the zkApp ${what} on your Ledger (${i + 1} of ${signing.distinct.length})`);
    raw.set(value, await ctx.app.signFieldElement(ctx.accountIndex, value, networkId, { signal: ctx.signal }));
  }
  return raw;
}

/** Each device signature verified on the host for this account and network before it is used (base58, by value). */
function verifiedSignatures(address: string, signing: DeviceSigning, raw: Map<bigint, RawSignature>): Map<bigint, string> {
  const { internals, network } = signing;
  const publicKey = internals.PublicKey.toGroup(internals.PublicKey.fromBase58(address));
  const signatures = new Map<bigint, string>();
  for (const value of signing.distinct) {
    const signature = raw.get(value)!;
    const ok = internals.verifyFieldElement({ r: BigInt(signature.field), s: BigInt(signature.scalar) }, value, publicKey, network);
    if (!ok)
      throw new ProviderError(ErrorCode.Internal, {
        reason: 'the Ledger returned a signature that does not verify for this account and network',
      });
    signatures.set(value, signatureToBase58(signature));
  }
  return signatures;
}

/**
 * Auro 2.5.1's order: the command's own fee payer fee when it is positive (nanomina: dapps build the command with
 * `Mina.transaction({ sender, fee })` and often pass the same value again, in nanomina, as `feePayer.fee`), else
 * `feePayer.fee` (MINA; refused only then when it is no fee), else the default. Whatever is chosen is capped by
 * `feeCap`.
 */
export function chooseFee(params: SendTransactionParams, command: ZkappCommandJson, cap: bigint): bigint {
  const given = params.feePayer?.fee;
  const inCommand = BigInt(command.feePayer.body.fee);
  // feePayer.fee is read, and so checked, only when the command's own fee is 0: Auro ignores it otherwise.
  if (inCommand === 0n && typeof given === 'object') throw invalidParams('feePayer.fee', given.invalid);
  const [fee, field] =
    inCommand > 0n
      ? [inCommand, 'transaction.feePayer.body.fee']
      : typeof given === 'bigint'
        ? [given, 'feePayer.fee']
        : [DEFAULT_BASE_FEE + DEFAULT_FEE_PER_ACCOUNT_UPDATE * BigInt(command.accountUpdates.length), 'transaction.feePayer.body.fee'];
  if (fee > cap) throw invalidParams(field, `the fee ${formatMina(fee)} is above the fee cap of ${formatMina(cap)}`);
  return fee;
}

/** The node's inferred nonce (it counts mempool transactions), never below a nonce this provider broadcast. */
async function inferNonce(ctx: SendTransactionContext): Promise<number | undefined> {
  let inferred: number | undefined;
  if (ctx.network === 'local' && ctx.localChain) inferred = (await (await ctx.localChain()).nonceOf(ctx.address)) ?? 0;
  else if (ctx.graphqlUrl) {
    // A node failure is a MinaNodeError, which the provider reports as 21001 (src/provider/errors.ts).
    inferred =
      (await fetchAccountNonce(ctx.graphqlUrl, ctx.address, { signal: ctx.signal, headers: ctx.graphqlHeaders }))?.inferredNonce ?? 0;
  } else return undefined;
  return ctx.nonces.next(ctx.address, inferred);
}

/** What mina-signer's `Signed.data` holds and existing wallets return as `signedData`. */
function signedData(command: ZkappCommandJson, memo: { fromBase58(b: string): string; toString(m: string): string }) {
  const body = command.feePayer.body;
  return {
    zkappCommand: command,
    feePayer: {
      feePayer: body.publicKey,
      fee: body.fee,
      nonce: body.nonce,
      memo: memo.toString(memo.fromBase58(command.memo)),
      validUntil: body.validUntil,
    },
  };
}

/** Sends the command; its nonce is recorded only when the host chose it (`hostNonce`), never a page's (./nonces.ts). */
async function broadcast(ctx: SendTransactionContext, command: ZkappCommandJson, hostNonce: boolean): Promise<SendTransactionResult> {
  const sent = () => {
    if (hostNonce) ctx.nonces.used(ctx.address, Number(command.feePayer.body.nonce));
  };
  ctx.progress?.('broadcasting');
  // Refusals (LocalChainRejection, MinaNodeError) reach the page as 21001 through toProviderError.
  if (ctx.network === 'local' && ctx.localChain) {
    const result = await (await ctx.localChain()).send(command);
    sent();
    return result;
  }
  if (!ctx.graphqlUrl) {
    throw invalidParams('onlySign', 'this provider has no graphqlUrl to broadcast with: configure one, or pass onlySign: true');
  }
  const { hash, id } = await sendZkapp(ctx.graphqlUrl, command, { signal: ctx.signal, headers: ctx.graphqlHeaders });
  sent();
  return { hash, paymentId: id };
}
