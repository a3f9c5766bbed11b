/**
 * `wrapProvider(original, options)`: for dapps that already have a `window.chain`. The Ledger does what the device
 * can; what it cannot (20006 "Method not supported.": an instruction the app lacks, a method this release does not
 * have, an unknown method) is refused with that error, or handed to the original provider when
 * `whenUnsupported: 'delegate'`. Nothing else is ever delegated: a rejection on the device, invalid parameters or a
 * wrong origin stay errors, and no software key signs unless the transport *is* the software Ledger.
 */
import { ErrorCode, invalidParams, isProviderError, toProviderError } from './to-provider-error.js';
import { LedgerProvider, METHODS, type LedgerProviderOptions, type ProviderEventMap, type RequestContext } from './provider.js';
import type {
  CreateNullifierArgs,
  RequestArguments,
  RequestPresentationArgs,
  RpcResult,
  SendPaymentArgs,
  SendStakeDelegationArgs,
  SendTransactionArgs,
  SignFieldsArgs,
  SignJsonMessageArgs,
  StorePrivateCredentialArgs,
  VerifyFieldsArgs,
  VerifyMessageArgs,
  WalletMethod,
} from './rpc.js';

/** The parts of an existing `window.chain` we may call: its direct methods or its `request`. */
export interface ChainProvider {
  /** `context.origin` is the caller's origin, checked against the bound one before anything is delegated. */
  request?(args: { method: string; params?: unknown }, context?: { origin: string }): Promise<unknown>;
  sendTransaction?(args: unknown, context?: { origin: string }): Promise<unknown>;
  requestPresentation?(args: unknown, context?: { origin: string }): Promise<unknown>;
  createNullifier?(args: unknown, context?: { origin: string }): Promise<unknown>;
  storePrivateCredential?(args: unknown, context?: { origin: string }): Promise<unknown>;
  [key: string]: unknown;
}

export interface WrapProviderOptions extends LedgerProviderOptions {
  /** What to do with a method the Ledger cannot perform: refuse with 20006, or delegate to the original provider. */
  whenUnsupported: 'refuse' | 'delegate';
}

type DeviceMethod =
  | 'sendTransaction'
  | 'requestPresentation'
  | 'createNullifier'
  | 'storePrivateCredential'
  | 'sendPayment'
  | 'sendStakeDelegation'
  | 'signFields'
  | 'signJsonMessage';
/** The wallet-side name of each provider method: `METHODS` read backwards (one name per method). */
const WALLET_NAME = Object.fromEntries(Object.entries(METHODS).map(([wallet, method]) => [method, wallet])) as Record<
  DeviceMethod,
  WalletMethod
>;

export class FallbackProvider {
  readonly ledger: LedgerProvider;
  readonly original: ChainProvider;
  readonly whenUnsupported: 'refuse' | 'delegate';

  constructor(original: ChainProvider, options: WrapProviderOptions) {
    if (options?.whenUnsupported !== 'refuse' && options?.whenUnsupported !== 'delegate') {
      throw invalidParams('whenUnsupported', 'must be "refuse" or "delegate"');
    }
    this.ledger = new LedgerProvider(options);
    this.original = original;
    this.whenUnsupported = options.whenUnsupported;
  }

  requestAccounts = (context?: RequestContext) => this.ledger.requestAccounts(context);
  getAccounts = (context?: RequestContext) => this.ledger.getAccounts(context);
  disconnect = () => this.ledger.disconnect();
  /** Rejects every call of the Ledger provider waiting for or on the device (each → 1002); returns how many. */
  rejectPending = (): number => this.ledger.rejectPending();
  requestNetwork = (context?: RequestContext) => this.ledger.requestNetwork(context);
  verifyMessage = (args: VerifyMessageArgs, context?: RequestContext) => this.ledger.verifyMessage(args, context);
  verifyJsonMessage = (args: VerifyMessageArgs, context?: RequestContext) => this.ledger.verifyJsonMessage(args, context);
  verifyFields = (args: VerifyFieldsArgs, context?: RequestContext) => this.ledger.verifyFields(args, context);
  on = <E extends keyof ProviderEventMap>(event: E, listener: (...args: ProviderEventMap[E]) => void): this => {
    this.ledger.on(event, listener);
    return this;
  };
  off = <E extends keyof ProviderEventMap>(event: E, listener: (...args: ProviderEventMap[E]) => void): this => {
    this.ledger.off(event, listener);
    return this;
  };
  removeListener = this.off;
  removeAllListeners = (event?: keyof ProviderEventMap): this => {
    this.ledger.removeAllListeners(event);
    return this;
  };

