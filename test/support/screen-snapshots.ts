/**
 * PNG snapshots of the software Ledger's screens, as Zemu keeps them for a real app under Docker: each screen of a
 * review is drawn as the Nano S Plus draws it (`renderScreen`, arrows included), encoded as Speculos's /screenshot
 * encodes it, and compared pixel by pixel with the PNG committed under test/fixtures/snapshots/<name>/00000.png, …
 *
 * `npm run snapshots:update` (UPDATE_SNAPSHOTS=1) writes them instead. The committed PNGs are read back here with
 * node:zlib and node's CRC-32, apart from the encoder under test (pako's deflate, its own CRC).
 */
import { crc32, inflateSync } from 'node:zlib';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodePng, renderScreen, type Arrows, type Screen } from '../../src/emulator.js';

const ROOT = new URL('../fixtures/snapshots/', import.meta.url).pathname;
const UPDATE = process.env.UPDATE_SNAPSHOTS === '1';

/** The RGB pixels of an 8-bit RGB PNG, its chunk checksums checked and every row filter undone (PNG spec, 9). */
export function pixelsOf(png: Uint8Array): { width: number; height: number; rgb: Uint8Array } {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  if (Buffer.from(png.subarray(0, 8)).toString('hex') !== '89504e470d0a1a0a') throw new Error('not a PNG');
  let width = 0;
  let height = 0;
  const data: Buffer[] = [];
  for (let at = 8; at < png.length; ) {
    const length = view.getUint32(at);
    const type = Buffer.from(png.subarray(at + 4, at + 8)).toString('latin1');
    const body = png.subarray(at + 8, at + 8 + length);
    if (crc32(png.subarray(at + 4, at + 8 + length)) !== view.getUint32(at + 8 + length)) throw new Error(`bad CRC in ${type}`);
    if (type === 'IHDR') {
      width = view.getUint32(at + 8);
      height = view.getUint32(at + 12);
      if (Buffer.from(body.subarray(8)).toString('hex') !== '0802000000') throw new Error('not 8-bit RGB');
    }
    if (type === 'IDAT') data.push(Buffer.from(body));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * 3;
  const rgb = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    for (let i = 0; i < stride; i++) {
      const a = i >= 3 ? rgb[y * stride + i - 3]! : 0;
      const b = y > 0 ? rgb[(y - 1) * stride + i]! : 0;
      const c = i >= 3 && y > 0 ? rgb[(y - 1) * stride + i - 3]! : 0;
      const p = a + b - c;
      const paeth =
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      const predictor = [0, a, b, (a + b) >> 1, paeth][filter];
      if (predictor === undefined) throw new Error(`row filter ${filter}`);
      rgb[y * stride + i] = (raw[y * (stride + 1) + 1 + i]! + predictor) & 0xff;
    }
  }
  return { width, height, rgb };
}

/** A screen PNG read back: its size and, per pixel, whether it is lit (Speculos's #DDDDDD; anything else throws). */
export function readPng(png: Uint8Array): { width: number; height: number; lit: Uint8Array } {
  const { width, height, rgb } = pixelsOf(png);
  const lit = new Uint8Array(width * height);
  for (let i = 0; i < lit.length; i++) {
    const [r, g, b] = rgb.subarray(i * 3, i * 3 + 3);
    if ((r !== 0 && r !== 0xdd) || r !== g || g !== b) throw new Error('a pixel neither black nor #DDDDDD');
    lit[i] = r === 0xdd ? 1 : 0;
  }
  return { width, height, lit };
}

/**
 * Compares `screens` (each with the arrows the device draws on it) with the committed snapshots `name/00000.png`, …;
 * with UPDATE_SNAPSHOTS=1 writes them. Returns a message per difference (none when they all match).
 */
export async function compareScreens(name: string, screens: Array<{ screen: Screen; arrows?: Arrows }>): Promise<string[]> {
  const dir = join(ROOT, name);
  const files = screens.map((_, i) => `${String(i).padStart(5, '0')}.png`);
  const pngs = await Promise.all(screens.map(({ screen, arrows }) => encodePng(renderScreen(screen, arrows))));
  if (UPDATE) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    pngs.forEach((png, i) => writeFileSync(join(dir, files[i]!), png));
    return [];
  }
  if (!existsSync(dir)) return [`no snapshots ${name}: run npm run snapshots:update`];
  const committed = readdirSync(dir)
    .filter((f) => f.endsWith('.png'))
    .sort();
  const problems: string[] = [];
  if (committed.join() !== files.join()) problems.push(`${name}: ${committed.length} snapshots, ${files.length} screens`);
  pngs.forEach((png, i) => {
    const path = join(dir, files[i]!);
    if (!existsSync(path)) return;
    const expected = readPng(readFileSync(path));
    const actual = readPng(png);
    const differing = actual.lit.reduce((n, v, p) => n + (v === expected.lit[p] ? 0 : 1), 0);
    if (differing > 0 || actual.width !== expected.width || actual.height !== expected.height) {
      const out = join(tmpdir(), `${name}-${files[i]}`);
      writeFileSync(out, png);
      problems.push(`${name}/${files[i]} (${screens[i]!.screen.lines.join(' | ')}): ${differing} pixels differ; drawn now: ${out}`);
    }
  });
  return problems;
}
