/**
 * `LedgerProvider`, the `window.chain` provider backed by a Ledger, and `createLedgerProvider`. Its wallet methods
 * are made from the method table (./methods.ts), one per row: each is one call of the pipeline (./pipeline.ts:
 * origin, connection, arguments, capability, the device, the row's body, verification); their documentation is the
 * interface they are declared by (./wallet-methods.ts), checked against the table. The connection to the device is
 * ./connection.ts, the network now ./current-network.ts, the per-call context ./call-context.ts.
 */
import type { NetworkId } from '../apdu/codec.js';
import type { Capabilities } from '../device/capabilities.js';
import type { LocalChain } from '../zkapp/local-chain.js';
import { registerHostCredentials, type HostCredentials } from './host-credentials.js';
import { WALLET_METHODS } from './methods.js';
import type { RequestArguments, RequestContext, RequestResult } from './rpc.js';
import type { WalletMethods } from './wallet-methods.js';
import { bindOrigin } from './origin.js';
import { ProviderEvents, type EventName, type Listener } from './events.js';
import { DeviceConnection } from './connection.js';
import { CurrentNetwork } from './current-network.js';
import { checkProviderOptions, type LedgerProviderOptions, type Network } from './options.js';
import { CallPipeline } from './pipeline.js';

// The wallet methods: `WalletMethods`, each made from its row of the method table (the class's static block).
export interface LedgerProvider extends WalletMethods {}

