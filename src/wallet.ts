/**
 * `chain-ledger/wallet`: the wallet page's side of `chain-ledger/connect`, for a wallet of one's own (examples/wallet
 * is one, built on exactly these): `WalletHost` serves the one dapp that opened the wallet window, on a Ledger
 * provider bound to the origin the browser reports for it; `storageSites` keeps the connected sites in the wallet
 * origin's `localStorage`, `storageHistory` what the wallet signed and sent for them (its Activity), and
 * `fetchAccountOverview` an account's balance and nonce from the network's node (its Home), `fetchCommandStatus` a
 * payment's status (pending, included, failed: its Activity), `credentialCode` the device's approval code of a stored
 * credential (its Credentials screen ties each to the site that stored it); the prover window relay (`proverWindowProver` in the wallet window, `serveProverWindow` in
 * the prover window, set with `useBrowserProver`) proves where the wallet window is not cross-origin isolated
 * (docs/wallet.md). For a browser bundle with the `chain-ledger/vite` plugin.
 *
 * @example
 * ```ts
 * import { WalletHost, storageSites } from 'chain-ledger/wallet';
 * import { openWebHid } from 'chain-ledger/transport';
 *
 * const host = new WalletHost({ provider: { network: 'mainnet' }, sites: storageSites(localStorage) });
 * host.attach(window);
 * connectButton.onclick = async () => host.useDevice(await openWebHid({ request: true }));
 * ```
 *
 * @module chain-ledger/wallet
 */
export {
  WalletHost,
  type DappWindow,
  type HostWindow,
  type WalletActivity,
  type WalletHostOptions,
} from './wallet/host.js';
export {
  ACTIVITY_KEY,
  ACTIVITY_LIMIT,
  activityEntry,
  memoryHistory,
  storageHistory,
  type ActivityEntry,
  type ActivityHistory,
  type ActivityKind,
} from './wallet/history.js';
export { ACCOUNT_OVERVIEW_QUERY, fetchAccountOverview, type AccountOverview } from './wallet/account.js';
export { COMMAND_STATUS_QUERY, STATUS_BLOCKS, fetchCommandStatus, type CommandStatus } from './wallet/status.js';
export { CONNECTED_SITES_KEY, storageSites, type ConnectedSite, type ConnectedSites, type SiteStorage } from './wallet/sites.js';
export {
  PROVER_WINDOW_WAIT_MS,
  catchUnisolatedO1jsStart,
  proverWindowProver,
  serveProverWindow,
  type ProverChannel,
  type ProverWindowOptions,
  type RejectionTarget,
} from './wallet/prover.js';
export { useBrowserProver, type BrowserProver } from './presentations/runner.js';
export { credentialCode } from './credentials/store-credential.js';
