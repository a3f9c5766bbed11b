export {
  createLedgerProvider,
  LedgerProvider,
  METHODS,
  type Capabilities,
  type CallOptions,
  type DeviceAction,
  type LedgerProviderOptions,
  type Network,
  type RequestContext,
  type SignedMessage,
  type WalletMethod,
} from './provider.js';
export { ErrorCode, ERROR_MESSAGES, ProviderError, isProviderError, toProviderError, type ProviderErrorData } from './errors.js';
export { parseMina } from './schemas.js';