/**
 * A Mina wallet provider (`window.chain`, Auro's `window.mina` API) whose key is on a Ledger. Make one with
 * `createLedgerProvider({ transport, network })` (or `wrapProvider` in front of a wallet the page already has) and
 * put it on the page with `install(provider)`. Nothing touches the device until `requestAccounts()`; every method
 * then checks the caller's origin, the connection and its arguments before the device is asked, holds the device for
 * the whole call (a presentation: for its device steps only), and verifies what the device returns. Every promise
 * rejects only with a `ProviderError` (`code`: 1001 not connected, 1002 rejected, 20003 bad argument, 20006
 * unsupported, 23001 wrong origin).
 *
 * @example
 * ```ts
 * const chain = createLedgerProvider({ transport: await openWebHid({ request: true }), network: 'mainnet' });
 * const [address] = await chain.requestAccounts(); // the Ledger shows the address to confirm
 * const { hash } = await chain.sendTransaction({ transaction: tx.toJSON() });
 * ```
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the wallet methods are made from the method table (the static block at the end); the interface declares them, with their documentation, and the table must equal it (./wallet-methods.ts).
export class LedgerProvider {
  /** The origin this provider serves (a page's `location.origin`, or the one given to a bridge or a Node host). */
  readonly origin: string;
  /** Account N of m/44'/12586'/N'/0/0. */
  readonly accountIndex: number;
  /** True when the transport is the software Ledger (a software key): never hardware. */
  readonly isSoftwareLedger: boolean;
  readonly #events = new ProviderEvents();
  /** The network now, switched by `switchChain` and `addChain`, and the networks this provider knows. */
  readonly #network: CurrentNetwork;
  /** The device client and the connected account. */
  readonly #device: DeviceConnection;
  readonly #pipeline: CallPipeline;
  readonly #resultEnvelope: boolean;

  /** @throws `ProviderError` 20003 naming the bad option (see createLedgerProvider). */
  constructor(options: LedgerProviderOptions) {
    const checked = checkProviderOptions(options);
    this.origin = bindOrigin(options.origin, checked.bridge);
    this.accountIndex = checked.accountIndex;
    this.isSoftwareLedger = (options.transport as { isSoftwareLedger?: unknown }).isSoftwareLedger === true;
    this.#network = new CurrentNetwork(checked.network, options, this.origin, this.#events);
    this.#device = new DeviceConnection(options, checked.accountIndex, this.#events);
    this.#pipeline = new CallPipeline({ provider: this, options, checked, device: this.#device, network: this.#network });
    this.#resultEnvelope = options.resultEnvelope === true;
    registerHostCredentials(this, this.#hostCredentials());
  }

  /**
   * What the provider signs for: `mainnet`, `devnet` (the testnet signature domain, also Zeko testnet's) or `local`
   * (changed by `switchChain` and `addChain`); `chainId` names the network itself.
   */
  get network(): Network {
    return this.#network.kind;
  }

  /** The device's network id: 0 (the testnet domain: devnet, Zeko testnet, the local chain) or 1 (mainnet). */
  get networkId(): NetworkId {
    return this.#network.networkId;
  }

  /** The network's id, as `requestNetwork()` answers it: `mina:devnet`, `zeko:testnet`. */
  get chainId(): string {
    return this.#network.chainId;
  }

  /**
   * Whether an account is connected (`requestAccounts()` succeeded and neither `disconnect()` nor an unplug has
   * dropped it since), as Auro's `isConnected()`; never touches the device.
   *
   * @returns `true` when connected, else `false`.
   */
  isConnected(): boolean {
    return this.#device.account !== undefined;
  }

  /** What the connected app can do, read at connect; undefined before. */
  get capabilities(): Capabilities | undefined {
    return this.#device.account?.capabilities;
  }

  /**
   * Forgets the connection: emits `disconnect` (1001) and `accountsChanged` with `[]`. The next call needs
   * `requestAccounts()` again.
   * @returns Nothing; it never rejects.
   */
  async disconnect(): Promise<void> {
    this.#device.drop('disconnected by the page');
  }

  /**
   * Rejects every call of this provider that waits for or runs on the Ledger (each → 1002 at once; a prompt already
   * on the device stays until the user answers there, and its answer is discarded). Returns how many were rejected.
   *
   * @returns How many calls were rejected.
   */
  rejectPending(): number {
    return this.#pipeline.rejectPending();
  }

  /**
   * Listens to `accountsChanged` (the account list), `chainChanged` (`{ networkID }`) or `disconnect` (a
   * `ProviderError`). Returns the provider, as Auro's EventEmitter does, so calls chain. As with an EventEmitter, the
   * same listener added twice is called twice.
   *
   * @param event - `accountsChanged`, `chainChanged` or `disconnect`.
   * @param listener - Called with the event's arguments; an error it throws is ignored.
   * @example
   * ```ts
   * chain.on('accountsChanged', ([address]) => show(address ?? 'disconnected'));
   * ```
   */
  on<E extends EventName>(event: E, listener: Listener<E>): this {
    this.#events.on(event, listener);
    return this;
  }

  /**
   * Like `on`, but `listener` runs at most once: it is removed before it is first called (Node's EventEmitter
   * `once`). `off(event, listener)` removes it before it fires. Returns the provider.
   *
   * @param event - `accountsChanged`, `chainChanged` or `disconnect`.
   * @param listener - Called with the event's arguments, once; an error it throws is ignored.
   * @example
   * ```ts
   * chain.once('chainChanged', ({ networkID }) => reload(networkID));
   * ```
   */
  once<E extends EventName>(event: E, listener: Listener<E>): this {
    this.#events.once(event, listener);
    return this;
  }

  /** Removes `listener` from `event` (its most recently added instance, as EventEmitter does). Returns the provider. */
  off<E extends EventName>(event: E, listener: Listener<E>): this {
    this.#events.off(event, listener);
    return this;
  }

  /** EventEmitter name of `off`. */
  removeListener<E extends EventName>(event: E, listener: Listener<E>): this {
    return this.off(event, listener);
  }

  /** Removes every listener of `event`, or of every event. */
  removeAllListeners(event?: EventName): this {
    this.#events.clear(event);
    return this;
  }

  /**
   * The in-process chain of `network: 'local'` (created on first use).
   *
   * @throws `ProviderError` 20003 (as a rejected promise) when the provider's network is not `local`.
   */
  localChain(): Promise<LocalChain> {
    return this.#pipeline.localChain(this.network);
  }

  /**
   * The wallet-side entry point: `{ method: 'chain_…', params }`, params as an object or a one-element array. Auro's
   * names (`mina_…`, as a dapp written for `window.mina` calls them) are served exactly as their `chain_`
   * equivalents. Typed per method (`ChainRpcSchema`): the params a method takes and the result it resolves; the
   * arguments are still validated at run time exactly as the direct methods validate them.
   *
   * @param args - `{ method, params }`; `params` as the method of the same name takes them (see each method).
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns What the method resolves, typed by `method` (with the `resultEnvelope` option: `{ jsonrpc: '2.0', result }`).
   * @throws `ProviderError`: 23001 another origin, 20003 without `{ method }`, 20006 an unknown method, and each
   *   method's own errors.
   * @example
   * ```ts
   * const [address] = await chain.request({ method: 'chain_requestAccounts' });
   * const { networkID } = await chain.request({ method: 'mina_requestNetwork' }); // Auro's name, same method
   * const result = await chain.request({ method: 'chain_sendTransaction', params: { transaction, onlySign: true } });
   * ```
   */
  async request<A extends RequestArguments>(args: A, context: RequestContext = {}): Promise<RequestResult<A>> {
    const result = await this.#pipeline.request(args, context);
    // Pallad's envelope only where the integrator asked for it (`resultEnvelope`): Auro's callers read bare results.
    return (this.#resultEnvelope ? { jsonrpc: '2.0', result } : result) as RequestResult<A>;
  }

  /**
   * For wrappers (wrapProvider): 23001 unless the call comes from the bound origin, 1001 unless connected. Checked
   * before anything is handed to another provider.
   *
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 1001 when not connected.
   */
  assertCaller(context: RequestContext = {}): void {
    this.#pipeline.caller(context);
  }

  /** The host-side credential methods (never on the object: ./host-credentials.ts). */
  #hostCredentials(): HostCredentials {
    return {
      list: (context) => this.#pipeline.run('listCredentials', undefined, context),
      delete: (id, context) => this.#pipeline.run('deleteCredential', { id }, context),
      rekey: (context) => this.#pipeline.run('rekeyCredentials', undefined, context),
    };
  }

  /**
   * The wallet methods, one per row of the method table, on the prototype as methods of a class are (Auro's test
   * dapp looks for them there): `(args, context?)`, or `(context?)` for a method without params, each one run of the
   * pipeline.
   */
  static {
    for (const { method, params } of Object.values(WALLET_METHODS)) {
      const { [method]: value } = {
        async [method](this: LedgerProvider, ...given: [unknown?, RequestContext?]): Promise<unknown> {
          return params === undefined
            ? this.#pipeline.run(method, undefined, given[0] as RequestContext)
            : this.#pipeline.run(method, ...given);
        },
      };
      Object.defineProperty(LedgerProvider.prototype, method, { value, writable: true, configurable: true });
    }
  }
}

