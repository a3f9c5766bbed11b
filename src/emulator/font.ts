/**
 * The Nano S Plus fonts as the Ledger SDK draws them (lib_bagl bagl.c, `bagl_draw_string`): each character moves the
 * pen by its width and draws its cropped bitmap at (pen + x min, line top + y min). A byte outside the font draws
 * nothing: from 0xC0 it still moves the pen by `byte & 0x3F` pixels (the SDK reads such a byte as a blank of that
 * width), every other byte (control bytes, DEL, 0x80-0xBF) by none. Data: font-data.ts.
 */
import { BOLD_BITMAP, BOLD_CHARACTERS, ICONS, REGULAR_BITMAP, REGULAR_CHARACTERS } from './font-data.js';
import { fromHex } from '../apdu/bytes.js';

export type FontName = 'regular' | 'bold';

/** Both fonts: 12 pixels high, baseline at 9. */
export const FONT_HEIGHT = 12;
export const FONT_BASELINE = 9;
const FIRST_CHAR = 0x20;
const LAST_CHAR = 0x7e;

/** One byte as the SDK draws it. */
export interface Glyph {
  /** How far the pen moves (the font's width; 0 or `byte & 0x3F` for a byte outside the font). */
  advance: number;
  /** The drawn box relative to the pen and the line's top (x min offset, y min offset, cropped width). */
  x: number;
  y: number;
  w: number;
  /** The cropped bitmap, `w` pixels a row, rows first, least significant bit first; empty for a blank (space). */
  bitmap: Uint8Array;
  /** False for a byte outside the font: nothing is drawn and Speculos reports nothing. */
  drawn: boolean;
}

const bitAt = (bitmap: Uint8Array, i: number) => (bitmap[i >> 3]! >> (i & 7)) & 1;

/** A font in the SDK's API-level-12 format: cropped bitmaps and, per character, offset, width, x min, y min, x max. */
function croppedGlyphs(bitmapHex: string, characters: string): Glyph[] {
  const bitmap = fromHex(bitmapHex);
  const table = characters.split(' ').map(Number);
  const glyphs: Glyph[] = [];
  for (let i = 0; i * 5 < table.length; i++) {
    const [offset, width, xMin, yMin, xMax] = table.slice(i * 5, i * 5 + 5) as [number, number, number, number, number];
    const end = (i + 1) * 5 < table.length ? table[(i + 1) * 5]! : bitmap.length;
    glyphs.push({ advance: width, x: xMin, y: yMin, w: width - xMin - xMax, bitmap: bitmap.subarray(offset, end), drawn: true });
  }
  return glyphs;
}

let fonts: Record<FontName, Glyph[]> | undefined;

/** How the SDK draws `byte` in `font`. */
export function glyphOf(font: FontName, byte: number): Glyph {
  fonts ??= { regular: croppedGlyphs(REGULAR_BITMAP, REGULAR_CHARACTERS), bold: croppedGlyphs(BOLD_BITMAP, BOLD_CHARACTERS) };
  if (byte >= FIRST_CHAR && byte <= LAST_CHAR) return fonts[font][byte - FIRST_CHAR]!;
  return { advance: byte >= 0xc0 ? byte & 0x3f : 0, x: 0, y: 0, w: 0, bitmap: new Uint8Array(0), drawn: false };
}

/** The width of a run of bytes (`bagl_compute_line_width`: the sum of the advances; nothing ends the run). */
export function textWidth(font: FontName, bytes: Uint8Array, start = 0, end = bytes.length): number {
  let width = 0;
  for (let i = start; i < end; i++) width += glyphOf(font, bytes[i]!).advance;
  return width;
}

export type IconName = keyof typeof ICONS;

/** An SDK icon: its size and bitmap (1 bit a pixel, rows first, least significant bit first). */
export function iconOf(name: IconName): { width: number; height: number; bitmap: Uint8Array } {
  const { width, height, bitmap } = ICONS[name];
  return { width, height, bitmap: fromHex(bitmap) };
}

/** Whether pixel `i` of a packed 1-bit bitmap is set. */
export const pixelSet = bitAt;
