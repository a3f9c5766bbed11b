/**
 * `LedgerProvider`, the `window.chain` provider backed by a Ledger, and `createLedgerProvider`. Each method is one
 * call of the pipeline (./pipeline.ts: origin, connection, arguments, capability, the device, verification) with the
 * domain function that does the work; the wallet methods' documentation is on the interface the class implements
 * (./wallet-methods.ts), checked against the method table (./methods.ts). The connection to the device is
 * ./connection.ts, the network now ./current-network.ts, the per-call session ./session.ts.
 */
import type { NetworkId } from '../apdu/codec.js';
import type { Capabilities } from '../device/capabilities.js';
import { deleteCredential, rekeyCredentials, storePrivateCredential } from '../credentials/store-credential.js';
import { signFieldsOnLedger, verifyFields, type SignedFields } from '../messages/sign-fields.js';
import { jsonMessageText, signMessageOnLedger, verifyMessage, type SignedMessage } from '../messages/sign-message.js';
import { createNullifier, type NullifierResult } from '../nullifier/create-nullifier.js';
import { sendLegacyCommand } from '../payments/send-payment.js';
import { requestPresentation } from '../presentations/request-presentation.js';
import type { LocalChain } from '../zkapp/local-chain.js';
import { sendTransaction } from '../zkapp/send-transaction.js';
import { registerHostCredentials, type HostCredentials } from './host-credentials.js';
import type {
  AddChainArgs,
  CreateNullifierArgs,
  RequestArguments,
  RequestContext,
  RequestPresentationArgs,
  RequestResult,
  RevokePermissionsArgs,
  SendPaymentArgs,
  SendStakeDelegationArgs,
  SendTransactionArgs,
  SendTransactionResultFor,
  SignFieldsArgs,
  SignJsonMessageArgs,
  SignMessageArgs,
  StorePrivateCredentialArgs,
  SwitchChainArgs,
  VerifyFieldsArgs,
  VerifyMessageArgs,
} from './rpc.js';
import type { WalletMethods } from './wallet-methods.js';
import { bindOrigin } from './origin.js';
import { ProviderEvents, type EventName, type Listener } from './events.js';
import { WALLET_VERSION } from './discovery.js';
import { DeviceConnection } from './connection.js';
import { CurrentNetwork } from './current-network.js';
import { checkProviderOptions, type LedgerProviderOptions, type Network } from './options.js';
import { CallPipeline } from './pipeline.js';

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
export class LedgerProvider implements WalletMethods {
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

