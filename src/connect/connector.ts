/**
 * The dapp side of the wallet window: a `window.chain` with the provider's methods, types and errors, whose every
 * call runs in the wallet page at the wallet's own origin (src/wallet); only results come back. The wallet window
 * opens inside the first call that needs it (a popup opens only from a user gesture: nothing is awaited before
 * `window.open`); calls made while it loads wait for the handshake (./protocol.ts). `getAccounts()` with no wallet
 * window answers `[]` without opening one, so a dapp may call it when it loads.
 */
import { ErrorCode, ProviderError } from '../errors/provider-error.js';
import { DEFAULT_PROVIDER_INFO, announceProvider, checkIdentity } from '../provider/discovery.js';
import { ProviderEvents } from '../provider/events.js';
import type { RequestArguments, RequestContext, RequestMethod, RpcResult } from '../provider/rpc.js';
import type { WalletMethods } from '../provider/wallet-methods.js';
import { ConnectorCalls, type Call } from './calls.js';
import { milliseconds, type ConnectWalletOptions } from './options.js';
import { WALLET_METHODS } from './methods.js';
import {
  CONNECT_PROTOCOL,
  cancelled,
  methodRefusal,
  originRefusal,
  fromWireError,
  type ConnectorEventMap,
  type ConnectorEventName,
  type ConnectorListener,
  type ConnectorWindow,
  type DappMessage,
  type WalletMessage,
  type WireError,
} from './protocol.js';
import {
  DEFAULT_LIVENESS_TIMEOUT_MS,
  WalletWindowLink,
  messageEventReader,
  type WalletWindowEvents,
  type WalletWindowOptions,
} from './wallet-window.js';

export type { ConnectorEventMap, ConnectorEventName, ConnectorListener, ConnectorWindow, WalletWindow } from './protocol.js';
export type { ConnectWalletOptions } from './options.js';

// The wallet methods: the provider's (`WalletMethods`), each made from the connector's list of them (the class's
// static block).
export interface WalletConnector extends WalletMethods {}

