/**
 * Wallet discovery, as Auro, Pallad, Clorio and `@mina-js/connect` do it (EIP-6963 style): a dapp dispatches
 * `mina:requestProvider` on `window`; every wallet answers with a `mina:announceProvider` CustomEvent whose
 * `detail` is `{ info: { slug, name, icon, rdns }, provider }` (frozen); wallets also announce once when they load.
 *
 * `install` puts the provider on `window.chain` (and, when asked, on `window.mina`, for dapps that only look there)
 * and announces it.
 *
 * Identity: the provider announces itself as what it is (slug `chain-ledger`, rdns `org.chain-ledger`) and never
 * sets `isAuro`, which is Auro's claim about itself, unless the integrator opts in (docs/provider.md, "Identity"):
 * `announceAsAuro` announces Auro's slug only (Auro's test dapp picks `info.slug === 'aurowallet' || provider.isAuro`);
 * `identity: 'auro'` also Auro's rdns `com.aurowallet` (what wagmina keys its Auro reading on) and `isAuro: true`, as
 * Clorio sets it.
 *
 * Events: a caller that finds the provider under this wallet's own identity is a mina-js caller (Auro's key on
 * `window.mina`, Auro's slug or `isAuro`): wagmina reads every such wallet's `chainChanged` as the network id string
 * and throws on Auro's `{ networkID }`. So what the default announcement hands out is a view of the provider
 * (`minaJsView`) whose `chainChanged` listeners get `'mina:devnet'`; `window.chain` / `window.mina` and the Auro
 * identities hand out the provider itself, with Auro's `{ networkID }`.
 */

/** The library's version, as `getWalletInfo()` answers it (test/provider/auro-methods.test.ts keeps it equal to package.json's). */
export const WALLET_VERSION = '0.1.0';

/** Who the wallet is; `icon` must be a `data:image/…` URI (the mina-js spec refuses anything else). */
export interface ProviderInfo {
  slug: string;
  name: string;
  icon: string;
  rdns: string;
}

/** `event.detail` of `mina:announceProvider`. */
export interface ProviderDetail<P = unknown> {
  readonly info: ProviderInfo;
  readonly provider: P;
}

/** Auro's slug, announced only with `announceAsAuro: true`. */
export const AURO_SLUG = 'aurowallet';

export const REQUEST_PROVIDER_EVENT = 'mina:requestProvider';
export const ANNOUNCE_PROVIDER_EVENT = 'mina:announceProvider';

/** A Ledger outline, 32×32, as an SVG data URI. */
const LEDGER_ICON =
  'data:image/svg+xml;base64,' +
  btoa(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#111"/>' +
      '<path d="M7 7h7v3H10v4H7zM18 7h7v7h-3v-4h-4zM7 18h3v4h4v3H7zM22 18h3v7h-7v-3h4z" fill="#fff"/></svg>',
  );

export const DEFAULT_PROVIDER_INFO: ProviderInfo = Object.freeze({
  slug: 'chain-ledger',
  name: 'Ledger (chain-ledger)',
  icon: LEDGER_ICON,
  rdns: 'org.chain-ledger',
});

/** Who the announcement says the wallet is: this wallet (default), or Auro (`'auro'`: slug, rdns and `isAuro`). */
export type WalletIdentity = 'chain-ledger' | 'auro';

/** Auro's rdns, announced only with `identity: 'auro'`. */
export const AURO_RDNS = 'com.aurowallet';

const LISTENER_METHODS = new Set<PropertyKey>(['on', 'once', 'off', 'removeListener', 'addListener', 'prependListener']);

/**
 * `provider` as mina-js callers read its events: the same provider (every method runs on it, bound; the same state,
 * the same listeners), but a `chainChanged` listener added through the view gets the network id as text
 * (`'mina:devnet'`, what wagmina reads for every wallet but Auro) instead of `{ networkID }`. Removing the listener
 * through the view removes what it added. A provider without `on` is returned as it is.
 *
 * @param provider - A `LedgerProvider` or the connector.
 * @returns The view.
 */
export function minaJsView<P>(provider: P): P {
  if (typeof provider !== 'object' || provider === null || typeof (provider as { on?: unknown }).on !== 'function') return provider;
  type Listener = (...args: unknown[]) => unknown;
  const wrappers = new WeakMap<Listener, Listener>();
  const wrap = (event: unknown, listener: unknown) => {
    if (event !== 'chainChanged' || typeof listener !== 'function') return listener;
    let wrapper = wrappers.get(listener as Listener);
    if (!wrapper) {
      wrapper = (chain: unknown, ...rest: unknown[]) =>
        (listener as Listener)((chain as { networkID?: unknown } | null)?.networkID ?? chain, ...rest);
      wrappers.set(listener as Listener, wrapper);
    }
    return wrapper;
  };
  const target = provider as object;
  const view: P = new Proxy(target, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key, object);
      if (typeof value !== 'function') return value;
      // Bound to the provider: its methods read private state, which a proxy as `this` does not have.
      if (!LISTENER_METHODS.has(key)) return value.bind(object);
      return (event: unknown, listener: unknown, ...rest: unknown[]) => {
        const returned: unknown = value.call(object, event, wrap(event, listener), ...rest);
        return returned === object ? view : returned; // `on` chains: on the view
      };
    },
  }) as P;
  return view;
}

