/**
 * `wrapProvider`'s step of the provider's pipeline: a call the Ledger cannot do (20006) is handed to the original
 * wallet, where the method table (./methods.ts) lets that method be delegated. A provider made by
 * `createLedgerProvider` has no fallback, so it refuses; ./wrap.ts gives one to each `FallbackProvider` it makes.
 */
import { ErrorCode, isProviderError, type ProviderError } from '../errors/provider-error.js';
import type { RequestContext } from './rpc.js';

/** A call the Ledger could not do (20006), as a wrapped provider hands it to the original wallet. */
export interface DelegatedCall {
  /** The provider method (`createNullifier`), or `request` for a call made through `request()`. */
  method: string;
  /** Its wallet name (`chain_createNullifier`), for a wallet method called directly. */
  walletMethod?: string;
  /** The arguments as the caller gave them: the method's, or (`viaRequest`) the whole `{ method, params }`. */
  args: unknown;
  context: RequestContext;
  /** Whether the dapp called `request()` (the original then gets the same request). */
  viaRequest: boolean;
}

/** How a wrapped provider hands on a call: the original wallet's answer, or `error` again when it has no such method. */
export type Fallback = (error: ProviderError, call: DelegatedCall) => Promise<unknown>;

/** The fallback of each provider `wrapProvider` made. */
const fallbacks = new WeakMap<object, Fallback>();

/** From now on, a 20006 of `provider` that the table lets delegate goes to `fallback` (set once per provider). */
export function delegateUnsupported(provider: object, fallback: Fallback): void {
  if (!fallbacks.has(provider)) fallbacks.set(provider, fallback);
}

/**
 * What a call of `provider` that failed with `error` comes to: the original wallet's answer when `provider` wraps
 * one, the Ledger could not do the call (20006) and `call.delegable()` (the table's rule, asked last); else `error`
 * is thrown again.
 */
export async function orDelegate(provider: object, error: unknown, call: DelegatedCall & { delegable(): boolean }): Promise<unknown> {
  const fallback = fallbacks.get(provider);
  const unsupported = isProviderError(error) && error.code === ErrorCode.MethodNotSupported;
  if (!fallback || !unsupported || !call.delegable()) throw error;
  const { delegable: _, ...delegated } = call;
  return fallback(error, delegated);
}
