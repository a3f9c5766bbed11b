/**
 * What the device shows before it answers: the review screens of the Mina app v1.6.0 on a Nano S Plus, as the real
 * app shows them on Speculos (recorded in test/fixtures/mina-ledger-app-speculos.json), long values paged as the
 * device pages them (src/emulator/display.ts). A review can have several stages, each ending on its own pair of
 * choices: the address review is two ("Get Address" with Generate or Cancel, then the address with Approve or
 * Reject); the software Ledger's `Approver` answers for all of them at once (true: go on at every stage).
 */
import { INS_GET_ADDRESS, INS_SIGN_FIELD_ELEMENT, INS_SIGN_MESSAGE, INS_SIGN_TX, VALID_UNTIL_NONE } from '../apdu/constants.js';
import { INS_CREATE_NULLIFIER, INS_SIGN_FIELDS } from '../apdu/extension.js';
import { toHex, uintToBytesBE } from '../apdu/bytes.js';
import { atLeast } from '../apdu/version.js';
import { cString, fixedScreen, valueScreens, type DrawnScreen } from './display.js';
import type { LegacyTx } from './signer.js';

/** One screen as the device draws it. */
export interface Screen {
  /** The text events Speculos reports for it, in drawing order (a paged value as paged, undrawable bytes dropped). */
  lines: string[];
  /** The row (0 = top) each of `lines` is drawn on. */
  rows: number[];
  /** The first line: a title, with " (i/n)" when a value spans screens. */
  title: string;
  /** The other lines joined: the part of the value on this screen; absent on a one-line screen. */
  text?: string;
}

export type ReviewKind = 'address' | 'transaction' | 'message' | 'field-element' | 'blind-signing-disabled' | 'sign-fields' | 'nullifier';

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
}

/** Decides a review; true approves. The software Ledger's stand-in for the user's buttons. */
export type Approver = (review: Review) => boolean | Promise<boolean>;

export const APPROVE = 'Approve';
export const REJECT = 'Reject';

function screen({ lines, rows }: DrawnScreen): Screen {
  const text = lines.slice(1).join('');
  return { lines, rows, title: lines[0] ?? '', ...(lines.length > 1 ? { text } : {}) };
}
const fixed = (...lines: string[]): Screen => screen(fixedScreen(...lines));
const value = (title: string, shown: Uint8Array | string): Screen[] => valueScreens(title, shown).map(screen);
const choices = (approve: Screen = fixed(APPROVE), reject: Screen = fixed(REJECT)): Screen[] => [approve, reject];

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
  const request = [fixed('Get', 'Address'), ...value('Path', path), ...choices(fixed('Generate'), fixed('Cancel'))];
  return {
    ins: INS_GET_ADDRESS,
    kind: 'address',
    approvable: true,
    screens: [...request, ...value('Address', address), ...choices()],
    stages: [0, request.length],
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
  const screens: Screen[] = [fixed('Sign', 'Transaction')];
  if (tx.networkId === 0) screens.push(...value('Network', 'testnet'));
  screens.push(...value('Type', payment ? 'Payment' : 'Delegation'));
  screens.push(...value(payment ? 'Sender' : 'Delegator', tx.from));
  screens.push(...value(payment ? 'Receiver' : 'Delegate', tx.to));
  if (payment) screens.push(...value('Amount', formatMina(tx.amount, version)));
  screens.push(...value('Fee', formatMina(tx.fee, version)));
  if (payment) screens.push(...value('Total', formatMina(tx.amount + tx.fee, version)));
  screens.push(...value('Nonce', String(tx.nonce)));
  if (tx.validUntil !== VALID_UNTIL_NONE) screens.push(...value('Valid until', String(tx.validUntil)));
  if (cString(tx.memo).length > 0) screens.push(...value('Memo', tx.memo));
  return {
    ins: INS_SIGN_TX,
    kind: 'transaction',
    approvable: true,
    screens: [...screens, ...choices()],
    afterApproval: fixed('Signing...'),
  };
}

/** ≥ 1.4.5 shows the message only; 1.4.2/1.4.3 also showed the prefix (`shown`). The bytes as received. */
export function messageReview(shown: Uint8Array | string, networkId: number): Review {
  const screens: Screen[] = [fixed('Sign', 'Message')];
  if (networkId === 0) screens.push(...value('Network', 'testnet'));
  screens.push(...value('Message', shown));
  return { ins: INS_SIGN_MESSAGE, kind: 'message', approvable: true, screens: [...screens, ...choices()] };
}

/** INS 06 with Blind signing off: two screens of notice, then a Reject the user must press. */
export function blindSigningDisabledNotice(): Review {
  return {
    ins: INS_SIGN_FIELD_ELEMENT,
    kind: 'blind-signing-disabled',
    approvable: false,
    screens: [fixed('Blind signing', 'not enabled'), fixed('Enable it in', 'app settings'), fixed(REJECT)],
  };
}

/**
 * The value as 64 lowercase hex digits, big-endian, of the raw 256-bit value received (not reduced mod p), under
 * the label "fullCommitment" whatever it is; on testnet the network comes first.
 */
export function fieldElementReview(field: bigint, networkId: number): Review {
  const screens: Screen[] = [
    fixed('Blind', 'Signing'),
    fixed('Tx details', 'not verifiable'),
    fixed('Could lose', 'all assets'),
    fixed('Sign', 'fullCommitment'),
  ];
  if (networkId === 0) screens.push(...value('Network', 'testnet'));
  screens.push(...value('fullCommitment', toHex(uintToBytesBE(field, 32))));
  return {
    ins: INS_SIGN_FIELD_ELEMENT,
    kind: 'field-element',
    approvable: true,
    screens: [...screens, ...choices(fixed('ACCEPT RISK', 'AND APPROVE'))],
  };
}

/** Extension SIGN_FIELDS: says plainly that this is no transaction, and which domain signs. */
export function signFieldsReview(count: number, digest: string, domain: 'testnet' | 'mainnet'): Review {
  return {
    ins: INS_SIGN_FIELDS,
    kind: 'sign-fields',
    approvable: true,
    screens: [
      fixed('Sign fields'),
      fixed('Not a transaction'),
      ...value('Domain', domain),
      ...value('Fields', String(count)),
      ...value('Digest', digest),
      ...choices(),
    ],
  };
}

/** Extension CREATE_NULLIFIER. */
export function nullifierReview(count: number, digest: string): Review {
  return {
    ins: INS_CREATE_NULLIFIER,
    kind: 'nullifier',
    approvable: true,
    screens: [fixed('Create nullifier'), ...value('Fields', String(count)), ...value('Digest', digest), ...choices()],
  };
}
