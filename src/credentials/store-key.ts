/**
 * Where the credential store's key comes from and where the store lives by default (docs/credentials.md).
 *
 * The key: the device's deterministic INS 05 signature over STORE_KEY_MESSAGE on network id 1 (whatever the
 * provider's network, so one key serves every network), verified with mina-signer, hashed with sha256. A device with
 * the extension's STORE_KEY (1.3) gives the very same signature with the site asking on its screen, and is asked that
 * way; the released app shows only the text. The raw signature is never kept; only its hash is.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import type { MinaLedgerApp } from '../device/client.js';
import { fromHex } from '../apdu/bytes.js';
import { signatureToRawHex } from '../apdu/signature.js';
import { STORE_KEY_MESSAGE, storeKeySignedText } from '../apdu/store-key.js';
import type { AppVersion } from '../apdu/version.js';
import { minaSigners } from '../upstream/mina-signers.js';
import { ErrorCode, ProviderError } from '../errors/provider-error.js';
import type { CredentialStore } from './store.js';

/**
 * How the store key is asked for: by the extension's STORE_KEY naming the site (`storeKey`: the device has it, and
 * runs app `appVersion`), else by INS 05 (the released app, which shows only the text).
 */
export interface StoreKeyPrompt {
  signal?: AbortSignal;
  storeKey?: { origin: string; appVersion: AppVersion };
}

/**
 * Asks the device for the store-key signature of account `accountIndex` and returns the 32-byte store secret.
 * Rejects (22001) a signature that does not verify for `address`.
 */
export async function deriveStoreSecret(
  app: MinaLedgerApp,
  accountIndex: number,
  address: string,
  { signal, storeKey }: StoreKeyPrompt = {},
): Promise<Uint8Array> {
  const signed = storeKey
    ? {
        ...(await app.storeKey({ account: accountIndex, origin: storeKey.origin }, { signal })),
        signedMessage: storeKeySignedText(storeKey.appVersion),
      }
    : await app.signMessage(accountIndex, STORE_KEY_MESSAGE, 1, { signal });
  const signature = { field: signed.field, scalar: signed.scalar };
  const { mainnet } = await minaSigners();
  if (!mainnet.verifyMessage({ data: signed.signedMessage, publicKey: address, signature })) {
    throw new ProviderError(ErrorCode.Internal, { reason: 'the Ledger returned a store-key signature that does not verify' });
  }
  return sha256(fromHex(signatureToRawHex(signature)));
}

/**
 * The store used when the host gives none: IndexedDB in a browser; in Node, files under
 * `$XDG_DATA_HOME/chain-ledger/credentials` (else `~/.local/share/chain-ledger/credentials`). Loaded lazily so that a
 * browser bundle never pulls in `node:fs`.
 */
export async function defaultCredentialStore(): Promise<CredentialStore> {
  if (typeof indexedDB !== 'undefined' && typeof process === 'undefined') {
    const { IndexedDbCredentialStore } = await import('./indexeddb-store.js');
    return new IndexedDbCredentialStore();
  }
  // `#credentials/file-store` is file-store.browser.ts under the `browser` condition (package.json "imports"), so a
  // browser bundle never pulls node:fs in; node:os and node:path become empty modules there (chain-ledger/vite).
  const [{ FileCredentialStore }, { homedir }, { join }] = await Promise.all([
    import('#credentials/file-store'),
    import('node:os'),
    import('node:path'),
  ]);
  const base = process.env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return new FileCredentialStore(join(base, 'chain-ledger', 'credentials'));
}
