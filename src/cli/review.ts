/**
 * The CLI's own review of a zkApp command before a Ledger signs it blind: the released Mina app shows only a hash
 * (INS 06), so the terminal shows what the host reads in the command (the library's `ZkappSummary`, written with
 * `zkappSummaryLines`: fee payer, fee, each update and what it changes, full or partial commitment) and asks before
 * the device's prompt; `--yes` answers for scripts. A device with SIGN_ZKAPP (extension 1.1) shows the command itself.
 */
import { createInterface } from 'node:readline';
import type { ZkappSummary } from '../zkapp/summary.js';
import { zkappSummaryLines } from '../zkapp/summary.js';

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

/** One line from stdin after `question` on stderr; '' when the input ends first (no answer is a no). */
export function answerFromStdin(question: string): Promise<string> {
  process.stderr.write(question);
  return new Promise((resolve) => {
    const lines = createInterface({ input: process.stdin });
    let answered = false;
    lines.once('line', (line) => {
      answered = true;
      lines.close();
      resolve(line);
    });
    lines.once('close', () => {
      if (!answered) resolve('');
    });
  });
}
