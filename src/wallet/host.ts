/**
 * The wallet page's side of chain-ledger/connect: it serves the one dapp that opened its window, runs that dapp's
 * calls on a Ledger provider in bridge mode bound to the dapp's origin, and answers with results only.
 *
 * Origins are the browser's. The first `hello` from the window's opener binds the origin the browser reports for it
 * (`MessageEvent.origin`); from then on only messages from the opener at that origin are read (anything else is
 * ignored, not even answered), every call is made with that origin (`request(args, { origin })`), and every answer
 * is posted to that origin only (a dapp tab that has navigated elsewhere receives nothing).
 *
 * The window is its connector's: a `hello` is read only if it names this window (`window.name`, the random name the
 * connector opened it under), so a wallet page the dapp's scripts opened under another name, or one opened by hand,
 * serves no site (opened with no opener, it is the connected-sites manager). The host answers the connector's pings
 * from its message handler, and says `bye` on `pagehide`: the connector ends its calls at once when the window goes
 * to another page or stops answering (src/connect/wallet-window.ts).
 *
 * Progress is the site's: every stage its provider reports (`onProgress`: loading the prover, compiling, confirm on
 * the device, proving, done…) is posted to the dapp as a `progress` message, and given to the page's own `onProgress`.
 *
 * Connections are per origin and remembered (./sites.ts): a site connects with `requestAccounts` (the Ledger shows
 * the address), is kept in the wallet's connected-sites list until revoked, and is reconnected when a later wallet
 * window gets the device. A site that is not connected gets 1001 for every call that needs a connection at once,
 * without a prompt and before any device is there.
 */
import { ErrorCode, ProviderError } from '../errors/provider-error.js';
import { WALLET_METHODS, specOfRequest } from '../provider/methods.js';
import { DEFAULT_MAX_PENDING_CALLS, PendingCalls } from '../provider/pending.js';
import { asWalletPage, checkSecureOrigin } from '../provider/origin.js';
import type { LedgerProviderOptions, ProgressEvent } from '../provider/options.js';
import { createLedgerProvider, type LedgerProvider } from '../provider/provider.js';
import { toProviderError } from '../provider/to-provider-error.js';
import type { ApduTransport } from '../transport/types.js';
import {
  CONNECT_PROTOCOL,
  readDappMessage,
  toWireError,
  type DappMessage,
  type WalletMessage,
  type WireError,
} from '../connect/protocol.js';
import { activityEntry, type ActivityHistory } from './history.js';
import { PresentedCredentials } from './presented.js';
import type { ConnectedSites } from './sites.js';
import { untilAborted } from './until-aborted.js';

/** Where the wallet posts: the window that opened it (a WindowProxy of the dapp's origin). */
export interface DappWindow {
  postMessage(message: unknown, targetOrigin: string): void;
}

/** What the host uses of the wallet page's `window`. */
export interface HostWindow {
  readonly opener: DappWindow | null;
  /** The window's name: the connector that opened it chose it, and says it in its `hello`. */
  readonly name: string;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  addEventListener(type: 'pagehide', listener: () => void): void;
  removeEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  removeEventListener(type: 'pagehide', listener: () => void): void;
}

/** What happens, for the wallet's UI and log. */
export type WalletActivity =
  | { kind: 'site'; origin: string }
  | { kind: 'request'; id: number; origin: string; method: string; params: unknown }
  | { kind: 'waiting-for-device'; id: number; origin: string; method: string }
  | { kind: 'reconnecting'; origin: string }
  | { kind: 'settled'; id: number; origin: string; method: string; error?: WireError }
  | { kind: 'refused'; id: number; origin: string; method: string; error: WireError }
  | { kind: 'ignored'; origin: string; why: string };

