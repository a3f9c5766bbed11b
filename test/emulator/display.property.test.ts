/**
 * The software Ledger lays values out exactly as the Nano S Plus does, for any value: the glyph widths are the Ledger
 * SDK's font table, the line breaks follow the SDK's paging rule (`ux_layout_paging_compute`), and the text events
 * are split where Speculos's OCR splits them. Each is checked against a statement of the rule written here apart
 * from the implementation: the SDK's width table as printed in its font file, and the rule as docs/software-ledger.md
 * and the device-fidelity reference state it.
 *
 * The default count keeps this quick; PROPERTY_RUNS raises it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { layoutLines, valueScreens } from '../../src/emulator/display.js';
import { glyphOf } from '../../src/emulator/font.js';
import { textEvents } from '../../src/emulator/screen-drawing.js';
import { propertyRuns } from '../support/runs.js';

const RUNS = propertyRuns(2000);

/**
 * The width of each character 0x20-0x7E, as the SDK's font file prints it (LedgerHQ/nanos-secure-sdk
 * lib_bagl/include/bagl_font_open_sans_regular_11px.inc, the third field of charactersOPEN_SANS_REGULAR_11PX).
 */
// biome-ignore format: one row of the SDK's table per line
const SDK_WIDTHS = [
  3, 3, 4, 7, 6, 9, 9, 2, 3, 3, 6, 6, 3, 4, 3, 4, //  !"#$%&'()*+,-./
  6, 6, 6, 6, 8, 6, 6, 6, 6, 6, 3, 3, 6, 6, 6, 5, // 0-9 :;<=>?
  10, 7, 7, 7, 8, 6, 6, 8, 8, 3, 4, 7, 6, 10, 8, 9, // @ A-O
  7, 9, 7, 6, 7, 8, 7, 10, 7, 6, 6, 4, 4, 4, 6, 6, // P-Z [\]^_
  6, 6, 7, 5, 7, 6, 5, 6, 7, 3, 4, 6, 3, 10, 7, 7, // ` a-o
  7, 7, 4, 5, 4, 7, 6, 9, 6, 6, 5, 4, 6, 4, 6, // p-z {|}~
];

const LINE = 114;
const isDelimiter = (b: number) => b === 0x20 || b === 0x0a || b === 0x2d || b === 0x5f;
/** The SDK's width of one byte: its table for 0x20-0x7E, `byte & 0x3F` from 0xC0 (a blank), none otherwise. */
const width = (b: number) => (b >= 0x20 && b <= 0x7e ? SDK_WIDTHS[b - 0x20]! : b >= 0xc0 ? b & 0x3f : 0);
const widthOf = (bytes: Uint8Array) => bytes.reduce((sum, b) => sum + width(b), 0);

/**
 * The rule, stated on its own: a value ends at its first NUL. A line takes the longest start of what is left that is
 * at most 114 px wide, and ends after a newline it takes. When more follows and the line would end inside a word (the
 * bytes on both sides of the end are not delimiters), it ends instead before its last delimiter after its first
 * byte, which starts the next line.
 */
function sdkLines(value: Uint8Array): Uint8Array[] {
  const nul = value.indexOf(0);
  let rest = nul < 0 ? value : value.subarray(0, nul);
  const lines: Uint8Array[] = [];
  while (rest.length > 0) {
    let n = 0;
    while (n < rest.length && widthOf(rest.subarray(0, n + 1)) <= LINE) {
      n++;
      if (rest[n - 1] === 0x0a) break;
    }
    if (n < rest.length && !isDelimiter(rest[n - 1]!) && !isDelimiter(rest[n]!)) {
      let last = n - 1;
      while (last >= 1 && !isDelimiter(rest[last]!)) last--;
      if (last >= 1) n = last;
    }
    lines.push(rest.subarray(0, Math.max(n, 1)));
    rest = rest.subarray(Math.max(n, 1));
  }
  return lines;
}

const hex = (lines: Uint8Array[]) => lines.map((l) => Buffer.from(l).toString('hex'));

/** Values that stress the layout: delimiters, the four glyphs that once differed, wide and narrow glyphs, any byte. */
const value = fc.oneof(
  fc
    .array(fc.constantFrom(...'&MX_ -\nWm.il1|ab0 '.split('').map((c) => c.charCodeAt(0))), { maxLength: 260 })
    .map((a) => Uint8Array.from(a)),
  fc.array(fc.integer({ min: 0x20, max: 0x7e }), { maxLength: 260 }).map((a) => Uint8Array.from(a)),
  fc.uint8Array({ maxLength: 260 }),
);

