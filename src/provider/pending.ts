/**
 * The device calls of one provider (one origin) that wait for the Ledger or run on it: at most `limit` at a time and
 * at most `perMinute` started in any 60 seconds (Auro limits each origin the same way), so a page cannot queue
 * hundreds of device prompts, and all of them can be rejected at once (Auro's "reject all").
 */
import { ErrorCode, ProviderError } from './to-provider-error.js';

/** Default of `maxPendingCalls`: more than a real page queues, far fewer than a flood. */
export const DEFAULT_MAX_PENDING_CALLS = 32;
const WINDOW_MS = 60_000;

export class PendingCalls {
  readonly limit: number;
  readonly perMinute: number;
  readonly #controllers = new Set<AbortController>();
  /** Start times of the calls of the last 60 s, oldest first. */
  readonly #starts: number[] = [];
  readonly #now: () => number;

  constructor(limit: number, perMinute = Infinity, now: () => number = Date.now) {
    this.limit = limit;
    this.perMinute = perMinute;
    this.#now = now;
  }

  get size(): number {
    return this.#controllers.size;
  }

  /**
   * Registers a call: 1002 at once when `limit` calls are already pending. The returned signal aborts when the
   * caller's does or when `rejectAll()` runs; `leave()` when the call has settled.
   */
  enter(signal?: AbortSignal): { signal: AbortSignal; leave: () => void } {
    signal?.throwIfAborted();
    if (this.#controllers.size >= this.limit) {
      throw new ProviderError(ErrorCode.UserRejected, {
        reason: `too many requests are waiting for the Ledger (${this.limit}); try again when they are answered`,
      });
    }
    if (this.perMinute === Infinity) return this.#register(signal);
    const now = this.#now();
    while (this.#starts.length > 0 && now - this.#starts[0]! >= WINDOW_MS) this.#starts.shift();
    if (this.#starts.length >= this.perMinute) {
      throw new ProviderError(ErrorCode.UserRejected, {
        reason: `rate limit: at most ${this.perMinute} requests to the Ledger a minute; try again later`,
      });
    }
    this.#starts.push(now);
    return this.#register(signal);
  }

  #register(signal?: AbortSignal): { signal: AbortSignal; leave: () => void } {
    const controller = new AbortController();
    this.#controllers.add(controller);
    return {
      signal: signal ? AbortSignal.any([signal, controller.signal]) : controller.signal,
      leave: () => this.#controllers.delete(controller),
    };
  }

  /** Rejects every pending call (1002 at once, as an abort); returns how many there were. */
  rejectAll(): number {
    const all = [...this.#controllers];
    this.#controllers.clear();
    for (const controller of all) controller.abort(new DOMException('every pending request was rejected', 'AbortError'));
    return all.length;
  }
}
