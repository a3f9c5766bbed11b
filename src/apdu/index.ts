/** `chain-ledger/apdu`: the Mina Ledger app's byte codec and its client. No I/O besides the given transport. */
export { MinaLedgerApp, type GetAddressOptions } from './client.js';
export * from './codec.js';
export * from './extension.js';
export * from './constants.js';
export * from './errors.js';
export * from './signature.js';
export * from './version.js';
export { decodeAddress, isAddress, type DecodedAddress } from './address.js';
export type { ApduTransport, SendOptions } from '../transport/types.js';
