/**
 * `wrapProvider(original, options)`: for dapps that already have a `window.chain`. The Ledger does what the device
 * can; what it cannot (20006 "Method not supported.": an instruction the app lacks, a method this release does not
 * have, an unknown method) is refused with that error, or handed to the original provider when
 * `whenUnsupported: 'delegate'`. Nothing else is ever delegated: a rejection on the device, invalid parameters or a
 * wrong origin stay errors, and no software key signs unless the transport *is* the software Ledger.
 *
 * The wrapper is a `LedgerProvider` (a subclass), so it has every method, getter and event of one by construction;
 * the delegation is one step of the provider's pipeline, and which methods may be delegated is a column of the method
 * table (./methods.ts).
 */
import { invalidParams } from './to-provider-error.js';
import { LedgerProvider } from './provider.js';
import { delegateUnsupported, type DelegatedCall } from './delegation.js';
import type { LedgerProviderOptions } from './options.js';
import type { RequestArguments, RequestContext, RequestResult, RevokePermissionsArgs } from './rpc.js';
import type { ProviderError } from '../errors/provider-error.js';

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

/**
 * A `LedgerProvider` in front of a wallet the page already has: the Ledger does what the device can; a call it
 * cannot do (20006) is refused, or, with `whenUnsupported: 'delegate'`, handed to `original` after the caller's
 * origin and the connection have been checked, with the arguments as given. Nothing else is ever delegated: a
 * rejection on the device, invalid parameters or a wrong origin stay errors. Make one with `wrapProvider`.
 *
 * @example
 * ```ts
 * const chain = wrapProvider(window.mina, { transport, network: 'mainnet', whenUnsupported: 'delegate' });
 * await chain.requestAccounts(); // on the Ledger
 * await chain.createNullifier({ message: ['1'] }); // the released Mina app has no nullifier: window.mina makes it
 * ```
 */
export class FallbackProvider extends LedgerProvider {
  /** The wallet calls are handed to. */
  readonly original: ChainProvider;
  readonly whenUnsupported: 'refuse' | 'delegate';

  /** @throws `ProviderError` 20003 naming the bad option (`whenUnsupported`, or one of `createLedgerProvider`'s). */
  constructor(original: ChainProvider, options: WrapProviderOptions) {
    if (options?.whenUnsupported !== 'refuse' && options?.whenUnsupported !== 'delegate') {
      throw invalidParams('whenUnsupported', 'must be "refuse" or "delegate"');
    }
    super(options);
    this.original = original;
    this.whenUnsupported = options.whenUnsupported;
    if (this.whenUnsupported === 'delegate') delegateUnsupported(this, (error, call) => this.#delegate(error, call));
  }

  /**
   * `request` as the Ledger provider types it for its own methods; any other method name is accepted too, since it
   * may be delegated to the original provider (which answers for itself).
   */
  override request<A extends RequestArguments>(args: A, context?: RequestContext): Promise<RequestResult<A>>;
  override request(args: { method: string; params?: unknown }, context?: RequestContext): Promise<unknown>;
  override request(args: { method: string; params?: unknown }, context?: RequestContext): Promise<unknown> {
    return super.request(args as RequestArguments, context);
  }

  /**
   * `LedgerProvider.revokePermissions`, declared again on this class: Auro's test dapp decides whether a wallet can
   * revoke by looking at the object's own prototype (`Object.getOwnPropertyNames(Object.getPrototypeOf(provider))`).
   *
   * @param args - Ignored, as on `LedgerProvider`.
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns `[]`.
   * @throws `ProviderError` 23001 when the call comes from another origin.
   */
  override revokePermissions(args?: RevokePermissionsArgs, context?: RequestContext): Promise<[]> {
    return super.revokePermissions(args, context);
  }

  /**
   * The original's answer to a call the Ledger could not do: the same `request` when the dapp called `request()`;
   * else the original's method of the same name, or its `request` with the wallet name. Its own errors pass through
   * as it gave them. Before anything is handed on, the call must come from the bound origin (23001) on a connected
   * provider (1001); the original receives the checked origin, so it can apply its own per-origin rules.
   */
  async #delegate(error: ProviderError, call: DelegatedCall): Promise<unknown> {
    const { original } = this;
    const direct = call.viaRequest ? undefined : original[call.method];
    if (typeof direct === 'function') return direct.call(original, call.args, this.#checkedCaller(call.context));
    if (typeof original.request !== 'function') throw error;
    const args = call.viaRequest
      ? (call.args as { method: string; params?: unknown })
      : { method: call.walletMethod ?? call.method, params: call.args };
    return original.request(args, this.#checkedCaller(call.context));
  }

  #checkedCaller(context: RequestContext): { origin: string } {
    this.assertCaller(context);
    return { origin: this.origin };
  }
}

/**
 * A Ledger provider in front of an existing `window.chain`: the Ledger does what the device can; what it cannot
 * (20006) is refused, or handed to `original` with `whenUnsupported: 'delegate'`. Nothing else is ever delegated.
 *
 * @param original - The wallet already on the page (Auro's `window.mina`, another `window.chain`): its direct
 *   methods or its `request`.
 * @param options - `createLedgerProvider`'s options, plus `whenUnsupported: 'refuse' | 'delegate'`.
 * @returns A `LedgerProvider` (every method, getter and event of one); its promises reject only with `ProviderError`,
 *   or with the original provider's own error for a call it answered.
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
