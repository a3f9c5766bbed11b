/**
 * `wrapProvider(original, options)`: for dapps that already have a `window.chain`. The Ledger does what the device
 * can; what it cannot (20006 "Method not supported.": an instruction the app lacks, a method this release does not
 * have, an unknown method) is refused with that error, or handed to the original provider when
 * `whenUnsupported: 'delegate'`. Nothing else is ever delegated: a rejection on the device, invalid parameters or a
 * wrong origin stay errors, and no software key signs unless the transport *is* the software Ledger.
 */
import { ErrorCode, invalidParams, isProviderError } from '../provider/errors.js';
import {
  LedgerProvider,
  type LedgerProviderOptions,
  type RequestContext,
  type WalletMethod,
} from '../provider/provider.js';

/** The parts of an existing `window.chain` we may call: its direct methods or its `request`. */
export interface ChainProvider {
  request?(args: { method: string; params?: unknown }): Promise<unknown>;
  sendTransaction?(args: unknown): Promise<unknown>;
  requestPresentation?(args: unknown): Promise<unknown>;
  createNullifier?(args: unknown): Promise<unknown>;
  storePrivateCredential?(args: unknown): Promise<unknown>;
  [key: string]: unknown;
}

export interface WrapProviderOptions extends LedgerProviderOptions {
  /** What to do with a method the Ledger cannot perform: refuse with 20006, or delegate to the original provider. */
  whenUnsupported: 'refuse' | 'delegate';
}

type DeviceMethod = 'sendTransaction' | 'requestPresentation' | 'createNullifier' | 'storePrivateCredential';
const WALLET_NAME: Record<DeviceMethod, WalletMethod> = {
  sendTransaction: 'chain_sendTransaction',
  requestPresentation: 'chain_requestPresentation',
  createNullifier: 'chain_createNullifier',
  storePrivateCredential: 'chain_storePrivateCredential',
};

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
  on: LedgerProvider['on'] = (event, listener) => this.ledger.on(event, listener);
  off: LedgerProvider['off'] = (event, listener) => this.ledger.off(event, listener);

  sendTransaction = (args: unknown, options?: RequestContext) => this.#call('sendTransaction', args, options);
  requestPresentation = (args: unknown, options?: RequestContext) => this.#call('requestPresentation', args, options);
  createNullifier = (args: unknown, options?: RequestContext) => this.#call('createNullifier', args, options);
  storePrivateCredential = (args: unknown, options?: RequestContext) => this.#call('storePrivateCredential', args, options);

  async request(args: { method: string; params?: unknown }, context?: RequestContext): Promise<unknown> {
    try {
      return await this.ledger.request(args, context);
    } catch (error) {
      if (!this.#delegates(error)) throw error;
      // The original provider's own errors pass through as it gave them.
      if (typeof this.original.request !== 'function') throw error;
      return this.original.request(args);
    }
  }

  async #call(method: DeviceMethod, args: unknown, options?: RequestContext): Promise<unknown> {
    try {
      return await this.ledger[method](args, options);
    } catch (error) {
      if (!this.#delegates(error)) throw error;
      const direct = this.original[method];
      if (typeof direct === 'function') return direct.call(this.original, args);
      if (typeof this.original.request === 'function') return this.original.request({ method: WALLET_NAME[method], params: args });
      throw error;
    }
  }

  #delegates(error: unknown): boolean {
    return this.whenUnsupported === 'delegate' && isProviderError(error) && error.code === ErrorCode.MethodNotSupported;
  }
}

export function wrapProvider(original: ChainProvider, options: WrapProviderOptions): FallbackProvider {
  return new FallbackProvider(original, options);
}

