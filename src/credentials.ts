/**
 * `chain-ledger` credentials: the encrypted store of `chain_storePrivateCredential` (interface, errors, encryption,
 * the browser's IndexedDB store; clearing the browser's presentation key cache). Importable in a browser bundle; the
 * Node file store is in `chain-ledger/credentials/node`.
 *
 * @module chain-ledger/credentials
 */
export {
  CredentialStoreError,
  isCredentialStoreError,
  MAX_CREDENTIAL_BYTES,
  MAX_CREDENTIAL_DEPTH,
  STORE_SECRET_BYTES,
  type CredentialEntry,
  type CredentialStore,
  type CredentialStoreErrorKind,
} from './credentials/store.js';
export { StoreKeys, STORE_KDF_INFO, parseSealedEntry, type SealedEntry } from './credentials/store-crypto.js';
export { IndexedDbCredentialStore, DEFAULT_CREDENTIAL_DB, type IndexedDbCredentialStoreOptions } from './credentials/indexeddb-store.js';
export {
  clearPresentationKeyCache,
  KEY_CACHE_DB,
  KEY_CACHE_EVENT,
  O1JS_VERSION,
  type KeyCacheReport,
} from './presentations/indexeddb-key-cache.js';
export { DEFAULT_KEY_CACHE_MAX_BYTES } from './presentations/prover-key-cache.js';
