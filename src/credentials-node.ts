/**
 * `chain-ledger` credentials for Node: everything of `chain-ledger/credentials` plus `FileCredentialStore`, which imports
 * `node:fs` and so is kept out of the browser entry.
 *
 * @module chain-ledger/credentials/node
 */
// biome-ignore lint/performance/noReExportAll: this entry is chain-ledger/credentials and the file store; the browser entry's list is written once, there.
export * from './credentials.js';
export {
  FileCredentialStore,
  parseCredentialFile,
  CREDENTIAL_FILE_FORMAT,
  CREDENTIAL_FILE_VERSION,
  type CredentialFile,
  type FileCredentialStoreOptions,
} from './credentials/file-store.js';
