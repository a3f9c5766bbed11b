/**
 * The one renderer of a zkApp command's summary (./summary.ts) for a person: every front end shows this (the wallet
 * page's review, which is the web dapp's too, `npm start`, the CLI), so none can drop what a signature authorises. Sections of rows
 * (`zkappSummaryView`: label, value, flag) for a UI to lay out, and the same as plain lines (`zkappSummaryLines`) for a
 * terminal. Its words and numbering are the device's (SIGN_ZKAPP, src/emulator/review.ts): "Update 2 of 3", "Sets
 * state 0", amounts in MINA, the connected account marked "(you)" wherever it appears. Texts from the command are
 * escaped as a device escapes them (`\u0173`), so a look-alike letter or a control character cannot pass as something
 * else.
 */
import { escapeForDisplay } from '../apdu/display-text.js';
import { signedUpdates } from '../apdu/sign-zkapp.js';
import { isAuthorityChange, type AuthorityChange, type SensitiveChange, type ZkappSummary, type ZkappUpdateSummary } from './summary.js';

/**
 * `warning`: look twice (a nonce other than the account's next one, blind signing, another token leaving the
 * account); `danger`: the command gives authority away that no amount counts (the account's own permissions,
 * verification key, delegate or timing).
 */
export type ZkappSummaryFlag = 'warning' | 'danger';

/** One line of a section: what it is, its value in words, and whether it needs the holder's attention. */
export interface ZkappSummaryRow {
  label: string;
  value: string;
  flag?: ZkappSummaryFlag;
  /** The value begins with an address (55 characters): a UI shows it whole, never cut inside. */
  address?: boolean;
}

/** A group of rows: the command itself ("zkApp command"), each account update ("Update 2 of 3"), "Your signature", "In all". */
export interface ZkappSummarySection {
  title: string;
  rows: ZkappSummaryRow[];
}

