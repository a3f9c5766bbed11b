/**
 * The CLI's own reviews, on the terminal, before the device or the store is asked:
 *
 * - a zkApp command before a Ledger signs it blind: the released Mina app shows only a hash (INS 06), so the terminal
 *   shows what the host reads in the command (the library's `ZkappSummary`, written with `zkappSummaryLines`: fee
 *   payer, fee, nonce, each update and what it changes, full or partial commitment) and asks before the device's
 *   prompt. A device with SIGN_ZKAPP (extension 1.1) shows the command itself. Under the spend cap, a change it cannot
 *   count (the account's permissions, verification key, delegate or timing; another token leaving it) is confirmed
 *   by typing its name, which `--yes` never does;
 * - a presentation request (the provider's `confirmPresentation`): what it asks, in words, then the stored credentials
 *   that could serve it (the store unlocked for that: the device asks for the store key), then `[y/N]`. Nothing is
 *   evaluated on the credentials before the answer.
 *
 * `--yes` answers for scripts (what is asked is still printed).
 */
import { createInterface, type Interface } from 'node:readline';
import type { LedgerProviderOptions } from '../provider/options.js';
import type { BeyondSpendCap } from '../zkapp/spend-cap.js';
import type { ZkappSummary } from '../zkapp/summary.js';
import { zkappSummaryLines } from '../zkapp/summary-view.js';

export interface TerminalReview {
  /** `--yes`: sign without asking (the summary is still printed). */
  yes: boolean;
  /** A line on stderr. */
  say(text: string): void;
  /** The user's answer: one line (empty at the end of the input). */
  answer(question: string): Promise<string>;
}

/** The provider's `confirmZkapp` for the terminal: true to sign, false to refuse (→ 1002, nothing reaches the device). */
export function confirmOnTerminal({ yes, say, answer }: TerminalReview): (summary: ZkappSummary & { origin: string }) => Promise<boolean> {
  return async (summary) => {
    if (summary.clearSigning) return true; // the Ledger shows the command itself, and computes what it signs
    say('The Ledger will sign this zkApp command blind: it shows only a hash. What the command does, as read here:');
    for (const line of zkappSummaryLines(summary)) say(`  │ ${line}`);
    if (yes) {
      say('  (--yes: signing without asking)');
      return true;
    }
    return /^\s*y(?:es)?\s*$/i.test(await answer('Sign it on the Ledger? [y/N] '));
  };
}

/**
 * The provider's `confirmPresentation` for the terminal: the request in words, the fitting stored credentials (the
 * newest is used where several fit), then `[y/N]`; true to present (the default choice), false to refuse.
 */
export function presentationOnTerminal({ yes, say, answer }: TerminalReview): NonNullable<LedgerProviderOptions['confirmPresentation']> {
  return async (review) => {
    say('A presentation of your credentials is asked for. The request, as read here (nothing is computed on your credentials yet):');
    for (const line of review.lines) say(`  │ ${line}`);
    const candidates = await review.candidates();
    for (const [input, list] of Object.entries(candidates)) {
      if (list.length === 0) say(`  │ For "${input}": no stored credential fits: nothing can be presented`);
      for (const [i, c] of list.entries()) {
        const data = Object.entries(c.data)
          .map(([key, value]) => `${key}: ${value}`)
          .join(', ');
        say(
          `  │ For "${input}"${i === 0 ? ' (used)' : ''}: ${c.credentialType} credential ${c.id.slice(0, 8)}${c.issuer ? ` from ${c.issuer}` : ''}, stored ${c.storedAt}; ${data}`,
        );
      }
    }
    if (Object.values(candidates).some((list) => list.length === 0)) return false;
    if (yes) {
      say('  (--yes: presenting without asking)');
      return true;
    }
    return /^\s*y(?:es)?\s*$/i.test(await answer('Present it (the owner signature on the Ledger next)? [y/N] '));
  };
}

/** The provider's `onPresentationNotSatisfied` for the terminal: why the approved request cannot be presented. */
export function presentationNotSatisfiedOnTerminal(
  say: (text: string) => void,
): NonNullable<LedgerProviderOptions['onPresentationNotSatisfied']> {
  return ({ reason }) => say(`The request cannot be presented: ${reason} (nothing was signed or proved).`);
}

/**
 * The provider's `confirmBeyondSpendCap` for the terminal: the change in words, then its name to type (`permissions`,
 * `token`, …); anything else, no answer or `--yes` refuses (→ 1002, nothing reaches the device).
 */
export function confirmBeyondCapOnTerminal({ yes, say, answer }: TerminalReview): (change: BeyondSpendCap) => Promise<boolean> {
  return async (change) => {
    say(`Beyond the spend cap (no amount of MINA counts it): ${change.description}`);
    if (yes) {
      say(`  (--yes never confirms this: run without --yes and type "${change.change}" to sign it)`);
      return false;
    }
    return (await answer(`Type "${change.change}" to sign it anyway (anything else refuses): `)).trim() === change.change;
  };
}

/** The lines of stdin, read by one reader for every question (two answers piped at once are two answers). */
interface StdinLines {
  lines: string[];
  waiting: ((line: string) => void)[];
  ended: boolean;
  input: Interface;
}
let stdinLines: StdinLines | undefined;

function openStdinLines(): StdinLines {
  const reader: StdinLines = { lines: [], waiting: [], ended: false, input: createInterface({ input: process.stdin }) };
  reader.input.on('line', (line) => {
    const waiting = reader.waiting.shift();
    if (waiting) waiting(line);
    else reader.lines.push(line);
  });
  reader.input.on('close', () => {
    reader.ended = true;
    for (const waiting of reader.waiting.splice(0)) waiting('');
  });
  return reader;
}

/** The next line from stdin after `question` on stderr; '' when the input ends first (no answer is a no). */
export function answerFromStdin(question: string): Promise<string> {
  process.stderr.write(question);
  stdinLines ??= openStdinLines();
  const reader = stdinLines;
  const line = reader.lines.shift();
  if (line !== undefined) return Promise.resolve(line);
  if (reader.ended) return Promise.resolve('');
  return new Promise((resolve) => reader.waiting.push(resolve));
}
