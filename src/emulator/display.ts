/**
 * How the Mina app v1.6.0 on a Nano S Plus draws a value, and how Speculos reports what was drawn — modelled on
 * the real app's screens recorded on Speculos (test/fixtures/mina-ledger-app-speculos.json):
 *
 * - A value is a C string (it ends at the first NUL) laid out by the Ledger SDK's paging layout: lines of at most
 *   114 pixels in the 11 px regular font, three lines per screen; a line that would split a word is cut before the
 *   last word delimiter (space, newline, '-', '_'), which then starts the next line; a newline ends a line. A value
 *   on several screens gets " (i/n)" after its title.
 * - Speculos reports each drawn line as a text event, without the bytes the font cannot draw (control bytes, DEL,
 *   every byte ≥ 0x80: a memo "héllo ☃" shows "hllo "); a space that starts a line is reported as an event of its
 *   own (" "), the rest of the line as another.
 */

/**
 * Pixel width of each character 0x20–0x7F in the Nano's 11 px regular font: the Ledger SDK's font metrics
 * (lib_bagl bagl_font_open_sans_regular_11px.inc), with one correction the recordings force: the device breaks
 * "B62qnGvnYSp1uXciM|r5U565…" one character before the SDK table allows, and of the characters of that line only a
 * wider M, X or r is consistent with every recorded line; M is taken as 11 (in Open Sans M is wider than m, which
 * is 10). Every recorded line (test/emulator/speculos-recordings.test.ts) is reproduced with this table.
 */
const CHAR_WIDTHS = [
  3,
  3,
  4,
  7,
  6,
  9,
  8,
  2,
  3,
  3,
  6,
  6,
  3,
  4,
  3,
  4, // ' ' ! " # $ % & ' ( ) * + , - . /
  6,
  6,
  6,
  6,
  8,
  6,
  6,
  6,
  6,
  6,
  3,
  3,
  6,
  6,
  6,
  5, // 0-9 : ; < = > ?
  10,
  7,
  7,
  7,
  8,
  6,
  6,
  8,
  8,
  3,
  4,
  7,
  6,
  11,
  8,
  9, // @ A-O
  7,
  9,
  7,
  6,
  7,
  8,
  7,
  10,
  6,
  6,
  6,
  4,
  4,
  4,
  6,
  5, // P-Z [ \ ] ^ _
  6,
  6,
  7,
  5,
  7,
  6,
  5,
  6,
  7,
  3,
  4,
  6,
  3,
  10,
  7,
  7, // ` a-o
  7,
  7,
  4,
  5,
  4,
  7,
  6,
  9,
  6,
  6,
  5,
  4,
  6,
  4,
  6,
  7, // p-z { | } ~ DEL
];
const FIRST_CHAR = 0x20;
export const PIXELS_PER_LINE = 114;
export const LINES_PER_SCREEN = 3;

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** One screen as Speculos reports it: the text events in drawing order and the row each is drawn on. */
export interface DrawnScreen {
  lines: string[];
  rows: number[];
}

const isWordDelimiter = (byte: number) => byte === 0x20 || byte === NEWLINE || byte === 0x2d || byte === 0x5f;

/** Width of a run of bytes; a CR or LF ends the measured part, bytes outside the font have no width. */
function lineWidth(bytes: Uint8Array, start: number, length: number): number {
  let width = 0;
  for (let i = start; i < start + length; i++) {
    const byte = bytes[i]!;
    if (byte === NEWLINE || byte === CARRIAGE_RETURN) break;
    if (byte >= FIRST_CHAR && byte < FIRST_CHAR + CHAR_WIDTHS.length) width += CHAR_WIDTHS[byte - FIRST_CHAR]!;
  }
  return width;
}

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
      if (lineWidth(text, start, length + 1) > PIXELS_PER_LINE) break;
      const byte = text[start + length]!;
      if (isWordDelimiter(byte)) lastDelimiter = start + length;
      length++;
      if (byte === NEWLINE) break;
    }
    // Cut before the last delimiter rather than inside a word (when the line has one past its first byte).
    const inside =
      start + length < text.length && length > 0 && !isWordDelimiter(text[start + length - 1]!) && !isWordDelimiter(text[start + length]!);
    if (inside && lastDelimiter !== start) length = lastDelimiter - start;
    if (length === 0) length = 1; // a character wider than a line still advances (no such character in the font)
    lines.push(text.subarray(start, start + length));
    start += length;
  }
  return lines;
}

/** What Speculos reports for one drawn line: the drawable characters, a leading space apart. */
export function drawnTexts(line: Uint8Array): string[] {
  const drawable = String.fromCharCode(...line.filter((b) => b >= 0x20 && b <= 0x7e));
  const texts: string[] = [];
  let rest = drawable;
  while (rest.startsWith(' ') && rest.length > 1) {
    texts.push(' ');
    rest = rest.slice(1);
  }
  if (rest !== '') texts.push(rest);
  return texts;
}

/** A screen of fixed lines (titles, choices, notices). */
export function fixedScreen(...lines: string[]): DrawnScreen {
  return { lines, rows: lines.map((_, i) => i) };
}

/** A titled value on as many screens as it needs; the title gets " (i/n)" when there are several. */
export function valueScreens(title: string, value: Uint8Array | string): DrawnScreen[] {
  const bytes = typeof value === 'string' ? Uint8Array.from(value, (c) => c.charCodeAt(0) & 0xff) : value;
  const lines = layoutLines(bytes);
  const pages: Uint8Array[][] = [];
  for (let i = 0; i < lines.length; i += LINES_PER_SCREEN) pages.push(lines.slice(i, i + LINES_PER_SCREEN));
  if (pages.length === 0) pages.push([]);
  return pages.map((page, i) => {
    const screen: DrawnScreen = { lines: [pages.length > 1 ? `${title} (${i + 1}/${pages.length})` : title], rows: [0] };
    page.forEach((line, row) => {
      for (const text of drawnTexts(line)) {
        screen.lines.push(text);
        screen.rows.push(row + 1);
      }
    });
    return screen;
  });
}
