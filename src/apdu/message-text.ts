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
import { utf8 } from './bytes.js';
import { escapeForDisplay } from './display-text.js';

/**
 * The longest message SIGN_TEXT signs, in UTF-8 bytes. A streaming device must hold the whole text: the signature's
 * nonce is hashed from it before the challenge hash can start (docs/apdu-extensions.md, "The bound").
 */
export const MAX_TEXT_MESSAGE_BYTES = 1024;

/** A JS string that is no Unicode text: a surrogate without its pair (UTF-8 cannot encode it; TextEncoder writes U+FFFD). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether `text` is Unicode text, i.e. whether its UTF-8 is the text itself (no lone surrogate). */
export function isUnicodeText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/**
 * Why SIGN_TEXT cannot sign `text` (a well-formed string), or undefined: empty, over `MAX_TEXT_MESSAGE_BYTES` UTF-8
 * bytes, or holding NUL. `what` names the text in the reason ("this message").
 */
export function textMessageProblem(text: string, what = 'this message'): string | undefined {
  const limit = `the Ledger signs messages of 1 to ${MAX_TEXT_MESSAGE_BYTES} bytes of UTF-8 text without NUL (extension SIGN_TEXT)`;
  // Each UTF-16 unit is at least one UTF-8 byte: a string that long is over the bound without encoding it.
  const bytes = text.length > MAX_TEXT_MESSAGE_BYTES ? undefined : utf8.encode(text).length;
  if (text.length === 0) return `${limit}; ${what} is empty`;
  if (bytes === undefined || bytes > MAX_TEXT_MESSAGE_BYTES) {
    return `${limit}; ${what} is ${bytes ?? `over ${MAX_TEXT_MESSAGE_BYTES}`} bytes`;
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
