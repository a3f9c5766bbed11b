/**
 * The wallet window a connector opened, and whether it is still the wallet. The connector (./connector.ts) keeps the
 * calls; this module keeps the window:
 *
 * - **Its name is random**: `chain-ledger-wallet-` and 128 random bits, a new one for each window the connector
 *   opens. A script that does not hold the window's WindowProxy (another frame of the page, another window of the
 *   browsing context group) cannot find it with `window.open('', name)`; a page that replaced the window's document
 *   reads the name there (`window.name` outlives a navigation in a popup), so the next window gets another.
 * - **Its messages are the browser's**: only a trusted `MessageEvent`, read through the page's own `MessageEvent`
 *   getters (`messageEventReader`), whose `source` is this window and whose `origin` is the wallet's, is read.
 * - **It must keep answering**: the handshake names the window (`hello { name }`: the wallet page compares it with
 *   its own `window.name`); then the connector pings it, and the wallet page answers from its message handler (a
 *   message is delivered at once to a hidden window, whose timers the browser may throttle to one a second or one a
 *   minute); the wallet page says `bye` on `pagehide`. The window is no longer the wallet once it was closed, went to
 *   another page (a `bye` that no new wallet document's `ready` follows), or left the handshake or a ping unanswered:
 *   each is noticed within `livenessTimeoutMs`, and the connector then closes the window (a look-alike in it goes
 *   with it) and opens a new one for the next call.
 */
import type { ConnectorWindow, DappMessage, WalletMessage, WalletWindow } from './protocol.js';
import { CONNECT_PROTOCOL, readWalletMessage } from './protocol.js';

/** How often the connector looks whether the user closed the wallet window. */
const CLOSED_POLL_MS = 300;
/**
 * A tick of this page's clock this much later than it was set for: this page was held back (its main thread busy, its
 * tab throttled or frozen, the machine asleep), and an answer of the wallet may be waiting in its queue: the wait
 * starts again (measured: a dapp page busy loading o1js ran the deadline before the pong that had arrived meanwhile).
 */
const LATE_MS = 1_000;

/** How soon, by default, the connector notices that its wallet window is no longer the wallet (ConnectWalletOptions). */
export const DEFAULT_LIVENESS_TIMEOUT_MS = 10_000;

