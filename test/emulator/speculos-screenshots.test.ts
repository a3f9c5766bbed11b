/**
 * `GET /screenshot` of the Speculos-compatible server against the screenshots the real Speculos took of the real Mina
 * app v1.6.0 on a Nano S Plus (test/fixtures/speculos-screenshots/, copied from the shared vectors: an address review
 * and the app menu, with the text events Speculos reported for each in index.json). The same screen must give the
 * same PNG bytes, the same pixels (decoded here with node:zlib, apart from the encoder) and the same text events.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startSpeculosServer, type Screen, type SpeculosServer } from '../../src/emulator.js';
import { textEvents } from '../../src/emulator/screen-drawing.js';
import { bn, pb } from '../../src/emulator/review.js';
import { quietLedger, within } from '../support/rig.js';
import { pixelsOf } from '../support/screen-snapshots.js';
import { WAIT_MS } from '../support/speculos-screens.js';

const DIR = new URL('../fixtures/speculos-screenshots/', import.meta.url);
const index = JSON.parse(readFileSync(new URL('index.json', DIR), 'utf8')) as { screens: Array<{ file: string; events: string[] }> };
const reference = (file: string) => new Uint8Array(readFileSync(new URL(file, DIR)));

describe('GET /screenshot beside the real Speculos, Nano S Plus', () => {
  let server: SpeculosServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const get = async (path: string) => within(fetch(`${server!.url}${path}`), `GET ${path}`, WAIT_MS);
  const press = async (button: string) =>
    expect(
      (await within(fetch(`${server!.url}/button/${button}`, { method: 'POST', body: '{"action":"press-and-release"}' }), button, WAIT_MS))
        .status,
    ).toBe(200);
  const texts = async () =>
    ((await (await get('/events?currentscreenonly=true')).json()) as { events: Array<{ text: string }> }).events.map((e) => e.text);

  /** The screenshot of the screen shown now, once its first text event is `title`. */
  async function screenshotOf(title: string): Promise<{ png: Uint8Array; events: string[] }> {
    const deadline = Date.now() + WAIT_MS;
    let events = await texts();
    while (events[0] !== title) {
      if (Date.now() > deadline) throw new Error(`no screen ${title}; on screen: ${JSON.stringify(events)}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      events = await texts();
    }
    return { png: new Uint8Array(await (await get('/screenshot')).arrayBuffer()), events };
  }

  /** Walks the address review and the menu with the buttons; the screenshot of each of the 13 recorded screens. */
  async function walk(): Promise<Map<string, { png: Uint8Array; events: string[] }>> {
    server = await startSpeculosServer(quietLedger(), { buttons: true });
    const shots = new Map<string, { png: Uint8Array; events: string[] }>();
    const menu = ['m0.png', 'm1.png', 'm2.png', 'm3.png', 'm4.png', 'm5.png'];
    for (const [i, file] of menu.entries()) {
      shots.set(file, await screenshotOf(index.screens.find((s) => s.file === file)!.events[0]!));
      if (i < menu.length - 1) await press('right');
    }
    await press('right'); // the menu loops back to "Mina is ready"
    const reply = fetch(`${server.url}/apdu`, { method: 'POST', body: JSON.stringify({ data: 'e00200000400000000' }) });
    const review = ['a0.png', 'a1.png', 'a2.png', 'a3.png', 'a4.png', 'a5.png', 'a6.png'];
    for (const file of review) {
      shots.set(file, await screenshotOf(index.screens.find((s) => s.file === file)!.events[0]!));
      if (file === 'a2.png')
        await press('both'); // Generate
      else if (file !== 'a6.png') await press('right');
    }
    await press('both'); // Reject
    expect(((await (await within(reply, 'the reply', WAIT_MS)).json()) as { data: string }).data).toBe('6985');
    return shots;
  }

  it('draws the 13 recorded screens with the same PNG bytes as the real Speculos', async () => {
    const shots = await walk();
    expect(shots.size).toBe(index.screens.length);
    for (const { file, events } of index.screens) {
      const ours = shots.get(file)!;
      expect(ours.events, file).toEqual(events);
      expect(Buffer.from(ours.png).toString('hex'), file).toBe(Buffer.from(reference(file)).toString('hex'));
    }
  });

  it('draws the 13 recorded screens pixel for pixel as the real Speculos: #DDDDDD on black, 128 x 64', async () => {
    const shots = await walk();
    for (const { file } of index.screens) {
      const real = pixelsOf(reference(file));
      const ours = pixelsOf(shots.get(file)!.png);
      expect([ours.width, ours.height]).toEqual([128, 64]);
      expect(new Set(real.rgb)).toEqual(new Set([0, 0xdd]));
      const differing = ours.rgb.reduce((n, v, i) => n + (v === real.rgb[i] ? 0 : 1), 0);
      expect(differing, file).toBe(0);
    }
  });
});

describe('text-event boxes beside the real Speculos, Nano S Plus', () => {
  const boxes = (screen: Screen) => textEvents(screen.drawing).map(({ text, x, y, w, h }) => ({ text, x, y, w, h }));

  it('reports the boxes the real Speculos streamed for Version / 1.6.0', () => {
    expect(boxes(bn('Version', '1.6.0'))).toEqual([
      { text: 'Version', x: 43, y: 21, w: 41, h: 9 },
      { text: '1.6.0', x: 53, y: 35, w: 22, h: 15 },
    ]);
  });

  it("measures the bold font's y and j as the device does: Copyright is 56 px wide, Reject 12 px high", () => {
    expect(boxes(bn('Copyright', '(c) 2024 Ledger'))[0]).toMatchObject({ text: 'Copyright', w: 56 });
    expect(boxes(pb('crossmark', 'Reject'))[0]).toMatchObject({ text: 'Reject', h: 12 });
  });
});
