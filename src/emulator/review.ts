/**
 * What the device shows before it answers: the review screens of the Mina app v1.6.0 on a Nano (BAGL) device,
 * from src/menu_*.c, get_address_bagl.c, sign_tx_bagl.c, sign_msg_bagl.c. Long values are shown whole on one
 * screen here (the real device pages them).
 */
import { INS_GET_ADDRESS, INS_SIGN_FIELD_ELEMENT, INS_SIGN_MESSAGE, INS_SIGN_TX, VALID_UNTIL_NONE } from '../apdu/constants.js';
import { INS_CREATE_NULLIFIER, INS_SIGN_FIELDS } from '../apdu/extension.js';
import { toHex, uintToBytesBE } from '../apdu/bytes.js';
import { atLeast } from '../apdu/version.js';
import type { LegacyTx } from './signer.js';

export interface Screen {
  title: string;
  text?: string;
}

export type ReviewKind = 'address' | 'transaction' | 'message' | 'field-element' | 'blind-signing-disabled' | 'sign-fields' | 'nullifier';

export interface Review {
  ins: number;
  kind: ReviewKind;
  /** Screens in order; when `approvable`, the last two are the approve and reject choices. */
  screens: Screen[];
  /** False for a notice the user can only dismiss (the device then answers 0x6985). */
  approvable: boolean;
}

/** Decides a review; true approves. The software Ledger's stand-in for the user's buttons. */
export type Approver = (review: Review) => boolean | Promise<boolean>;

export const APPROVE = 'Approve';
export const REJECT = 'Reject';

const choices = (approve = APPROVE): Screen[] => [{ title: approve }, { title: REJECT }];

export function addressReview(path: string, address: string): Review {
  return {
    ins: INS_GET_ADDRESS,
    kind: 'address',
    approvable: true,
    screens: [{ title: 'Get Address' }, { title: 'Path', text: path }, { title: 'Address', text: address }, ...choices()],
  };
}

/** "MINA " + decimal, trailing fraction zeros trimmed to one (1729.0, 0.0001); zero is "MINA 0" since 1.4.7. */
export function formatMina(nanomina: bigint, version: string): string {
  if (nanomina === 0n && atLeast(version, '1.4.7')) return 'MINA 0';
  const whole = nanomina / 1_000_000_000n;
  const fraction = (nanomina % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `MINA ${whole}.${fraction || '0'}`;
}

/** What the device decoded from an INS 03 body and shows. */
export type TxDisplay = LegacyTx & { networkId: number };

export function transactionReview(tx: TxDisplay, version: string): Review {
  const payment = tx.txType === 'payment';
  const screens: Screen[] = [{ title: 'Sign Transaction' }];
  if (tx.networkId === 0) screens.push({ title: 'Network', text: 'testnet' });
  screens.push({ title: 'Type', text: payment ? 'Payment' : 'Delegation' });
  screens.push({ title: payment ? 'Sender' : 'Delegator', text: tx.from });
  screens.push({ title: payment ? 'Receiver' : 'Delegate', text: tx.to });
  if (payment) screens.push({ title: 'Amount', text: formatMina(tx.amount, version) });
  screens.push({ title: 'Fee', text: formatMina(tx.fee, version) });
  if (payment) screens.push({ title: 'Total', text: formatMina(tx.amount + tx.fee, version) });
  screens.push({ title: 'Nonce', text: String(tx.nonce) });
  if (tx.validUntil !== VALID_UNTIL_NONE) screens.push({ title: 'Valid until', text: String(tx.validUntil) });
  if (tx.memo !== '') screens.push({ title: 'Memo', text: tx.memo });
  return { ins: INS_SIGN_TX, kind: 'transaction', approvable: true, screens: [...screens, ...choices()] };
}

/** ≥ 1.4.5 shows the message only; 1.4.2/1.4.3 also showed the prefix (`shownText`). */
export function messageReview(shownText: string, networkId: number): Review {
  const screens: Screen[] = [{ title: 'Sign Message' }];
  if (networkId === 0) screens.push({ title: 'Network', text: 'testnet' });
  screens.push({ title: 'Message', text: shownText });
  return { ins: INS_SIGN_MESSAGE, kind: 'message', approvable: true, screens: [...screens, ...choices()] };
}

export function blindSigningDisabledNotice(): Review {
  return {
    ins: INS_SIGN_FIELD_ELEMENT,
    kind: 'blind-signing-disabled',
    approvable: false,
    screens: [{ title: 'Blind signing not enabled', text: 'Enable it in app settings' }],
  };
}

/** The value is shown as 64 lowercase hex digits, big-endian, under the label "fullCommitment" whatever it is. */
export function fieldElementReview(field: bigint, networkId: number): Review {
  const screens: Screen[] = [
    { title: 'Blind Signing', text: 'Tx details not verifiable' },
    { title: 'Could lose all assets' },
    { title: 'Sign fullCommitment' },
    { title: 'fullCommitment', text: toHex(uintToBytesBE(field, 32)) },
  ];
  if (networkId === 0) screens.push({ title: 'Network', text: 'testnet' });
  return { ins: INS_SIGN_FIELD_ELEMENT, kind: 'field-element', approvable: true, screens: [...screens, ...choices('ACCEPT RISK AND APPROVE')] };
}

/** Extension SIGN_FIELDS: says plainly that this is no transaction, and which domain signs. */
export function signFieldsReview(count: number, digest: string, domain: 'testnet' | 'mainnet'): Review {
  return {
    ins: INS_SIGN_FIELDS,
    kind: 'sign-fields',
    approvable: true,
    screens: [
      { title: 'Sign fields' },
      { title: 'Not a transaction' },
      { title: 'Domain', text: domain },
      { title: 'Fields', text: String(count) },
      { title: 'Digest', text: digest },
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
    screens: [{ title: 'Create nullifier' }, { title: 'Fields', text: String(count) }, { title: 'Digest', text: digest }, ...choices()],
  };
}