/** What a `WalletHost` is made with: the options of the providers it makes, the connected sites, an activity hook. */
export interface WalletHostOptions {
  /**
   * The options of the site's provider (network, graphqlUrl, caps, the review hooks, the credential store…); the
   * host adds the transport, the site's origin and `bridge: true`.
   */
  provider: Omit<LedgerProviderOptions, 'transport' | 'origin' | 'bridge'>;
  /** The connected sites (the page's `storageSites(localStorage)`). */
  sites: ConnectedSites;
  /** Told what happens (a request arrived, waits for the device, settled, a message was ignored). Must not throw. */
  onActivity?: (activity: WalletActivity) => void;
  /** Where what the wallet signed and sent for its sites is recorded (the page's `storageHistory(localStorage)`). */
  history?: ActivityHistory;
  /** The Ledger account a site connecting now is given (the holder's choice); a remembered site keeps its own. */
  accountFor?: (origin: string) => number;
}

/** Calls that never need a connection (the provider answers them before `requestAccounts`): the table's column. */
const WITHOUT_CONNECTION: ReadonlySet<string> = new Set(
  Object.entries(WALLET_METHODS)
    .filter(([, row]) => row.connection === 'none' && !('account' in row && row.account))
    .map(([name]) => name),
);

/**
 * The wallet page's host of `chain-ledger/connect`: in the wallet window a dapp opened, it serves that dapp (the
 * origin the browser reports for the window's opener, bound at its first `hello`) on a Ledger provider in bridge
 * mode bound to that origin, and posts back results, errors, events and progress, to that origin only. A site that
 * is not in the connected-sites list gets 1001 for every call that needs a connection, before anything is shown or
 * asked; a remembered site is reconnected when the window gets its device (`useDevice`).
 *
 * One host per wallet window: `attach(window)` when the page loads, `useDevice(transport)` once the user chose the
 * Ledger (a call made before it waits for it), `revoke(origin)` from the connected-sites list. `onActivity` tells the
 * page's UI what the site asks and how it ends.
 *
 * @example
 * ```ts
 * import { WalletHost, storageSites } from 'chain-ledger/wallet';
 * import { openWebHid } from 'chain-ledger/transport';
 *
 * const host = new WalletHost({
 *   provider: { network: 'mainnet', confirmZkapp: (summary) => window.confirm(`${summary.origin} asks to sign a zkApp command`) },
 *   sites: storageSites(localStorage),
 *   onActivity: (activity) => console.log(activity.kind, activity.origin),
 * });
 * host.attach(window);
 * connectButton.onclick = async () => host.useDevice(await openWebHid({ request: true }));
 * ```
 */
export class WalletHost {
  readonly #options: WalletHostOptions;
  #opener: DappWindow | null = null;
  /** The window's name when the host was attached (undefined before: no hello is then read). */
  #windowName: string | undefined;
  #site: string | undefined;
  #transport: ApduTransport | undefined;
  #provider: LedgerProvider | undefined;
  /** The account index the site's provider serves (switchAccount to it again changes nothing). */
  #servedIndex: number | undefined;
  /** The site's account while its provider is connected (from the provider's own events). */
  #accounts: string[] = [];
  /** Settles when the site's provider exists and a remembered site's reconnection is over. */
  #deviceReady: Promise<void>;
  #markReady: () => void = () => {};
  /** The site's calls by id, for the page's cancel. */
  readonly #calls = new Map<number, AbortController>();
  /** The site's calls in this window, bounded as the provider bounds what waits for the device (also before a device
   * is connected, when they wait here), and rejected together by the page's rejectPending. */
  readonly #pending: PendingCalls;
  /** Which stored credentials the site's presentations showed (the holder's answers), for the record. */
  readonly #presented = new PresentedCredentials();

  /** @param options - The site's provider's options (the host adds the transport, the site's origin and `bridge: true`),
   *   the connected sites (`storageSites(localStorage)`) and `onActivity`. */
  constructor(options: WalletHostOptions) {
    this.#options = options;
    this.#pending = new PendingCalls(options.provider.maxPendingCalls ?? DEFAULT_MAX_PENDING_CALLS);
    this.#deviceReady = new Promise((resolve) => (this.#markReady = resolve));
  }

  /** The site this window serves, once its opener has said hello. */
  get site(): string | undefined {
    return this.#site;
  }

  /** The site's provider, once there is a device and a site. */
  get provider(): LedgerProvider | undefined {
    return this.#provider;
  }

