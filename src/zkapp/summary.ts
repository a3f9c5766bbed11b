/**
 * What a zkApp command does, computed on the host before any device request: the summary an integrator's
 * `confirmZkapp` hook sees (and may veto), and what `spendCap` is checked against (./spend-cap.ts). On a device that
 * signs blind (the released app: INS 06 shows only a hash), this is all the user can be shown; with SIGN_ZKAPP the
 * device shows the same things itself. `zkappSummaryView` and `zkappSummaryLines` (./summary-view.ts) write it for a
 * person, in the device's words and numbering, with the device's text rule.
 */
import type { ZkappCommandJson } from './command.js';

/** The token id of MINA in a command's JSON. */
export const MINA_TOKEN_ID = 'wSHV2S4qX9jFsLjQo8r1BsMLH2ZRKsZx6EJd1sbozGPieEC4Jf';

/** A change a page could hide behind a hash: the account's keys, permissions, delegate, … */
export type SensitiveChange = 'verificationKey' | 'permissions' | 'delegate' | 'zkappUri' | 'tokenSymbol' | 'timing' | 'votingFor';
const SENSITIVE: SensitiveChange[] = ['verificationKey', 'permissions', 'delegate', 'zkappUri', 'tokenSymbol', 'timing', 'votingFor'];

/**
 * The changes of an account's own settings that give its authority away, whatever MINA moves now: permissions (set
 * `send` to None and anyone takes the balance later, unsigned), the verification key (whoever proves for it then acts
 * for the account where permissions accept a proof), the delegate (its stake), and the timing (a lock-up).
 */
export type AuthorityChange = 'permissions' | 'verificationKey' | 'delegate' | 'timing';
const AUTHORITY: readonly SensitiveChange[] = ['permissions', 'verificationKey', 'delegate', 'timing'];
export const isAuthorityChange = (change: SensitiveChange): change is AuthorityChange => AUTHORITY.includes(change);

/** Who authorizes an account update, in the device's words. */
export type ZkappAuthorization =
  | 'your signature (full commitment)'
  | 'your signature (partial commitment)'
  | 'a proof'
  | 'another signature'
  | 'none';

/** One account update that changes something, or that the connected account owns or signs. */
export interface ZkappUpdateSummary {
  /** Its index in `accountUpdates`, 0-based: a person reads it as "Update index + 1", as the device numbers it. */
  index: number;
  account: string;
  /** The connected account's own update. */
  yours: boolean;
  /** 'MINA', or the token id (base58). */
  token: 'MINA' | string;
  /** The balance change with its sign: nanomina for MINA, the token's smallest unit else ('0': none). */
  balanceChange: string;
  incrementNonce: boolean;
  /** Each app-state slot set, with its new value (a field, decimal). */
  appState: { slot: number; value: string }[];
  /** Each account setting changed, with its value as the command's JSON has it. */
  settings: { change: SensitiveChange; value: unknown }[];
  /** Field elements of the events emitted and of the actions dispatched (0: none). */
  events: number;
  actions: number;
  authorization: ZkappAuthorization;
}

export interface ZkappSummary {
  /** The signing kind: mainnet, devnet (the testnet signature domain: Zeko testnet too) or the local chain. */
  network: 'mainnet' | 'devnet' | 'local';
  /**
   * The network itself: its id and name (`zeko:testnet`, "Zeko Testnet"). Every network but mainnet signs for the
   * testnet domain, which the Ledger shows as "testnet": a signature for one is valid on all of them.
   */
  chain: { id: string; name: string };
  /** The connected account: the one the summary marks "(you)". */
  connectedAccount: string;
  feePayer: string;
  /** The fee, nanomina, and whether the connected account pays it. */
  fee: string;
  walletPays: boolean;
  /** The fee payer's nonce: the command applies only at this nonce of the fee payer's account. */
  nonce: string;
  /**
   * The connected account's next nonce as the host read it (the node's inferred nonce, never below one this provider
   * broadcast), when the wallet pays and the host had something to ask; undefined otherwise. A `nonce` above it is a
   * command that can be held and sent later; below it, one that cannot apply.
   */
  nextNonce?: string;
  /** The last global slot the command is valid in (null: no limit). */
  validUntil: string | null;
  /** The memo's text (the device's text rule applies: shown escaped, `zkappSummaryLines`). */
  memo: string;
  /** The connected account's balance changes, summed per token (nanomina for MINA; the token's smallest unit else). */
  balanceChanges: { token: 'MINA' | string; amount: string }[];
  /** MINA leaving the connected account: the fee it pays plus its MINA balance decreases, nanomina. */
  spend: string;
  /**
   * Changes of the connected account's own permissions, verification key, delegate or timing (0-based `update`): what
   * `spendCap` cannot count in MINA, since they hand over what the account holds (./spend-cap.ts).
   */
  authority: { update: number; change: AuthorityChange; value: unknown }[];
  /** Changes of account settings, per account update (0-based; the account named), for any account. */
  sensitive: { update: number; account: string; change: SensitiveChange; value?: unknown }[];
  /**
   * Every account update that changes anything (a balance, app state, a setting, the nonce, events or actions), or
   * is the connected account's, or is signed by it, in order: any account's, whoever authorizes it.
   */
  updates: ZkappUpdateSummary[];
  /** The command's account updates in all. Those not in `updates` change nothing (they only check preconditions). */
  accountUpdates: number;
  /**
   * What each signature of the connected account authorizes, and so covers (`updates`: 0-based indices): a `full`
   * commitment the whole command (fee payer, memo and every account update); a `partial` one (the commitment) every
   * account update, not the fee payer or memo. Either way the signature covers updates of other accounts too.
   */
  signatures: { commitment: 'full' | 'partial'; feePayer: boolean; updates: number[] }[];
  /** True when the device shows the command in clear (SIGN_ZKAPP); false when it signs a hash blind (INS 06). */
  clearSigning: boolean;
}

