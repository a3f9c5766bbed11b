/**
 * `chain-ledger` credentials for Node: everything of `chain-ledger/credentials` plus `FileCredentialStore`, which imports
 * `node:fs` and so is kept out of the browser entry.
 *
 * @module chain-ledger/credentials/node
 */
export {
  CredentialStoreError,
  isCredentialStoreError,
  canonicalCredential,
  checkAccount,
  checkId,
  checkSecret,
  isEntryId,
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
export {
  FileCredentialStore,
  parseCredentialFile,
  CREDENTIAL_FILE_FORMAT,
  CREDENTIAL_FILE_VERSION,
  type CredentialFile,
  type FileCredentialStoreOptions,
} from './credentials/file-store.js';