describe('the Nano S Plus layout of a value, for any value', () => {
  it("the glyph widths are the SDK's font table (& 9, M 10, X 7, _ 6 px among them)", () => {
    for (let b = 0x20; b <= 0x7e; b++)
      expect([String.fromCharCode(b), glyphOf('regular', b).advance]).toEqual([String.fromCharCode(b), SDK_WIDTHS[b - 0x20]]);
    expect(['&', 'M', 'X', '_'].map((c) => glyphOf('regular', c.charCodeAt(0)).advance)).toEqual([9, 10, 7, 6]);
    // Outside the font: a blank of byte & 0x3F pixels from 0xC0, nothing for control bytes, DEL and 0x80-0xBF.
    expect([0x00, 0x0a, 0x7f, 0x80, 0xbf, 0xc0, 0xc3, 0xe2, 0xff].map((b) => glyphOf('regular', b).advance)).toEqual([
      0, 0, 0, 0, 0, 0, 3, 34, 63,
    ]);
  });

  it("breaks lines where the SDK's paging rule does", () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(hex(layoutLines(v))).toEqual(hex(sdkLines(v)));
      }),
      { numRuns: RUNS },
    );
  });

  it('runs of one glyph hold as many characters as the SDK widths allow (11 M, 16 X, 12 &, 19 _)', () => {
    const lengths = ['M', 'X', '&', '_'].map((c) => layoutLines(Uint8Array.from({ length: 40 }, () => c.charCodeAt(0)))[0]!.length);
    expect(lengths).toEqual([11, 16, 12, 19]);
  });

  it('every line of a value is at most 114 px wide and the lines rebuild the value up to its NUL', () => {
    fc.assert(
      fc.property(value, (v) => {
        const lines = layoutLines(v);
        for (const line of lines) expect(line.length === 1 || widthOf(line) <= LINE).toBe(true);
        const nul = v.indexOf(0);
        expect(Buffer.concat(lines).toString('hex')).toBe(Buffer.from(nul < 0 ? v : v.subarray(0, nul)).toString('hex'));
      }),
      { numRuns: RUNS },
    );
  });

  it('pages of three lines, the title marked (i/n) when there are several', () => {
    fc.assert(
      fc.property(value, (v) => {
        const pages = valueScreens('Memo', v);
        const lines = sdkLines(v).length;
        expect(pages).toHaveLength(Math.max(1, Math.ceil(lines / 3)));
        pages.forEach((page, i) => {
          expect(page.drawing.texts[0]).toBe(pages.length > 1 ? `Memo (${i + 1}/${pages.length})` : 'Memo');
        });
      }),
      { numRuns: Math.ceil(RUNS / 4) },
    );
  });
});

/** Speculos's pieces of one drawn line of the regular font (a paged value's line). */
const pieces = (line: string) =>
  textEvents({ layout: 'paging', texts: ['T', line] })
    .filter((e) => e.element === 1)
    .map((e) => e.text);

/** The glyphs that reach below the baseline as far as `_` does, read from the SDK's boxes (descenders and the like). */
const REACHES_LOW = new Set(
  Array.from({ length: 0x5f }, (_, i) => 0x20 + i).filter((b) => {
    const g = glyphOf('regular', b);
    return g.bitmap.length > 0 && g.y + Math.ceil((g.bitmap.length * 8) / g.w) > 10;
  }),
);

describe('text is drawn as its UTF-8 bytes', () => {
  it("a text value is drawn from its UTF-8 bytes, never from a character's low byte (U+0173 is not drawn as 's')", () => {
    // ų is C5 B3 in UTF-8: a blank of 5 px and nothing (bytes the font lacks). Its low byte, 0x73, is "s".
    const [screen] = valueScreens('URI', 'https://tru\u0173ted.example');
    expect(screen!.lines.slice(1).join('')).not.toContain('trusted');
    expect(screen!.drawing.texts.slice(1).join('')).toBe(String.fromCharCode(...new TextEncoder().encode('https://tru\u0173ted.example')));
    // For every string, the bytes drawn are its UTF-8 bytes.
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
        const bytes = new TextEncoder().encode(text);
        const expected = String.fromCharCode(...layoutLines(bytes).flatMap((line) => [...line]));
        const drawn = valueScreens('T', text)
          .flatMap((s) => s.drawing.texts.slice(1))
          .join('');
        expect(drawn).toBe(expected);
      }),
      { numRuns: RUNS / 10 },
    );
  });
});

describe('the text events Speculos reports for a line', () => {
  it('a leading space and a text from an `_` on are pieces of their own; a descender keeps the `_` in its piece', () => {
    expect(pieces('ab_cd')).toEqual(['ab', '_cd']);
    expect(pieces('gap_day')).toEqual(['gap_day']);
    expect(pieces(' abc')).toEqual([' ', 'abc']);
    expect(pieces('  a b')).toEqual([' ', ' ', 'a b']);
    expect(pieces('QRSTUVWXYZ[\\]^_')).toEqual(['QRSTUVWXYZ[\\]^_']); // recorded from the real app
    expect(pieces('a__b')).toEqual(['a', '__b']);
    expect([...REACHES_LOW].map((b) => String.fromCharCode(b)).join('')).toMatch(/^(?=.*g)(?=.*j)(?=.*p)(?=.*q)(?=.*y)(?=.*_)/);
  });

  it('for any printable line: the pieces rebuild it, and a piece starts only at a leading space or at an `_` after nothing that reaches as low', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...'ab_ gpQ(y-.1'.split('')), { minLength: 1, maxLength: 18 }), (chars) => {
        const line = chars.join('');
        const got = pieces(line);
        expect(got.join('')).toBe(line);
        // The statement: walk the line; a space before any glyph is its own piece; an `_` starts a new piece unless
        // the piece so far holds a glyph reaching as low (or an earlier `_`).
        const expected: string[] = [];
        let low = false;
        let started = false;
        for (const c of line) {
          if (!started && c === ' ') {
            expected.push(' ');
            continue;
          }
          if (!started || (c === '_' && !low)) {
            expected.push(c);
            low = REACHES_LOW.has(c.charCodeAt(0));
            started = true;
            continue;
          }
          expected[expected.length - 1] += c;
          low ||= REACHES_LOW.has(c.charCodeAt(0));
        }
        expect(got).toEqual(expected);
      }),
      { numRuns: RUNS },
    );
  });
});
