/**
 * `chain-ledger`: a Ledger behind Mina's `window.chain`. The device layer is in `chain-ledger/apdu`,
 * `chain-ledger/transport` and `chain-ledger/emulator`.
 *
 * @module chain-ledger
 */
export { createLedgerProvider, LedgerProvider } from './provider/provider.js';
export { METHODS, type WalletMethod } from './provider/methods.js';
export type { Capabilities } from './device/capabilities.js';
export type { DeviceAction, LedgerProviderOptions, Network, ProgressEvent } from './provider/options.js';
export type { ProgressStage } from './util/progress.js';
export type { ProviderEventMap } from './provider/events.js';
export { NETWORKS, type AddedChain, type ChainNetwork, type SigningNetwork } from './provider/networks.js';
export type {
  AddChainArgs,
  CallOptions,
  ChainRpcSchema,
  CreateNullifierArgs,
  RequestArguments,
  RequestContext,
  RequestPresentationArgs,
  RequestResult,
  RevokePermissionsArgs,
  RpcParams,
  RpcResult,
  SendPaymentArgs,
  SendSignedTransactionArgs,
  SendStakeDelegationArgs,
  SendTransactionArgs,
  SendTransactionResultFor,
  SignFieldsArgs,
  SignJsonMessageArgs,
  SignMessageArgs,
  SignTransactionArgs,
  StorePrivateCredentialArgs,
  SwitchChainArgs,
  VerifyFieldsArgs,
  VerifyMessageArgs,
} from './provider/rpc.js';
export type { NullifierResult } from './nullifier/create-nullifier.js';
export type { SignedLegacyTransaction, SignedTransaction, SignedZkappTransaction } from './provider/sign-only.js';
/** What `confirmPresentation` sees of a presentation request, and what it answers (docs/provider.md). */
export type {
  ConfirmPresentation,
  CredentialCandidate,
  CredentialChoice,
  PresentationAnswer,
  PresentationNotSatisfied,
  PresentationReview,
  SelectCredentials,
} from './presentations/request-presentation.js';
export { ErrorCode, ERROR_MESSAGES, ProviderError, isProviderError, type ProviderErrorData } from './errors/provider-error.js';
export { toProviderError } from './provider/to-provider-error.js';
export { parseMina } from './provider/schemas.js';
export { credentialManager, type CredentialManager } from './provider/credential-manager.js';
export {
  announceProvider,
  install,
  minaJsView,
  requestProviders,
  ANNOUNCE_PROVIDER_EVENT,
  DEFAULT_PROVIDER_INFO,
  REQUEST_PROVIDER_EVENT,
  type DiscoveryWindow,
  type InstallOptions,
  type ProviderDetail,
  type ProviderInfo,
  type WalletIdentity,
} from './provider/discovery.js';
export type { JsonMessageEntry, SignedMessage } from './messages/sign-message.js';
export type { SignedFields } from './messages/sign-fields.js';
/** What `confirmZkapp` sees of a zkApp command (docs/provider.md). */
export type { AuthorityChange, SensitiveChange, ZkappAuthorization, ZkappSummary, ZkappUpdateSummary } from './zkapp/summary.js';
/** The one renderer of that summary: sections of rows for a UI, lines for a terminal (docs/provider.md). */
export {
  zkappSummaryLines,
  zkappSummaryView,
  type ZkappSummaryFlag,
  type ZkappSummaryRow,
  type ZkappSummarySection,
} from './zkapp/summary-view.js';
/** What `confirmBeyondSpendCap` is asked about: a change the spend cap cannot count in MINA. */
export type { BeyondSpendCap } from './zkapp/spend-cap.js';
export { wrapProvider, FallbackProvider, type ChainProvider, type WrapProviderOptions } from './provider/wrap.js';
