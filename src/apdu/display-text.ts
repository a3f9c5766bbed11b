/**
 * The text rule of the protocol extension (docs/apdu-extensions.md, "Text"): every text a device shows must be shown
 * as it is signed. A device font draws printable ASCII and nothing else, and a device draws a value as a C string, so:
 *
 * - a control character (U+0000–U+001F, U+007F: NUL, newline, tab, …) is refused, on the host (20003 naming the field)
 *   and on the device (0x6802): a NUL would end the value on screen, the others draw nothing;
 * - every other character outside printable ASCII is shown escaped, `\u0173` (`\u{1F600}` beyond U+FFFF), and a
 *   backslash as `\\`, so that no letter can stand in for another and no escape can be forged by typing one;
 * - text must be valid Unicode (no lone surrogate: it has no UTF-8 form, so the bytes signed would not be the text);
 * - a token symbol must be printable ASCII (`ascii`): o1js computes its field only from ASCII (`prefixToField`), and a
 *   ticker has no use for an escape.
 *
 * The released app's own instructions (INS 01–06) keep the app's behaviour; this rule is for the extension's texts
 * and for the zkApp command's texts (URI, token symbol, memo), whichever device signs them.
 */

/** A control character: C0 (NUL included) or DEL. */
const isControl = (code: number) => code < 0x20 || code === 0x7f;

/**
 * Why `text` cannot be shown as signed (a control character, a lone surrogate; with `ascii`, any character beyond
 * printable ASCII), or undefined when it can.
 */
export function displayTextProblem(text: string, { ascii = false } = {}): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (ascii && code >= 0x80) return `contains a character beyond ASCII at offset ${i}: only printable ASCII is allowed here`;
    if (isControl(code)) {
      const hex = code.toString(16).toUpperCase().padStart(4, '0');
      return `contains the control character U+${hex} at offset ${i}: a device could not show the text as signed`;
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      // A high surrogate followed by a low one is one character; anything else has no UTF-8 form.
      const next = text.charCodeAt(i + 1);
      if (code > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) return 'is not valid Unicode (a lone surrogate has no UTF-8 form)';
      i++;
    }
  }
  return undefined;
}

/** The same rule for bytes received (the device side): UTF-8, decoded strictly, without control characters. */
export function decodeDisplayText(bytes: Uint8Array, options: { ascii?: boolean } = {}): string | undefined {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
  return displayTextProblem(text, options) === undefined ? text : undefined;
}

/**
 * The text as a device shows it: printable ASCII as itself, a backslash as `\\`, every other character as `\uXXXX`
 * (four lowercase hex digits) or `\u{XXXXX}` beyond U+FFFF. Total: a control character that reaches it is escaped too.
 */
export function escapeForDisplay(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '\\') out += '\\\\';
    else if (code >= 0x20 && code < 0x7f) out += char;
    else if (code <= 0xffff) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += `\\u{${code.toString(16)}}`;
  }
  return out;
}
