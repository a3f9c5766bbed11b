/**
 * How `npm start` (quick-start.ts) talks to the person at the terminal: each step's title, its progress lines and
 * time, what the device showed, the host's reviews before the Ledger is asked (zkApp command, presentation request,
 * a change beyond the spend cap), the checks, and the summary at the end.
 */
import { signatureToBase58, type MinaSignature } from 'chain-ledger/apdu';
import type { Review } from 'chain-ledger/emulator';
import { type BeyondSpendCap, type PresentationReview, type ProgressEvent, type ZkappSummary, zkappSummaryLines } from 'chain-ledger';

export function printReview(review: Review): void {
  console.log(`   ┌─ on the device ${'─'.repeat(40)}`);
  // One row per device screen: its lines as drawn, separated by " | " (long values paged as the device pages them;
  // the layout's empty rows left out).
  for (const screen of review.screens) console.log(`   │ ${screen.lines.filter((line) => line.trim() !== '').join(' | ')}`);
  console.log('   └─ (approved by the software Ledger)');
}

/** The most MINA a zkApp command may take from the account here, fee included: a wallet's spend cap. */
export const SPEND_CAP_MINA = 5;

/**
 * The host's review of a zkApp command, before the device is asked: what a wallet shows its user, above all where
 * the device signs blind. Printed and approved by the walk-through; a wallet asks its user here (false refuses).
 */
export function hostReview(summary: ZkappSummary & { origin: string }): boolean {
  console.log(`   ┌─ on the host, before the Ledger is asked (${summary.origin}, spend cap ${SPEND_CAP_MINA} MINA) ${'─'.repeat(8)}`);
  for (const line of zkappSummaryLines(summary)) console.log(`   │ ${line}`);
  console.log('   └─ (approved by the walk-through; a wallet asks its user here)');
  return true;
}

/**
 * The holder's review of a presentation request (`confirmPresentation`), before anything is read from the store or
 * computed on it: the request in words, then the stored credentials that fit it (listing them unlocks the store: the
 * Ledger asks for the store key, naming the site on the extension). A wallet asks its user here; the walk-through
 * shows what it would show, and approves.
 */
export async function presentationReview(review: PresentationReview): Promise<boolean> {
  console.log(`   ┌─ on the host, before anything is computed on the credentials (${review.origin}) ${'─'.repeat(8)}`);
  for (const line of review.lines) console.log(`   │ ${line}`);
  for (const [input, list] of Object.entries(await review.candidates())) {
    for (const c of list)
      console.log(`   │ fits "${input}": ${c.credentialType} credential ${c.id.slice(0, 8)} from ${c.issuer ?? '-'}, stored ${c.storedAt}`);
  }
  console.log('   └─ (approved by the walk-through; a wallet asks its user here)');
  return true;
}

/**
 * Under the spend cap, a change no amount counts (the account's own permissions, verification key, delegate or
 * timing; another token leaving it) is asked by name. The walk-through refuses it; a wallet asks its user to confirm
 * that very change (the CLI: type its name).
 */
export function beyondSpendCap(change: BeyondSpendCap & { origin: string }): boolean {
  console.log(`   ⚠ beyond the spend cap: ${change.description}`);
  console.log(`   └─ refused by the walk-through (a wallet asks its user to confirm "${change.change}" by name)`);
  return false;
}

/** What ran, and what the device could not do because it lacks the extension: the summary at the end. */
const summary = { ran: [] as string[], needsExtension: [] as string[] };

/**
 * The progress lines of one step: each stage the provider reports (`onProgress`: the device's prompt, loading the
 * prover, compiling, proving…) and "still working" while the step is silent for 10 s, each stamped with the seconds
 * since the step started.
 */
class StepLines {
  readonly #started = performance.now();
  #lastLine = this.#started;
  readonly #timer = setInterval(() => {
    if (performance.now() - this.#lastLine >= 10_000) this.say('… still working');
  }, 1000);

  say(text: string): void {
    this.#lastLine = performance.now();
    console.log(`   ${text} (${((this.#lastLine - this.#started) / 1000).toFixed(1)} s)`);
  }

  /** For `onProgress`. */
  readonly progress = ({ stage, prompt, retry }: ProgressEvent): void => {
    if (stage === 'confirm-on-device') this.say(`⏳ ${prompt ?? 'confirm on your Ledger'}`);
    else if (stage !== 'done' && stage !== 'failed')
      this.say(`… ${stage.replaceAll('-', ' ')}${retry ? ' (again, in a fresh worker)' : ''}`);
  };

  stop(): void {
    clearInterval(this.#timer);
  }
}

/** The lines of the step running now. */
let progress: StepLines | undefined;

/** A progress event of the step running now (the provider's `onProgress`). */
export function stepProgress(event: ProgressEvent): void {
  progress?.progress(event);
}

/** A line of the step running now, stamped with its seconds. */
export function stepSay(text: string): void {
  progress?.say(text);
}

export async function step<T>(title: string, run: () => Promise<T>): Promise<T> {
  console.log(`\n▶ ${title}`);
  const start = performance.now();
  progress = new StepLines();
  let result: T;
  try {
    result = await run();
  } finally {
    progress.stop();
    progress = undefined;
  }
  console.log(`   done in ${(performance.now() - start).toFixed(0)} ms`);
  summary.ran.push(title);
  return result;
}

/** A step the device cannot do without the chain-ledger extension: say what it lacks, and go on. */
export function lacksExtension(title: string, what: string, reason?: string): void {
  console.log(`\n▷ ${title}`);
  console.log(`   skipped: the device lacks ${what} (chain-ledger extension, docs/apdu-extensions.md)${reason ? `; ${reason}` : ''}`);
  summary.needsExtension.push(title);
}

export function printSummary(deviceLabel: string): void {
  console.log(`\n── summary (${deviceLabel}) ${'─'.repeat(30)}`);
  console.log(`   ran (${summary.ran.length} steps, each device step approved on the device):`);
  for (const title of summary.ran) console.log(`     ✔ ${title}`);
  if (summary.needsExtension.length > 0) {
    console.log(`   needs the chain-ledger extension, which this device lacks (${summary.needsExtension.length}):`);
    for (const title of summary.needsExtension) console.log(`     – ${title}`);
  }
}

export const isNotSupported = (error: unknown) =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 20006;

export function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`verification failed: ${what}`);
  console.log(`   ✔ ${what}`);
}

export function show(sig: MinaSignature): void {
  console.log(`   signature ${signatureToBase58(sig)}`);
}
