/**
 * The door between a provider and its host-side credential methods (./credential-manager.ts): the provider registers
 * its methods here when it is made, and only `credentialManager(provider)` reads them. They are not on the provider
 * object, so a page that holds `window.chain` cannot list, delete or re-key stored credentials (docs/security.md).
 */
import type { CredentialEntry } from '../credentials/store.js';
import type { CallOptions } from './rpc.js';

/** What `credentialManager(provider)` calls. */
export interface HostCredentials {
  list(options: CallOptions): Promise<CredentialEntry[]>;
  delete(id: unknown, options: CallOptions): Promise<boolean>;
  rekey(options: CallOptions): Promise<boolean>;
}

const registered = new WeakMap<object, HostCredentials>();

/** Called by the provider's constructor (once: a provider's methods cannot be replaced later). */
export function registerHostCredentials(provider: object, methods: HostCredentials): void {
  if (!registered.has(provider)) registered.set(provider, methods);
}

/** The host-side credential methods of `provider`; a TypeError for anything that is not a provider. */
export function hostCredentialsOf(provider: object): HostCredentials {
  const methods = registered.get(provider);
  if (!methods) throw new TypeError('credentialManager needs a provider made by createLedgerProvider or wrapProvider');
  return methods;
}
