/**
 * The text rule of the extension's SIGN_TEXT (docs/apdu-extensions.md, 0xA5): which messages it signs, and how a
 * Nano S Plus shows them. One module, read by the host (to refuse before the device is asked) and by the software
 * Ledger (to refuse and to draw), so both apply the same rule.
 *
 * A message is a person's text: it keeps its newlines (sign-in texts are "Key: value" lines), so this is the
 * escape-not-refuse rule. Every byte the device's font cannot draw is shown as a visible escape instead of being
 * dropped or drawn as a look-alike: a line feed is a line break; a tab, a carriage return and a backslash are `\t`,
 * `\r` and `\\`; every other control character and every character outside ASCII is its code point, `\u00e9`
 * (`\u{1f600}` above U+FFFF). What is left is printable ASCII, which the font draws as it is. Only NUL is refused: it
 * has no place in a text a person reads, and a C string (the app's buffers, a server's logs) ends at it.
 */
import { utf8 } from './bytes.js';

/**
 * The longest message SIGN_TEXT signs, in UTF-8 bytes. A streaming device must hold the whole text: the signature's
 * nonce is hashed from it before the challenge hash can start (docs/apdu-extensions.md, "Bound").
 */
export const MAX_TEXT_MESSAGE_BYTES = 1024;

/** A JS string that is no Unicode text: a surrogate without its pair (UTF-8 cannot encode it; TextEncoder writes U+FFFD). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether `text` is Unicode text, i.e. whether its UTF-8 is the text itself (no lone surrogate). */
export function isUnicodeText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** Whether `text` holds a C0 control character or DEL (no origin has one). */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
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

const NAMED_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\r': '\\r', '\n': '\\n' };

/**
 * `text` as the device shows it: printable ASCII as it is, a line feed as a line break (`lineBreaks`, for a message)
 * or `\n`, and everything else escaped visibly (`\t`, `\r`, `\\`, `\u00e9`, `\u{1f600}`). The result is printable
 * ASCII and line feeds only, so two different texts never look alike on the screen.
 */
export function displayText(text: string, { lineBreaks }: { lineBreaks: boolean }): string {
  let shown = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '\n' && lineBreaks) shown += '\n';
    else if (NAMED_ESCAPES[char] !== undefined) shown += NAMED_ESCAPES[char];
    else if (code >= 0x20 && code <= 0x7e) shown += char;
    else if (code > 0xffff) shown += `\\u{${code.toString(16)}}`;
    else shown += `\\u${code.toString(16).padStart(4, '0')}`;
  }
  return shown;
}
