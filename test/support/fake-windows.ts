/**
 * A model of what chain-ledger/connect relies on in a browser, for Node tests: windows with origins, `window.open`,
 * and `postMessage` as browsers deliver it (asynchronously, structured-cloned, with the sender's origin and the
 * receiver's view of the sender's window as `source`, dropped when `targetOrigin` is not the receiver's origin).
 * The real thing runs in Chromium in test/e2e/web-dapp.browser.test.ts; this is where the protocol's cases are
 * cheap to enumerate.
 */
import type { ConnectorWindow, WalletWindow } from '../../src/connect/connector.js';
import type { DappWindow, HostWindow } from '../../src/wallet/host.js';

type MessageListener = (event: MessageEvent) => void;

/** One delivered message, as a listener receives it (the browser's own events have isTrusted true). */
interface Delivered {
  data: unknown;
  origin: string;
  source: unknown;
  isTrusted: boolean;
}

export class FakeWindow extends EventTarget implements ConnectorWindow, HostWindow {
  readonly location: { origin: string };
  opener: (DappWindow & WalletWindow) | null = null;
  closed = false;
  /** What `open` returns (default: a new window at the URL's origin; `null` models a blocked popup). */
  onOpen: (url: string) => FakeWindow | null = (url) => new FakeWindow(new URL(url).origin);
  /** The windows this one opened, newest last. */
  readonly opened: FakeWindow[] = [];
  /** Every message this window received, whoever sent it. */
  readonly received: Delivered[] = [];
  readonly #listeners = new Set<MessageListener>();
  readonly #proxies = new Map<FakeWindow, WalletWindow & DappWindow>();
  /** Extra properties dapps and wallets put on `window` (`chain`, `mina`). */
  [key: string]: unknown;

  constructor(origin: string) {
    super();
    this.location = { origin };
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
      };
      this.#proxies.set(viewer, proxy);
    }
    return proxy;
  }

  open(url: string): WalletWindow | null {
    const opened = this.onOpen(url);
    if (!opened) return null;
    opened.opener = this.proxyFor(opened);
    this.opened.push(opened);
    return opened.proxyFor(this);
  }

  /** Navigates to another origin: the same window (proxies keep working), another site in it. */
  navigate(origin: string): void {
    this.location.origin = origin;
  }

  deliver(from: FakeWindow, message: unknown, targetOrigin: string, isTrusted = true): void {
    // As the browser: the data is copied now (a DataCloneError throws in the sender), delivered later.
    const data = structuredClone(message);
    setTimeout(() => {
      if (this.closed) return;
      if (targetOrigin !== '*' && targetOrigin !== this.location.origin) return;
      const event: Delivered = { data, origin: from.location.origin, source: this.proxyForSource(from), isTrusted };
      this.received.push(event);
      for (const listener of [...this.#listeners]) listener(event as unknown as MessageEvent);
    });
  }

  /** How this window sees `from` as an event's source: its own proxy of it. */
  proxyForSource(from: FakeWindow): WalletWindow & DappWindow {
    return from.proxyFor(this);
  }

  /** A script of this window makes up a message event (isTrusted false), claiming `origin` and `source`. */
  forge(data: unknown, origin: string, source: unknown): void {
    const event: Delivered = { data, origin, source, isTrusted: false };
    for (const listener of [...this.#listeners]) listener(event as unknown as MessageEvent);
  }

  override addEventListener(type: string, listener: EventListenerOrEventListenerObject | MessageListener | null): void {
    if (type === 'message') this.#listeners.add(listener as MessageListener);
    else super.addEventListener(type, listener as EventListenerOrEventListenerObject);
  }

  override removeEventListener(type: string, listener: EventListenerOrEventListenerObject | MessageListener | null): void {
    if (type === 'message') this.#listeners.delete(listener as MessageListener);
    else super.removeEventListener(type, listener as EventListenerOrEventListenerObject);
  }

  close(): void {
    this.closed = true;
  }
}

/** Lets every message posted so far (and the work it starts, up to `rounds` hops) be delivered. */
export async function settle(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}
