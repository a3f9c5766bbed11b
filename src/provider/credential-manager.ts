/**
 * The wallet owner's view of the credential store: list, delete and re-key. These are host-side functions (the CLI, a wallet
 * UI in the host application), not page methods: a page never reads stored credentials (they leave the wallet only
 * as presentations) and never deletes them. Neither `request()` nor the provider object serves them; only code that
 * holds this module's `credentialManager` and the provider can call them (docs/security.md).
 */
import type { CredentialEntry } from '../credentials/store.js';
import { hostCredentialsOf } from './host-credentials.js';
import type { LedgerProvider } from './provider.js';
import type { CallOptions } from './rpc.js';

export interface CredentialManager {
  /** The credentials stored for the connected account (the store key is derived on the device once per connection). */
  list(options?: CallOptions): Promise<CredentialEntry[]>;
  /**
   * Deletes a stored credential of the connected account by id, after the user approves
   * `Delete credential <8 hex>` on the Ledger (the same 8 hex digits the store approval showed); false if it was not
   * there (then nothing is asked). Rejected on the device → 1002, nothing deleted.
   */
  delete(id: string, options?: CallOptions): Promise<boolean>;
  /**
   * Re-keys the connected account's store: the store secret is derived through the device as for every credential
   * operation (the store-key approval, once per connection), then every entry is re-encrypted under a fresh random
   * salt (ids and dates kept). Resolves false when the account has no store yet. Against a leak of derived keys;
   * a leaked store-key signature re-derives the same secret and opens the re-keyed store too (docs/credentials.md).
   */
  rekey(options?: CallOptions): Promise<boolean>;
}

/**
 * The host-side credential API of a provider: for the wallet owner (the CLI, a wallet UI), never for a page.
 *
 * @param provider - A provider; connect it first with `requestAccounts()`.
 * @returns `list()`, `delete(id)` and `rekey()`. Each rejects only with `ProviderError`: 1001 when the provider is
 *   not connected, 1002 when the user rejects on the Ledger (the store key or a deletion), 20003 for a bad id, 20006
 *   on a Mina app older than 1.4.5 (the store key needs its signed-message echo), on a transport that would log the
 *   store key, or (`rekey`) for a store without `rekey`, 22001 when the store fails (the details go to `onHostLog`,
 *   not to the error).
 * @example
 * ```ts
 * import { createLedgerProvider, credentialManager } from 'chain-ledger';
 *
 * const chain = createLedgerProvider({ transport, network: 'mainnet', origin: 'https://wallet.example' });
 * await chain.requestAccounts();
 * const credentials = credentialManager(chain);
 * for (const entry of await credentials.list()) console.log(entry.id);
 * ```
 */
export function credentialManager(provider: LedgerProvider): CredentialManager {
  const host = hostCredentialsOf(provider);
  return {
    list: (options = {}) => host.list(options),
    delete: (id, options = {}) => host.delete(id, options),
    rekey: (options = {}) => host.rekey(options),
  };
}
