/**
 * How the Mina app v1.6.0 on a Nano S Plus lays a value out, and the text events Speculos reports for a screen:
 *
 * - A value is a C string (it ends at the first NUL) laid out by the Ledger SDK's paging layout
 *   (lib_ux ux_layout_paging_compute.c, `ux_layout_paging_compute`): lines of at most 114 pixels in the 11 px
 *   regular font (widths: font.ts, the SDK's table), three lines per screen. The word delimiters are space, newline,
 *   '-' and '_'; a newline ends a line (it stays on it). When a line overflows inside a word, it is cut back to its
 *   last delimiter (if it has one after its first character), which then starts the next line; there is no cut-back
 *   when the character before the overflow point, or the one at it, is a delimiter. A value on several screens gets
 *   " (i/n)" after its title.
 * - Speculos reports each screen as the text events its OCR reads (screen-drawing.ts): no event for a byte the font
 *   cannot draw (control bytes, DEL, every byte ≥ 0x80: a memo "héllo ☃" shows "hllo "), a leading space and a text
 *   from an `_` on as events of their own on the same row.
 */
import { utf8 } from '../apdu/bytes.js';
import { textWidth } from './font.js';
import { PIXELS_PER_LINE, textEvents, type ScreenDrawing, type ScreenLayout } from './screen-drawing.js';
import type { IconName } from './font.js';

export const LINES_PER_SCREEN = 3;

const NEWLINE = 0x0a;

/** One screen as the device draws it and Speculos reports it: the text events in order, the row of each, the drawing. */
export interface DrawnScreen {
  lines: string[];
  rows: number[];
  drawing: ScreenDrawing;
}

/** `ux_layout_paging_compute`'s word delimiters. */
export const isWordDelimiter = (byte: number) => byte === 0x20 || byte === NEWLINE || byte === 0x2d || byte === 0x5f;

/** The value up to its first NUL, as the app's C string. */
export function cString(bytes: Uint8Array): Uint8Array {
  const end = bytes.indexOf(0);
  return end < 0 ? bytes : bytes.subarray(0, end);
}

/** Splits a value into lines the way the SDK's paging layout does. */
export function layoutLines(value: Uint8Array): Uint8Array[] {
  const text = cString(value);
  const lines: Uint8Array[] = [];
  let start = 0;
  while (start < text.length) {
    let length = 0;
    let lastDelimiter = start;
    while (start + length < text.length) {
      if (textWidth('regular', text, start, start + length + 1) > PIXELS_PER_LINE) break;
      const byte = text[start + length]!;
      if (isWordDelimiter(byte)) lastDelimiter = start + length;
      length++;
      if (byte === NEWLINE) break;
    }
    // Cut before the last delimiter rather than inside a word (when the line has one past its first byte).
    const inside =
      start + length < text.length && length > 0 && !isWordDelimiter(text[start + length - 1]!) && !isWordDelimiter(text[start + length]!);
    if (inside && lastDelimiter !== start) length = lastDelimiter - start;
    if (length === 0) length = 1; // a byte wider than a line still advances (the font has none; 0xFF is 63 px)
    lines.push(text.subarray(start, start + length));
    start += length;
  }
  return lines;
}

const latin1 = (bytes: Uint8Array) => String.fromCharCode(...bytes);

/** A screen from its drawing: the text events Speculos reads, and the row (text element) of each. */
export function drawnScreen(drawing: ScreenDrawing): DrawnScreen {
  const events = textEvents(drawing);
  return { lines: events.map((e) => e.text), rows: events.map((e) => e.element), drawing };
}

/** A screen of fixed texts (titles, choices, notices) in one of the SDK's layouts. */
export function fixedScreen(layout: ScreenLayout, icon: IconName | undefined, ...texts: string[]): DrawnScreen {
  return drawnScreen({ layout, ...(icon ? { icon } : {}), texts });
}

/**
 * A titled value on as many screens as it needs (the paging layout); the title gets " (i/n)" when there are several.
 * The value is drawn as bytes: a text as its UTF-8 bytes (never a character's low byte, which would draw a look-alike:
 * U+0173 as "s"). Texts of the extension reach here escaped to printable ASCII (src/apdu/display-text.ts).
 */
export function valueScreens(title: string, value: Uint8Array | string): DrawnScreen[] {
  const bytes = typeof value === 'string' ? utf8.encode(value) : value;
  const lines = layoutLines(bytes);
  const pages: Uint8Array[][] = [];
  for (let i = 0; i < lines.length; i += LINES_PER_SCREEN) pages.push(lines.slice(i, i + LINES_PER_SCREEN));
  if (pages.length === 0) pages.push([]);
  return pages.map((page, i) =>
    drawnScreen({ layout: 'paging', texts: [pages.length > 1 ? `${title} (${i + 1}/${pages.length})` : title, ...page.map(latin1)] }),
  );
}
