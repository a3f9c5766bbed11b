/**
 * What the device shows before it answers: the review screens of the Mina app v1.6.0 on a Nano S Plus, as the real
 * app shows them on Speculos (recorded in test/fixtures/mina-ledger-app-speculos.json), long values paged as the
 * device pages them (src/emulator/display.ts). A review can have several stages, each ending on its own pair of
 * choices: the address review is two ("Get Address" with Generate or Cancel, then the address with Approve or
 * Reject); the software Ledger's `Approver` answers for all of them at once (true: go on at every stage).
 */
import { INS_GET_ADDRESS, INS_SIGN_FIELD_ELEMENT, INS_SIGN_MESSAGE, INS_SIGN_TX, VALID_UNTIL_NONE } from '../apdu/constants.js';
import { INS_CREATE_NULLIFIER, INS_SIGN_FIELDS, INS_SIGN_PRESENTATION } from '../apdu/extension.js';
import { INS_SIGN_ZKAPP, signedUpdates } from '../apdu/sign-zkapp.js';
import { toHex, uintToBytesBE } from '../apdu/bytes.js';
import { escapeForDisplay } from '../apdu/display-text.js';
import { atLeast } from '../apdu/version.js';
import { cString, fixedScreen, valueScreens, type DrawnScreen } from './display.js';
import type { IconName } from './font.js';
import type { ScreenDrawing } from './screen-drawing.js';
import type { NbglReview } from './touch-flows.js';
import { contentsText, formatChange, list, updatesShown, type ZkappUpdateView, type ZkappView } from './zkapp-review.js';

export type { ZkappUpdateView, ZkappView } from './zkapp-review.js';
import type { LegacyTx } from './signer.js';

/** One screen as the device draws it. */
export interface Screen {
  /**
   * The text events Speculos reports for it, in drawing order (a paged value as paged, undrawable bytes dropped, a
   * leading space and a text from an `_` on as pieces of their own).
   */
  lines: string[];
  /** The row (0 = top) each of `lines` is drawn on. */
  rows: number[];
  /** The first line: a title, with " (i/n)" when a value spans screens. */
  title: string;
  /** The other lines joined: the part of the value on this screen; absent on a one-line screen. */
  text?: string;
  /** What the app asks the SDK to draw: its layout, icon and texts (`renderScreen` turns it into pixels). */
  drawing: ScreenDrawing;
}

export type ReviewKind =
  | 'address'
  | 'transaction'
  | 'message'
  | 'field-element'
  | 'blind-signing-disabled'
  | 'sign-fields'
  | 'nullifier'
  | 'zkapp'
  | 'presentation'
  /** The dashboard's OpenApp confirmation (dashboard.ts). */
  | 'open-app'
  | 'text'
  /** The extension's STORE_KEY: unlocking the credential store, with the site asking (store-key-device.ts). */
  | 'store-key';

export interface Review {
  ins: number;
  kind: ReviewKind;
  /**
   * Every screen in order. Each stage ends on two choices, go on then stop (Approve/Reject, Generate/Cancel); a
   * notice (`approvable` false) ends on Reject only.
   */
  screens: Screen[];
  /** Where each stage starts in `screens` (absent: one stage). The address review has two. */
  stages?: number[];
  /** False for a notice the user can only dismiss on its Reject screen (the device then answers 0x6985). */
  approvable: boolean;
  /** What the device shows once approved, until it replies (transactions: "Signing..."). */
  afterApproval?: Screen;
  /** What the device shows between one stage and the next (the address review: "Processing..."). */
  betweenStages?: Screen;
  /**
   * What the app's NBGL code shows for it on a touch device (src/*_nbgl.c), where it differs from the screens above;
   * absent for the reviews the app has no NBGL code of its own for (touch-reviews.ts derives them from `screens`).
   */
  nbgl?: NbglReview;
}

/**
 * How the user answered a review: true went on at every stage and approved; false rejected at the end (Reject);
 * `'cancel'` stopped at the first stage's stop choice (the address review's Cancel), so the later stages were never
 * shown. For a review of one stage `'cancel'` is the same as false.
 */
export type ReviewAnswer = boolean | 'cancel';

