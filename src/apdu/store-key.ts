/**
 * The credential store's key comes from the device's deterministic INS 05 signature over a fixed text
 * (docs/credentials.md). That text is reserved: no page may obtain a signature over it, on any app version, and the
 * reply that carries it is never logged nor kept (the software Ledger's `exchanges`, the WebHID transport's log).
 *
 * The extension's STORE_KEY (INS 0xA6, version 1.3) asks for the very same signature with the site asking on the
 * device's screen (INS 05 shows only the text): payload `account u32 BE ‖ origin (u8 length 1–255 ‖ UTF-8)`, chunked
 * as every extension request; reply `r ‖ s`, 32 bytes big-endian each, the signature INS 05 gives on that app version
 * over the store-key text with network id 1. So a store written on the released app opens on an extension device, and
 * back. Every STORE_KEY request is a store-key request: its reply is the key.
 */
import { concatBytes, encodeText, uintToBytesBE, utf8 } from './bytes.js';
import { checkAccountIndex, type ApduRequest } from './codec.js';
import { INS_SIGN_MESSAGE } from './constants.js';
import { displayTextProblem } from './display-text.js';
import { LedgerInputError } from './errors.js';
import { INS_SIGN_TEXT, INS_STORE_KEY, chunk } from './extension.js';
import { signedMessageText, type AppVersion } from './version.js';

/**
 * The message whose (deterministic) Ledger signature keys the credential store, on network id 1 whatever the
 * provider's network, so one key serves every network.
 */
export const STORE_KEY_MESSAGE = 'chain-ledger credential store key v1';

/** Any text the device signs that contains this (in any letter case) is reserved for the store key. */
const RESERVED_TEXT = 'chain-ledger credential store';
const RESERVED_BYTES = utf8.encode(RESERVED_TEXT);

/**
 * True if the text the device would sign for `message` on app `version` (not just the message: apps 1.4.0, 1.4.1
 * and 1.4.4 sign it raw, so "Message : chain-ledger credential store key v1" signs exactly the store-key text of a
 * 1.4.5+ app) contains the reserved text, in any letter case.
 */
export function isReservedMessage(version: AppVersion | string, message: string): boolean {
  return containsReservedText(signedMessageText(version, message)) || containsReservedText(message);
}

/**
 * True if `text` holds the reserved text, in any letter case. The extension's SIGN_TEXT signs a text itself with the
 * same scheme as INS 05, so "Message : chain-ledger credential store key v1" there would be the store key too.
 */
export function containsReservedText(text: string): boolean {
  return text.toLowerCase().includes(RESERVED_TEXT);
}

/**
 * True if `apdu` (CLA INS P1 P2 Lc data) is a STORE_KEY request (any: its reply is the key), or an INS 05 or SIGN_TEXT
 * request whose data holds the reserved text: its reply is the key (or, for SIGN_TEXT, which the host never sends with
 * that text, would be).
 */
export function isStoreKeyRequest(apdu: Uint8Array): boolean {
  if (apdu.length >= 2 && apdu[1] === INS_STORE_KEY) return true;
  if (apdu.length < 5 || (apdu[1] !== INS_SIGN_MESSAGE && apdu[1] !== INS_SIGN_TEXT)) return false;
  return indexOf(apdu.subarray(5), RESERVED_BYTES) >= 0;
}

/** What STORE_KEY asks: the account whose store key it is, and the site asking (shown, not signed). */
export interface StoreKeyRequest {
  account: number;
  /** The site asking, as the host knows it (the browser-given origin in the wallet page): 1–255 bytes, the text rule. */
  origin: string;
}

/** The longest origin a STORE_KEY request carries (one length byte). */
export const MAX_STORE_KEY_ORIGIN_BYTES = 255;

/**
 * The STORE_KEY requests (chunked). Refused here (nothing is sent): an account outside 0 to 2^31 − 1, an origin that is
 * empty, over 255 bytes of UTF-8 or holds a control character (the extension's text rule: it is shown escaped).
 *
 * @throws `LedgerInputError` naming `account` or `origin`.
 */
export function encodeStoreKey({ account, origin }: StoreKeyRequest): ApduRequest[] {
  checkAccountIndex(account);
  const problem = typeof origin !== 'string' || origin.length === 0 ? 'is empty' : displayTextProblem(origin);
  if (problem !== undefined) throw new LedgerInputError('origin', `must be a text a device can show: it ${problem}`);
  const originBytes = encodeText(origin, MAX_STORE_KEY_ORIGIN_BYTES);
  if (originBytes === undefined) throw new LedgerInputError('origin', `must be at most ${MAX_STORE_KEY_ORIGIN_BYTES} bytes of UTF-8`);
  return chunk(INS_STORE_KEY, concatBytes(uintToBytesBE(account, 4), originBytes));
}

/** The text whose INS 05 signature (network id 1) keys the store, on app `version`: what STORE_KEY signs there too. */
export function storeKeySignedText(version: AppVersion | string): string {
  return signedMessageText(version, STORE_KEY_MESSAGE);
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
