/**
 * The provider's events, as Auro's provider (an EventEmitter) delivers them. A listener that throws is the page's
 * problem: it never breaks the provider nor stops the other listeners.
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

export class ProviderEvents {
  readonly #listeners = new Map<EventName, Set<AnyListener>>();

  on<E extends EventName>(event: E, listener: Listener<E>): void {
    if (!this.#listeners.has(event)) this.#listeners.set(event, new Set());
    this.#listeners.get(event)!.add(listener as AnyListener);
  }

  off<E extends EventName>(event: E, listener: Listener<E>): void {
    this.#listeners.get(event)?.delete(listener as AnyListener);
  }

  /** Removes every listener of `event`, or of every event. */
  clear(event?: EventName): void {
    if (event === undefined) this.#listeners.clear();
    else this.#listeners.delete(event);
  }

  emit<E extends EventName>(event: E, ...args: ProviderEventMap[E]): void {
    for (const listener of [...(this.#listeners.get(event) ?? [])]) {
      try {
        listener(...args);
      } catch {
        // A page's listener error is the page's; it must not break the provider.
      }
    }
  }
}
