/**
 * What the CLI tells a Ledger holder on stderr: progress lines with the seconds since the command started, and
 * errors in the CLI's own words (its flags, not the provider's option names).
 */
import type { DeviceAction, ProgressEvent } from '../provider/options.js';
import type { ProgressStage } from '../util/progress.js';

const STAGE_TEXT: Partial<Record<ProgressStage, string>> = {
  'loading-prover': 'loading o1js and mina-attestations',
  'awaiting-approval': 'the presentation request is shown above: answer it',
  compiling: 'compiling the presentation circuit (20–90 s on 2 busy cores; the most the first time, before its keys are cached)',
  'unlock-device': 'unlock your Ledger',
  'open-app': 'open the Mina app on your Ledger',
  proving: 'proving',
  broadcasting: 'broadcasting',
};

/**
 * The progress lines of one command, from the provider's `onProgress` stages (loading, compiling, the device's
 * prompts, proving, broadcasting). `onDeviceAction` prints a device prompt only where no `confirm-on-device` stage
 * tells it (a provider that reports none, or a prompt the provider keeps from the stages: the store key during a
 * presentation's review), so a prompt is never printed twice. While a call is silent for long (a first compile, a
 * proof), a line every `quietMs` says it is still working.
 */
export class ProgressLines {
  readonly #started = performance.now();
  readonly #write: (text: string) => void;
  readonly #quietMs: number;
  /** How many `confirm-on-device` stages came: a device action's prompt is printed unless one tells it. */
  #promptStages = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  #lastLine = performance.now();

  constructor(write: (text: string) => void, quietMs = 10_000) {
    this.#write = write;
    this.#quietMs = quietMs;
  }

  /** A line, stamped with the seconds since the command started. */
  say(text: string): void {
    this.#lastLine = performance.now();
    this.#write(`${text} (${((this.#lastLine - this.#started) / 1000).toFixed(1)} s)`);
  }

  /** For `onDeviceAction`. */
  readonly deviceAction = ({ status, prompt }: DeviceAction): void => {
    if (status !== 'confirm') return;
    // A provider that reports stages tells the same prompt as `confirm-on-device` right after this (in the same
    // task): printed once, from there.
    const before = this.#promptStages;
    queueMicrotask(() => {
      if (this.#promptStages === before) this.say(`⏳ ${prompt}`);
    });
  };

  /** For `onProgress`. */
  readonly progress = (event: ProgressEvent): void => {
    if (event.stage === 'confirm-on-device') this.#promptStages++;
    if (event.stage === 'confirm-on-device') this.say(`⏳ ${event.prompt ?? 'confirm on your Ledger'}`);
    else if (STAGE_TEXT[event.stage]) this.say(`… ${STAGE_TEXT[event.stage]}${event.retry ? ' (again, in a fresh worker)' : ''}`);
  };

  /** Starts the "still working" lines for a call that may be long. */
  watch(): void {
    this.#timer ??= setInterval(() => {
      if (performance.now() - this.#lastLine >= this.#quietMs) this.say('… still working');
    }, 1000);
    this.#timer.unref?.();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/** The provider's option names, as the CLI's flags (an error reason is read by someone at a terminal). */
const FLAG_WORDS: [RegExp, string][] = [
  [/\bonlySign: true\b/g, '--only-sign'],
  [/\bgraphqlUrl\b/g, '--graphql URL'],
  [/\bgraphqlHeaders\b/g, '--graphql-header'],
  [/\baccountIndex\b/g, '--account'],
  [/\bcredentialStore\b/g, '--credentials'],
  [/call requestAccounts\(\) first/g, 'connect first'],
];

/** What each code means, for a terminal (the JSON on stdout keeps the provider's own message). */
const CODE_TEXT: Record<number, string> = {
  1001: 'no Ledger connection',
  1002: 'rejected',
  20003: 'invalid input',
  20006: 'not supported',
  21001: 'the transaction failed',
  22001: 'internal error',
  23001: 'origin mismatch',
};

/** One line for a failed command: `✖ <code> <what it means>: <why>`, the provider's option names as flags. */
export function failureLine(error: { code: number; message: string; data?: { reason: string; field?: string } }): string {
  const reason = FLAG_WORDS.reduce((text, [pattern, flag]) => text.replace(pattern, flag), error.data?.reason ?? error.message);
  return `✖ ${error.code} ${CODE_TEXT[error.code] ?? error.message}: ${reason}`;
}
