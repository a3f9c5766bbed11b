/**
 * What one provider call tells the integrator while it runs: `onProgress` stages (src/util/progress.ts) and the
 * older `onDeviceAction` prompts, kept in step by these rules:
 *
 * - every `onDeviceAction({ status: 'confirm' })` is also the stage `confirm-on-device`, with the same prompt (and a
 *   domain that reports `confirm-on-device` gets the `confirm` as well);
 * - `onDeviceAction`'s `done` fires when the device step ends: when the call moves on to host work after a prompt
 *   (loading the prover, compiling, proving, broadcasting), and when the call lets go of the device, unless the
 *   last action already was `done`; so a UI can drop "Confirm on your Ledger" before the proof starts;
 * - every call ends with exactly one `done` or `failed` stage;
 * - a listener that throws is logged through `onHostLog` and never breaks the call;
 * - while a step runs `privately` (a presentation's store unlocking during the holder's review), its stages reach
 *   `onDeviceAction` (the host's prompt) but not `onProgress` (which a wallet forwards to the page).
 */
import type { ProgressStage, ReportProgress } from '../util/progress.js';
import type { DeviceAction, LedgerProviderOptions } from './options.js';

/** Stages of work on the host (or of the holder in the wallet's window): reaching one ends the device step before it. */
const HOST_WORK: ReadonlySet<ProgressStage> = new Set([
  'loading-prover',
  'compiling',
  'waiting-for-prover-window',
  'proving',
  'broadcasting',
]);

/** The reports of one call (one per public call; a call that `request()` dispatches shares the request's). */
export class CallReport {
  #method: string;
  readonly #started = performance.now();
  readonly #hooks: Pick<LedgerProviderOptions, 'onProgress' | 'onDeviceAction'>;
  readonly #hostLog: (message: string) => void;
  #lastAction: DeviceAction['status'] | undefined;
  #ended = false;
  /** Steps running `privately`: their stages are not told to `onProgress`. */
  #private = 0;

  constructor(method: string, hooks: Pick<LedgerProviderOptions, 'onProgress' | 'onDeviceAction'>, hostLog: (message: string) => void) {
    this.#method = method;
    this.#hooks = hooks;
    this.#hostLog = hostLog;
  }

  /** The call's method: `request()` names it once it knows which method it runs. */
  get method(): string {
    return this.#method;
  }
  set method(method: string) {
    this.#method = method;
  }

  /** A stage, as a domain reports it (`ReportProgress`); the call's own end is the provider's to report. */
  readonly progress: ReportProgress = (stage, extra = {}) => {
    if (stage === 'done' || stage === 'failed') return;
    if (stage === 'confirm-on-device') return this.confirm(extra.prompt ?? '');
    // Unlocking the device and opening the Mina app on it (a transport with device actions) are the user's too.
    if (stage === 'unlock-device' || stage === 'open-app') this.#action('confirm', extra.prompt ?? '');
    if (HOST_WORK.has(stage)) this.#endDeviceStep();
    this.#emit(stage, extra);
  };

  /** The device now shows a review: what the user should do there. */
  readonly confirm = (prompt: string): void => {
    this.#action('confirm', prompt);
    this.#emit('confirm-on-device', { prompt });
  };

  /**
   * Runs `step` with its stages kept from `onProgress` (device actions still go to `onDeviceAction`): what the host
   * shows the holder, never the page.
   */
  readonly privately = async <T>(step: () => Promise<T>): Promise<T> => {
    this.#private++;
    try {
      return await step();
    } finally {
      this.#private--;
    }
  };

  /** The call let go of the device. */
  deviceReleased(): void {
    this.#endDeviceStep();
  }

  /** The call settled: its one `done` or `failed`. */
  end(stage: 'done' | 'failed'): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#emit(stage, {});
  }

  #endDeviceStep(): void {
    if (this.#lastAction !== 'done') this.#action('done', '');
  }

  #action(status: DeviceAction['status'], prompt: string): void {
    this.#lastAction = status;
    try {
      this.#hooks.onDeviceAction?.({ method: this.#method, status, prompt });
    } catch {
      // A failing UI hook must not break the call.
    }
  }

  #emit(stage: ProgressStage, extra: { prompt?: string; retry?: boolean }): void {
    const { onProgress } = this.#hooks;
    if (!onProgress || (this.#private > 0 && stage !== 'done' && stage !== 'failed')) return;
    const elapsedMs = Math.round(performance.now() - this.#started);
    try {
      onProgress({ method: this.#method, stage, elapsedMs, ...definedOnly(extra) });
    } catch (error) {
      this.#hostLog(`onProgress threw at stage ${stage} of ${this.#method} (ignored): ${printable(error)}`);
    }
  }
}

/** `prompt` and `retry` when given, nothing else (an event has no `prompt: undefined`). */
function definedOnly(extra: { prompt?: string; retry?: boolean }): { prompt?: string; retry?: boolean } {
  return {
    ...(typeof extra.prompt === 'string' ? { prompt: extra.prompt } : {}),
    ...(typeof extra.retry === 'boolean' ? { retry: extra.retry } : {}),
  };
}

/** A thrown value as text for the host's log, whatever it is (even one whose `toString` throws). */
function printable(value: unknown): string {
  try {
    return String(value).slice(0, 200);
  } catch {
    return 'a value that cannot be printed';
  }
}
