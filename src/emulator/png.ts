/**
 * A PNG of a screen, byte for byte as Speculos's `GET /screenshot` answers it. Speculos saves its frame with Pillow
 * (`Image.save(..., "PNG")`), and the 13 screenshots of the real app (test/fixtures/speculos-screenshots/) show what
 * that writes: IHDR (the screen's size, 8-bit RGB), one IDAT, IEND; lit pixels #DDDDDD on black; each row filtered
 * by Pillow's adaptive choice (libImaging ZipEncode.c: none, then up, sub and Paeth, each kept only when the sum of
 * its bytes' distances from zero is smaller); the rows deflated by zlib at level 6 with the Z_FILTERED strategy.
 *
 * The deflate is pako's, a port of zlib that writes zlib's bytes (the platform's own zlib does not: Node's and
 * Chromium's fork writes other, equally valid streams). The chunk checksum is the PNG specification's CRC-32 (not
 * cryptographic).
 */
import type { ScreenBitmap } from './screen-drawing.js';

const SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);
/** The grey Speculos draws a lit pixel in (its display's colour for "on"). */
const LIT_GREY = 0xdd;
/** zlib's Z_FILTERED, Pillow's strategy for PNG. */
const Z_FILTERED = 1;
const BYTES_PER_PIXEL = 3;

let crcTable: Uint32Array | undefined;

/** CRC-32 (ISO 3309, polynomial 0xEDB88320), as PNG chunks carry it. */
export function crc32(bytes: Uint8Array): number {
  crcTable ??= Uint32Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  let crc = 0xffffffff;
  for (const byte of bytes) crc = crcTable[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(
    Uint8Array.from(type, (c) => c.charCodeAt(0)),
    4,
  );
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** How far a filtered byte is from zero, as Pillow (and libpng) weigh it. */
const distance = (byte: number) => (byte < 128 ? byte : 256 - byte);

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** One row filtered as Pillow filters it: the filter type byte, then the filtered bytes. */
function filterRow(row: Uint8Array, previous: Uint8Array): Uint8Array {
  const n = row.length;
  const left = (i: number, bytes: Uint8Array) => (i >= BYTES_PER_PIXEL ? bytes[i - BYTES_PER_PIXEL]! : 0);
  const candidates: Array<[number, (i: number) => number]> = [
    [2, (i) => row[i]! - previous[i]!],
    [1, (i) => row[i]! - left(i, row)],
    [4, (i) => row[i]! - paeth(left(i, row), previous[i]!, left(i, previous))],
  ];
  let best = Uint8Array.of(0, ...row);
  let sum = row.reduce((s, v) => s + distance(v), 0);
  for (const [type, filtered] of candidates) {
    if (sum === 0) break;
    const out = new Uint8Array(n + 1);
    out[0] = type;
    let s = 0;
    for (let i = 0; i < n; i++) {
      out[i + 1] = filtered(i) & 0xff;
      s += distance(out[i + 1]!);
    }
    if (s < sum) {
      best = out;
      sum = s;
    }
  }
  return best;
}

/** The PNG image of `bitmap` as Speculos writes it: 8-bit RGB, a lit pixel #DDDDDD, any other black (or `ink`, `paper`). */
export async function encodePng(bitmap: ScreenBitmap): Promise<Uint8Array> {
  const { width, height, pixels, ink = LIT_GREY, paper = 0 } = bitmap;
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 2, 0, 0, 0], 8); // bit depth 8, colour type 2 (RGB), deflate, adaptive filtering, no interlace
  const stride = width * BYTES_PER_PIXEL;
  const raw = new Uint8Array(height * (1 + stride));
  let previous = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const row = new Uint8Array(stride).fill(paper);
    for (let x = 0; x < width; x++) if (pixels[y * width + x]) row.fill(ink, x * BYTES_PER_PIXEL, (x + 1) * BYTES_PER_PIXEL);
    raw.set(filterRow(row, previous), y * (1 + stride));
    previous = row;
  }
  // Loaded when first needed: a page that draws the screen itself (the wallet's demo device) never loads it.
  const { deflate } = await import('pako');
  const idat = deflate(raw, { level: 6, strategy: Z_FILTERED });
  const parts = [SIGNATURE, chunk('IHDR', header), chunk('IDAT', idat), chunk('IEND', new Uint8Array(0))];
  const png = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    png.set(part, offset);
    offset += part.length;
  }
  return png;
}
