/**
 * The credential store's key comes from the device's deterministic INS 05 signature over a fixed text
 * (docs/credentials.md). That text is reserved: no page may obtain a signature over it, on any app version, and the
 * reply that carries it is never logged nor kept (the software Ledger's `exchanges`, the WebHID transport's log).
 */
import { utf8 } from './bytes.js';
import { INS_SIGN_MESSAGE } from './constants.js';
import { INS_SIGN_TEXT } from './extension.js';
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
 * True if `apdu` (CLA INS P1 P2 Lc data) is an INS 05 or SIGN_TEXT request whose data holds the reserved text: its
 * reply is the key (or, for SIGN_TEXT, which the host never sends with that text, would be).
 */
export function isStoreKeyRequest(apdu: Uint8Array): boolean {
  if (apdu.length < 5 || (apdu[1] !== INS_SIGN_MESSAGE && apdu[1] !== INS_SIGN_TEXT)) return false;
  return indexOf(apdu.subarray(5), RESERVED_BYTES) >= 0;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
