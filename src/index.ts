/**
 * `chain-ledger`: a Ledger behind Mina's `window.chain`. The device layer is in `chain-ledger/apdu`,
 * `chain-ledger/transport` and `chain-ledger/emulator`.
 *
 * @module chain-ledger
 */
export * from './provider/index.js';
export * from './fallback/index.js';
