/**
 * One screen of the Nano S Plus (128 x 64 pixels, 1 bit each) as the Ledger SDK draws it, and what Speculos reports
 * of it. The layouts are the SDK's for a 128 x 64 BAGL screen (lib_ux ux_layout_*.c: the element positions, fonts and
 * centering of `paging`, `bn`, `nn`, `pnn`, `pbb`, `pb`); glyphs and icons come from font.ts. Pure: no I/O.
 *
 * Speculos reports text through OCR (speculos/mcu/ocr.py, `add_character`): each drawn character carries its box
 * (x, y, width, and a height of its bitmap's bytes × 8 / width, rounded up); it joins the current text event when its
 * top is above that event's bottom and it is less than 12 pixels from its right edge, else it starts a new event.
 * So a line whose first character is a space (an empty bitmap, height 0) is reported as " " and the rest, and an `_`
 * (drawn below the baseline) starts a new event unless the event already reaches as low (a descender, an earlier `_`).
 */
import { FONT_BASELINE, FONT_HEIGHT, glyphOf, iconOf, pixelSet, textWidth, type FontName, type IconName } from './font.js';

export const SCREEN_WIDTH = 128;
export const SCREEN_HEIGHT = 64;

/** The SDK layouts the Mina app's screens use (and the extension's, drawn the same way). */
export type ScreenLayout = 'paging' | 'bn' | 'nn' | 'pnn' | 'pbb' | 'pb';

/** What the app asks the SDK to draw on one screen. */
export interface ScreenDrawing {
  layout: ScreenLayout;
  /** The icon of a `p…` layout. */
  icon?: IconName;
  /**
   * The text of each text element, top to bottom, one character per byte (a paged value: its title, "(i/n)"
   * included, then up to three lines).
   */
  texts: string[];
}

/** A text event as Speculos reports it (`GET /events`). */
export interface TextEvent {
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

interface TextElement {
  x: number;
  baseline: number;
  width: number;
  font: FontName;
}

const line = (x: number, baseline: number, width: number, font: FontName): TextElement => ({ x, baseline, width, font });
/** A paged value's line: 114 pixels wide, centered (ux_layout_paging.c). */
export const PIXELS_PER_LINE = 114;
const PAGED = (baseline: number) => line((SCREEN_WIDTH - PIXELS_PER_LINE) / 2, baseline, PIXELS_PER_LINE, 'regular');

/** Each layout's text elements and icon position (the SDK's `BAGL_WIDTH==128 && BAGL_HEIGHT==64` tables). */
const LAYOUTS: Record<ScreenLayout, { icon?: { x: number; y: number }; texts: TextElement[] }> = {
  paging: { texts: [line(0, 15, 128, 'bold'), PAGED(29), PAGED(43), PAGED(57)] },
  bn: { texts: [line(6, 29, 116, 'bold'), line(6, 43, 116, 'regular')] },
  nn: { texts: [line(6, 29, 116, 'regular'), line(6, 43, 116, 'regular')] },
  pnn: { icon: { x: 57, y: 10 }, texts: [line(6, 37, 116, 'regular'), line(6, 51, 116, 'regular')] },
  pbb: { icon: { x: 57, y: 10 }, texts: [line(6, 37, 116, 'bold'), line(6, 51, 116, 'bold')] },
  pb: { icon: { x: 57, y: 17 }, texts: [line(0, 44, 128, 'bold')] },
};
const ARROWS = { left: { x: 2, y: 28 }, right: { x: 122, y: 28 } } as const;

/** The largest gap between two characters of one Speculos text event on a Nano (ocr.py MAX_BLANK_SPACE_NANO). */
const MAX_BLANK_SPACE = 12;

/** A character drawn: its box and bitmap, the byte, and the text element it belongs to. */
interface PlacedGlyph {
  x: number;
  y: number;
  w: number;
  bitmap: Uint8Array;
  char: string;
  element: number;
}

const bytesOf = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0) & 0xff);