/** Decides a review (it sees every stage). The software Ledger's stand-in for the user's buttons. */
export type Approver = (review: Review) => ReviewAnswer | Promise<ReviewAnswer>;

export const APPROVE = 'Approve';
export const REJECT = 'Reject';

/** A screen from how it is drawn and what Speculos reads of it. */
export function screen({ lines, rows, drawing }: DrawnScreen): Screen {
  const text = lines.slice(1).join('');
  return { lines, rows, title: lines[0] ?? '', ...(lines.length > 1 ? { text } : {}), drawing };
}
/** Icon over two lines (regular), icon over two bold lines, icon over one bold line, two lines, bold title over a value. */
export const pnn = (icon: IconName, a: string, b: string): Screen => screen(fixedScreen('pnn', icon, a, b));
export const pbb = (icon: IconName, a: string, b: string): Screen => screen(fixedScreen('pbb', icon, a, b));
export const pb = (icon: IconName, a: string): Screen => screen(fixedScreen('pb', icon, a));
export const nn = (a: string, b: string): Screen => screen(fixedScreen('nn', undefined, a, b));
export const bn = (title: string, shown: string): Screen => screen(fixedScreen('bn', undefined, title, shown));
const value = (title: string, shown: Uint8Array | string): Screen[] => valueScreens(title, shown).map(screen);
const choices = (approve: Screen = pb('validate', APPROVE), reject: Screen = pb('crossmark', REJECT)): Screen[] => [approve, reject];
/** The go-on choice of a blind signature. */
export const acceptRisk = () => pnn('validate', 'ACCEPT RISK', 'AND APPROVE');
/** What a transaction shows once approved, while the device signs (the app's "comfort" step). */
const signing = () => pb('processing', 'Signing...');

/**
 * The text of a value as the device showed it, its pages joined (`Message (1/2)`, `Message (2/2)` → one string);
 * undefined when the review has no such value.
 */
export function shownValue(review: Review, title: string): string | undefined {
  const pages = review.screens.filter((s) => s.title === title || (s.title.startsWith(`${title} (`) && /\(\d+\/\d+\)$/.test(s.title)));
  return pages.length === 0 ? undefined : pages.map((s) => s.text ?? '').join('');
}

/**
 * INS 02 with P1 = 0, in two stages: "Get Address" and the path with Generate or Cancel, then the address with
 * Approve or Reject.
 */
export function addressReview(path: string, address: string): Review {
  const request = [pnn('eye', 'Get', 'Address'), ...value('Path', path), ...choices(pb('validate', 'Generate'), pb('crossmark', 'Cancel'))];
  return {
    ins: INS_GET_ADDRESS,
    kind: 'address',
    approvable: true,
    screens: [...request, ...value('Address', address), ...choices()],
    stages: [0, request.length],
    betweenStages: pb('processing', 'Processing...'),
    // get_address_nbgl.c: the address is derived first, then shown with its path.
    nbgl: { useCase: 'address', title: 'Verify Mina\naddress', address, pairs: [{ item: 'Path', value: path }] },
  };
}

/** The screens of each stage of a review, in order. */
export function reviewStages(review: Review): Screen[][] {
  const starts = review.stages ?? [0];
  return starts.map((start, i) => review.screens.slice(start, starts[i + 1] ?? review.screens.length));
}