/** The part of `window` discovery needs: an EventTarget (a real window, or a stand-in in Node). */
export type DiscoveryWindow = Pick<EventTarget, 'addEventListener' | 'removeEventListener' | 'dispatchEvent'>;

function checkInfo(info: ProviderInfo): ProviderInfo {
  for (const key of ['slug', 'name', 'icon', 'rdns'] as const) {
    if (typeof info?.[key] !== 'string' || info[key] === '') throw new TypeError(`provider info: ${key} must be a non-empty string`);
  }
  if (!info.icon.startsWith('data:image/')) throw new TypeError('provider info: icon must be a data:image/ URI');
  return Object.freeze({ slug: info.slug, name: info.name, icon: info.icon, rdns: info.rdns });
}

function currentWindow(): DiscoveryWindow {
  const w = (globalThis as { window?: DiscoveryWindow }).window;
  if (!w || typeof w.addEventListener !== 'function') throw new TypeError('no window: pass { window } explicitly');
  return w;
}

/**
 * Announces `provider` now and on every `mina:requestProvider` (the Mina wallet discovery events, as in
 * `@mina-js/connect`).
 *
 * @param provider - What dapps receive in `event.detail.provider`.
 * @param options - `info` (`{ slug, name, icon, rdns }`, default `DEFAULT_PROVIDER_INFO`), `window` (default the
 *   global `window`), `announceAsAuro` (default false: announce Auro's slug `aurowallet` instead of `info.slug`),
 *   `identity` (`'auro'`: Auro's slug and rdns, and `isAuro` on the provider). Under this wallet's own slug the
 *   announced provider is `minaJsView(provider)` (`chainChanged` as the network id text).
 * @returns A function that stops answering (and removes `isAuro`).
 * @throws `TypeError` when `identity` is neither `'chain-ledger'` nor `'auro'`, when `info` has an empty field or an icon that is not a `data:image/` URI, or when there is
 *   no `window` and none is passed.
 * @example
 * ```ts
 * const stop = announceProvider(chain, { info: { slug: 'my-wallet', name: 'My Wallet', icon: 'data:image/svg+xml,…', rdns: 'com.example.wallet' } });
 * ```
 */
export function announceProvider<P>(
  provider: P,
  options: { info?: ProviderInfo; window?: DiscoveryWindow; announceAsAuro?: boolean; identity?: WalletIdentity } = {},
): () => void {
  const target = options.window ?? currentWindow();
  const given = options.info ?? DEFAULT_PROVIDER_INFO;
  const asAuro = checkIdentity(options.identity) === 'auro';
  const info = checkInfo(
    asAuro ? { ...given, slug: AURO_SLUG, rdns: AURO_RDNS } : options.announceAsAuro === true ? { ...given, slug: AURO_SLUG } : given,
  );
  const unmark = asAuro ? markAsAuro(provider) : () => {};
  // Callers that pick Auro's slug or rdns read Auro's `{ networkID }`; the others, mina-js's string (`minaJsView`).
  const announced = asAuro || options.announceAsAuro === true ? provider : minaJsView(provider);
  const detail: ProviderDetail<P> = Object.freeze({ info, provider: announced });
  const announce = () => target.dispatchEvent(new CustomEvent(ANNOUNCE_PROVIDER_EVENT, { detail }));
  target.addEventListener(REQUEST_PROVIDER_EVENT, announce);
  announce();
  return () => {
    target.removeEventListener(REQUEST_PROVIDER_EVENT, announce);
    unmark();
  };
}

/** `identity` when it is one (or not given); a TypeError else, before anything is announced or set on a page. */
export function checkIdentity(identity: unknown): WalletIdentity | undefined {
  if (identity !== undefined && identity !== 'chain-ledger' && identity !== 'auro')
    throw new TypeError('identity must be "chain-ledger" or "auro"');
  return identity;
}

