/**
 * The provider's events, as Auro's provider (an EventEmitter) delivers them. A listener that throws is the page's
 * problem: it never breaks the provider nor stops the other listeners.
 *
 * Listener bookkeeping follows Node's EventEmitter: the same listener added twice is called twice (and needs two
 * `off`s); `off` removes its most recently added instance; a `once` listener is removed before it is called (and runs
 * once even if a listener emits the same event again) and can be removed with `off(event, listener)` before it
 * fires; an emit calls the listeners registered when it started.
 */
import type { ProviderError } from '../errors/provider-error.js';

/** Events as Auro's provider (an EventEmitter) delivers them. */
export interface ProviderEventMap {
  accountsChanged: [accounts: string[]];
  disconnect: [error: ProviderError];
  chainChanged: [chain: { networkID: string }];
}
export type EventName = keyof ProviderEventMap;
export type Listener<E extends EventName> = (...args: ProviderEventMap[E]) => void;
type AnyListener = (...args: unknown[]) => void;
/** A registration: the listener as given, and whether it is removed when it first fires. */
interface Entry {
  listener: AnyListener;
  once: boolean;
  fired?: boolean;
}

export class ProviderEvents {
  readonly #listeners = new Map<EventName, Entry[]>();

  on<E extends EventName>(event: E, listener: Listener<E>): void {
    this.#add(event, { listener: listener as AnyListener, once: false });
  }

  /** Like `on`, but the listener is removed before it is first called. */
  once<E extends EventName>(event: E, listener: Listener<E>): void {
    this.#add(event, { listener: listener as AnyListener, once: true });
  }

  /** Removes the most recently added instance of `listener` (added with `on` or `once`). */
  off<E extends EventName>(event: E, listener: Listener<E>): void {
    const entries = this.#listeners.get(event);
    if (!entries) return;
    for (let i = entries.length - 1; i >= 0; i--) {
      if (entries[i]!.listener === listener) {
        this.#remove(event, entries[i]!);
        return;
      }
    }
  }

  /** Removes every listener of `event`, or of every event. */
  clear(event?: EventName): void {
    if (event === undefined) this.#listeners.clear();
    else this.#listeners.delete(event);
  }

  emit<E extends EventName>(event: E, ...args: ProviderEventMap[E]): void {
    for (const entry of [...(this.#listeners.get(event) ?? [])]) {
      if (entry.once) {
        // Runs at most once, even when a listener before it emits the same event again; removed before it runs.
        if (entry.fired) continue;
        entry.fired = true;
        this.#remove(event, entry);
      }
      try {
        entry.listener(...args);
      } catch {
        // A page's listener error is the page's; it must not break the provider.
      }
    }
  }

  #remove(event: EventName, entry: Entry): void {
    const entries = this.#listeners.get(event);
    const index = entries?.indexOf(entry) ?? -1;
    if (index < 0) return;
    entries!.splice(index, 1);
    if (entries!.length === 0) this.#listeners.delete(event);
  }

  #add(event: EventName, entry: Entry): void {
    const entries = this.#listeners.get(event);
    if (entries) entries.push(entry);
    else this.#listeners.set(event, [entry]);
  }
}
