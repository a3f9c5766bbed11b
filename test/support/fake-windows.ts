/**
 * A model of what chain-ledger/connect relies on in a browser, for Node tests: windows with origins and names,
 * `window.open` (a name finds the window already open under it), navigation (`pagehide`, then another document),
 * and `postMessage` as browsers deliver it (asynchronously, structured-cloned, as a `MessageEvent` with the sender's
 * origin and the receiver's view of the sender's window as `source`, dropped when `targetOrigin` is not the
 * receiver's origin). The real thing runs in Chromium in test/e2e/web-dapp.browser.test.ts; this is where the
 * protocol's cases are cheap to enumerate.
 */
import type { ConnectorWindow, WalletWindow } from '../../src/connect/connector.js';
import type { DappWindow, HostWindow } from '../../src/wallet/host.js';

type MessageListener = (event: MessageEvent) => void;

/** One delivered message, as a listener receives it. */
interface Delivered {
  data: unknown;
  origin: string;
  source: unknown;
  isTrusted: boolean;
}

/** Whether each event is the browser's (true) or a script's `new MessageEvent(…)` (false); nothing else is an event. */
const trusted = new WeakMap<object, boolean>();

/** The `isTrusted` getter of every event: it reads real events only (Chromium's throws "Illegal invocation" too). */
const isTrustedGetter = function (this: object): boolean {
  const value = trusted.get(this);
  if (value === undefined) throw new TypeError('Illegal invocation');
  return value;
};

/**
 * A `MessageEvent` as browsers make them: `data`, `origin` and `source` are getters of the prototype that read only
 * real events (for anything else they throw); `isTrusted` is an own, unforgeable property of each event, true only
 * for the events the browser delivered. `new FakeMessageEvent(…)` is what a page script can make: never trusted.
 */
export class FakeMessageEvent {
  readonly type: string;
  readonly #data: unknown;
  readonly #origin: string;
  readonly #source: unknown;
  declare readonly isTrusted: boolean;

  constructor(type: string, init: { data?: unknown; origin?: string; source?: unknown } = {}) {
    this.type = type;
    this.#data = init.data;
    this.#origin = init.origin ?? '';
    this.#source = init.source ?? null;
    trusted.set(this, false);
    Object.defineProperty(this, 'isTrusted', { get: isTrustedGetter, enumerable: true, configurable: false });
  }

  get data(): unknown {
    return this.#data;
  }

  get origin(): string {
    return this.#origin;
  }

  get source(): unknown {
    return this.#source;
  }
}

/** An event the browser delivers (trusted). */
function browserEvent(init: { data: unknown; origin: string; source: unknown }): FakeMessageEvent {
  const event = new FakeMessageEvent('message', init);
  trusted.set(event, true);
  return event;
}

export class FakeWindow extends EventTarget implements ConnectorWindow, HostWindow {
  readonly location: { origin: string };
  /** `self.origin`: 'null' in a sandboxed frame, whose `location.origin` is still the site's. */
  readonly sandboxed: boolean;
  readonly MessageEvent = FakeMessageEvent as unknown as NonNullable<ConnectorWindow['MessageEvent']>;
  opener: (DappWindow & WalletWindow) | null = null;
  /** The name `window.open` gave it ('' for a window opened without one). */
  name = '';
  closed = false;
  /** Its page's main thread is stuck (or the page frozen): messages to it wait until `resume()`. */
  hung = false;
  /**
   * Its page is in its `pagehide` while the window goes to another origin: what it posts then arrives with no
   * `source`, as Chromium delivers it (measured: the wallet page's bye in the packaged Chromium).
   */
  leaving = false;
  /** What `open` returns (default: a new window at the URL's origin; `null` models a blocked popup). */
  onOpen: (url: string) => FakeWindow | null = (url) => new FakeWindow(new URL(url).origin);
  /** The windows this one opened, newest last. */
  readonly opened: FakeWindow[] = [];
  /** Every message this window received, whoever sent it. */
  readonly received: Delivered[] = [];
  readonly #listeners = new Set<MessageListener>();
  readonly #held: (() => void)[] = [];
  readonly #pagehide = new Set<() => void>();
  readonly #proxies = new Map<FakeWindow, WalletWindow & DappWindow>();
  /** Extra properties dapps and wallets put on `window` (`chain`, `mina`). */
  [key: string]: unknown;

  constructor(origin: string, options: { sandboxed?: boolean } = {}) {
    super();
    this.location = { origin };
    this.sandboxed = options.sandboxed ?? false;
  }

