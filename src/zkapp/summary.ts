/**
 * What a zkApp command does, computed on the host before any device request: the summary an integrator's
 * `confirmZkapp` hook sees (and may veto), and what `spendCap` is checked against. On a device that signs blind (the
 * released app: INS 06 shows only a hash), this is all the user can be shown; with SIGN_ZKAPP the device shows the
 * same things itself. `zkappSummaryLines` writes it as text for a host to show, with the device's text rule.
 */
import { escapeForDisplay } from '../apdu/display-text.js';
import { signedUpdates } from '../apdu/sign-zkapp.js';
import type { ZkappCommandJson } from './command.js';

/** The token id of MINA in a command's JSON. */
export const MINA_TOKEN_ID = 'wSHV2S4qX9jFsLjQo8r1BsMLH2ZRKsZx6EJd1sbozGPieEC4Jf';

/** A change a page could hide behind a hash: the account's keys, permissions, delegate, … */
export type SensitiveChange = 'verificationKey' | 'permissions' | 'delegate' | 'zkappUri' | 'tokenSymbol' | 'timing' | 'votingFor';
const SENSITIVE: SensitiveChange[] = ['verificationKey', 'permissions', 'delegate', 'zkappUri', 'tokenSymbol', 'timing', 'votingFor'];

/** Who authorizes an account update, in the device's words. */
export type ZkappAuthorization =
  | 'your signature (full commitment)'
  | 'your signature (partial commitment)'
  | 'a proof'
  | 'another signature'
  | 'none';

