/**
 * What a zkApp command does to the connected account, computed on the host before any device request: the summary
 * an integrator's `confirmZkapp` hook sees (and may veto), and what `spendCap` is checked against. On a device that
 * signs blind (the released app: INS 06 shows only a hash), this is all the user can be shown; with SIGN_ZKAPP the
 * device shows the same things itself.
 */
import type { ZkappCommandJson } from './command.js';

/** The token id of MINA in a command's JSON. */
export const MINA_TOKEN_ID = 'wSHV2S4qX9jFsLjQo8r1BsMLH2ZRKsZx6EJd1sbozGPieEC4Jf';

/** A change a page could hide behind a hash: the account's keys, permissions, delegate, … */
export type SensitiveChange = 'verificationKey' | 'permissions' | 'delegate' | 'zkappUri' | 'tokenSymbol' | 'timing' | 'votingFor';
const SENSITIVE: SensitiveChange[] = ['verificationKey', 'permissions', 'delegate', 'zkappUri', 'tokenSymbol', 'timing', 'votingFor'];

export interface ZkappSummary {
  network: 'mainnet' | 'devnet' | 'local';
  feePayer: string;
  /** The fee, nanomina, and whether the connected account pays it. */
  fee: string;
  walletPays: boolean;
  /** The connected account's balance changes, summed per token (nanomina for MINA; the token's smallest unit else). */
  balanceChanges: { token: 'MINA' | string; amount: string }[];
  /** MINA leaving the connected account: the fee it pays plus its MINA balance decreases, nanomina. */
  spend: string;
  /** Changes of account settings, per account update (the account named), for any account. */
  sensitive: { update: number; account: string; change: SensitiveChange; value?: unknown }[];
  /** What each signature of the connected account authorizes. `partial` (commitment): the account updates alone. */
  signatures: { commitment: 'full' | 'partial'; feePayer: boolean; updates: number[] }[];
  /** True when the device shows the command in clear (SIGN_ZKAPP); false when it signs a hash blind (INS 06). */
  clearSigning: boolean;
}

/** A command's summary for `address` (after the fee payer has been filled in). */
export function summarizeZkapp(
  command: ZkappCommandJson,
  address: string,
  network: ZkappSummary['network'],
  clearSigning: boolean,
): ZkappSummary {
  const walletPays = command.feePayer.body.publicKey === address;
  const totals = new Map<string, bigint>();
  const sensitive: ZkappSummary['sensitive'] = [];
  const full: number[] = [];
  const partial: number[] = [];
  command.accountUpdates.forEach(({ body }, index) => {
    const b = body as unknown as {
      publicKey: string;
      tokenId: string;
      balanceChange: { magnitude: string; sgn: string };
      update: Record<string, unknown>;
      useFullCommitment: boolean;
      authorizationKind: { isSigned: boolean };
    };
    if (b.publicKey === address) {
      const token = b.tokenId === MINA_TOKEN_ID ? 'MINA' : b.tokenId;
      const amount = BigInt(b.balanceChange.magnitude) * (b.balanceChange.sgn === 'Negative' ? -1n : 1n);
      if (amount !== 0n) totals.set(token, (totals.get(token) ?? 0n) + amount);
      if (b.authorizationKind.isSigned) (b.useFullCommitment ? full : partial).push(index);
    }
    for (const change of SENSITIVE) {
      const value = b.update[change];
      if (value !== null && value !== undefined) sensitive.push({ update: index, account: b.publicKey, change, value });
    }
  });
  const fee = BigInt(command.feePayer.body.fee);
  const minaOut = -(totals.get('MINA') ?? 0n);
  const spend = (walletPays ? fee : 0n) + (minaOut > 0n ? minaOut : 0n);
  const signatures: ZkappSummary['signatures'] = [];
  if (walletPays || full.length > 0) signatures.push({ commitment: 'full', feePayer: walletPays, updates: full });
  if (partial.length > 0) signatures.push({ commitment: 'partial', feePayer: false, updates: partial });
  return {
    network,
    feePayer: command.feePayer.body.publicKey,
    fee: fee.toString(),
    walletPays,
    balanceChanges: [...totals].map(([token, amount]) => ({ token, amount: amount.toString() })),
    spend: spend.toString(),
    sensitive,
    signatures,
    clearSigning,
  };
}
