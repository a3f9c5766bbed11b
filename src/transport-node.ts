/**
 * `chain-ledger/transport/node`: device openers for Node — USB HID (node-hid), Speculos over HTTP, and recorded
 * APDU transcripts.
 *
 * `@ledgerhq/*` packages cannot be imported under native Node ESM (their `lib-es` builds use extensionless
 * relative imports), so their CommonJS builds are loaded with `createRequire`; types come from type-only imports.
 * Each package is an optional peer dependency, loaded only when its opener runs.
 *
 * @module chain-ledger/transport/node
 */
export {
  listNodeHidDevices,
  openNodeHid,
  openSpeculos,
  openTranscript,
  quietNodeHid,
  quietSpeculos,
  type NodeHidInternals,
  type OpenNodeHidOptions,
  type OpenSpeculosOptions,
  type SpeculosControls,
} from './transport/node.js';
export { ExclusiveTransport } from './transport/exclusive.js';
export type { ApduTransport, SendOptions } from './transport/types.js';
