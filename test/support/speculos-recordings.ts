/**
 * The real Mina app v1.6.0 recorded on Speculos (test/fixtures/mina-ledger-app-speculos.json, a byte-identical
 * copy of shared/vectors/mina-ledger-app-speculos.json; .ci/run compares them), and how the recorded user acted.
 */
import { readFileSync } from 'node:fs';
import { reviewStages, type Review } from '../../src/emulator.js';

export type Decision = 'approve' | 'reject' | 'reject@first';

export interface RecordedExchange {
  name: string;
  request: string;
  reply: string;
  decision: Decision;
  blindSigning: boolean;
  /** The review as the device showed it: one list of text events per screen, paged values as paged. */
  screens: string[][];
  screenAfterReply: string[];
}

export interface Recordings {
  source: string;
  mnemonic: string;
  exchanges: RecordedExchange[];
}

export const recordings: Recordings = JSON.parse(
  readFileSync(new URL('../fixtures/mina-ledger-app-speculos.json', import.meta.url), 'utf8'),
);

export function recorded(name: string): RecordedExchange {
  const found = recordings.exchanges.find((e) => e.name === name);
  if (!found) throw new Error(`no recording ${JSON.stringify(name)}`);
  return found;
}

/**
 * The one recorded exchange the software Ledger deliberately answers differently: the app accepts a receiver of 55
 * spaces only through a bug (it signs whatever an unfilled buffer holds). The software Ledger answers 0x6802, as
 * for any receiver whose base58check fails, and the client refuses such a receiver before sending
 * (docs/software-ledger.md, "Known differences").
 */
export const DOCUMENTED_DIFFERENCES = new Map([['payment to: 55 spaces', { reply: '6802', screens: [] as string[][] }]]);

/** What the recorded user answers: the software Ledger's approver answers a whole review (all its stages). */
export const approves = (decision: Decision) => decision === 'approve';

/**
 * The screens the recorded user went through: every screen of the review when going to its end (approve, reject),
 * only the first stage for `reject@first` (Cancel on "Get Address"); then "Signing..." once a transaction is
 * approved.
 */
export function screensSeen(review: Review, decision: Decision): string[][] {
  const stages = reviewStages(review);
  const seen = decision === 'reject@first' ? stages[0]! : stages.flat();
  const after = approves(decision) && review.approvable && review.afterApproval ? [review.afterApproval] : [];
  return [...seen, ...after].map((s) => s.lines);
}