/** What the summary needs besides the command: who is connected, where, and what the host knows of the nonce. */
export interface SummaryContext {
  address: string;
  network: ZkappSummary['network'];
  chain: ZkappSummary['chain'];
  clearSigning: boolean;
  /** The memo's text. */
  memo?: string;
  nextNonce?: number;
}

type Body = {
  publicKey: string;
  tokenId: string;
  balanceChange: { magnitude: string; sgn: string };
  incrementNonce: boolean;
  update: Record<string, unknown> & { appState: (string | null)[] };
  events: unknown[];
  actions: unknown[];
  useFullCommitment: boolean;
  authorizationKind: { isSigned: boolean; isProved: boolean };
};

/** A command's summary for the connected account (after the fee payer has been filled in). */
export function summarizeZkapp(command: ZkappCommandJson, context: SummaryContext): ZkappSummary {
  const { address } = context;
  const walletPays = command.feePayer.body.publicKey === address;
  const authority: ZkappSummary['authority'] = [];
  const totals = new Map<string, bigint>();
  const sensitive: ZkappSummary['sensitive'] = [];
  const updates: ZkappUpdateSummary[] = [];
  const full: number[] = [];
  const partial: number[] = [];
  command.accountUpdates.forEach(({ body }, index) => {
    const b = body as unknown as Body;
    const { update, amount, changes } = summarizeUpdate(b, index, address);
    if (update.yours && amount !== 0n) totals.set(update.token, (totals.get(update.token) ?? 0n) + amount);
    if (update.yours && b.authorizationKind.isSigned) (b.useFullCommitment ? full : partial).push(index);
    for (const { change, value } of update.settings) {
      sensitive.push({ update: index, account: b.publicKey, change, value });
      if (update.yours && isAuthorityChange(change)) authority.push({ update: index, change, value });
    }
    if (update.yours || changes) updates.push(update);
  });
  const fee = BigInt(command.feePayer.body.fee);
  const minaOut = -(totals.get('MINA') ?? 0n);
  const spend = (walletPays ? fee : 0n) + (minaOut > 0n ? minaOut : 0n);
  const signatures: ZkappSummary['signatures'] = [];
  if (walletPays || full.length > 0) signatures.push({ commitment: 'full', feePayer: walletPays, updates: full });
  if (partial.length > 0) signatures.push({ commitment: 'partial', feePayer: false, updates: partial });
  const { nonce, validUntil } = command.feePayer.body;
  return {
    network: context.network,
    chain: context.chain,
    connectedAccount: address,
    feePayer: command.feePayer.body.publicKey,
    fee: fee.toString(),
    walletPays,
    nonce,
    ...(walletPays && context.nextNonce !== undefined ? { nextNonce: String(context.nextNonce) } : {}),
    validUntil,
    memo: context.memo ?? '',
    balanceChanges: [...totals].map(([token, amount]) => ({ token, amount: amount.toString() })),
    spend: spend.toString(),
    authority,
    sensitive,
    updates,
    accountUpdates: command.accountUpdates.length,
    signatures,
    clearSigning: context.clearSigning,
  };
}

/**
 * One account update in the summary's terms, its balance change as a number, and whether it changes anything (one that
 * changes nothing is listed only when it is the connected account's).
 */
function summarizeUpdate(b: Body, index: number, address: string): { update: ZkappUpdateSummary; amount: bigint; changes: boolean } {
  const yours = b.publicKey === address;
  const amount = BigInt(b.balanceChange.magnitude) * (b.balanceChange.sgn === 'Negative' ? -1n : 1n);
  const settings: ZkappUpdateSummary['settings'] = [];
  for (const change of SENSITIVE) {
    const value = b.update[change];
    if (value !== null && value !== undefined) settings.push({ change, value });
  }
  const appState = b.update.appState.flatMap((value, slot) => (value === null ? [] : [{ slot, value }]));
  const events = fieldCount(b.events);
  const actions = fieldCount(b.actions);
  const changes = amount !== 0n || b.incrementNonce || appState.length > 0 || settings.length > 0 || events > 0 || actions > 0;
  const update: ZkappUpdateSummary = {
    index,
    account: b.publicKey,
    yours,
    token: b.tokenId === MINA_TOKEN_ID ? 'MINA' : b.tokenId,
    balanceChange: amount.toString(),
    incrementNonce: b.incrementNonce,
    appState,
    settings,
    events,
    actions,
    authorization: authorizationOf(b, yours && b.authorizationKind.isSigned),
  };
  return { update, amount, changes };
}

/** Who authorizes an account update, in the device's words (`signed`: by the connected account). */
function authorizationOf(b: Body, signed: boolean): ZkappAuthorization {
  if (signed) return b.useFullCommitment ? 'your signature (full commitment)' : 'your signature (partial commitment)';
  if (b.authorizationKind.isProved) return 'a proof';
  return b.authorizationKind.isSigned ? 'another signature' : 'none';
}

/** Field elements of events or actions (`[[f, …], …]`). */
const fieldCount = (list: unknown[]) => list.reduce<number>((n, entry) => n + (entry as unknown[]).length, 0);