  get origin(): string {
    return this.sandboxed ? 'null' : this.location.origin;
  }

  /** This window as `viewer` holds it (its WindowProxy): posting through it sends from `viewer`. */
  proxyFor(viewer: FakeWindow): WalletWindow & DappWindow {
    let proxy = this.#proxies.get(viewer);
    if (!proxy) {
      const target = this;
      proxy = {
        get closed() {
          return target.closed;
        },
        postMessage: (message: unknown, targetOrigin: string) => target.deliver(viewer, message, targetOrigin),
        close: () => target.close(),
      };
      this.#proxies.set(viewer, proxy);
    }
    return proxy;
  }

  /** As browsers: a window this one opened under `name`, still open, is found again (named ones only). */
  open(url: string, name = ''): WalletWindow | null {
    const named = name === '' ? undefined : this.opened.find((w) => w.name === name && !w.closed);
    if (named) return named.proxyFor(this);
    const opened = this.onOpen(url);
    if (!opened) return null;
    opened.name = name;
    opened.opener = this.proxyFor(opened);
    this.opened.push(opened);
    return opened.proxyFor(this);
  }

  /** Navigates to another origin: the same window (proxies keep working), another site in it. */
  navigate(origin: string): void {
    this.location.origin = origin;
  }

  /**
   * The window loads another page (a script navigated it, or the user reloaded it): the old page's `pagehide`, its
   * listeners gone with it, then the new page at `origin` (its name kept, as a popup's is).
   */
  loadPage(origin: string): void {
    this.leaving = origin !== this.location.origin;
    for (const listener of [...this.#pagehide]) listener();
    this.leaving = false;
    this.#pagehide.clear();
    this.#listeners.clear();
    this.location.origin = origin;
  }

  deliver(from: FakeWindow, message: unknown, targetOrigin: string): void {
    // As the browser: the data is copied and the sender's origin taken now (a DataCloneError throws in the sender),
    // the message delivered later, if the receiver is then at targetOrigin.
    const data = structuredClone(message);
    const origin = from.location.origin;
    const source = from.leaving ? null : this.proxyForSource(from);
    const arrive = () => {
      if (this.closed) return;
      if (this.hung) return void this.#held.push(arrive);
      if (targetOrigin !== '*' && targetOrigin !== this.location.origin) return;
      const delivered: Delivered = { data, origin, source, isTrusted: true };
      this.received.push(delivered);
      const event = browserEvent(delivered);
      for (const listener of [...this.#listeners]) listener(event as unknown as MessageEvent);
    };
    setTimeout(arrive);
  }

  /** Its page's main thread is free again: the messages that waited are delivered, in order. */
  resume(): void {
    this.hung = false;
    for (const arrive of this.#held.splice(0)) setTimeout(arrive);
  }

  /** How this window sees `from` as an event's source: its own proxy of it. */
  proxyForSource(from: FakeWindow): WalletWindow & DappWindow {
    return from.proxyFor(this);
  }

  /** A script of this window dispatches a `new MessageEvent(…)` of its own (isTrusted false), claiming `origin` and `source`. */
  forge(data: unknown, origin: string, source: unknown): void {
    const event = new FakeMessageEvent('message', { data, origin, source });
    for (const listener of [...this.#listeners]) listener(event as unknown as MessageEvent);
  }

  /**
   * A script of this window that captured the message listeners (it replaced `addEventListener` before they were
   * added) calls them with `event`: any value it likes.
   */
  callListeners(event: unknown): void {
    for (const listener of [...this.#listeners]) listener(event as MessageEvent);
  }

  override addEventListener(type: string, listener: EventListenerOrEventListenerObject | MessageListener | (() => void) | null): void {
    if (type === 'message') this.#listeners.add(listener as MessageListener);
    else if (type === 'pagehide') this.#pagehide.add(listener as () => void);
    else super.addEventListener(type, listener as EventListenerOrEventListenerObject);
  }

  override removeEventListener(type: string, listener: EventListenerOrEventListenerObject | MessageListener | (() => void) | null): void {
    if (type === 'message') this.#listeners.delete(listener as MessageListener);
    else if (type === 'pagehide') this.#pagehide.delete(listener as () => void);
    else super.removeEventListener(type, listener as EventListenerOrEventListenerObject);
  }

  close(): void {
    if (this.closed) return;
    for (const listener of [...this.#pagehide]) listener();
    this.closed = true;
  }
}

/** Lets every message posted so far (and the work it starts, up to `rounds` hops) be delivered. */
export async function settle(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}
