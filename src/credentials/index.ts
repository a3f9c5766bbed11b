/**
 * `chain-ledger` credentials: the encrypted store of `chain_storePrivateCredential` (interface, errors, encryption,
 * the browser's IndexedDB store). Importable in a browser bundle; the Node file store is in `./node.js`.
 */
export * from './store.js';
export { StoreKeys, STORE_KDF_INFO, parseSealedEntry, type SealedEntry } from './store-crypto.js';
export { IndexedDbCredentialStore, DEFAULT_CREDENTIAL_DB, type IndexedDbCredentialStoreOptions } from './indexeddb-store.js';