/** Nanomina as MINA: "2.5 MINA", "-0.1 MINA". */
export function formatMina(nanomina: bigint): string {
  const sign = nanomina < 0n ? '-' : '';
  const magnitude = nanomina < 0n ? -nanomina : nanomina;
  const fraction = (magnitude % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${sign}${magnitude / 1_000_000_000n}${fraction ? `.${fraction}` : ''} MINA`;
}

const signedAmount = (amount: string, token: string) =>
  token === 'MINA' ? formatMina(BigInt(amount)).replace(/^(?!-)/, '+') : `${BigInt(amount) > 0n ? '+' : ''}${amount} (smallest units)`;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "update 2" or "updates 1, 2", numbered as the device numbers them. */
export const updateNumbers = (indices: number[]) =>
  `${indices.length === 1 ? 'update' : 'updates'} ${indices.map((i) => i + 1).join(', ')}`;

/** A setting's new value in the summary's words (texts escaped; "(you)" after the holder's key `you`). */
export const settingText = (setting: { change: SensitiveChange; value: unknown }, you = '') => settingRow(setting, you).value;

/** The summary's words for a setting: its name as a label, its value as text (escaped), "(you)" after the holder's key. */
function settingRow({ change, value }: { change: SensitiveChange; value: unknown }, you: string): ZkappSummaryRow {
  const text = (v: unknown) => escapeForDisplay(typeof v === 'string' ? v : JSON.stringify(v));
  switch (change) {
    case 'verificationKey':
      return { label: 'Verification key', value: `set (hash ${text((value as { hash?: unknown }).hash)})` };
    case 'permissions':
      return {
        label: 'Permissions',
        value: Object.entries(value as Record<string, unknown>)
          .map(([key, auth]) => `${key} ${text(typeof auth === 'object' && auth !== null ? (auth as { auth?: unknown }).auth : auth)}`)
          .join(', '),
      };
    case 'delegate':
      return { label: 'Delegate', value: `${text(value)}${value === you ? ' (you)' : ''}`, address: true };
    case 'zkappUri':
      return { label: 'zkApp URI', value: text(value) };
    case 'tokenSymbol':
      return { label: 'Token symbol', value: text(value) };
    case 'timing':
      return { label: 'Timing (vesting)', value: text(value) };
    case 'votingFor':
      return { label: 'Votes for', value: text(value) };
  }
}

/** What each authority change of the holder's own account lets others do. */
function authorityRisk(change: AuthorityChange, value: unknown): string {
  switch (change) {
    case 'permissions': {
      // `access` and `receive` are None by default (anyone may read the account, and pay it): no authority there.
      const open = Object.entries(value as Record<string, unknown>)
        .filter(([key]) => key !== 'access' && key !== 'receive')
        .filter(([, auth]) => (typeof auth === 'object' && auth !== null ? (auth as { auth?: unknown }).auth : auth) === 'None')
        .map(([key]) => key);
      return open.length > 0
        ? `anyone may then ${open.join(', ')} on your account without your signature`
        : 'they decide who may move its funds and change it from now on';
    }
    case 'verificationKey':
      return 'whoever proves for this key acts for your account wherever its permissions accept a proof';
    case 'delegate':
      return "your account's stake goes to this block producer";
    case 'timing':
      return "part of your balance is locked until the timing's slots pass";
  }
}

/** One account update: the device's screens of it, as rows. */
function updateSection(u: ZkappUpdateSummary, total: number, you: string): ZkappSummarySection {
  const rows: ZkappSummaryRow[] = [{ label: 'Account', value: `${u.account}${u.yours ? ' (you)' : ''}`, address: true }];
  rows.push({ label: 'Token', value: u.token, ...(u.token === 'MINA' ? {} : { address: true }) });
  if (u.balanceChange !== '0') {
    const outflow = u.yours && u.token !== 'MINA' && BigInt(u.balanceChange) < 0n;
    rows.push({ label: 'Balance', value: signedAmount(u.balanceChange, u.token), ...(outflow ? { flag: 'warning' as const } : {}) });
  }
  if (u.incrementNonce) rows.push({ label: 'Nonce', value: 'incremented' });
  for (const { slot, value } of u.appState) rows.push({ label: `Sets state ${slot}`, value: escapeForDisplay(value) });
  for (const setting of u.settings) {
    const row = settingRow(setting, you);
    const risk = u.yours && isAuthorityChange(setting.change) ? authorityRisk(setting.change, setting.value) : undefined;
    rows.push(risk ? { ...row, value: `${row.value}: ${risk}`, flag: 'danger' } : row);
  }
  if (u.events > 0) rows.push({ label: 'Emits events', value: plural(u.events, 'field') });
  if (u.actions > 0) rows.push({ label: 'Dispatches actions', value: plural(u.actions, 'field') });
  rows.push({ label: 'Authorized by', value: u.authorization });
  return { title: `Update ${u.index + 1} of ${total}`, rows };
}

/** The network as a person checks it: its name and id, and the signature domain the Ledger names. */
function networkRows(summary: ZkappSummary): ZkappSummaryRow[] {
  const { chain } = summary;
  if (summary.network === 'mainnet') return [{ label: 'Network', value: `${chain.name} (${chain.id})` }];
  return [
    { label: 'Network', value: `${chain.name} (${chain.id})` },
    {
      label: 'Signed for',
      value: 'testnet (the Ledger says "testnet"): the signature is valid on every testnet network, Mina devnet and Zeko testnet included',
    },
  ];
}

/** The fee payer's nonce, flagged when it is not the account's next one (a command held to be sent later). */
function nonceRow(summary: ZkappSummary): ZkappSummaryRow {
  const { nonce, nextNonce } = summary;
  if (!summary.walletPays) return { label: 'Nonce', value: `${nonce} (the fee payer's)` };
  if (nextNonce === undefined) return { label: 'Nonce', value: `${nonce} (not checked: the host has no node to ask)`, flag: 'warning' };
  if (BigInt(nonce) === BigInt(nextNonce)) return { label: 'Nonce', value: `${nonce} (your account's next)` };
  const why =
    BigInt(nonce) > BigInt(nextNonce)
      ? 'it cannot apply now, and whoever holds it can send it once your account reaches that nonce'
      : 'that nonce is used: the command cannot apply';
  return { label: 'Nonce', value: `${nonce}, not your account's next nonce (${nextNonce}): ${why}`, flag: 'warning' };
}

/** The command itself: who asks, the network, fee payer, fee, nonce, validity, memo. */
function commandSection(summary: ZkappSummary & { origin?: string }): ZkappSummarySection {
  const rows: ZkappSummaryRow[] = [];
  if (summary.origin !== undefined) rows.push({ label: 'Requested by', value: summary.origin });
  rows.push(...networkRows(summary));
  rows.push({ label: 'Fee payer', value: `${summary.feePayer}${summary.walletPays ? ' (you)' : ''}`, address: true });
  rows.push({ label: 'Fee', value: formatMina(BigInt(summary.fee)) });
  rows.push(nonceRow(summary));
  rows.push({ label: 'Valid until', value: summary.validUntil === null ? 'any slot (no limit)' : `slot ${summary.validUntil}` });
  if (summary.memo !== '') rows.push({ label: 'Memo', value: escapeForDisplay(summary.memo) });
  return { title: 'zkApp command', rows };
}

/** What the connected account's signatures authorize and cover. */
function signatureSection(summary: ZkappSummary): ZkappSummarySection {
  const updates = signedUpdates(summary.accountUpdates);
  const rows = summary.signatures.map((s): ZkappSummaryRow => {
    const what = [...(s.feePayer ? ['the fee payer'] : []), ...(s.updates.length > 0 ? [updateNumbers(s.updates)] : [])].join(' and ');
    return s.commitment === 'full'
      ? { label: 'You sign', value: `${what} (full commitment): your signature covers the whole command, fee payer, memo and ${updates}` }
      : { label: 'You sign', value: `${what} (partial commitment): your signature covers ${updates}, not the fee payer or memo` };
  });
  return { title: 'Your signature', rows };
}

/**
 * The totals: the updates that change nothing, the MINA leaving the account, other tokens leaving it, the account's
 * own authority given away, and how the device will show the command.
 */
function totalSection(summary: ZkappSummary): ZkappSummarySection {
  const rows: ZkappSummaryRow[] = [];
  const rest = summary.accountUpdates - summary.updates.length;
  if (rest > 0) rows.push({ label: 'Also', value: `${rest} more update${rest === 1 ? ' that changes' : 's that change'} nothing` });
  rows.push({ label: 'MINA leaving your account', value: `${formatMina(BigInt(summary.spend))} (fee included)` });
  for (const { token, amount } of summary.balanceChanges) {
    if (token === 'MINA' || BigInt(amount) >= 0n) continue;
    rows.push({
      label: 'Token leaving your account',
      value: `${token}: ${-BigInt(amount)} (smallest units)`,
      flag: 'warning',
      address: true,
    });
  }
  if (summary.authority.length > 0) {
    const what = summary.authority.map((a) => `${AUTHORITY_NAMES[a.change]} (update ${a.update + 1})`).join(', ');
    rows.push({ label: 'Changes your account', value: `${what}: no amount counts what this gives away`, flag: 'danger' });
  }
  if (!summary.clearSigning) {
    rows.push({
      label: 'On the Ledger',
      value: 'only a hash of this command (blind signing): this review is all you see',
      flag: 'warning',
    });
  }
  return { title: 'In all', rows };
}

/** How the summary names each authority change. */
export const AUTHORITY_NAMES: Record<AuthorityChange, string> = {
  permissions: 'permissions',
  verificationKey: 'verification key',
  delegate: 'delegate',
  timing: 'timing (a lock-up)',
};

/**
 * The summary as sections of rows for a UI to lay out: the command (who asks, network, fee payer, fee, nonce,
 * validity, memo), each account update that changes anything ("Update 2 of 3": account, token, balance, nonce,
 * app-state slots and values, each setting with its value, events, actions, who authorizes it), how many change
 * nothing, what the connected account's signature covers, and the totals. Flagged rows need the holder's attention.
 */
export function zkappSummaryView(summary: ZkappSummary & { origin?: string }): ZkappSummarySection[] {
  const you = summary.connectedAccount;
  return [
    commandSection(summary),
    ...summary.updates.map((u) => updateSection(u, summary.accountUpdates, you)),
    signatureSection(summary),
    totalSection(summary),
  ];
}

/** A row as a line of text: flagged rows marked "⚠" (a terminal has no colour to spare). */
const rowLine = ({ label, value, flag }: ZkappSummaryRow) => `${flag ? '⚠ ' : ''}${label}: ${value}`;

/**
 * The summary as lines of text (the CLI, `npm start`): each section's title, then its rows indented, every row
 * `Label: value`, flagged rows marked "⚠". The same content as `zkappSummaryView`.
 */
export function zkappSummaryLines(summary: ZkappSummary & { origin?: string }): string[] {
  return zkappSummaryView(summary).flatMap((section) => [section.title, ...section.rows.map((row) => `  ${rowLine(row)}`)]);
}
