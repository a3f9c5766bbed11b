/**
 * The provider's events, as Auro's provider (an EventEmitter) delivers them. A listener that throws, or an async one
 * that rejects, is the page's problem: it never breaks the provider, never stops the other listeners and never becomes
 * an unhandled rejection (which ends a Node host). Each listener gets its own frozen copy of the payload, so a
 * listener registered first (any script of the page may be) cannot change what the ones after it see.
 *
 * Listener bookkeeping follows Node's EventEmitter: the same listener added twice is called twice (and needs two
 * `off`s); `off` removes its most recently added instance; a `once` listener is removed before it is called (and runs
 * once even if a listener emits the same event again) and can be removed with `off(event, listener)` before it
 * fires; an emit calls the listeners registered when it started.
 */
import { ProviderError } from '../errors/provider-error.js';

/** Events as Auro's provider (an EventEmitter) delivers them. */
export interface ProviderEventMap {
  accountsChanged: [accounts: string[]];
  disconnect: [error: ProviderError];
  chainChanged: [chain: { networkID: string }];
}
export type EventName = keyof ProviderEventMap;
export type Listener<E extends EventName> = (...args: ProviderEventMap[E]) => void;
/** An event map: each event's listener arguments (the provider's, or the connector's, which adds `progress`). */
type EventMap<M> = { [E in keyof M]: unknown[] };
type AnyListener = (...args: unknown[]) => void;
/** A registration: the listener as given, and whether it is removed when it first fires. */
interface Entry {
  listener: AnyListener;
  once: boolean;
  fired?: boolean;
}

export class ProviderEvents<M extends EventMap<M> = ProviderEventMap> {
  readonly #listeners = new Map<keyof M, Entry[]>();

  on<E extends keyof M>(event: E, listener: (...args: M[E]) => void): void {
    this.#add(event, { listener: listener as AnyListener, once: false });
  }

  /** Like `on`, but the listener is removed before it is first called. */
  once<E extends keyof M>(event: E, listener: (...args: M[E]) => void): void {
    this.#add(event, { listener: listener as AnyListener, once: true });
  }

  /** Removes the most recently added instance of `listener` (added with `on` or `once`). */
  off<E extends keyof M>(event: E, listener: (...args: M[E]) => void): void {
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
  clear(event?: keyof M): void {
    if (event === undefined) this.#listeners.clear();
    else this.#listeners.delete(event);
  }

  emit<E extends keyof M>(event: E, ...args: M[E]): void {
    for (const entry of [...(this.#listeners.get(event) ?? [])]) {
      if (entry.once) {
        // Runs at most once, even when a listener before it emits the same event again; removed before it runs.
        if (entry.fired) continue;
        entry.fired = true;
        this.#remove(event, entry);
      }
      try {
        const returned: unknown = entry.listener(...(args.map(frozenCopy) as unknown[]));
        // An async listener's rejection is the page's too: handled here, never an unhandled rejection.
        if (isThenable(returned)) Promise.resolve(returned).catch(ignore);
      } catch {
        // A page's listener error is the page's; it must not break the provider.
      }
    }
  }

  #remove(event: keyof M, entry: Entry): void {
    const entries = this.#listeners.get(event);
    const index = entries?.indexOf(entry) ?? -1;
    if (index < 0) return;
    entries!.splice(index, 1);
    if (entries!.length === 0) this.#listeners.delete(event);
  }

  #add(event: keyof M, entry: Entry): void {
    const entries = this.#listeners.get(event);
    if (entries) entries.push(entry);
    else this.#listeners.set(event, [entry]);
  }
}

const ignore = () => {};

function isThenable(value: unknown): value is PromiseLike<unknown> {
  try {
    return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
  } catch {
    return false; // a getter on `then` that throws: not awaited
  }
}

/**
 * A payload as one listener receives it: a deep copy, frozen (a listener that writes to it gets a TypeError, which
 * is its own). The payloads are the provider's own plain values (account lists, `{ networkID }`) and `ProviderError`s.
 */
function frozenCopy(value: unknown): unknown {
  if (value instanceof ProviderError) {
    const data = value.data === undefined ? undefined : (frozenCopy(value.data) as ProviderError['data']);
    return Object.freeze(new ProviderError(value.code, data));
  }
  if (Array.isArray(value)) return Object.freeze(value.map(frozenCopy));
  if (typeof value === 'object' && value !== null) {
    return Object.freeze(Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, frozenCopy(inner)])));
  }
  return value;
}