/** A fresh window name: `chain-ledger-wallet-` and 128 random bits (crypto.getRandomValues), base64url. */
export function randomWindowName(): string {
  const bits = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
  return `chain-ledger-wallet-${bits.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
}

/** What a message event says, as the browser made it. */
export interface ReadEvent {
  data: unknown;
  origin: string;
  source: unknown;
}

const apply = Reflect.apply;

/** The getter of `name` on `target` or its prototypes. */
function getterOf(target: object, name: string): (() => unknown) | undefined {
  for (let at: object | null = target; at !== null; at = Object.getPrototypeOf(at)) {
    const get = Object.getOwnPropertyDescriptor(at, name)?.get;
    if (get) return get;
  }
  return undefined;
}

/**
 * Reads message events as the browser delivered them, through the getters of `realm`'s `MessageEvent` taken now:
 * undefined for anything else. An object a script made up is refused by the getters (they read only real events); a
 * `new MessageEvent(…)` a script dispatched is not trusted; a real event whose `origin` or `source` a script
 * redefined on it is read for what the browser set. (A script that ran before the connector was created could have
 * replaced the getters themselves: the in-page limit, docs/security.md.)
 */
export function messageEventReader(realm: ConnectorWindow): (event: unknown) => ReadEvent | undefined {
  const Events = realm.MessageEvent ?? globalThis.MessageEvent;
  const [data, origin, source] = ['data', 'origin', 'source'].map((name) => getterOf(Events.prototype, name));
  const isTrusted = getterOf(new Events('message'), 'isTrusted');
  if (!data || !origin || !source || !isTrusted) throw new TypeError('no MessageEvent to read messages with: pass { window } explicitly');
  return (event) => {
    try {
      if (apply(isTrusted, event, []) !== true) return undefined;
      const from = apply(origin, event, []);
      return typeof from === 'string' ? { data: apply(data, event, []), origin: from, source: apply(source, event, []) } : undefined;
    } catch {
      return undefined; // not an event of this realm
    }
  };
}

/** What the connector is told of its wallet window. */
export interface WalletWindowEvents {
  /** The wallet page in the window answered the handshake: calls can be sent. */
  welcome(message: Extract<WalletMessage, { type: 'welcome' }>): void;
  /** A result, an error, an event or a progress message of the wallet page. */
  message(message: Exclude<WalletMessage, { type: 'ready' | 'welcome' | 'pong' | 'bye' }>): void;
  /** A new wallet page replaced the one that had the calls sent so far (the window was reloaded): they are gone. */
  reloaded(): void;
  /** The window is no longer the wallet (`reason` says why): it was closed (by the user, or now by the connector). */
  gone(reason: string): void;
}

export interface WalletWindowOptions {
  url: string;
  features: string;
  walletOrigin: string;
  /** The page's `messageEventReader`. */
  read: (event: unknown) => ReadEvent | undefined;
  livenessTimeoutMs: number;
}

/**
 * `loading` until the wallet page says `ready`; `handshake` until it answers `hello`; `ready` while it answers pings;
 * `left` after its `bye`, until a new wallet page says `ready` (a reload) or the bound passes; `gone` at the end.
 */
type Phase = 'loading' | 'handshake' | 'ready' | 'left' | 'gone';

export class WalletWindowLink {
  readonly #proxy: WalletWindow;
  readonly #name: string;
  readonly #options: WalletWindowOptions;
  readonly #events: WalletWindowEvents;
  readonly #poll: ReturnType<typeof setInterval>;
  /** The time between pings, and the tick of every wait. */
  readonly #intervalMs: number;
  /** How long the wallet has to answer (the handshake, a ping, a `ready` after its `bye`): the rest of the bound. */
  readonly #answerMs: number;
  #phase: Phase = 'loading';
  /** The one timer of the phase: a tick of the handshake's wait, a ping's or `left`'s, or the pause before a ping. */
  #timer: ReturnType<typeof setTimeout> | undefined;
  #ping = 0;

  /** Opens the wallet under a fresh name with `open` (the page's `window.open`); undefined when the browser blocked it. */
  static open(open: ConnectorWindow['open'], options: WalletWindowOptions, events: WalletWindowEvents): WalletWindowLink | undefined {
    const name = randomWindowName();
    const proxy = open(options.url, name, options.features);
    return proxy ? new WalletWindowLink(proxy, name, options, events) : undefined;
  }

  private constructor(proxy: WalletWindow, name: string, options: WalletWindowOptions, events: WalletWindowEvents) {
    this.#proxy = proxy;
    this.#name = name;
    this.#options = options;
    this.#events = events;
    this.#intervalMs = options.livenessTimeoutMs / 5;
    this.#answerMs = options.livenessTimeoutMs - this.#intervalMs;
    this.#poll = setInterval(() => this.#proxy.closed && this.drop('the wallet window was closed'), CLOSED_POLL_MS);
  }

  /** The wallet page answered the handshake and answers pings: calls are sent to it. */
  get ready(): boolean {
    return this.#phase === 'ready';
  }

  /** Closed by the user, or no longer the wallet. */
  get closed(): boolean {
    return this.#phase === 'gone' || this.#proxy.closed;
  }

  /** Posts to the wallet's origin only: a document of any other origin in the window receives nothing. */
  post(message: DappMessage): void {
    if (this.#phase !== 'gone') this.#proxy.postMessage(message, this.#options.walletOrigin);
  }

  /** A message event the dapp's window received: acted on only if the browser delivered it from the wallet page in this window. */
  receive(raw: unknown): void {
    const event = this.#phase === 'gone' ? undefined : this.#options.read(raw);
    if (event === undefined || event.origin !== this.#options.walletOrigin) return;
    const message = readWalletMessage(event.data);
    if (message === undefined) return;
    if (message.type === 'bye') {
      // Posted in the page's `pagehide`: when the window goes to another site, Chromium delivers it with no source
      // (measured in the packaged Chromium). It names the window it leaves, a name only that wallet page knows.
      if (message.name === this.#name && (event.source === this.#proxy || event.source === null)) this.#bye();
      return;
    }
    if (event.source !== this.#proxy) return;
    if (message.type === 'ready') this.#handshake();
    else if (message.type === 'welcome') this.#welcome(message);
    else if (message.type === 'pong') this.#pong(message.id);
    else this.#events.message(message);
  }

  /** Ends it: no more messages are read or sent, the window is closed, the connector is told why. */
  drop(reason: string): void {
    if (this.#phase === 'gone') return;
    this.#phase = 'gone';
    clearTimeout(this.#timer);
    clearInterval(this.#poll);
    try {
      if (!this.#proxy.closed) this.#proxy.close?.();
    } catch {
      // Closed meanwhile, or not closable: the connector has dropped it either way.
    }
    this.#events.gone(reason);
  }

  /** A wallet page loaded in the window (the first, or a new one: the window was reloaded): it is asked for its site. */
  #handshake(): void {
    if (this.#phase === 'ready' || this.#phase === 'left') this.#events.reloaded();
    this.#phase = 'handshake';
    this.post({ protocol: CONNECT_PROTOCOL, type: 'hello', name: this.#name });
    this.#afterFree(() =>
      this.drop(
        `the wallet page did not answer the handshake within ${this.#answerMs / 1000} s (it serves only a window its connector opened)`,
      ),
    );
  }

  #welcome(message: Extract<WalletMessage, { type: 'welcome' }>): void {
    if (this.#phase !== 'handshake') return;
    this.#phase = 'ready';
    this.#events.welcome(message);
    if (this.#phase === 'ready') this.#heartbeat();
  }

  #pong(id: number): void {
    if (this.#phase === 'ready' && id === this.#ping) {
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => this.#heartbeat(), this.#intervalMs);
    }
  }

  /** The wallet page is going away: reloaded (a new wallet page says ready) or gone to another page (nothing does). */
  #bye(): void {
    if (this.#phase !== 'handshake' && this.#phase !== 'ready') return;
    this.#phase = 'left';
    this.#afterFree(() => this.drop('the wallet window navigated away to another page'));
  }

  #heartbeat(): void {
    this.post({ protocol: CONNECT_PROTOCOL, type: 'ping', id: ++this.#ping });
    this.#afterFree(() => this.drop(`the wallet window stopped answering (no answer within ${this.#answerMs / 1000} s)`));
  }

  /**
   * Calls `then` once this page has had the answer's time (`#answerMs`) free to read the wallet's answer, counted in
   * ticks of the ping interval. A tick held back by more than LATE_MS starts the count again, so a throttled, busy or
   * suspended dapp page notices later, never wrongly: what the wallet sent meanwhile is read before the next tick.
   */
  #afterFree(then: () => void): void {
    let free = 0;
    let last = Date.now();
    const tick = () => {
      const now = Date.now();
      free = now - last > this.#intervalMs + LATE_MS ? 0 : free + (now - last);
      last = now;
      if (free >= this.#answerMs) then();
      else this.#timer = setTimeout(tick, this.#intervalMs);
    };
    clearTimeout(this.#timer);
    this.#timer = setTimeout(tick, this.#intervalMs);
  }
}
