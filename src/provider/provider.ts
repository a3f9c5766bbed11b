/**
 * The `window.chain` provider backed by a Ledger. Every call goes through the same pipeline, in this order:
 *
 *   origin check (23001) → connected? (1001) → arguments (zod, 20003) → device capability (20006)
 *     → the device, held for the whole call (one call at a time per device, cancellable) → device work → verification
 *
 * so a request from the wrong origin, with bad arguments, or for an instruction the app lacks never reaches the
 * device. A method whose row says `ownDeviceSteps` (a presentation) holds the device for its device steps only, not
 * for its compile and proof. Every promise rejects with a `ProviderError`, never anything else. The methods are listed once, in
 * ./methods.ts (their schemas, positional forms, requirements and delegation); each method here hands the domain that
 * does the work one session per call (./session.ts), and reports its progress (./progress.ts).
 */
import { MinaLedgerApp } from '../device/client.js';
import type { NetworkId } from '../apdu/codec.js';
import { supports } from '../apdu/version.js';
import { capabilitiesOf, type Capabilities } from '../device/capabilities.js';
import { deleteCredential, rekeyCredentials, storePrivateCredential } from '../credentials/store-credential.js';
import { signFieldsOnLedger, verifyFields, type SignedFields } from '../messages/sign-fields.js';
import { jsonMessageText, signMessageOnLedger, verifyMessage, type SignedMessage } from '../messages/sign-message.js';
import { createNullifier, type NullifierResult } from '../nullifier/create-nullifier.js';
import { sendLegacyCommand } from '../payments/send-payment.js';
import { requestPresentation } from '../presentations/request-presentation.js';
import type { LocalChain } from '../zkapp/local-chain.js';
import { sendTransaction } from '../zkapp/send-transaction.js';
import { ErrorCode, ProviderError, hostDetail, toProviderError } from './to-provider-error.js';
import { orDelegate, type DelegatedCall } from './delegation.js';
import { registerHostCredentials, type HostCredentials } from './host-credentials.js';
import { ROWS, paramsOf, specOfRequest, type MethodName, type ParsedParams, type UsesStore } from './methods.js';
import type {
  AddChainArgs,
  CallOptions,
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
import { assertSameOrigin, bindOrigin, callerOrigin } from './origin.js';
import { PendingCalls } from './pending.js';
import { ProviderEvents, type EventName, type Listener } from './events.js';
import { WALLET_VERSION } from './discovery.js';
import { CurrentNetwork } from './current-network.js';
import { checkProviderOptions, type LedgerProviderOptions, type Network } from './options.js';
import { CallReport } from './progress.js';
import { parseParams } from './schemas.js';
import { snapshotArguments } from './snapshot.js';
import { CallSessions, type CallSession, type Connection, type CredentialSession, type WithDevice } from './session.js';

/** Marks a call that `request()` runs: it reports, and delegates, through the request's own call. */
const INSIDE_REQUEST = Symbol('inside request()');
type Inner = RequestContext & { [INSIDE_REQUEST]?: CallReport };
/** The session of a call of method `P`: with the credential store when the table says it uses it. */
type SessionOf<P extends MethodName> = UsesStore<P> extends true ? CredentialSession : CallSession;
/** What a method does with its session and its parsed params. */
type Body<P extends MethodName, T> = (session: SessionOf<P>, params: ParsedParams<P>) => Promise<T>;

/**
 * A Mina wallet provider (`window.chain`, Auro's `window.mina` API) whose key is on a Ledger. Make one with
 * `createLedgerProvider({ transport, network })` (or `wrapProvider` in front of a wallet the page already has) and
 * put it on the page with `install(provider)`. Nothing touches the device until `requestAccounts()`; every method
 * then checks the caller's origin, the connection and its arguments before the device is asked, holds the device for
 * the whole call (a presentation: for its device steps only), and verifies what the device returns. Every promise rejects only with a `ProviderError`
 * (`code`: 1001 not connected, 1002 rejected, 20003 bad argument, 20006 unsupported, 23001 wrong origin).
 *
 * @example
 * ```ts
 * const chain = createLedgerProvider({ transport: await openWebHid({ request: true }), network: 'mainnet' });
 * const [address] = await chain.requestAccounts(); // the Ledger shows the address to confirm
 * const { hash } = await chain.sendTransaction({ transaction: tx.toJSON() });
 * ```
 */
export class LedgerProvider implements WalletMethods {
  /** The network now, switched by `switchChain` and `addChain`, and the networks this provider knows. */
  readonly #network: CurrentNetwork;
  /** The origin this provider serves (a page's `location.origin`, or the one given to a bridge or a Node host). */
  readonly origin: string;
  /** Account N of m/44'/12586'/N'/0/0. */
  readonly accountIndex: number;
  /** True when the transport is the software Ledger (a software key): never hardware. */
  readonly isSoftwareLedger: boolean;
  readonly #options: LedgerProviderOptions;
  readonly #bridge: boolean;
  readonly #pending: PendingCalls;
  readonly #sessions: CallSessions;
  readonly #events = new ProviderEvents();
  #app: MinaLedgerApp | undefined;
  #connection: Connection | undefined;
  #connectedBefore = false;
  #onTransportDisconnect = () => this.#drop(new ProviderError(ErrorCode.NotConnected, { reason: 'the Ledger was disconnected' }));

  /** @throws `ProviderError` 20003 naming the bad option (see createLedgerProvider). */
  constructor(options: LedgerProviderOptions) {
    const checked = checkProviderOptions(options);
    this.#options = options;
    this.#bridge = checked.bridge;
    this.origin = bindOrigin(options.origin, checked.bridge);
    this.#network = new CurrentNetwork(checked.network, options, this.origin, this.#events);
    this.accountIndex = checked.accountIndex;
    this.isSoftwareLedger = (options.transport as { isSoftwareLedger?: unknown }).isSoftwareLedger === true;
    this.#pending = new PendingCalls(checked.maxPendingCalls, checked.maxRequestsPerMinute);
    this.#sessions = new CallSessions(options, checked, this.origin);
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
    return this.#connection !== undefined;
  }

  /** What the connected app can do, read at connect; undefined before. */
  get capabilities(): Capabilities | undefined {
    return this.#connection?.capabilities;
  }

  // ---- connection ----

  async requestAccounts(context: RequestContext = {}): Promise<string[]> {
    return this.#call('requestAccounts', undefined, context, async (report) => {
      this.#checkOrigin(context);
      if (this.#connection) return [this.#connection.address];
      return this.#device(report, context, (app, signal) => this.#connect(app, signal, report));
    });
  }

  async getAccounts(context: RequestContext = {}): Promise<string[]> {
    return this.#local('getAccounts', undefined, context, async () => (this.#connection ? [this.#connection.address] : []));
  }

  /**
   * Forgets the connection: emits `disconnect` (1001) and `accountsChanged` with `[]`. The next call needs
   * `requestAccounts()` again.
   * @returns Nothing; it never rejects.
   */
  async disconnect(): Promise<void> {
    this.#drop(new ProviderError(ErrorCode.NotConnected, { reason: 'disconnected by the page' }));
  }

  async switchChain(args: SwitchChainArgs, context: RequestContext = {}): Promise<{ networkID: string }> {
    return this.#local('switchChain', args ?? {}, context, async (params) => {
      await this.#network.switchTo(params.networkID);
      return { networkID: this.chainId };
    });
  }

  async addChain(args: AddChainArgs, context: RequestContext = {}): Promise<{ networkID: string }> {
    return this.#local('addChain', args ?? {}, context, async ({ url, name }) => {
      await this.#network.add(url, name);
      return { networkID: this.chainId };
    });
  }

  async getNetworkId(context: RequestContext = {}): Promise<string> {
    return this.#local('getNetworkId', undefined, context, async () => this.chainId);
  }

  async getWalletInfo(context: RequestContext = {}): Promise<{ version: string; init: boolean }> {
    return this.#local('getWalletInfo', undefined, context, async () => ({ version: WALLET_VERSION, init: true }));
  }

  async revokePermissions(args?: RevokePermissionsArgs, context: RequestContext = {}): Promise<[]> {
    return this.#local('revokePermissions', args, context, async () => {
      this.#drop(new ProviderError(ErrorCode.NotConnected, { reason: 'permissions revoked by the page' }));
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
    return this.#pending.rejectAll();
  }

  async requestNetwork(context: RequestContext = {}): Promise<{ networkID: string }> {
    return this.#local('requestNetwork', undefined, context, async () => ({ networkID: this.chainId }));
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

  // ---- methods ----

  async signMessage(args: SignMessageArgs, context: RequestContext = {}): Promise<SignedMessage> {
    return this.#method('signMessage', args, context, (session, params) => signMessageOnLedger(session, params.message));
  }

  async createNullifier(args: CreateNullifierArgs, context: RequestContext = {}): Promise<NullifierResult> {
    return this.#method('createNullifier', args, context, (session, params) => createNullifier(session, params.message));
  }

  async requestPresentation(args: RequestPresentationArgs, context: RequestContext = {}): Promise<{ presentation: string }> {
    return this.#method('requestPresentation', args, context, (session, params) => {
      // SIGN_PRESENTATION (extension 1.1): the device shows the verifier and computes the context itself.
      const clearSigning = session.capabilities.extension?.signPresentation === true;
      return requestPresentation({ ...session, clearSigning }, params.presentation.presentationRequest);
    });
  }

  async sendTransaction<A extends SendTransactionArgs>(args: A, context: RequestContext = {}): Promise<SendTransactionResultFor<A>> {
    return this.#method('sendTransaction', args, context, (session, params) => sendTransaction(session, params)) as Promise<
      SendTransactionResultFor<A>
    >;
  }

  async sendPayment(args: SendPaymentArgs, context: RequestContext = {}): Promise<{ hash: string }> {
    return this.#method('sendPayment', args, context, (session, params) => sendLegacyCommand('payment', session, params));
  }

  async sendStakeDelegation(args: SendStakeDelegationArgs, context: RequestContext = {}): Promise<{ hash: string }> {
    return this.#method('sendStakeDelegation', args, context, (session, params) => sendLegacyCommand('delegation', session, params));
  }

  async signFields(args: SignFieldsArgs, context: RequestContext = {}): Promise<SignedFields> {
    return this.#method('signFields', args, context, (session, params) => signFieldsOnLedger(session, params.message));
  }

  async verifyFields(args: VerifyFieldsArgs, context: RequestContext = {}): Promise<boolean> {
    return this.#local('verifyFields', args, context, (params) => verifyFields(params));
  }

  async verifyMessage(args: VerifyMessageArgs, context: RequestContext = {}): Promise<boolean> {
    return this.#local('verifyMessage', args, context, (params) => verifyMessage(params, this.networkId === 1));
  }

  async signJsonMessage(args: SignJsonMessageArgs, context: RequestContext = {}): Promise<SignedMessage> {
    return this.#method('signJsonMessage', args, context, (session, params) =>
      signMessageOnLedger(session, jsonMessageText(params.message), 'this JSON text'),
    );
  }

  async verifyJsonMessage(args: VerifyMessageArgs, context: RequestContext = {}): Promise<boolean> {
    return this.#local('verifyJsonMessage', args, context, (params) => verifyMessage(params, this.networkId === 1));
  }

  /**
   * The in-process chain of `network: 'local'` (created on first use).
   *
   * @throws `ProviderError` 20003 (as a rejected promise) when the provider's network is not `local`.
   */
  localChain(): Promise<LocalChain> {
    return this.#sessions.localChain(this.network);
  }

  async storePrivateCredential(args: StorePrivateCredentialArgs, context: RequestContext = {}): Promise<{ credential: string }> {
    return this.#method('storePrivateCredential', args, context, (session, params) => storePrivateCredential(session, params.credential));
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
    return this.#request(args, context) as Promise<RequestResult<A>>;
  }

  /**
   * For wrappers (wrapProvider): 23001 unless the call comes from the bound origin, 1001 unless connected. Checked
   * before anything is handed to another provider.
   *
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 1001 when not connected.
   */
  assertCaller(context: RequestContext = {}): void {
    this.#caller(context);
  }

  // ---- pipeline ----

  /** `request()`: the method the table names, run inside this call (which reports it and delegates for it). */
  #request(args: unknown, context: RequestContext): Promise<unknown> {
    const report = this.#report('request');
    // Delegable: a method the table lets delegate, or one it does not know (the original wallet may).
    let delegable = true;
    const call = this.#guard(async () => {
      // The origin first, for every method (known or not): nothing from another origin is even looked at.
      this.#checkOrigin(context);
      const spec = specOfRequest(args);
      report.method = spec.method;
      delegable = spec.delegate;
      const run = this[spec.method] as (...args: unknown[]) => Promise<unknown>;
      const inner: Inner = { ...context, [INSIDE_REQUEST]: report };
      // Runtime validation is each method's own: the params are unknown until its schema has parsed them.
      return run.apply(this, 'params' in spec ? [paramsOf(spec, (args as { params?: unknown }).params), inner] : [inner]);
    });
    return this.#settle(report, call, { method: 'request', args, context, viaRequest: true, delegable: () => delegable });
  }

  /**
   * One call: its report (progress from start to one `done` or `failed`), errors as `ProviderError` (details for the
   * host to `onHostLog`), and, for a wrapped provider, a 20006 handed to the original wallet where the table allows.
   * A call that `request()` runs shares the request's report and delegation.
   */
  async #call<T>(method: MethodName, args: unknown, context: RequestContext, run: (report: CallReport) => Promise<T>): Promise<T> {
    const outer = (context as Inner)[INSIDE_REQUEST];
    if (outer) return this.#guard(() => run(outer));
    const report = this.#report(method);
    const { delegate, walletMethod } = ROWS[method];
    const result = this.#guard(() => run(report));
    return this.#settle(report, result, { method, walletMethod, args, context, viaRequest: false, delegable: () => delegate === true });
  }

  /** A method that needs no device: the caller's origin, the table's schema, then `body`. */
  #local<P extends MethodName, T>(
    method: P,
    args: unknown,
    context: RequestContext,
    body: (params: ParsedParams<P>) => Promise<T>,
  ): Promise<T> {
    return this.#call(method, args, context, async () => {
      this.#checkOrigin(context);
      return body(this.#params(method, args));
    });
  }

  /**
   * A method on the device: the caller, the connection, the table's schema and requirement, then the device, held
   * for the whole call (or, where the table says `ownDeviceSteps`, for each of its device steps, `withDevice`), and
   * `body` with the call's session (with the credential store where the table says so).
   */
  #method<P extends MethodName, T>(method: P, args: unknown, context: RequestContext, body: Body<P, T>): Promise<T> {
    return this.#call(method, args, context, async (report) => {
      const connection = this.#caller(context);
      const params = this.#params(method, args);
      const { requires, store, ownDeviceSteps } = ROWS[method];
      // What the device cannot do with these params is refused before the call waits for the device.
      const missing = requires?.(connection.capabilities, params);
      if (missing) throw missing;
      const run = async (app: MinaLedgerApp, signal: AbortSignal, withDevice: WithDevice) => {
        this.#stillConnected(connection);
        const chain = { network: this.network, endpoint: this.#network.endpoint };
        const session = await this.#sessions.open({ app, withDevice, connection, ...chain, signal, report }, store === true);
        return body(session as SessionOf<P>, params);
      };
      // A method with host work of minutes (a presentation's compile and proof) holds the device for its steps only.
      if (ownDeviceSteps) {
        return this.#pendingCall(context, (signal) => run(this.#client(), signal, this.#deviceSteps(report, connection, context, signal)));
      }
      return this.#device(report, context, (app, signal) => run(app, signal, (step) => step(app)));
    });
  }

  /** 1001 when the connection went (an unplug, disconnect()) while the call waited for the device. */
  #stillConnected(connection: Connection): void {
    if (this.#connection !== connection) {
      throw new ProviderError(ErrorCode.NotConnected, { reason: 'the Ledger was disconnected while this call waited: connect again' });
    }
  }

  /**
   * A call's device steps, each holding the device (the transport's queue, shared by every client and provider of
   * that device, so a step's prompts never interleave with another call's), a step inside a step running in it.
   */
  #deviceSteps(report: CallReport, connection: Connection, context: CallOptions, signal: AbortSignal): WithDevice {
    let held: MinaLedgerApp | undefined;
    return <T>(step: (app: MinaLedgerApp) => Promise<T>): Promise<T> => {
      if (held !== undefined) return step(held);
      return this.#client().exclusive(
        async (app) => {
          held = app;
          try {
            signal.throwIfAborted();
            this.#stillConnected(connection);
            return await step(app);
          } finally {
            held = undefined;
            report.deviceReleased();
          }
        },
        { ...context, signal, progress: report.progress },
      );
    };
  }

  /** `args` through method `method`'s schema in the table (20003 naming the bad field). */
  #params<P extends MethodName>(method: P, args: unknown): ParsedParams<P> {
    const schema = ROWS[method].params;
    // The page's arguments read once, as plain data, before any check (./snapshot.ts): every check and the work after
    // it see one value.
    return (schema ? parseParams(schema, snapshotArguments(args)) : undefined) as ParsedParams<P>;
  }

  /**
   * Runs device work holding the device for the whole method (the transport's queue, shared by every client and
   * provider of that device, so the prompts of one call never interleave with another's); tells the report when it
   * lets go. The call counts as pending (bounded, rejectable with `rejectPending()`) until it settles; `work` gets
   * the signal to pass on to the device.
   */
  async #device<T>(report: CallReport, context: CallOptions, work: (app: MinaLedgerApp, signal: AbortSignal) => Promise<T>): Promise<T> {
    return this.#pendingCall(context, (signal) =>
      this.#client().exclusive(
        async (app) => {
          try {
            signal.throwIfAborted();
            return await work(app, signal);
          } finally {
            report.deviceReleased();
          }
        },
        { ...context, signal, progress: report.progress },
      ),
    );
  }

  /**
   * `work` as a pending call of this provider from start to end (at most `maxPendingCalls`, rejected by
   * `rejectPending()`), with the signal that aborts when the caller's does or `rejectPending()` runs.
   */
  async #pendingCall<T>(context: CallOptions, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const pending = this.#pending.enter(context?.signal);
    try {
      return await work(pending.signal);
    } finally {
      pending.leave();
    }
  }

  /** Ends `report` with the call's outcome; a 20006 first goes to the original wallet when this provider wraps one. */
  async #settle<T>(report: CallReport, call: Promise<T>, delegated: DelegatedCall & { delegable(): boolean }): Promise<T> {
    try {
      const result = await call.catch((error: unknown) => orDelegate(this, error, delegated) as Promise<T>);
      report.end('done');
      return result;
    } catch (error) {
      report.end('failed');
      throw error;
    }
  }

  #report(method: string): CallReport {
    return new CallReport(method, this.#options, (message) => this.#hostLog(message));
  }

  /** The host-side credential methods (never on the object: ./host-credentials.ts). */
  #hostCredentials(): HostCredentials {
    return {
      list: (context) =>
        this.#method('listCredentials', {}, context, async (session) => session.store.list(session.address, await session.storeSecret())),
      delete: (id, context) => this.#method('deleteCredential', { id }, context, (session, params) => deleteCredential(session, params.id)),
      rekey: (context) => this.#method('rekeyCredentials', {}, context, (session) => rekeyCredentials(session)),
    };
  }

  async #connect(app: MinaLedgerApp, signal: AbortSignal, report: CallReport): Promise<string[]> {
    if (this.#connection) return [this.#connection.address];
    const appVersion = await app.getAppVersion({ signal });
    const extension = await app.getCapabilities({ signal });
    const display = (!this.#connectedBefore && this.#options.confirmAddress !== false) || !supports(appVersion, 'silentAddress');
    if (display) report.confirm('Confirm the address on your Ledger');
    const address = await app.getAddress(this.accountIndex, { display, signal });
    this.#connection = { address, capabilities: capabilitiesOf(appVersion, extension) };
    this.#connectedBefore = true;
    this.#events.emit('accountsChanged', [address]);
    return [address];
  }

  /** The device client; a new one after the transport reported a disconnect (a replugged device). */
  #client(): MinaLedgerApp {
    if (!this.#app || this.#app.transport.disconnected) {
      this.#app?.transport.off('disconnect', this.#onTransportDisconnect);
      this.#app = new MinaLedgerApp(this.#options.transport);
      this.#app.transport.on('disconnect', this.#onTransportDisconnect);
    }
    return this.#app;
  }

  #checkOrigin(context: RequestContext): void {
    assertSameOrigin(this.origin, callerOrigin(this.origin, this.#bridge, context?.origin));
  }

  /** The connection, for a call from the bound origin (23001 otherwise) on a connected provider (1001 otherwise). */
  #caller(context: RequestContext): Connection {
    this.#checkOrigin(context);
    if (!this.#connection) throw new ProviderError(ErrorCode.NotConnected, { reason: 'not connected: call requestAccounts() first' });
    return this.#connection;
  }

  async #guard<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      const detail = hostDetail(error);
      if (detail !== undefined) this.#hostLog(detail);
      throw toProviderError(error);
    }
  }

  #hostLog(message: string): void {
    try {
      (this.#options.onHostLog ?? console.warn)(`chain-ledger: ${message}`);
    } catch {
      // A failing log hook must not break the call.
    }
  }

  #drop(reason: ProviderError): void {
    if (!this.#connection) return;
    this.#connection = undefined;
    this.#events.emit('disconnect', reason);
    this.#events.emit('accountsChanged', []);
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
