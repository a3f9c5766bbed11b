/**
 * The `codec` namespace of `chain-ledger/apdu`: the pure encoders and decoders of every instruction (the app's and
 * the protocol extension's), the reply framing, and the protocol constants. No I/O. For people writing tools or
 * device models; applications use `MinaLedgerApp`.
 */
export {
  decodeAddressReply,
  decodeSignFieldReply,
  decodeSignMessageReply,
  decodeSignatureReply,
  decodeVersion,
  encodeGetAddress,
  encodeGetVersion,
  encodeMemo,
  encodeSignFieldElement,
  encodeSignMessage,
  encodeSignTransaction,
  splitReply,
  type ApduRequest,
} from './codec.js';
export {
  chunk,
  decodeCapabilities,
  decodeNullifierReply,
  encodeCreateNullifier,
  encodeGetCapabilities,
  encodeSignFields,
  INS_CREATE_NULLIFIER,
  INS_GET_CAPABILITIES,
  INS_SIGN_FIELDS,
  INS_SIGN_TEXT,
} from './extension.js';
export { encodeSignLongText, encodeSignText } from './sign-text.js';
export {
  CLA,
  INS_GET_ADDRESS,
  INS_GET_VERSION,
  INS_SIGN_FIELD_ELEMENT,
  INS_SIGN_MESSAGE,
  INS_SIGN_TX,
  PALLAS_P,
  PALLAS_Q,
  SW_OK,
} from './constants.js';