/**
 * `window.chain` for a dapp whose wallet is the chain-ledger wallet page. Create it with `connectWallet`.
 *
 * Every method takes the same arguments, resolves the same results and rejects with the same `ProviderError`s as
 * the Ledger provider (docs/provider.md), plus 1001 when the wallet window cannot be opened (a blocked popup: call
 * from a click), or was closed, sent to another page or stopped answering during the call (docs/wallet.md).
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the wallet methods are made from the list of them (the static block at the end); the interface declares them, with the provider's documentation.
export class WalletConnector {
  /** The dapp's origin (the page's own: the wallet reads it from the browser, not from here). */
  readonly origin: string;
  /** The wallet page's origin: the only origin whose messages the connector reads. */
  readonly walletOrigin: string;
  readonly #walletUrl: string;
  readonly #window: ConnectorWindow;
  /** The page's `window.open` as it was when the connector was made: a script that replaces it later sees no call. */
  readonly #open: ConnectorWindow['open'];
  /** How the wallet window is opened and watched (./wallet-window.ts). */
  readonly #link: WalletWindowOptions;
  readonly #events = new ProviderEvents<ConnectorEventMap>();
  readonly #calls = new ConnectorCalls();
  readonly #handshakeMs: number;
  #handshake: ReturnType<typeof setTimeout> | undefined;
  #wallet: WalletWindowLink | undefined;
  #accounts: string[] = [];
  /** disconnect() ran with no ready wallet window: the next one is told right after its handshake. */
  #forget = false;
  #networkID: string | undefined;

  constructor(options: ConnectWalletOptions) {
    const url = new URL(String(options?.walletUrl));
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`walletUrl must be an http(s) URL: ${url.href}`);
    this.#walletUrl = url.href;
    this.walletOrigin = url.origin;
    this.#window = options.window ?? (globalThis as unknown as { window: ConnectorWindow }).window;
    if (!this.#window || typeof this.#window.open !== 'function') throw new TypeError('no window: pass { window } explicitly');
    // self.origin: in a sandboxed frame it is 'null' (as the wallet sees this page), whatever location says.
    this.origin = this.#window.origin ?? this.#window.location.origin;
    this.#open = this.#window.open.bind(this.#window);
    this.#handshakeMs = milliseconds('handshakeTimeoutMs', options.handshakeTimeoutMs, 30_000);
    this.#link = {
      url: this.#walletUrl,
      features: options.windowFeatures ?? 'popup,width=440,height=720',
      walletOrigin: this.walletOrigin,
      read: messageEventReader(this.#window),
      livenessTimeoutMs: milliseconds('livenessTimeoutMs', options.livenessTimeoutMs, DEFAULT_LIVENESS_TIMEOUT_MS),
    };
    this.#window.addEventListener('message', this.#onMessage as EventListener);
  }

  /** The wallet's network as it last said (`'mina:devnet'`, …), once a wallet window has answered; else undefined. */
  get networkID(): string | undefined {
    return this.#networkID;
  }

  /** Whether the wallet window is open and has connected an account for this site (never asks anything). */
  isConnected(): boolean {
    return this.#wallet !== undefined && !this.#wallet.closed && this.#accounts.length > 0;
  }

  /** The connected account, or `[]`; `[]` at once, without opening anything, while there is no wallet window. */
  getAccounts(context?: RequestContext): Promise<string[]> {
    if (this.#wallet === undefined) {
      const refused = originRefusal(context?.origin, this.origin);
      return refused ? Promise.reject(refused) : Promise.resolve([]);
    }
    return this.#call('chain_accounts', undefined, context);
  }

  /**
   * The wallet-side entry point, `{ method, params }`, `chain_` names and Auro's `mina_` names, forwarded as they are:
   * the wallet answers exactly as the provider's `request` does (20006 for an unknown method, 20003 for bad params).
   */
  request<M extends RequestMethod>(args: RequestArguments<M>, context?: RequestContext): Promise<RpcResult<M>> {
    const method = (args as { method?: unknown } | null)?.method;
    const refused = methodRefusal(method);
    if (refused) return Promise.reject(refused);
    if ((method === 'chain_accounts' || method === 'mina_accounts') && this.#wallet === undefined) {
      return this.getAccounts(context) as Promise<RpcResult<M>>;
    }
    return this.#call(method as string, (args as { params?: unknown }).params, context);
  }

  /**
   * Forgets this site's connection in the wallet (its connected-sites list too): `disconnect` and `accountsChanged`
   * (`[]`) follow. Never opens the wallet window; never rejects. With no ready wallet window, the next one this page
   * opens is told right after its handshake, before any call.
   */
  async disconnect(): Promise<void> {
    if (this.#wallet?.ready && !this.#wallet.closed) this.#post({ protocol: CONNECT_PROTOCOL, type: 'disconnect' });
    else this.#forget = true;
    this.#setAccounts([], new ProviderError(ErrorCode.NotConnected, { reason: 'disconnected by the page' }));
  }

  /** Rejects every call of this page still waiting (1002 at once), in the wallet too; returns how many. */
  rejectPending(): number {
    const calls = this.#calls.all();
    if (this.#wallet?.ready) this.#post({ protocol: CONNECT_PROTOCOL, type: 'rejectPending' });
    for (const call of calls)
      this.#calls.settle(call, undefined, new ProviderError(ErrorCode.UserRejected, { reason: 'every pending request was rejected' }));
    return calls.length;
  }

  /** The provider's events, and `progress` (see `ConnectorEventMap`). */
  on<E extends ConnectorEventName>(event: E, listener: ConnectorListener<E>): this {
    this.#events.on(event, listener);
    return this;
  }

  once<E extends ConnectorEventName>(event: E, listener: ConnectorListener<E>): this {
    this.#events.once(event, listener);
    return this;
  }

  off<E extends ConnectorEventName>(event: E, listener: ConnectorListener<E>): this {
    this.#events.off(event, listener);
    return this;
  }

  removeListener<E extends ConnectorEventName>(event: E, listener: ConnectorListener<E>): this {
    return this.off(event, listener);
  }

  removeAllListeners(event?: ConnectorEventName): this {
    this.#events.clear(event);
    return this;
  }

  // ---- calls ----

  #call<T>(method: string, params: unknown, context: RequestContext | undefined): Promise<T> {
    const refused = originRefusal(context?.origin, this.origin);
    if (refused) return Promise.reject(refused);
    const signal = context?.signal;
    if (signal?.aborted) return Promise.reject(cancelled(signal));
    // Synchronously, before anything is awaited: the browser opens a popup only inside the user's gesture.
    const blocked = this.#openWallet();
    if (blocked) return Promise.reject(blocked);
    return new Promise<T>((resolve, reject) => {
      const id = this.#calls.nextId();
      const onAbort = () => {
        if (call.sent) this.#post({ protocol: CONNECT_PROTOCOL, type: 'cancel', id });
        this.#calls.settle(call, undefined, cancelled(signal!));
      };
      const call: Call = {
        message: { protocol: CONNECT_PROTOCOL, type: 'request', id, method, ...(params === undefined ? {} : { params }) },
        resolve: resolve as (value: unknown) => void,
        reject,
        sent: false,
        cleanup: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#calls.add(call);
      if (this.#wallet?.ready) this.#send(call);
      else this.#handshake ??= setTimeout(() => this.#handshakeTimedOut(), this.#handshakeMs);
    });
  }

  /** No handshake in time: the calls waiting for it are refused (1001); a handshake later serves new calls. */
  #handshakeTimedOut(): void {
    this.#handshake = undefined;
    const reason = `the wallet page did not answer within ${this.#handshakeMs / 1000} s: is walletUrl (${this.#walletUrl}) right, not a 404 or a redirect?`;
    this.#calls.disconnect(reason, (call) => !call.sent);
  }

  /** Opens the wallet window unless it is open; a ProviderError when the browser refused to open it. */
  #openWallet(): ProviderError | undefined {
    if (this.#wallet && !this.#wallet.closed) return undefined;
    this.#wallet?.drop('the wallet window was closed'); // closed since the last look
    this.#wallet = WalletWindowLink.open(this.#open, this.#link, this.#linkEvents);
    if (this.#wallet) return undefined;
    return new ProviderError(ErrorCode.NotConnected, {
      reason: `the browser blocked the wallet window (${this.walletOrigin}): call window.chain from a click or key handler, without awaiting anything before the call`,
    });
  }

  /**
   * What the wallet window tells the connector. (Only the current one speaks: a window is dropped, and says nothing
   * more, before another is opened.)
   */
  readonly #linkEvents: WalletWindowEvents = {
    welcome: (message) => this.#welcome(message),
    message: (message) => this.#onWalletMessage(message),
    // The calls the previous wallet page had are gone with its realm.
    reloaded: () => this.#calls.disconnect('the wallet window was reloaded during the call: call again', (call) => call.sent),
    gone: (reason) => this.#walletGone(reason),
  };

  #send(call: Call): void {
    call.sent = true;
    try {
      this.#post(call.message);
    } catch (error) {
      // Arguments the browser cannot copy to another window (a function, a class with private state, a DOM node).
      this.#calls.settle(
        call,
        undefined,
        new ProviderError(ErrorCode.InvalidParams, {
          field: 'params',
          reason: `cannot be sent to the wallet: ${(error as Error)?.message ?? error}`,
        }),
      );
    }
  }

  #post(message: DappMessage): void {
    this.#wallet?.post(message);
  }

  /** The wallet window is no longer the wallet (closed, navigated away, not answering): every call ends with 1001. */
  #walletGone(reason: string): void {
    clearTimeout(this.#handshake);
    this.#handshake = undefined;
    this.#wallet = undefined;
    this.#calls.disconnect(reason, () => true);
    this.#setAccounts([], new ProviderError(ErrorCode.NotConnected, { reason }));
  }

  #setAccounts(accounts: string[], reason?: ProviderError): void {
    const before = this.#accounts;
    this.#accounts = accounts;
    if (before.length === accounts.length && before.every((a, i) => a === accounts[i])) return;
    if (accounts.length === 0 && reason) this.#events.emit('disconnect', reason);
    this.#events.emit('accountsChanged', [...accounts]);
  }

  // ---- messages from the wallet ----

  /** Every message event of the page: the wallet window reads those that are the browser's, from it, at its origin. */
  readonly #onMessage = (event: unknown) => this.#wallet?.receive(event);

  #welcome(message: Extract<WalletMessage, { type: 'welcome' }>): void {
    clearTimeout(this.#handshake);
    this.#handshake = undefined;
    this.#networkID = message.networkID;
    if (this.#forget) this.#post({ protocol: CONNECT_PROTOCOL, type: 'disconnect' });
    this.#setAccounts(
      this.#forget ? [] : message.accounts,
      new ProviderError(ErrorCode.NotConnected, { reason: 'not connected in this wallet window' }),
    );
    this.#forget = false;
    for (const call of this.#calls.all()) if (!call.sent) this.#send(call);
  }

  #onWalletMessage(message: Parameters<WalletWindowEvents['message']>[0]): void {
    switch (message.type) {
      case 'result': {
        const call = this.#calls.sent(message.id);
        if (call) this.#calls.settle(call, message.result);
        return;
      }
      case 'error': {
        const call = this.#calls.sent(message.id);
        if (call) this.#calls.settle(call, undefined, fromWireError(message.error));
        return;
      }
      case 'event':
        this.#onEvent(message.event, message.args);
        return;
      case 'progress':
        this.#events.emit('progress', message.progress);
        return;
    }
  }

  #onEvent(event: 'accountsChanged' | 'chainChanged' | 'disconnect', args: unknown[]): void {
    const [value] = args;
    if (event === 'accountsChanged' && Array.isArray(value) && value.every((a) => typeof a === 'string')) {
      // The wallet sends its own `disconnect` before `accountsChanged([])`: none is made up here.
      this.#setAccounts(value);
    } else if (event === 'chainChanged' && typeof (value as { networkID?: unknown })?.networkID === 'string') {
      this.#networkID = (value as { networkID: string }).networkID;
      this.#events.emit('chainChanged', { networkID: this.#networkID });
    } else if (event === 'disconnect' && typeof value === 'object' && value !== null && this.#accounts.length > 0) {
      // (Once per disconnection: after the page's own disconnect() the page was told already.)
      this.#events.emit('disconnect', fromWireError(value as WireError));
    }
  }

  /**
   * The wallet methods, one per name of the list (./methods.ts), on the prototype as methods of a class are:
   * `(args, context?)` or `(context?)`, each sending its wallet name. `getAccounts` is the class's own (above).
   */
  static {
    for (const [name, { method, params }] of Object.entries(WALLET_METHODS)) {
      if (Object.hasOwn(WalletConnector.prototype, method)) continue;
      const { [method]: value } = {
        [method](this: WalletConnector, ...given: [unknown?, RequestContext?]): Promise<unknown> {
          return params ? this.#call(name, given[0], given[1]) : this.#call(name, undefined, given[0] as RequestContext);
        },
      };
      Object.defineProperty(WalletConnector.prototype, method, { value, writable: true, configurable: true });
    }
  }
}