/** Every character the SDK draws for `drawing`, in drawing order. */
function placeGlyphs(drawing: ScreenDrawing): PlacedGlyph[] {
  const placed: PlacedGlyph[] = [];
  LAYOUTS[drawing.layout].texts.forEach((element, index) => {
    const text = drawing.texts[index];
    if (text === undefined) return;
    const bytes = bytesOf(text);
    // bagl_draw_with_context: centered by halves rounded down, the text's top at baseline - font baseline.
    let pen = element.x + Math.max(0, Math.floor(element.width / 2) - Math.floor(textWidth(element.font, bytes) / 2));
    const top = element.baseline - FONT_BASELINE;
    for (const byte of bytes) {
      const glyph = glyphOf(element.font, byte);
      if (glyph.drawn) {
        const char = glyph.bitmap.length === 0 ? ' ' : String.fromCharCode(byte);
        placed.push({ x: pen + glyph.x, y: top + glyph.y, w: glyph.w, bitmap: glyph.bitmap, char, element: index });
      }
      pen += glyph.advance;
    }
  });
  return placed;
}

/** The text events Speculos reports for `drawing`, each with the index of the text element it was read from. */
export function textEvents(drawing: ScreenDrawing): Array<TextEvent & { element: number }> {
  const events: Array<TextEvent & { element: number }> = [];
  for (const { x, y, w, bitmap, char, element } of placeGlyphs(drawing)) {
    // ocr.py recomputes the height from the bitmap's length: (bytes × 8) / width, rounded up.
    const h = Math.ceil((bitmap.length * 8) / w);
    const last = events.at(-1);
    if (last && y < last.y + last.h && Math.abs(x - (last.x + last.w)) < MAX_BLANK_SPACE) {
      last.text += char;
      last.w = x + w - last.x;
      const bottom = Math.max(y + h - 1, last.y + last.h - 1);
      last.y = Math.min(y, last.y);
      last.h = bottom - last.y + 1;
    } else {
      events.push({ text: char, x, y, w, h, element });
    }
  }
  return events;
}

/** Which navigation arrows the SDK draws: left unless on the first screen of a flow, right unless on its last. */
export interface Arrows {
  left: boolean;
  right: boolean;
}

/** A screen's pixels: `width × height`, row by row, 1 for a lit (inked) pixel. */
export interface ScreenBitmap {
  width: number;
  height: number;
  pixels: Uint8Array;
  /** The grey of a set pixel and of the others in a screenshot (a Nano: #DDDDDD on black; a touch screen: black on white). */
  ink?: number;
  paper?: number;
}

function blit(pixels: Uint8Array, x: number, y: number, w: number, rows: number, bitmap: Uint8Array): void {
  for (let i = 0; i < bitmap.length * 8 && Math.floor(i / w) < rows; i++) {
    const px = x + (i % w);
    const py = y + Math.floor(i / w);
    if (pixelSet(bitmap, i) && px >= 0 && px < SCREEN_WIDTH && py >= 0 && py < SCREEN_HEIGHT) pixels[py * SCREEN_WIDTH + px] = 1;
  }
}

/**
 * The pixels a Nano S Plus shows for a screen: 128 × 64, 1 bit each (1 lit), drawn with the SDK's fonts, icons and
 * layouts; `arrows` says which navigation arrows are drawn (`reviewArrows` gives them for each screen of a review).
 *
 * @example
 * ```ts
 * const png = await encodePng(renderScreen(review.screens[0], reviewArrows(review)[0]));
 * ```
 */
export function renderScreen(screen: { drawing: ScreenDrawing }, arrows?: Arrows): ScreenBitmap {
  return renderDrawing(screen.drawing, arrows);
}

/** The pixels the device shows for `drawing` (white on black: 1 is a lit pixel). */
export function renderDrawing(drawing: ScreenDrawing, arrows: Arrows = { left: false, right: false }): ScreenBitmap {
  const pixels = new Uint8Array(SCREEN_WIDTH * SCREEN_HEIGHT);
  for (const side of ['left', 'right'] as const) {
    if (!arrows[side]) continue;
    const icon = iconOf(side);
    blit(pixels, ARROWS[side].x, ARROWS[side].y, icon.width, icon.height, icon.bitmap);
  }
  const at = LAYOUTS[drawing.layout].icon;
  if (at && drawing.icon) {
    const icon = iconOf(drawing.icon);
    blit(pixels, at.x, at.y, icon.width, icon.height, icon.bitmap);
  }
  // A glyph's box is at most a font's height (bagl_hal_draw_bitmap_within_rect is given the font's height).
  for (const { x, y, w, bitmap } of placeGlyphs(drawing)) if (w > 0) blit(pixels, x, y, w, FONT_HEIGHT, bitmap);
  return { width: SCREEN_WIDTH, height: SCREEN_HEIGHT, pixels };
}
