/**
 * `chain-ledger/connect`: the dapp side of the chain-ledger wallet page. A small `window.chain` (no o1js, no
 * mina-signer, no zod) whose calls run in the wallet window, at the wallet's own origin, where the Ledger, the
 * credential store and the prover live (docs/wallet.md).
 *
 * @module chain-ledger/connect
 */
export {
  connectWallet,
  WalletConnector,
  type ConnectWalletOptions,
  type ConnectorEventMap,
  type ConnectorEventName,
  type ConnectorListener,
  type ConnectorWindow,
  type WalletWindow,
} from './connect/connector.js';
export type { ProgressEvent } from './provider/options.js';
export type { ProgressStage } from './util/progress.js';
export { ErrorCode, ERROR_MESSAGES, ProviderError, isProviderError, type ProviderErrorData } from './errors/provider-error.js';
export { ANNOUNCE_PROVIDER_EVENT, DEFAULT_PROVIDER_INFO, REQUEST_PROVIDER_EVENT, type ProviderInfo } from './provider/discovery.js';
