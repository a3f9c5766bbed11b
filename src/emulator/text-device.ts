/**
 * The device half of SIGN_TEXT (extension INS 0xA5, version 1.2; long texts 1.4, docs/apdu-extensions.md), as the software Ledger
 * runs it: read the request, refuse what the rule refuses (src/apdu/message-text.ts, the message variant of the
 * extension's text rule in src/apdu/display-text.ts), show the origin asking, the network and the message in pages,
 * escaped where the font cannot draw it, and sign the text itself with mina-signer's `signMessage` (the legacy string
 * signature; no "Message : " prefix), as a verifier checks it.
 */
import { ByteReader, bytesToUintBE, utf8 } from '../apdu/bytes.js';
import type { NetworkId } from '../apdu/codec.js';
import { SW_INVALID_DATA, SW_REJECTED } from '../apdu/constants.js';
import { INS_SIGN_TEXT } from '../apdu/extension.js';
import { decodeDisplayText, escapeForDisplay } from '../apdu/display-text.js';
import {
  MAX_LONG_TEXT_MESSAGE_BYTES,
  MAX_TEXT_MESSAGE_BYTES,
  displayMessageText,
  textHash,
  textShownAsHash,
} from '../apdu/message-text.js';
import { MAX_ORIGIN_BYTES } from '../apdu/sign-text.js';
import { rawSignature, type Device } from './app-instructions.js';
import { fail, invalidData } from './device-errors.js';
import { valueScreens } from './display.js';
import type { ExtensionVersion } from './extension-version.js';
import { APPROVE, REJECT, acceptRisk, blindSigningDisabledNotice, bn, nn, pb, pbb, pnn, screen, type Review } from './review.js';
import { signLegacyMessage } from './signer.js';

/** A SIGN_TEXT request as the device read it. */
export interface TextRequest {
  account: number;
  networkId: NetworkId;
  origin: string;
  message: string;
}

/**
 * UTF-8, strictly, keeping a leading U+FEFF: the text signed must be the bytes received, and a decoder that drops a
 * byte-order mark would sign three bytes fewer than the host asked for.
 */
const exactUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function text(bytes: Uint8Array): string {
  try {
    return exactUtf8.decode(bytes);
  } catch {
    return fail(SW_INVALID_DATA);
  }
}

/**
 * account u32 ‖ network u8 ‖ origin (u8 length ‖ UTF-8) ‖ message length u16 ‖ message. Anything outside the rule
 * is 0x6802: a network byte other than 0 or 1, an empty origin or one with a control character, a message length of
 * 0 or over `max` (1024; 16384 on a 1.4 device), bytes that are not UTF-8, a NUL, missing or extra bytes.
 */
export function readTextRequest(payload: Uint8Array, max = MAX_TEXT_MESSAGE_BYTES): TextRequest {
  const reader = new ByteReader(payload, invalidData);
  const account = reader.u32be();
  const networkId = reader.u8();
  if (networkId !== 0 && networkId !== 1) fail(SW_INVALID_DATA);
  const originLength = reader.u8();
  if (originLength === 0 || originLength > MAX_ORIGIN_BYTES) fail(SW_INVALID_DATA);
  // The origin follows the text rule of every extension text: UTF-8 without control characters.
  const origin = decodeDisplayText(reader.bytes(originLength)) ?? fail(SW_INVALID_DATA);
  const length = Number(bytesToUintBE(reader.bytes(2)));
  if (length === 0 || length > max) fail(SW_INVALID_DATA);
  const bytes = reader.bytes(length);
  reader.end();
  if (bytes.includes(0)) fail(SW_INVALID_DATA);
  return { account, networkId: networkId as NetworkId, origin, message: text(bytes) };
}

/**
 * "Sign / Message", who asks (the host's claim, as for a nullifier), the network, then the message in pages: line
 * feeds as line breaks, everything else the font cannot draw escaped by the text rule (`\u0009`, `\u00e9`: never
 * dropped, never a look-alike).
 */
export function textReview({ origin, networkId, message }: TextRequest): Review {
  return {
    ins: INS_SIGN_TEXT,
    kind: 'text',
    approvable: true,
    screens: [
      pnn('eye', 'Sign', 'Message'),
      ...valueScreens('Requested by', escapeForDisplay(origin)).map(screen),
      bn('Network', networkId === 1 ? 'mainnet' : 'testnet'),
      ...valueScreens('Message', displayMessageText(message)).map(screen),
      pb('validate', APPROVE),
      pb('crossmark', REJECT),
    ],
  };
}

/**
 * A long text (extension 1.4) past what a person pages through (`textShownAsHash`), with Blind signing on: a warning,
 * who asks, the network, the length, the text's SHA-256 (`textHash`, which the host shows beside the text), then
 * ACCEPT RISK / Reject, as SIGN_FIELDS shows its digest.
 */
export function textHashReview({ origin, networkId, message }: TextRequest): Review {
  return {
    ins: INS_SIGN_TEXT,
    kind: 'text',
    approvable: true,
    screens: [
      pbb('warning', 'Blind', 'Signing'),
      pnn('eye', 'Sign', 'Message'),
      ...valueScreens('Requested by', escapeForDisplay(origin)).map(screen),
      bn('Network', networkId === 1 ? 'mainnet' : 'testnet'),
      nn('Text too long', 'to show here'),
      bn('Length', `${utf8.encode(message).length} bytes`),
      ...valueScreens('SHA-256', textHash(message)).map(screen),
      nn('Compare it with', 'the wallet screen'),
      acceptRisk(),
      pb('crossmark', REJECT),
    ],
  };
}

/** A long text to be shown as its hash while Blind signing is off: the notice, ending on a Reject the user must press. */
export function textHashBlindDisabledNotice(): Review {
  return { ...blindSigningDisabledNotice(), ins: INS_SIGN_TEXT };
}

/**
 * SIGN_TEXT: read, show, then sign the text as mina-signer's `signMessage` does. A 1.4 device takes texts of up to
 * 16 KiB and shows one past `MAX_PAGED_TEXT_CHARS` shown characters as its hash, only with Blind signing on.
 */
export async function signText(device: Device & { readonly extensions: ExtensionVersion }, payload: Uint8Array): Promise<Uint8Array> {
  const request = readTextRequest(payload, device.extensions === '1.4' ? MAX_LONG_TEXT_MESSAGE_BYTES : MAX_TEXT_MESSAGE_BYTES);
  if (textShownAsHash(request.message)) {
    if (!device.blindSigning) {
      await device.review(textHashBlindDisabledNotice());
      return fail(SW_REJECTED);
    }
    await device.review(textHashReview(request));
  } else {
    await device.review(textReview(request));
  }
  return rawSignature(signLegacyMessage(request.message, device.key(request.account).privateKeyBase58, request.networkId));
}
