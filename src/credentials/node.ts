/**
 * `chain-ledger` credentials for Node: everything of `./index.js` plus `FileCredentialStore`, which imports
 * `node:fs` and so is kept out of the browser entry.
 *
 * @module chain-ledger/credentials/node
 */
export * from './index.js';
export {
  FileCredentialStore,
  parseCredentialFile,
  CREDENTIAL_FILE_FORMAT,
  CREDENTIAL_FILE_VERSION,
  type CredentialFile,
  type FileCredentialStoreOptions,
} from './file-store.js';
