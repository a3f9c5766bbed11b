/**
 * `chain-ledger/apdu`: the Mina Ledger app's client, its errors, versions and signature encodings, exported by
 * name (the surface is snapshotted in test/package.test.ts: a change to it is a decision). The pure byte codec,
 * for tools and device models, is the `codec` namespace.
 *
 * @example
 * ```ts
 * import { MinaLedgerApp, isLedgerError } from 'chain-ledger/apdu';
 * const app = new MinaLedgerApp(transport);
 * const address = await app.getAddress(0, { display: true });
 * ```
 *
 * @module chain-ledger/apdu
 */
// The client.
export { MinaLedgerApp, type GetAddressOptions } from './device/client.js';
export type { AddressOptions, MinaAddress, MinaAppConfiguration } from './device/commands.js';
export type { AccountOrPath } from './apdu/arguments.js';
export type { ApduTransport, SendOptions } from './transport/types.js';
// What its methods take and return.
export { MESSAGE_MAX_BYTES, type NetworkId, type PaymentOrDelegation } from './apdu/codec.js';
export {
  MAX_LONG_TEXT_MESSAGE_BYTES,
  MAX_PAGED_TEXT_CHARS,
  MAX_TEXT_MESSAGE_BYTES,
  maxTextMessageBytes,
  textHash,
  textShownAsHash,
} from './apdu/message-text.js';
export type { TextToSign } from './apdu/sign-text.js';
export { MAX_FIELDS, fieldsDigest, type DeviceNullifier, type ExtensionCapabilities, type SignatureDomain } from './apdu/extension.js';
export { decodeAddress, isAddress, type DecodedAddress } from './apdu/address.js';
// Errors: matched by `name` (or `statusCode`), never with instanceof.
export {
  LedgerAppNotOpenError,
  LedgerAppVersionError,
  LedgerDeviceLockedError,
  LedgerDisconnectedError,
  LedgerInputError,
  LedgerInvalidDataError,
  LedgerNotFoundError,
  LedgerReplyError,
  LedgerStatusError,
  LedgerUnsupportedInstructionError,
  LedgerUserRejectedError,
  LEDGER_ERROR_NAMES,
  isLedgerError,
  toLedgerError,
  type LedgerError,
  type LedgerErrorContext,
  type LedgerErrorName,
} from './apdu/errors.js';
// App versions and what each can do.
export { FEATURES, compareVersions, parseVersion, signedMessageText, supports, type AppVersion, type Feature } from './apdu/version.js';
// One signature, four encodings.
export {
  signatureFromBase58,
  signatureFromRawHex,
  signatureFromRosettaHex,
  signatureToBase58,
  signatureToRawHex,
  signatureToRosettaHex,
  type MinaSignature,
} from './apdu/signature.js';
// The byte codec (encoders, decoders, constants), for tools and device models.
// biome-ignore lint/performance/noReExportAll: the one namespace of the package, a list of names kept in codec-namespace.ts.
export * as codec from './apdu/codec-namespace.js';