/**
 * A `window.chain` provider backed by a Ledger (or the software Ledger). Nothing touches the device until
 * `requestAccounts()`.
 *
 * @param options - The transport and the network (required); the origin it serves (required outside a web page,
 *   where it is `location.origin`); `bridge`, `accountIndex`, the GraphQL endpoint and headers, `era`, `feeCap`, the
 *   credential store and the host hooks (`onDeviceAction`, `onProgress`, `confirmSwitchChain`, `onHostLog`): see
 *   `LedgerProviderOptions`.
 * @returns The provider; every method's promise rejects only with `ProviderError`.
 * @throws `ProviderError` 20003 naming the bad option in `data.field` (`options`, `transport`, `network`,
 *   `accountIndex`, `bridge`, `maxPendingCalls`, `feeCap`, `era`, `graphqlUrl`, `graphqlHeaders`,
 *   `confirmSwitchChain`, `confirmAddChain`, `allowUnconfirmedSwitchChain`, `onProgress`, `origin`).
 * @example
 * ```ts
 * import { createLedgerProvider, install } from 'chain-ledger';
 * import { openWebHid } from 'chain-ledger/transport';
 *
 * const chain = createLedgerProvider({ transport: await openWebHid({ request: true }), network: 'mainnet' });
 * install(chain);
 * const [address] = await chain.requestAccounts(); // the Ledger shows the address to confirm
 * ```
 */
export function createLedgerProvider(options: LedgerProviderOptions): LedgerProvider {
  return new LedgerProvider(options);
}
