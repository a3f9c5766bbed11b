/**
 * `chain-ledger` credentials: the encrypted store of `chain_storePrivateCredential` (interface, errors, encryption,
 * the browser's IndexedDB store; clearing the browser's presentation key cache). Importable in a browser bundle; the
 * Node file store is in `./node.js`.
 *
 * @module chain-ledger/credentials
 */
export * from './store.js';
export { StoreKeys, STORE_KDF_INFO, parseSealedEntry, type SealedEntry } from './store-crypto.js';
export { IndexedDbCredentialStore, DEFAULT_CREDENTIAL_DB, type IndexedDbCredentialStoreOptions } from './indexeddb-store.js';
export {
  clearPresentationKeyCache,
  KEY_CACHE_DB,
  KEY_CACHE_EVENT,
  O1JS_VERSION,
  type KeyCacheReport,
} from './browser-key-cache.js';
export { DEFAULT_KEY_CACHE_MAX_BYTES } from './key-cache.js';
