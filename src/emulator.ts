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
  type ReviewAnswer,
  type ReviewKind,
  type Screen,
} from './emulator/review.js';
export { renderScreen, type Arrows, type ScreenBitmap, type ScreenDrawing, type ScreenLayout } from './emulator/screen-drawing.js';
export { reviewArrows, type Button } from './emulator/review-buttons.js';
export { SpeculosDisplay, type ButtonAction, type DisplayDevice, type SpeculosEvent } from './emulator/speculos-display.js';
export { encodePng } from './emulator/png.js';
export type { IconName } from './emulator/font.js';
export { derivationPath } from './emulator/keys.js';
export { DEVICE_MODELS, type DeviceModel, type DeviceModelInfo } from './emulator/device-models.js';
export type { NbglReview, TouchAction, TouchButton, TouchPage, TouchText, TouchZone } from './emulator/touch-flows.js';
export { nbglOf as nbglReviewOf } from './emulator/touch-reviews.js';
export { startSpeculosServer, type SpeculosServer, type SpeculosServerOptions } from './emulator/speculos-server.js';