  /**
   * Listens to the page's messages, tells the opener (any origin: the message says nothing) that the wallet is
   * ready, and the site `bye` when the page goes (`pagehide`: closed, reloaded or sent to another page). Returns a
   * function that stops listening.
   */
  attach(page: HostWindow): () => void {
    this.#opener = page.opener;
    this.#windowName = page.name;
    const listener = (event: MessageEvent) => {
      // A MessageEvent made up by a script has isTrusted false; the browser's own say where a message came from.
      if (event.isTrusted === false) return;
      this.receive(event.data, { origin: event.origin, source: event.source });
    };
    const bye = () => this.#post({ protocol: CONNECT_PROTOCOL, type: 'bye', name: page.name });
    page.addEventListener('message', listener);
    page.addEventListener('pagehide', bye);
    this.#opener?.postMessage({ protocol: CONNECT_PROTOCOL, type: 'ready' } satisfies WalletMessage, '*');
    return () => {
      page.removeEventListener('message', listener);
      page.removeEventListener('pagehide', bye);
    };
  }

  /**
   * One message, with what the browser reported of it: its `origin` and its `source` window. (The page's listener
   * calls this; tests call it directly.)
   */
  receive(data: unknown, from: { origin: string; source: unknown }): void {
    const why = this.#refusal(data, from);
    if (why === undefined) this.#handle(readDappMessage(data)!);
    else this.#activity({ kind: 'ignored', origin: from.origin, why });
  }

