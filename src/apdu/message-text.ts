/**
 * The message variant of the extension's text rule (./display-text.ts; docs/apdu-extensions.md, "Text"), for
 * SIGN_TEXT (0xA5): which messages it signs, and how a device shows them. One module, read by the host (to refuse
 * before the device is asked) and by the software Ledger (to refuse and to draw).
 *
 * A message is a person's text: it keeps its newlines (sign-in texts are "Key: value" lines), tabs and CRLF pasted
 * from elsewhere. So where the rule refuses control characters, a message escapes them instead: a line feed is shown
 * by the rule's escape (`\u000a`) and then breaks the line (a break alone looks like a line wrapped for width, so
 * "https://bank.example" and "Login" would read as one text), and every other control character is shown by the
 * escape alone (`\u0009`), as is every character beyond ASCII (`\u00e9`) and a backslash (`\\`). Only NUL is
 * refused: no text a person reads holds it, and a C string (the device's buffers, a server's logs and columns) ends
 * there, so one party could read less than was signed.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { toHex, utf8 } from './bytes.js';
import { escapeForDisplay } from './display-text.js';
import type { ExtensionCapabilities } from './extension.js';

/**
 * The longest message SIGN_TEXT signs, in UTF-8 bytes. A streaming device must hold the whole text: the signature's
 * nonce is hashed from it before the challenge hash can start (docs/apdu-extensions.md, "The bound").
 */
export const MAX_TEXT_MESSAGE_BYTES = 1024;

/**
 * The longest message SIGN_TEXT signs from extension version 1.4 on (long texts: a Socialcap vote batch is 2,269
 * bytes), in UTF-8 bytes. The request's u16 length holds it; the device holds the text, 16 KiB, for its second hash
 * (docs/apdu-extensions.md, "Long texts").
 */
export const MAX_LONG_TEXT_MESSAGE_BYTES = 16384;

/**
 * The most characters of a message's shown form (`displayMessageText`) a 1.4 device shows in pages when the text is
 * over 1024 bytes: about 72 pages of a Nano S Plus (57 characters a page), a minute of pressing at a page a second.
 * Past that nobody reads the text on the device before approving; it shows the text's SHA-256 instead, behind Blind
 * signing, and the host shows the text (docs/apdu-extensions.md, "Long texts").
 */
export const MAX_PAGED_TEXT_CHARS = 4096;

/**
 * The longest message the connected device signs with SIGN_TEXT, in UTF-8 bytes: 0 without SIGN_TEXT (the released
 * app, extension 1.0, 1.1), 1024 on 1.2 and 1.3, 16 KiB from 1.4 on.
 */
export function maxTextMessageBytes(extension: ExtensionCapabilities | null | undefined): number {
  if (!extension?.signText) return 0;
  const minor = Number(extension.version.split('.')[1]);
  return minor >= 4 ? MAX_LONG_TEXT_MESSAGE_BYTES : MAX_TEXT_MESSAGE_BYTES;
}

/**
 * Whether a 1.4 device shows `text` (within the bound) as its hash rather than in pages: over 1024 bytes (1.2's
 * texts are always paged, as before) and over `MAX_PAGED_TEXT_CHARS` characters shown. Host and device decide it
 * from the same rule, so the host can say which the device will show.
 */
export function textShownAsHash(text: string): boolean {
  return utf8.encode(text).length > MAX_TEXT_MESSAGE_BYTES && displayMessageText(text).length > MAX_PAGED_TEXT_CHARS;
}

/** The hash a device shows for a text too long to page through: SHA-256 of its UTF-8 bytes, 64 lowercase hex digits. */
export function textHash(text: string): string {
  return toHex(sha256(utf8.encode(text)));
}

/** A JS string that is no Unicode text: a surrogate without its pair (UTF-8 cannot encode it; TextEncoder writes U+FFFD). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether `text` is Unicode text, i.e. whether its UTF-8 is the text itself (no lone surrogate). */
export function isUnicodeText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/**
 * Why SIGN_TEXT cannot sign `text` (a well-formed string), or undefined: empty, over `max` UTF-8 bytes (1024, or
 * 16 KiB on extension 1.4: `maxTextMessageBytes`), or holding NUL. `what` names the text in the reason ("this message").
 */
export function textMessageProblem(text: string, what = 'this message', max = MAX_TEXT_MESSAGE_BYTES): string | undefined {
  const version = max > MAX_TEXT_MESSAGE_BYTES ? ' 1.4' : '';
  const limit = `the Ledger signs messages of 1 to ${max} bytes of UTF-8 text without NUL (extension${version} SIGN_TEXT)`;
  // Each UTF-16 unit is at least one UTF-8 byte: a string that long is over the bound without encoding it (up to
  // 16 KiB it is encoded, so that the reason says how long it is against the larger bound).
  const bytes = text.length > Math.max(max, MAX_LONG_TEXT_MESSAGE_BYTES) ? undefined : utf8.encode(text).length;
  if (text.length === 0) return `${limit}; ${what} is empty`;
  if (bytes === undefined || bytes > max) {
    return `${limit}; ${what} is ${bytes ?? `over ${max}`} bytes`;
  }
  if (text.includes('\0')) return `${limit}; ${what} has NUL (U+0000)`;
  return undefined;
}

/**
 * A message as the device shows it: each line by the text rule's escape (`escapeForDisplay`), each line feed as its
 * escape `\u000a` followed by a line break. What is drawn is printable ASCII and line breaks only, every line feed is
 * seen where it is, and two different texts never look alike.
 */
export function displayMessageText(text: string): string {
  return text.split('\n').map(escapeForDisplay).join('\\u000a\n');
}
