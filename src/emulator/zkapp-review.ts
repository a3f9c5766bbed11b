/**
 * What the extension's SIGN_ZKAPP review shows, apart from its screens (review.ts draws them): the view of a command
 * the device decoded (zkapp-device.ts fills it), which updates are listed one by one, amounts with their sign, and
 * the review's first screen after its title, "Contents": how many account updates the command has and how many
 * screens each group of the review takes, so that a long review is known to be long before it starts.
 */
/** What a zkApp review shows of one account update (src/emulator/zkapp-device.ts describes them). */
export interface ZkappUpdateView {
  index: number;
  account: string;
  mine: boolean;
  token: string;
  balanceChange: bigint;
  incrementNonce: boolean;
  /** The app-state slots set, and the value each is set to. */
  appState: { slot: number; value: bigint }[];
  /** The other changes in words (verification key, permissions, delegate, URI, token symbol, timing, voting). */
  changes: string[];
  /** Whether the update emits events, dispatches actions (the device sees only their hash, not their data). */
  events: boolean;
  actions: boolean;
  authorization: string;
}

export interface ZkappView {
  network: 'testnet' | 'mainnet';
  feePayer: string;
  feePayerIsMine: boolean;
  fee: bigint;
  nonce: bigint;
  validUntil: bigint | undefined;
  /** The memo's text (UTF-8 without control characters: the device refused anything else). */
  memo: string;
  updates: ZkappUpdateView[];
  /** The account updates this account signs, by index, and the fee payer. */
  signs: { feePayer: boolean; full: number[]; partial: number[] };
}

/** Whether an account update changes anything: a balance, app state, a setting, the nonce, events or actions. */
export const changesSomething = (u: ZkappUpdateView): boolean =>
  u.balanceChange !== 0n || u.incrementNonce || u.appState.length > 0 || u.changes.length > 0 || u.events || u.actions;

/**
 * The account updates a review lists one by one: every one that changes anything, is of this account or is signed by
 * it. The others change nothing (they can only check preconditions) and are counted in one line.
 */
export function updatesShown(view: ZkappView): ZkappUpdateView[] {
  return view.updates.filter((u) => u.mine || u.authorization.startsWith('your signature') || changesSomething(u));
}

/** An amount with its sign: MINA in MINA (9 decimals), other tokens in their smallest unit. */
export function formatChange(amount: bigint, token: string): string {
  const sign = amount < 0n ? '-' : '+';
  const magnitude = amount < 0n ? -amount : amount;
  if (token !== 'MINA') return `${sign}${magnitude} (smallest units)`;
  const fraction = (magnitude % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${sign}${magnitude / 1_000_000_000n}${fraction ? `.${fraction}` : ''} MINA`;
}

/** Update indices, 1-based: "1, 2". */
export const list = (indices: number[]) => indices.map((i) => i + 1).join(', ');

/** Indices as runs, 1-based: [0, 1, 2, 4] → "1-3, 5". */
function runs(indices: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < indices.length; ) {
    let j = i;
    while (j + 1 < indices.length && indices[j + 1] === indices[j]! + 1) j++;
    out.push(j === i ? `${indices[i]! + 1}` : `${indices[i]! + 1}-${indices[j]! + 1}`);
    i = j + 1;
  }
  return out.join(', ');
}

/** How many screens each group of a zkApp review takes (the title, "Contents" and the two choices aside). */
export interface ZkappGroups {
  /** The network, the fee payer, its fee, nonce, validity and memo. */
  feePayer: number;
  /** The updates listed one by one (their indices) and their screens. */
  shown: { indices: number[]; screens: number };
  /** The updates that change nothing, counted in one line, and that line's screens. */
  counted: { count: number; screens: number };
  /** "You sign" and "Your signature covers". */
  signs: number;
}

/**
 * The text of the "Contents" screen: "3 account updates, 29 screens: the fee payer 5, updates 1-2 one by one 12,
 * 1 that changes nothing 2, what you sign 4, then Approve or Reject". `total` counts every screen of the review.
 */
export function contentsText(updates: number, total: number, groups: ZkappGroups): string {
  const { feePayer, shown, counted, signs } = groups;
  const parts = [`the fee payer ${feePayer}`];
  if (shown.indices.length > 0) {
    const which = shown.indices.length === 1 ? `update ${runs(shown.indices)}` : `updates ${runs(shown.indices)}`;
    parts.push(`${which} one by one ${shown.screens}`);
  }
  if (counted.count > 0) parts.push(`${counted.count} that change${counted.count === 1 ? 's' : ''} nothing ${counted.screens}`);
  parts.push(`what you sign ${signs}`);
  return `${updates} account update${updates === 1 ? '' : 's'}, ${total} screens: ${parts.join(', ')}, then Approve or Reject`;
}