  sendTransaction = (args: SendTransactionArgs, options?: RequestContext) => this.#call('sendTransaction', args, options);
  requestPresentation = (args: RequestPresentationArgs, options?: RequestContext) => this.#call('requestPresentation', args, options);
  createNullifier = (args: CreateNullifierArgs, options?: RequestContext) => this.#call('createNullifier', args, options);
  storePrivateCredential = (args: StorePrivateCredentialArgs, options?: RequestContext) =>
    this.#call('storePrivateCredential', args, options);
  sendPayment = (args: SendPaymentArgs, options?: RequestContext) => this.#call('sendPayment', args, options);
  sendStakeDelegation = (args: SendStakeDelegationArgs, options?: RequestContext) => this.#call('sendStakeDelegation', args, options);
  signFields = (args: SignFieldsArgs, options?: RequestContext) => this.#call('signFields', args, options);
  signJsonMessage = (args: SignJsonMessageArgs, options?: RequestContext) => this.#call('signJsonMessage', args, options);

  /**
   * `request` as the Ledger provider types it for its own methods; any other method name is accepted too, since it
   * may be delegated to the original provider (which answers for itself).
   */
  request<M extends WalletMethod>(args: RequestArguments<M>, context?: RequestContext): Promise<RpcResult<M>>;
  request(args: { method: string; params?: unknown }, context?: RequestContext): Promise<unknown>;
  async request(args: { method: string; params?: unknown }, context?: RequestContext): Promise<unknown> {
    try {
      return await this.ledger.request(args as RequestArguments, context);
    } catch (error) {
      if (!this.#delegates(error)) throw error;
      // The original provider's own errors pass through as it gave them.
      if (typeof this.original.request !== 'function') throw error;
      return this.original.request(args, this.#checkedCaller(context));
    }
  }

  async #call(method: DeviceMethod, args: unknown, options?: RequestContext): Promise<unknown> {
    try {
      // Validated at run time by the method itself.
      const run = this.ledger[method] as (args: unknown, options?: RequestContext) => Promise<unknown>;
      return await run.call(this.ledger, args, options);
    } catch (error) {
      if (!this.#delegates(error)) throw error;
      const direct = this.original[method];
      if (typeof direct === 'function') return direct.call(this.original, args, this.#checkedCaller(options));
      if (typeof this.original.request === 'function') {
        return this.original.request({ method: WALLET_NAME[method], params: args }, this.#checkedCaller(options));
      }
      throw error;
    }
  }

  /**
   * Before anything is delegated: the call must come from the bound origin (23001) on a connected provider (1001).
   * The original receives the checked origin, so it can apply its own per-origin rules.
   */
  #checkedCaller(context?: RequestContext): { origin: string } {
    try {
      this.ledger.assertCaller(context);
    } catch (error) {
      throw toProviderError(error);
    }
    return { origin: this.ledger.origin };
  }

  #delegates(error: unknown): boolean {
    return this.whenUnsupported === 'delegate' && isProviderError(error) && error.code === ErrorCode.MethodNotSupported;
  }
}

/**
 * A Ledger provider in front of an existing `window.chain`: the Ledger does what the device can; what it cannot
 * (20006) is refused, or handed to `original` with `whenUnsupported: 'delegate'`. Nothing else is ever delegated.
 *
 * @param original - The wallet already on the page (Auro's `window.mina`, another `window.chain`): its direct
 *   methods or its `request`.
 * @param options - `createLedgerProvider`'s options, plus `whenUnsupported: 'refuse' | 'delegate'`.
 * @returns A provider with the `LedgerProvider` methods; its promises reject only with `ProviderError`.
 * @throws `ProviderError` 20003 naming the bad option (`whenUnsupported`, or one of `createLedgerProvider`'s).
 * @example
 * ```ts
 * import { install, wrapProvider } from 'chain-ledger';
 * import { openWebHid } from 'chain-ledger/transport';
 *
 * const chain = wrapProvider(window.mina, { transport: await openWebHid({ request: true }), network: 'mainnet', whenUnsupported: 'delegate' });
 * install(chain);
 * ```
 */
export function wrapProvider(original: ChainProvider, options: WrapProviderOptions): FallbackProvider {
  return new FallbackProvider(original, options);
}
