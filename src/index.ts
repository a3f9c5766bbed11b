/**
 * `chain-ledger`: a Ledger behind Mina's `window.chain`. The device layer is in `chain-ledger/apdu`,
 * `chain-ledger/transport` and `chain-ledger/emulator`.
 *
 * @module chain-ledger
 */
export {
  createLedgerProvider,
  LedgerProvider,
  METHODS,
  type Capabilities,
  type CallOptions,
  type DeviceAction,
  type LedgerProviderOptions,
  type Network,
  type ProviderEventMap,
  type RequestContext,
} from './provider/provider.js';
export type {
  ChainRpcSchema,
  CreateNullifierArgs,
  NullifierResult,
  RequestArguments,
  RequestPresentationArgs,
  RpcParams,
  RpcResult,
  SendPaymentArgs,
  SendStakeDelegationArgs,
  SendTransactionArgs,
  SignedMessage,
  SignFieldsArgs,
  SignJsonMessageArgs,
  SignMessageArgs,
  StorePrivateCredentialArgs,
  SwitchChainArgs,
  VerifyFieldsArgs,
  VerifyMessageArgs,
  WalletMethod,
} from './provider/rpc.js';
export { ErrorCode, ERROR_MESSAGES, ProviderError, isProviderError, type ProviderErrorData } from './errors/provider-error.js';
export { toProviderError } from './provider/to-provider-error.js';
export { parseMina } from './provider/schemas.js';
export { credentialManager, type CredentialManager } from './provider/credential-manager.js';
export {
  announceProvider,
  install,
  requestProviders,
  ANNOUNCE_PROVIDER_EVENT,
  DEFAULT_PROVIDER_INFO,
  REQUEST_PROVIDER_EVENT,
  type DiscoveryWindow,
  type InstallOptions,
  type ProviderDetail,
  type ProviderInfo,
} from './provider/discovery.js';
export type { JsonMessageEntry } from './messages/sign-message.js';
export type { SignedFields } from './messages/sign-fields.js';
/** What `confirmZkapp` sees of a zkApp command (docs/provider.md). */
export type { SensitiveChange, ZkappSummary } from './zkapp/summary.js';
export { wrapProvider, FallbackProvider, type ChainProvider, type WrapProviderOptions } from './provider/wrap.js';
