/**
 * A touch page's pixels (this project's model of an NBGL page, not the SDK's drawing): black on white as the Stax and
 * Flex show it, each text in the Nano's regular font at `TOUCH_SCALE`, where its text event says; the Mina logo (the
 * Nano's 16 x 16 glyph, four times as large: the app's 64 px glyph is of that size); buttons as frames, a switch
 * filled when on, the navigation arrows as the Nano's arrows, larger. Pure: no I/O.
 */
import { utf8 } from '../apdu/bytes.js';
import { DEVICE_MODELS } from './device-models.js';
import { FONT_HEIGHT, glyphOf, iconOf, pixelSet } from './font.js';
import type { ScreenBitmap } from './screen-drawing.js';
import { TOUCH_SCALE, type TouchModel, type TouchPage } from './touch-flows.js';

const LOGO_SCALE = 4;
const ARROW_SCALE = 3;
const LOGO_TOP = 96;
const FRAME = 2;

class Canvas {
  readonly pixels: Uint8Array;
  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.pixels = new Uint8Array(width * height);
  }

  fill(x: number, y: number, w: number, h: number): void {
    for (let py = Math.max(0, y); py < Math.min(this.height, y + h); py++) {
      this.pixels.fill(1, py * this.width + Math.max(0, x), py * this.width + Math.min(this.width, x + w));
    }
  }

  /** A 1-bit bitmap (`w` pixels a row) at (x, y), each pixel a `scale` × `scale` square. */
  bitmap(x: number, y: number, w: number, rows: number, bits: Uint8Array, scale: number): void {
    for (let i = 0; i < bits.length * 8 && Math.floor(i / w) < rows; i++) {
      if (pixelSet(bits, i)) this.fill(x + (i % w) * scale, y + Math.floor(i / w) * scale, scale, scale);
    }
  }

  frame(x: number, y: number, w: number, h: number): void {
    this.fill(x, y, w, FRAME);
    this.fill(x, y + h - FRAME, w, FRAME);
    this.fill(x, y, FRAME, h);
    this.fill(x + w - FRAME, y, FRAME, h);
  }
}

/** Draws `text` from the pen position (x, y): its text event's box. */
function drawText(canvas: Canvas, text: string, x: number, y: number): void {
  const bytes = utf8.encode(text);
  let pen = x;
  for (const byte of bytes) {
    const glyph = glyphOf('regular', byte);
    if (glyph.drawn && glyph.w > 0)
      canvas.bitmap(pen + glyph.x * TOUCH_SCALE, y + glyph.y * TOUCH_SCALE, glyph.w, FONT_HEIGHT, glyph.bitmap, TOUCH_SCALE);
    pen += glyph.advance * TOUCH_SCALE;
  }
}

/** The pixels of `page` on `model`: 1 is ink (black), 0 paper (white); `encodePng` writes them so. */
export function renderTouchPage(page: TouchPage | undefined, model: TouchModel): ScreenBitmap {
  const { width, height } = DEVICE_MODELS[model];
  const canvas = new Canvas(width, height);
  if (page) {
    if (page.logo) {
      const logo = iconOf('mina');
      canvas.bitmap(Math.floor((width - logo.width * LOGO_SCALE) / 2), LOGO_TOP, logo.width, logo.height, logo.bitmap, LOGO_SCALE);
    }
    for (const b of page.buttons) {
      canvas.frame(b.x, b.y, b.w, b.h);
      if (b.on) canvas.fill(b.x + 2 * FRAME, b.y + 2 * FRAME, b.w - 4 * FRAME, b.h - 4 * FRAME);
      if (b.icon) {
        const icon = iconOf(b.icon);
        const scale = b.icon === 'crossmark' ? 2 : ARROW_SCALE;
        const x = b.x + Math.floor((b.w - icon.width * scale) / 2);
        canvas.bitmap(x, b.y + Math.floor((b.h - icon.height * scale) / 2), icon.width, icon.height, icon.bitmap, scale);
      }
    }
    for (const t of page.texts) drawText(canvas, t.text, t.x, t.y);
  }
  return { width, height, pixels: canvas.pixels, ink: 0x00, paper: 0xff };
}
