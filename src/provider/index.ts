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
} from './provider.js';
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
} from './rpc.js';
export { ErrorCode, ERROR_MESSAGES, ProviderError, isProviderError, toProviderError, type ProviderErrorData } from './errors.js';
export { parseMina } from './schemas.js';
export { credentialManager, type CredentialManager } from './credential-manager.js';
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
} from './discovery.js';
export type { JsonMessageEntry, SignedFields } from './messages.js';
/** What `confirmZkapp` sees of a zkApp command (docs/provider.md). */
export type { SensitiveChange, ZkappSummary } from '../zkapp/summary.js';
