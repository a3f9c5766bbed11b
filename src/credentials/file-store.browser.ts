/**
 * The browser twin of file-store.ts, chosen by the `browser` condition of `#credentials/file-store` (package.json
 * "imports"): a browser has no file system, so a bundle never pulls in `node:fs`. The provider picks
 * `IndexedDbCredentialStore` there and never reaches this class.
 */
export class FileCredentialStore {
  constructor(_directory: string) {
    throw new Error('FileCredentialStore is Node-only: in a browser, use IndexedDbCredentialStore (chain-ledger/credentials)');
  }
}
