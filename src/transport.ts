/**
 * `chain-ledger/transport`: the structural transport type, the per-device queue, and the browser opener.
 * Node openers (USB, Speculos, transcripts) live in `chain-ledger/transport/node`.
 *
 * @module chain-ledger/transport
 */
export { ExclusiveTransport } from './transport/exclusive.js';
export { openWebHid, isWebHidAvailable, type OpenWebHidOptions } from './transport/webhid.js';
export type { ApduTransport, SendOptions } from './transport/types.js';