/** One account update that changes something, or that the connected account owns or signs. */
export interface ZkappUpdateSummary {
  /** Its index in `accountUpdates` (0-based; the device says "Update index + 1"). */
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
  network: 'mainnet' | 'devnet' | 'local';
  feePayer: string;
  /** The fee, nanomina, and whether the connected account pays it. */
  fee: string;
  walletPays: boolean;
  /** The memo's text (the device's text rule applies: shown escaped, `zkappSummaryLines`). */
  memo: string;
  /** The connected account's balance changes, summed per token (nanomina for MINA; the token's smallest unit else). */
  balanceChanges: { token: 'MINA' | string; amount: string }[];
  /** MINA leaving the connected account: the fee it pays plus its MINA balance decreases, nanomina. */
  spend: string;
  /** Changes of account settings, per account update (the account named), for any account. */
  sensitive: { update: number; account: string; change: SensitiveChange; value?: unknown }[];
  /**
   * Every account update that changes anything (a balance, app state, a setting, the nonce, events or actions), or
   * is the connected account's, or is signed by it, in order: any account's, whoever authorizes it.
   */
  updates: ZkappUpdateSummary[];
  /** The command's account updates in all. Those not in `updates` change nothing (they only check preconditions). */
  accountUpdates: number;
  /**
   * What each signature of the connected account authorizes, and so covers: a `full` commitment the whole command
   * (fee payer, memo and every account update); a `partial` one (the commitment) every account update, not the fee
   * payer or memo. Either way the signature covers updates of other accounts too.
   */
  signatures: { commitment: 'full' | 'partial'; feePayer: boolean; updates: number[] }[];
  /** True when the device shows the command in clear (SIGN_ZKAPP); false when it signs a hash blind (INS 06). */
  clearSigning: boolean;
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

/** A command's summary for `address` (after the fee payer has been filled in); `memo` is the memo's text. */
export function summarizeZkapp(
  command: ZkappCommandJson,
  address: string,
  network: ZkappSummary['network'],
  clearSigning: boolean,
  memo = '',
): ZkappSummary {
  const walletPays = command.feePayer.body.publicKey === address;
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
    for (const { change, value } of update.settings) sensitive.push({ update: index, account: b.publicKey, change, value });
    if (update.yours || changes) updates.push(update);
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
    memo,
    balanceChanges: [...totals].map(([token, amount]) => ({ token, amount: amount.toString() })),
    spend: spend.toString(),
    sensitive,
    updates,
    accountUpdates: command.accountUpdates.length,
    signatures,
    clearSigning,
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

/** Nanomina as MINA: "2.5 MINA", "-0.1 MINA". */
function mina(nanomina: bigint): string {
  const sign = nanomina < 0n ? '-' : '';
  const magnitude = nanomina < 0n ? -nanomina : nanomina;
  const fraction = (magnitude % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${sign}${magnitude / 1_000_000_000n}${fraction ? `.${fraction}` : ''} MINA`;
}

const signedAmount = (amount: string, token: string) =>
  token === 'MINA' ? mina(BigInt(amount)).replace(/^(?!-)/, '+') : `${BigInt(amount) > 0n ? '+' : ''}${amount} (smallest units)`;

/** A setting's change in words, every text from the command escaped (the device's text rule). */
function describeSetting({ change, value }: { change: SensitiveChange; value: unknown }): string {
  const text = (v: unknown) => escapeForDisplay(typeof v === 'string' ? v : JSON.stringify(v));
  switch (change) {
    case 'verificationKey':
      return `sets the verification key (hash ${text((value as { hash?: unknown }).hash)})`;
    case 'permissions':
      return `changes permissions: ${Object.entries(value as Record<string, unknown>)
        .map(([key, auth]) => `${key} ${text(typeof auth === 'object' && auth !== null ? (auth as { auth?: unknown }).auth : auth)}`)
        .join(', ')}`;
    case 'delegate':
      return `changes the delegate to ${text(value)}`;
    case 'zkappUri':
      return `sets the zkApp URI to ${text(value)}`;
    case 'tokenSymbol':
      return `sets the token symbol to ${text(value)}`;
    case 'timing':
      return `changes the timing (vesting) of the account: ${text(value)}`;
    case 'votingFor':
      return `changes what the account votes for (${text(value)})`;
  }
}

/**
 * The summary as lines of text for a host to show before a device signs blind: the network, fee payer, fee and memo;
 * each account update that changes anything (its account and token, balance change, nonce, app-state slots and
 * values, settings, events and actions, who authorizes it); how many change nothing; what the account's signature
 * covers; the MINA leaving the account. Texts from the command are escaped as a device escapes them (`\u0173`), so a
 * look-alike letter or a control character cannot pass as something else.
 */
export function zkappSummaryLines(summary: ZkappSummary): string[] {
  const total = summary.accountUpdates;
  const lines = [
    `Network: ${summary.network}`,
    `Fee payer: ${summary.feePayer}${summary.walletPays ? ' (you)' : ''}`,
    `Fee: ${mina(BigInt(summary.fee))}`,
  ];
  if (summary.memo !== '') lines.push(`Memo: ${escapeForDisplay(summary.memo)}`);
  for (const u of summary.updates) {
    lines.push(`Update ${u.index + 1} of ${total}: ${u.account}${u.yours ? ' (you)' : ''}, token ${u.token}`);
    if (u.balanceChange !== '0') lines.push(`  balance ${signedAmount(u.balanceChange, u.token)}`);
    if (u.incrementNonce) lines.push('  increments the nonce');
    for (const { slot, value } of u.appState) lines.push(`  sets app state ${slot} to ${escapeForDisplay(value)}`);
    for (const setting of u.settings) lines.push(`  ${describeSetting(setting)}`);
    if (u.events > 0) lines.push(`  emits events (${u.events} field${u.events === 1 ? '' : 's'})`);
    if (u.actions > 0) lines.push(`  dispatches actions (${u.actions} field${u.actions === 1 ? '' : 's'})`);
    lines.push(`  authorized by ${u.authorization}`);
  }
  const rest = total - summary.updates.length;
  if (rest > 0) lines.push(`Also: ${rest} more update${rest === 1 ? ' that changes' : 's that change'} nothing`);
  const updates = signedUpdates(total);
  for (const s of summary.signatures) {
    const what = [
      ...(s.feePayer ? ['the fee payer'] : []),
      ...(s.updates.length > 0 ? [`updates ${s.updates.map((i) => i + 1).join(', ')}`] : []),
    ];
    lines.push(
      s.commitment === 'full'
        ? `You sign ${what.join(' and ')} (full commitment): your signature covers the whole command, fee payer, memo and ${updates}`
        : `You sign ${what.join(' and ')} (partial commitment): your signature covers ${updates}, not the fee payer or memo`,
    );
  }
  lines.push(`MINA leaving your account: ${mina(BigInt(summary.spend))} (fee included)`);
  if (!summary.clearSigning) lines.push('The Ledger will show only a hash of this command (blind signing)');
  return lines;
}