  /** Why a message is ignored, or undefined when it is read; binds the site at its first hello. */
  #refusal(data: unknown, from: { origin: string; source: unknown }): string | undefined {
    if (this.#opener === null || from.source !== this.#opener) return 'not from the window that opened the wallet';
    const message = readDappMessage(data);
    if (message === undefined) return 'not a chain-ledger/connect message';
    if (message.type === 'hello' && message.name !== this.#windowName)
      return "not the window this site's connector opened (its hello names another)";
    if (this.#site === undefined) {
      if (message.type !== 'hello') return 'a call before the handshake';
      try {
        this.#site = checkSecureOrigin(from.origin);
      } catch {
        return 'not a secure origin (https, or http on a loopback host)';
      }
      this.#activity({ kind: 'site', origin: this.#site });
      if (this.#transport) this.#startProvider(this.#transport);
    }
    return from.origin === this.#site ? undefined : `this wallet window serves ${this.#site} only`;
  }

  /**
   * The device this window uses from now on (a WebHID transport, or the software Ledger): the site's provider is
   * created on it, and a site in the connected-sites list is reconnected (the Ledger shows the address).
   */
  useDevice(transport: ApduTransport): void {
    if (this.#transport === transport) return;
    this.#transport = transport;
    if (this.#provider) {
      // Another device: the old connection is gone (the dapp is told: disconnect, accountsChanged []).
      void this.#provider.disconnect();
      this.#provider = undefined;
      this.#deviceReady = new Promise((resolve) => (this.#markReady = resolve));
    }
    if (this.#site !== undefined) this.#startProvider(transport);
  }

  /** Forgets a connected site: removed from the list, and when it is this window's site, its provider disconnects
   * (the dapp is told). Also what the page calls when another wallet window revoked this site (`storage` event). */
  revoke(origin: string): void {
    this.#options.sites.remove(origin);
    if (origin === this.#site) void this.#provider?.disconnect();
  }

  /** The holder gives `origin` another account (kept in the list); this window's site reconnects with it, told
   * `accountsChanged` (the Ledger shows the address). False: the site is not connected. */
  switchAccount(origin: string, accountIndex: number): boolean {
    const known = this.#options.sites.get(origin);
    if (known === undefined) return false;
    this.#options.sites.add({ ...known, accountIndex });
    const old = this.#provider;
    // Already served with it (another wallet window's write told this one): no second address review on the device.
    if (origin !== this.#site || this.#transport === undefined || old === undefined || accountIndex === this.#servedIndex) return true;
    this.#deviceReady = new Promise((resolve) => (this.#markReady = resolve));
    this.#startProvider(this.#transport);
    void old.disconnect();
    return true;
  }

  /** The account index `site` is served with: its remembered one, else the holder's choice for new connections. */
  #accountOf = (site: string) => this.#options.sites.get(site)?.accountIndex ?? this.#options.accountFor?.(site);

  #startProvider(transport: ApduTransport): void {
    const site = this.#site!;
    const pageProgress = this.#options.provider.onProgress;
    // Every stage of the site's calls is the site's too (this provider serves it alone): forwarded, as `progress`.
    const onProgress = (progress: ProgressEvent) => {
      if (this.#provider === provider) this.#post({ protocol: CONNECT_PROTOCOL, type: 'progress', progress });
      pageProgress?.(progress);
    };
    const accountIndex = this.#accountOf(site) ?? this.#options.provider.accountIndex;
    this.#servedIndex = accountIndex ?? 0;
    const provider: LedgerProvider = asWalletPage(() =>
      createLedgerProvider({
        ...this.#options.provider,
        accountIndex,
        confirmPresentation: this.#presented.wrap(this.#options.provider.confirmPresentation),
        onProgress,
        transport,
        origin: site,
        bridge: true,
      }),
    );
    this.#provider = provider;
    provider.on('accountsChanged', (accounts) => {
      if (this.#provider !== provider) return;
      this.#accounts = accounts;
      this.#post({ protocol: CONNECT_PROTOCOL, type: 'event', event: 'accountsChanged', args: [accounts] });
    });
    provider.on('chainChanged', (chain) => {
      // The connected sites list says which network each site is on (the wallet's Sites).
      const known = this.#options.sites.get(site);
      if (known !== undefined && typeof chain === 'string') this.#options.sites.add({ ...known, network: chain });
      this.#post({ protocol: CONNECT_PROTOCOL, type: 'event', event: 'chainChanged', args: [chain] });
    });
    provider.on('disconnect', (error) => {
      // A provider replaced for another account (switchAccount) goes quietly: the site is told accountsChanged only.
      if (this.#provider === provider)
        this.#post({ protocol: CONNECT_PROTOCOL, type: 'event', event: 'disconnect', args: [toWireError(error)] });
    });
    const ready = this.#markReady;
    const remembered = this.#options.sites.get(site);
    if (remembered === undefined) {
      ready();
      return;
    }
    this.#activity({ kind: 'reconnecting', origin: site });
    provider.requestAccounts({ origin: site }).then(
      ([address]) => {
        // Revoked meanwhile (the provider refuses a connect dropped during it; this holds if it ever did not):
        // never a connected site that is not in the list, where its Revoke button is.
        if (this.#options.sites.get(site) === undefined) void provider.disconnect();
        // Another account than the one the site was given: the site is told (accountsChanged) and kept with it.
        else if (address !== remembered.address) this.#options.sites.add({ ...remembered, address: address!, accountIndex });
        ready();
      },
      () => ready(), // refused on the device or no device: the site's calls get the provider's 1001
    );
  }

  #handle(message: DappMessage): void {
    const site = this.#site!;
    switch (message.type) {
      case 'hello':
        this.#post({
          protocol: CONNECT_PROTOCOL,
          type: 'welcome',
          networkID: this.#provider?.chainId ?? `mina:${this.#options.provider.network}`,
          accounts: this.#provider?.isConnected() ? [...this.#accounts] : [],
        });
        return;
      case 'ping':
        // From this handler, not a timer: a hidden window's timers are throttled, its message events are not.
        this.#post({ protocol: CONNECT_PROTOCOL, type: 'pong', id: message.id });
        return;
      case 'request':
        void this.#serve(message);
        return;
      case 'cancel':
        this.#calls.get(message.id)?.abort(new DOMException('cancelled by the page', 'AbortError'));
        return;
      case 'rejectPending':
        this.#pending.rejectAll();
        this.#provider?.rejectPending();
        return;
      case 'disconnect':
        this.revoke(site);
        return;
    }
  }

  async #serve(message: Extract<DappMessage, { type: 'request' }>): Promise<void> {
    const site = this.#site!;
    const { id, params } = message;
    if (this.#calls.has(id)) return; // a repeated id: the first call answers it
    const refuse = (error: ProviderError, method: string) => {
      const wire = toWireError(error);
      this.#post({ protocol: CONNECT_PROTOCOL, type: 'error', id, error: wire });
      this.#activity({ kind: 'refused', id, origin: site, method, error: wire });
    };
    // The panel names a method from the table, never the page's string: an unknown one is refused here, unshown.
    let method: string;
    try {
      method = specOfRequest({ method: message.method }).walletMethod;
    } catch (thrown) {
      return refuse(toProviderError(thrown), 'an unknown method');
    }
    if (!WITHOUT_CONNECTION.has(method) && !this.#provider?.isConnected() && this.#options.sites.get(site) === undefined) {
      // Not connected, never connected: refused at once, as the provider refuses it, with nothing shown or asked.
      const reason = `${site} is not connected to this wallet: call requestAccounts() first`;
      return refuse(new ProviderError(ErrorCode.NotConnected, { reason }), method);
    }
    const controller = new AbortController();
    let pending: { signal: AbortSignal; leave: () => void };
    try {
      pending = this.#pending.enter(controller.signal); // over the bound: 1002 at once, unshown
    } catch (thrown) {
      return refuse(toProviderError(thrown), method);
    }
    this.#calls.set(id, controller);
    this.#activity({ kind: 'request', id, origin: site, method, params });
    let presenting = method === 'chain_requestPresentation';
    if (presenting) this.#presented.begin();
    let error: WireError | undefined;
    try {
      const result = await this.#run(id, method, params, pending.signal);
      this.#post({ protocol: CONNECT_PROTOCOL, type: 'result', id, result });
      this.#record(method, params, result, presenting ? this.#presented.end() : undefined);
      presenting = false;
    } catch (thrown) {
      error = toWireError(toProviderError(thrown));
      this.#post({ protocol: CONNECT_PROTOCOL, type: 'error', id, error });
    } finally {
      if (presenting) this.#presented.end();
      pending.leave();
      this.#calls.delete(id);
      this.#activity({ kind: 'settled', id, origin: site, method, ...(error ? { error } : {}) });
    }
  }

  async #run(id: number, method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    const site = this.#site!;
    if (this.#provider === undefined) {
      // No device yet: what needs none is answered here; the rest waits for the user to connect the Ledger.
      if (method === 'chain_accounts') return [];
      if (method === 'chain_requestNetwork') return { networkID: `mina:${this.#options.provider.network}` };
      if (method === 'chain_networkId') return `mina:${this.#options.provider.network}`;
      if (method === 'wallet_revokePermissions') {
        this.#options.sites.remove(site);
        return [];
      }
      this.#activity({ kind: 'waiting-for-device', id, origin: site, method });
    }
    await untilAborted(this.#deviceReady, signal);
    const provider = this.#provider!;
    const result = await provider.request({ method, params } as never, { origin: site, signal });
    // The page revoked its own permissions (Auro's revokePermissions): the wallet forgets the site, as on disconnect().
    if (method === 'wallet_revokePermissions') this.#options.sites.remove(site);
    if (method === 'chain_requestAccounts' && Array.isArray(result) && typeof result[0] === 'string') {
      const known = this.#options.sites.get(site);
      if (known?.address !== result[0])
        this.#options.sites.add({
          origin: site,
          address: result[0],
          connectedAt: new Date().toISOString(),
          network: provider.chainId,
          accountIndex: this.#accountOf(site),
        });
    }
    return result;
  }

  /** The call's entry in the wallet's record, if it signed or sent something (a failing store never fails the call). */
  #record(method: string, params: unknown, result: unknown, credentialIds?: string[]): void {
    const network = this.#provider?.chainId ?? `mina:${this.#options.provider.network}`;
    const entry = activityEntry({ method, params, result, origin: this.#site!, network, ...(credentialIds ? { credentialIds } : {}) });
    try {
      if (entry) this.#options.history?.add(entry);
    } catch {
      // A full or unwritable storage: the site has its answer; the record misses one line.
    }
  }

  #post(message: WalletMessage): void {
    // Only ever to the bound origin: if the opener has navigated to another site, the browser drops the message.
    if (this.#site !== undefined) this.#opener?.postMessage(message, this.#site);
  }

  #activity(activity: WalletActivity): void {
    try {
      this.#options.onActivity?.(activity);
    } catch {
      // The UI's problem, never the call's.
    }
  }
}
