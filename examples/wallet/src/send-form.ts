/**
 * The Send screen's form, checked as the holder types (./send-screen.ts shows it): the receiver decoded as a point of
 * the Pallas curve (the library's `decodeAddress`, the check the provider makes at its boundary), amount and fee as
 * exact decimals of MINA against the balance the node reported, the memo at most 32 bytes. Pure: no DOM, no node, so
 * test/wallet/send-form.test.ts checks it directly. What it accepts still goes through the provider's own zod schemas
 * (`chain_sendPayment`), which stay the authority; this only says early and in words what would be refused.
 */
import { parseMina } from 'chain-ledger';
import { decodeAddress } from 'chain-ledger/apdu';

/**
 * Auro's fee levels, in MINA: its built-in defaults (aurowallet/auro-wallet-mobile-app, lib/common/consts/index.dart,
 * `defaultTxFeesMap`: slow 0.0011, medium 0.0101, fast 0.2001; the browser extension uses the same `medium` 0.0101,
 * ../../shared/reference/provider-behaviour.md), used before or instead of the remote fee_config.json it reads.
 */
export const AURO_FEES = [
  { level: 'slow', label: 'Slow', mina: '0.0011' },
  { level: 'medium', label: 'Default', mina: '0.0101' },
  { level: 'fast', label: 'Fast', mina: '0.2001' },
] as const;
/** Auro warns above this fee ("Fees are much higher than average", its `cap`: 10 MINA). */
export const FEE_WARNING_NANOMINA = 10_000_000_000n;
/** The smallest fee a Mina node accepts for a signed command (0.001 MINA). */
export const MIN_FEE_NANOMINA = 1_000_000n;
const MAX_MEMO_BYTES = 32;
const UINT64_MAX = 2n ** 64n - 1n;

export type SendKind = 'payment' | 'delegation';

/** What the holder typed. */
export interface SendInput {
  kind: SendKind;
  to: string;
  /** MINA, as typed (payments only). */
  amount: string;
  /** MINA, as typed or from a fee level. */
  fee: string;
  memo: string;
}

/** A field's problem in words, by field; empty when the form can go to the device. */
export type SendProblems = Partial<Record<'to' | 'amount' | 'fee' | 'memo', string>>;

/** The checked form: what the provider is called with, in MINA text as Auro's API takes it. */
export interface SendCheck {
  problems: SendProblems;
  /** Not a refusal: a fee above Auro's warning level. */
  warnings: SendProblems;
  /** Amount plus fee in nanomina, when both parse. */
  totalNanomina?: bigint;
}

function receiverProblem(to: string): string | undefined {
  const text = to.trim();
  if (text === '') return 'Enter the receiver’s address (B62…).';
  const decoded = decodeAddress(text);
  return typeof decoded === 'string' ? `Not a Mina address (${decoded}).` : undefined;
}

/** An amount of MINA as nanomina, or the reason it is not one. */
function minaValue(text: string, what: string): bigint | string {
  const trimmed = text.trim();
  if (trimmed === '') return `Enter the ${what} in MINA.`;
  const value = parseMina(trimmed);
  if (value === undefined) return `The ${what} is a number of MINA with at most 9 decimals (like 1.5).`;
  if (value > UINT64_MAX) return `The ${what} is larger than any Mina account can hold.`;
  return value;
}

function memoProblem(memo: string): string | undefined {
  const bytes = new TextEncoder().encode(memo).length;
  if (bytes > MAX_MEMO_BYTES) return `The memo is ${bytes} bytes: at most ${MAX_MEMO_BYTES} (an accented letter counts 2).`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is refused here
  if (/[\u0000-\u001f\u007f]/.test(memo)) return 'The memo cannot hold line breaks or control characters (the Ledger cannot show them).';
  return undefined;
}

/**
 * Checks the form against the balance (nanomina, undefined when the node has not said: then only the shapes are
 * checked). A payment needs amount + fee ≤ balance; a delegation needs the fee.
 */
export function checkSend(input: SendInput, balance: bigint | undefined): SendCheck {
  const problems: SendProblems = {};
  const warnings: SendProblems = {};
  const to = receiverProblem(input.to);
  if (to) problems.to = to;
  const fee = minaValue(input.fee, 'fee');
  if (typeof fee === 'string') problems.fee = fee;
  else if (fee < MIN_FEE_NANOMINA) problems.fee = 'The fee is at least 0.001 MINA (the nodes refuse less).';
  else if (fee > FEE_WARNING_NANOMINA) warnings.fee = 'This fee is much higher than usual (over 10 MINA).';
  const amount = input.kind === 'payment' ? minaValue(input.amount, 'amount') : 0n;
  if (typeof amount === 'string') problems.amount = amount;
  else if (input.kind === 'payment' && amount === 0n) problems.amount = 'Enter an amount above 0.';
  const memo = memoProblem(input.memo);
  if (memo) problems.memo = memo;
  if (typeof fee !== 'bigint' || typeof amount !== 'bigint') return { problems, warnings };
  const total = amount + fee;
  if (balance !== undefined && total > balance && problems.amount === undefined && problems.fee === undefined) {
    const field = input.kind === 'payment' ? 'amount' : 'fee';
    problems[field] = input.kind === 'payment' ? 'The amount and the fee are more than the balance.' : 'The fee is more than the balance.';
  }
  return { problems, warnings, totalNanomina: total };
}

/** True when nothing stops the form. */
export const canSend = (check: SendCheck) => Object.keys(check.problems).length === 0;