  /** @throws `ProviderError` 20003 naming the bad option (see createLedgerProvider). */
  constructor(options: LedgerProviderOptions) {
    const checked = checkProviderOptions(options);
    this.origin = bindOrigin(options.origin, checked.bridge);
    this.accountIndex = checked.accountIndex;
    this.isSoftwareLedger = (options.transport as { isSoftwareLedger?: unknown }).isSoftwareLedger === true;
    this.#network = new CurrentNetwork(checked.network, options, this.origin, this.#events);
    this.#device = new DeviceConnection(options, checked.accountIndex, this.#events);
    this.#pipeline = new CallPipeline({ provider: this, options, checked, device: this.#device, network: this.#network });
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

  async requestAccounts(context: RequestContext = {}): Promise<string[]> {
    return this.#pipeline.connect(context);
  }

  async getAccounts(context: RequestContext = {}): Promise<string[]> {
    return this.#pipeline.local('getAccounts', undefined, context, async () => {
      const { account } = this.#device;
      return account ? [account.address] : [];
    });
  }

  /**
   * Forgets the connection: emits `disconnect` (1001) and `accountsChanged` with `[]`. The next call needs
   * `requestAccounts()` again.
   * @returns Nothing; it never rejects.
   */
  async disconnect(): Promise<void> {
    this.#device.drop('disconnected by the page');
  }

  async switchChain(args: SwitchChainArgs, context: RequestContext = {}): Promise<{ networkID: string }> {
    return this.#pipeline.asking('switchChain', args ?? {}, context, async (params, signal) => {
      await this.#network.switchTo(params.networkID, signal);
      return { networkID: this.chainId };
    });
  }

  async addChain(args: AddChainArgs, context: RequestContext = {}): Promise<{ networkID: string }> {
    return this.#pipeline.asking('addChain', args ?? {}, context, async ({ url, name }, signal) => {
      await this.#network.add(url, name, signal);
      return { networkID: this.chainId };
    });
  }

  async getNetworkId(context: RequestContext = {}): Promise<string> {
    return this.#pipeline.local('getNetworkId', undefined, context, async () => this.chainId);
  }

  async getWalletInfo(context: RequestContext = {}): Promise<{ version: string; init: boolean }> {
    return this.#pipeline.local('getWalletInfo', undefined, context, async () => ({ version: WALLET_VERSION, init: true }));
  }

  async revokePermissions(args?: RevokePermissionsArgs, context: RequestContext = {}): Promise<[]> {
    return this.#pipeline.local('revokePermissions', args, context, async () => {
      this.#device.drop('permissions revoked by the page');
      return [];
    });
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

  async requestNetwork(context: RequestContext = {}): Promise<{ networkID: string }> {
    return this.#pipeline.local('requestNetwork', undefined, context, async () => ({ networkID: this.chainId }));
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

  async signMessage(args: SignMessageArgs, context: RequestContext = {}): Promise<SignedMessage> {
    return this.#pipeline.onDevice('signMessage', args, context, (session, params) => signMessageOnLedger(session, params.message));
  }

  async createNullifier(args: CreateNullifierArgs, context: RequestContext = {}): Promise<NullifierResult> {
    return this.#pipeline.onDevice('createNullifier', args, context, (session, params) => createNullifier(session, params.message));
  }

  async requestPresentation(args: RequestPresentationArgs, context: RequestContext = {}): Promise<{ presentation: string }> {
    return this.#pipeline.onDevice('requestPresentation', args, context, (session, params) => {
      // SIGN_PRESENTATION (extension 1.1): the device shows the verifier and computes the context itself.
      const clearSigning = session.capabilities.extension?.signPresentation === true;
      return requestPresentation({ ...session, clearSigning }, params.presentation.presentationRequest);
    });
  }

  async sendTransaction<A extends SendTransactionArgs>(args: A, context: RequestContext = {}): Promise<SendTransactionResultFor<A>> {
    return this.#pipeline.onDevice('sendTransaction', args, context, (session, params) => sendTransaction(session, params)) as Promise<
      SendTransactionResultFor<A>
    >;
  }

  async sendPayment(args: SendPaymentArgs, context: RequestContext = {}): Promise<{ hash: string }> {
    return this.#pipeline.onDevice('sendPayment', args, context, (session, params) => sendLegacyCommand('payment', session, params));
  }

  async sendStakeDelegation(args: SendStakeDelegationArgs, context: RequestContext = {}): Promise<{ hash: string }> {
    return this.#pipeline.onDevice('sendStakeDelegation', args, context, (session, params) =>
      sendLegacyCommand('delegation', session, params),
    );
  }

  async signFields(args: SignFieldsArgs, context: RequestContext = {}): Promise<SignedFields> {
    return this.#pipeline.onDevice('signFields', args, context, (session, params) => signFieldsOnLedger(session, params.message));
  }

  async verifyFields(args: VerifyFieldsArgs, context: RequestContext = {}): Promise<boolean> {
    return this.#pipeline.local('verifyFields', args, context, (params) => verifyFields(params));
  }

  async verifyMessage(args: VerifyMessageArgs, context: RequestContext = {}): Promise<boolean> {
    return this.#pipeline.local('verifyMessage', args, context, (params) => verifyMessage(params, this.networkId === 1));
  }

  async signJsonMessage(args: SignJsonMessageArgs, context: RequestContext = {}): Promise<SignedMessage> {
    return this.#pipeline.onDevice('signJsonMessage', args, context, (session, params) =>
      signMessageOnLedger(session, jsonMessageText(params.message), 'this JSON text'),
    );
  }

  async verifyJsonMessage(args: VerifyMessageArgs, context: RequestContext = {}): Promise<boolean> {
    return this.#pipeline.local('verifyJsonMessage', args, context, (params) => verifyMessage(params, this.networkId === 1));
  }

  /**
   * The in-process chain of `network: 'local'` (created on first use).
   *
   * @throws `ProviderError` 20003 (as a rejected promise) when the provider's network is not `local`.
   */
  localChain(): Promise<LocalChain> {
    return this.#pipeline.localChain(this.network);
  }

  async storePrivateCredential(args: StorePrivateCredentialArgs, context: RequestContext = {}): Promise<{ credential: string }> {
    return this.#pipeline.onDevice('storePrivateCredential', args, context, (session, params) =>
      storePrivateCredential(session, params.credential),
    );
  }

  /**
   * The wallet-side entry point: `{ method: 'chain_…', params }`, params as an object or a one-element array. Auro's
   * names (`mina_…`, as a dapp written for `window.mina` calls them) are served exactly as their `chain_`
   * equivalents. Typed per method (`ChainRpcSchema`): the params a method takes and the result it resolves; the
   * arguments are still validated at run time exactly as the direct methods validate them.
   *
   * @param args - `{ method, params }`; `params` as the method of the same name takes them (see each method).
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns What the method resolves, typed by `method`.
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
    return this.#pipeline.request(args, context) as Promise<RequestResult<A>>;
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
      list: (context) =>
        this.#pipeline.onDevice('listCredentials', {}, context, async (session) =>
          session.store.list(session.address, await session.storeSecret()),
        ),
      delete: (id, context) =>
        this.#pipeline.onDevice('deleteCredential', { id }, context, (session, params) => deleteCredential(session, params.id)),
      rekey: (context) => this.#pipeline.onDevice('rekeyCredentials', {}, context, (session) => rekeyCredentials(session)),
    };
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
