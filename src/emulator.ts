/**
 * `chain-ledger/emulator`: the software Ledger (NOT hardware) and its Speculos-compatible HTTP server.
 *
 * @module chain-ledger/emulator
 */
export {
  SoftwareLedger,
  SOFTWARE_LEDGER_WARNING,
  TEST_MNEMONIC,
  type SoftwareLedgerOptions,
  type ExchangeRecord,
} from './emulator/software-ledger.js';
export {
  APPROVE,
  REJECT,
  formatMina,
  reviewStages,
  shownValue,
  type Approver,
  type Review,
  type ReviewKind,
  type Screen,
} from './emulator/review.js';
export { derivationPath } from './emulator/keys.js';
export { startSpeculosServer, type SpeculosServer, type SpeculosServerOptions } from './emulator/speculos-server.js';