/** "MINA " + decimal, trailing fraction zeros trimmed to one (1729.0, 0.0001); zero is "MINA 0" since 1.4.7. */
export function formatMina(nanomina: bigint, version: string): string {
  if (nanomina === 0n && atLeast(version, '1.4.7')) return 'MINA 0';
  const whole = nanomina / 1_000_000_000n;
  const fraction = (nanomina % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `MINA ${whole}.${fraction || '0'}`;
}

/** What the device decoded from an INS 03 body and shows: the signed fields, the memo as the bytes received. */
export interface TxDisplay extends Omit<LegacyTx, 'memo'> {
  memo: Uint8Array;
  networkId: number;
}

export function transactionReview(tx: TxDisplay, version: string): Review {
  const payment = tx.txType === 'payment';
  const screens: Screen[] = [pnn('eye', 'Sign', 'Transaction')];
  if (tx.networkId === 0) screens.push(bn('Network', 'testnet'));
  screens.push(bn('Type', payment ? 'Payment' : 'Delegation'));
  screens.push(...value(payment ? 'Sender' : 'Delegator', tx.from));
  screens.push(...value(payment ? 'Receiver' : 'Delegate', tx.to));
  if (payment) screens.push(...value('Amount', formatMina(tx.amount, version)));
  screens.push(...value('Fee', formatMina(tx.fee, version)));
  if (payment) screens.push(...value('Total', formatMina(tx.amount + tx.fee, version)));
  screens.push(bn('Nonce', String(tx.nonce)));
  if (tx.validUntil !== VALID_UNTIL_NONE) screens.push(bn('Valid until', String(tx.validUntil)));
  if (cString(tx.memo).length > 0) screens.push(...value('Memo', tx.memo));
  return {
    ins: INS_SIGN_TX,
    kind: 'transaction',
    approvable: true,
    screens: [...screens, ...choices()],
    afterApproval: signing(),
    nbgl: transactionNbgl(tx, version),
  };
}

/**
 * sign_tx_nbgl.c `prepare_transaction_context`: "Testnet" off mainnet, From/To (Delegator/Delegate), the amount for
 * a delegation too, Valid until whenever it is not 0, the memo when not empty.
 */
function transactionNbgl(tx: TxDisplay, version: string): NbglReview {
  const payment = tx.txType === 'payment';
  const memo = cString(tx.memo);
  const pairs = [
    ...(tx.networkId === 0 ? [{ item: 'Network', value: 'Testnet' }] : []),
    { item: 'Type', value: payment ? 'Payment' : 'Delegation' },
    { item: payment ? 'From' : 'Delegator', value: tx.from },
    { item: payment ? 'To' : 'Delegate', value: tx.to },
    { item: 'Amount', value: formatMina(tx.amount, version) },
    { item: 'Fee', value: formatMina(tx.fee, version) },
    ...(payment ? [{ item: 'Total', value: formatMina(tx.amount + tx.fee, version) }] : []),
    { item: 'Nonce', value: String(tx.nonce) },
    ...(tx.validUntil !== 0 ? [{ item: 'Valid until', value: String(tx.validUntil) }] : []),
    ...(memo.length > 0 ? [{ item: 'Memo', value: String.fromCharCode(...memo) }] : []),
  ];
  return { useCase: 'review', title: 'Review transaction', finish: 'Sign transaction', pairs };
}

/** ≥ 1.4.5 shows the message only; 1.4.2/1.4.3 also showed the prefix (`shown`). The bytes as received. */
export function messageReview(shown: Uint8Array | string, networkId: number): Review {
  const screens: Screen[] = [pnn('eye', 'Sign', 'Message')];
  if (networkId === 0) screens.push(bn('Network', 'testnet'));
  screens.push(...value('Message', shown));
  const text = typeof shown === 'string' ? shown : String.fromCharCode(...cString(shown));
  // sign_msg_nbgl.c: "Testnet" off mainnet, then the message.
  const pairs = [...(networkId === 0 ? [{ item: 'Network', value: 'Testnet' }] : []), { item: 'Message', value: text }];
  const nbgl: NbglReview = { useCase: 'review', title: 'Review message', finish: 'Sign message', pairs };
  return { ins: INS_SIGN_MESSAGE, kind: 'message', approvable: true, screens: [...screens, ...choices()], nbgl };
}

/** INS 06 with Blind signing off: two screens of notice, then a Reject the user must press. */
export function blindSigningDisabledNotice(): Review {
  return {
    ins: INS_SIGN_FIELD_ELEMENT,
    kind: 'blind-signing-disabled',
    approvable: false,
    screens: [pnn('crossmark', 'Blind signing', 'not enabled'), nn('Enable it in', 'app settings'), pb('crossmark', REJECT)],
  };
}

/**
 * The value as 64 lowercase hex digits, big-endian, of the raw 256-bit value received (not reduced mod p), under
 * the label "fullCommitment" whatever it is; on testnet the network comes first.
 */
export function fieldElementReview(field: bigint, networkId: number): Review {
  const screens: Screen[] = [
    pbb('warning', 'Blind', 'Signing'),
    nn('Tx details', 'not verifiable'),
    nn('Could lose', 'all assets'),
    pnn('eye', 'Sign', 'fullCommitment'),
  ];
  if (networkId === 0) screens.push(bn('Network', 'testnet'));
  screens.push(...value('fullCommitment', toHex(uintToBytesBE(field, 32))));
  return {
    ins: INS_SIGN_FIELD_ELEMENT,
    kind: 'field-element',
    approvable: true,
    screens: [...screens, ...choices(acceptRisk())],
  };
}

/**
 * Extension SIGN_FIELDS: blind signing of arbitrary fields, with the risk said plainly. It is no transaction (two or
 * more fields never verify as one), but zkApps check exactly such signatures in-circuit for actions their owner
 * authorizes: the device cannot know what the fields mean. Behind the Blind signing setting, like INS 06.
 */
export function signFieldsReview(count: number, digest: string, domain: 'testnet' | 'mainnet'): Review {
  return {
    ins: INS_SIGN_FIELDS,
    kind: 'sign-fields',
    approvable: true,
    screens: [
      pbb('warning', 'Blind', 'Signing'),
      nn('Sign fields', 'not verifiable'),
      nn('zkApps may act', 'on this signature'),
      bn('Domain', domain),
      bn('Fields', String(count)),
      ...value('Digest', digest),
      ...choices(acceptRisk()),
    ],
  };
}

/** SIGN_FIELDS with Blind signing off: the notice of INS 06, ending on a Reject the user must press. */
export function signFieldsBlindDisabledNotice(): Review {
  return { ...blindSigningDisabledNotice(), ins: INS_SIGN_FIELDS };
}

/**
 * Extension CREATE_NULLIFIER: each message field in decimal, paged (not a digest), and the origin the host says
 * asked for it (shown as the host's claim: a nullifier does not bind the origin).
 */
export function nullifierReview(fields: bigint[], origin?: string): Review {
  const screens: Screen[] = [pb('eye', 'Create nullifier')];
  if (origin !== undefined) screens.push(...value('Requested by', escapeForDisplay(origin)));
  if (fields.length === 0) screens.push(bn('Message', '(no fields)'));
  fields.forEach((f, i) => {
    screens.push(...value(`Field ${i + 1}/${fields.length}`, f.toString()));
  });
  return { ins: INS_CREATE_NULLIFIER, kind: 'nullifier', approvable: true, screens: [...screens, ...choices()] };
}

/**
 * Extension SIGN_ZKAPP: the command in clear. The network; the fee payer, fee, nonce, validity and memo (escaped by the
 * text rule); each account update that changes anything or is this account's (the account, its token, the balance
 * change with its sign, a nonce increment, each app-state slot set and its value, the other changes in words, events
 * and actions emitted, and who authorizes it); one line counting the updates that change nothing; then what this
 * account's signature authorizes (full or partial commitment) and what it covers: a full commitment the whole command,
 * a partial one every account update (not the fee payer or memo).
 */
export function zkappReview(view: ZkappView): Review {
  const feePayer: Screen[] = [bn('Network', view.network)];
  feePayer.push(...value('Fee payer', `${view.feePayer}${view.feePayerIsMine ? ' (you)' : ''}`));
  feePayer.push(...value('Fee', formatChange(view.fee, 'MINA').slice(1)));
  feePayer.push(...value('Nonce', String(view.nonce)));
  if (view.validUntil !== undefined) feePayer.push(...value('Valid until', `slot ${view.validUntil}`));
  if (view.memo !== '') feePayer.push(...value('Memo', escapeForDisplay(view.memo)));
  const shown = updatesShown(view);
  const total = view.updates.length;
  const updates = shown.flatMap((u) => updateScreens(u, total));
  const rest = total - shown.length;
  const also =
    rest > 0
      ? value(
          'Also',
          `${rest} more update${rest === 1 ? ' that changes' : 's that change'} nothing (no balance, state, setting, nonce, event or action)`,
        )
      : [];
  const signs = signScreens(view);
  const groups = {
    feePayer: feePayer.length,
    shown: { indices: shown.map((u) => u.index), screens: updates.length },
    counted: { count: rest, screens: also.length },
    signs: signs.length,
  };
  // "Contents" counts every screen, its own pages included (a longer count can take one more page).
  const others = 1 + feePayer.length + updates.length + also.length + signs.length + 2;
  let contents = value('Contents', contentsText(total, others + 1, groups));
  for (let pages = 1; contents.length !== pages; ) {
    pages = contents.length;
    contents = value('Contents', contentsText(total, others + pages, groups));
  }
  const screens = [pnn('eye', 'Review zkApp', 'transaction'), ...contents, ...feePayer, ...updates, ...also, ...signs];
  return { ins: INS_SIGN_ZKAPP, kind: 'zkapp', approvable: true, screens: [...screens, ...choices()], afterApproval: signing() };
}

/** One account update's screens: "Update i of N", its account and token, what it changes, who authorizes it. */
function updateScreens(u: ZkappUpdateView, total: number): Screen[] {
  const screens: Screen[] = [pb('eye', `Update ${u.index + 1} of ${total}`)];
  screens.push(...value('Account', `${u.account}${u.mine ? ' (you)' : ''}`));
  screens.push(...value('Token', u.token));
  if (u.balanceChange !== 0n) screens.push(...value('Balance', formatChange(u.balanceChange, u.token)));
  if (u.incrementNonce) screens.push(nn('Increments', 'the nonce'));
  for (const { slot, value: v } of u.appState) screens.push(...value(`Sets state ${slot}`, v.toString()));
  for (const change of u.changes) screens.push(...value('Warning', change));
  if (u.events) screens.push(nn('Emits events', '(data not shown)'));
  if (u.actions) screens.push(nn('Emits actions', '(data not shown)'));
  screens.push(...value('Authorized by', u.authorization));
  return screens;
}

/** What this account's signature authorizes (full or partial commitment), and what it covers. */
function signScreens(view: ZkappView): Screen[] {
  const full = [
    ...(view.signs.feePayer ? ['the fee payer'] : []),
    ...(view.signs.full.length > 0 ? [`updates ${list(view.signs.full)}`] : []),
  ];
  const parts = [
    ...(full.length > 0 ? [`${full.join(' and ')} (full commitment)`] : []),
    ...(view.signs.partial.length > 0 ? [`updates ${list(view.signs.partial)} (partial commitment)`] : []),
  ];
  const updates = signedUpdates(view.updates.length);
  return [
    ...value('You sign', parts.join('; ')),
    ...value(
      'Your signature covers',
      full.length > 0 ? `the whole command: fee payer, memo and ${updates}` : `${updates} (not the fee payer or memo)`,
    ),
  ];
}

/** What a presentation review shows (src/emulator/presentation-device.ts). */
export interface PresentationView {
  /** https: the origin; zk-app: the zkApp; none: no verifier (anyone can replay the presentation). */
  verifier: { type: 'https'; origin: string } | { type: 'zk-app'; address: string; tokenId: string; network: string } | { type: 'none' };
  action: string;
  credentials: number;
  /** What the host says the presentation reveals (the device cannot check it: docs/apdu-extensions.md). */
  reveals: string;
}

/**
 * Extension SIGN_PRESENTATION: who the verifier is (bound into the context the device computes), the action, and
 * what the host says is revealed, labelled as the host's claim; a loud warning for a presentation bound to no verifier.
 */
export function presentationReview(view: PresentationView): Review {
  const screens: Screen[] = [pnn('eye', 'Share', 'credentials')];
  const v = view.verifier;
  if (v.type === 'https') screens.push(...value('Verifier', escapeForDisplay(v.origin)));
  else if (v.type === 'zk-app') {
    screens.push(...value('zkApp', v.address), ...value('zkApp network', v.network));
    if (v.tokenId !== 'MINA') screens.push(...value('zkApp token', v.tokenId));
  } else {
    screens.push(pbb('warning', 'WARNING', 'No verifier'), nn('Anyone can reuse', 'this presentation'));
  }
  if (view.action !== '') screens.push(...value('Action', escapeForDisplay(view.action)));
  screens.push(...value('Credentials', String(view.credentials)));
  screens.push(...value('Reveals (per host)', escapeForDisplay(view.reveals)));
  return { ins: INS_SIGN_PRESENTATION, kind: 'presentation', approvable: true, screens: [...screens, ...choices()] };
}