/**
 * Connects this dapp to the chain-ledger wallet page: returns a `window.chain` whose calls run in the wallet window
 * (opened on the first call that needs it, from the user's click), puts it on `window.chain` and announces it to
 * wallet discovery (`mina:announceProvider`).
 *
 * @param options - `walletUrl` (required): where the wallet page is hosted; `install`, `asMina`, `info`, `identity`,
 *   `windowFeatures`, `window`, `handshakeTimeoutMs`, `livenessTimeoutMs`.
 * @returns The connector: the provider's methods, events and errors.
 * @throws `TypeError` when `walletUrl` is not an http(s) URL, a timeout is not a positive number of milliseconds,
 *   `identity` is neither `'chain-ledger'` nor `'auro'`, or there is no `window`.
 * @example
 * ```ts
 * import { connectWallet } from 'chain-ledger/connect';
 * const chain = connectWallet({ walletUrl: 'https://wallet.example/' });
 * button.onclick = async () => console.log(await chain.requestAccounts());
 * ```
 */
export function connectWallet(options: ConnectWalletOptions): WalletConnector {
  checkIdentity(options.identity); // before anything is set on the page
  const connector = new WalletConnector(options);
  const target = (options.window ?? (globalThis as unknown as { window: ConnectorWindow }).window) as ConnectorWindow &
    Record<string, unknown>;
  if (options.install !== false) {
    target.chain = connector;
    if (options.asMina) target.mina = connector;
  }
  announceProvider(connector, { info: options.info ?? DEFAULT_PROVIDER_INFO, window: target, identity: options.identity });
  return connector;
}