/** `isAuro: true` on the provider, as Clorio sets it (the integrator's `identity: 'auro'`); undone by the returned function. */
function markAsAuro(provider: unknown): () => void {
  if (typeof provider !== 'object' || provider === null || Object.hasOwn(provider, 'isAuro')) return () => {};
  Object.defineProperty(provider, 'isAuro', { value: true, configurable: true, enumerable: true });
  return () => delete (provider as { isAuro?: boolean }).isAuro;
}

export interface InstallOptions {
  info?: ProviderInfo;
  window?: DiscoveryWindow;
  /** Also set `window.mina`, for dapps that only look there (default false: `window.mina` is Auro's). */
  asMina?: boolean;
  /**
   * Announce Auro's slug `aurowallet` (default false): the integrator's explicit choice, for dapps that pick a wallet
   * by that slug (Auro's test dapp). Name, icon and rdns stay this wallet's, and `isAuro` is never set. A dapp that
   * lists one wallet per slug (`@mina-js/connect`) then lists only one of this provider and a real Auro.
   */
  announceAsAuro?: boolean;
  /**
   * `'auro'`: announce Auro's slug and rdns (`aurowallet`, `com.aurowallet`) and set `isAuro: true` on the provider, as
   * Clorio does (default `'chain-ledger'`: this wallet's own). The integrator's explicit claim, for dapps keyed on
   * Auro (wagmina reads Auro's `{ networkID }` only under Auro's rdns); name and icon stay this wallet's.
   */
  identity?: WalletIdentity;
}

/**
 * Puts the provider on `window.chain` (and `window.mina` with `asMina`), and announces it (`announceProvider`).
 *
 * @param provider - The provider to install, usually from `createLedgerProvider` or `wrapProvider`.
 * @param options - `info`, `window` and `announceAsAuro` as `announceProvider`; `asMina` also sets `window.mina`
 *   (default false: `window.mina` is Auro's).
 * @returns A function that undoes both (the globals are removed only if they still hold this provider).
 * @throws `TypeError` as `announceProvider` (bad `info`, no `window`).
 * @example
 * ```ts
 * import { createLedgerProvider, install } from 'chain-ledger';
 * import { openWebHid } from 'chain-ledger/transport';
 *
 * const chain = createLedgerProvider({ transport: await openWebHid({ request: true }), network: 'mainnet' });
 * const uninstall = install(chain); // window.chain, announced to dapps
 * ```
 */
export function install<P>(provider: P, options: InstallOptions = {}): () => void {
  const target = (options.window ?? currentWindow()) as DiscoveryWindow & Record<string, unknown>;
  checkIdentity(options.identity); // before any global is set
  const names = options.asMina ? ['chain', 'mina'] : ['chain'];
  for (const name of names) target[name] = provider;
  const stop = announceProvider(provider, {
    info: options.info,
    window: target,
    announceAsAuro: options.announceAsAuro,
    identity: options.identity,
  });
  return () => {
    stop();
    for (const name of names) if (target[name] === provider) delete target[name];
  };
}

/**
 * The dapp side: asks every wallet to announce itself and collects the answers for `timeoutMs` (default 0: only
 * wallets that answer synchronously, which injected wallets do). For tests and the examples; `@mina-js/connect`
 * does the same. What it returns is what the page's events say: a script that runs first can announce a look-alike
 * (the same name, rdns and icon) and stop every other announcement; nothing in a page tells them apart, and only the
 * Ledger's own screens show what is signed (docs/security.md, "Known limits").
 *
 * @param options - `window` (default the global `window`), `timeoutMs` (default 0).
 * @returns One `{ info, provider }` per wallet that answered (duplicates of the same wallet and provider once).
 * @throws `TypeError` when there is no `window` and none is passed.
 * @example
 * ```ts
 * const wallets = await requestProviders();
 * const ledger = wallets.find((w) => w.info.rdns === DEFAULT_PROVIDER_INFO.rdns)?.provider;
 * ```
 */
export async function requestProviders<P = unknown>(
  options: { window?: DiscoveryWindow; timeoutMs?: number } = {},
): Promise<ProviderDetail<P>[]> {
  const target = options.window ?? currentWindow();
  const found: ProviderDetail<P>[] = [];
  const listener = (event: Event) => {
    const detail = (event as CustomEvent<ProviderDetail<P>>).detail;
    if (detail?.info && detail.provider && !found.some((d) => d.info.rdns === detail.info.rdns && d.provider === detail.provider))
      found.push(detail);
  };
  target.addEventListener(ANNOUNCE_PROVIDER_EVENT, listener);
  try {
    target.dispatchEvent(new Event(REQUEST_PROVIDER_EVENT));
    if (options.timeoutMs) await new Promise((resolve) => setTimeout(resolve, options.timeoutMs));
  } finally {
    target.removeEventListener(ANNOUNCE_PROVIDER_EVENT, listener);
  }
  return found;
}
