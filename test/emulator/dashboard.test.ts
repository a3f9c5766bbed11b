/**
 * The software Ledger's dashboard and the SDK's default APDUs, byte for byte (src/emulator/dashboard.ts; sources in
 * docs/software-ledger.md "The dashboard").
 */
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../../src/apdu/bytes.js';
import { decodeRunningApp } from '../../src/apdu/os.js';
import type { Review } from '../../src/emulator.js';
import { quietLedger } from '../support/rig.js';

const hex = (text: string) => fromHex(text.replace(/\s/g, ''));
const ascii = (text: string) => toHex(new TextEncoder().encode(text));

describe('the dashboard (the Mina app closed)', () => {
  it('B0 01 reports BOLOS and the OS version with one flags byte, as the SDK writes it', async () => {
    const device = quietLedger({ appOpen: false });
    const reply = await device.exchange(hex('b0 01 00 00 00'));
    expect(toHex(reply)).toBe(`01 05 ${ascii('BOLOS')} 05 ${ascii('1.1.1')} 01 00 9000`.replace(/\s/g, ''));
    expect(decodeRunningApp(reply.subarray(0, -2))).toMatchObject({ name: 'BOLOS', version: '1.1.1' });
  });

  it('E0 01 is GetOsVersion: the Nano S Plus reply of DMK’s own test, onboarded', async () => {
    const device = quietLedger({ appOpen: false });
    const reply = await device.exchange(hex('e0 01 00 00 00'));
    expect(toHex(reply)).toBe('33100004 05 312e312e31 04 e6000000 04 342e3033 04 332e3132 01 00 01 00 9000'.replace(/\s/g, ''));
    // SE flags byte 0, bit 0x04: onboarded (DMK refuses to open an app on a device that is not).
    expect(reply[10]! & 0x04).toBe(0x04);
  });

  it('E0 D8 "Mina" asks the user; approved → 0x9000 and the app runs, answering B0 01 as Mina', async () => {
    const reviews: Review[] = [];
    const device = quietLedger({ appOpen: false, approve: (r) => (reviews.push(r), true) });
    expect(toHex(await device.exchange(hex(`e0 d8 00 00 04 ${ascii('Mina')}`)))).toBe('9000');
    expect(reviews.map((r) => [r.kind, r.ins, r.screens.map((s) => s.lines)])).toEqual([
      ['open-app', 0xd8, [['Open application', 'Mina'], ['Approve'], ['Reject']]],
    ]);
    expect(device.appOpen).toBe(true);
    const info = await device.exchange(hex('b0 01 00 00 00'));
    expect(decodeRunningApp(info.subarray(0, -2))).toMatchObject({ name: 'Mina', version: '1.6.0' });
    expect(toHex(await device.exchange(hex('e0 01 00 00 00')))).toBe('0106009000');
  });

  it('E0 D8 refused on the device → 0x5501, and the dashboard stays', async () => {
    const device = quietLedger({ appOpen: false, approve: () => false });
    expect(toHex(await device.exchange(hex(`e0 d8 00 00 04 ${ascii('Mina')}`)))).toBe('5501');
    expect(device.appOpen).toBe(false);
  });

  it('E0 D8 for an app that is not installed → 0x6807 without asking; no name → 0x670A', async () => {
    const reviews: Review[] = [];
    const missing = quietLedger({ appOpen: false, appInstalled: false, approve: (r) => (reviews.push(r), true) });
    expect(toHex(await missing.exchange(hex(`e0 d8 00 00 04 ${ascii('Mina')}`)))).toBe('6807');
    const device = quietLedger({ appOpen: false, approve: (r) => (reviews.push(r), true) });
    expect(toHex(await device.exchange(hex(`e0 d8 00 00 07 ${ascii('Bitcoin')}`)))).toBe('6807');
    expect(toHex(await device.exchange(hex('e0 d8 00 00 00')))).toBe('670a');
    expect(reviews).toEqual([]);
    expect(device.appOpen).toBe(false);
  });

  it('the app’s instructions get closedAppStatus; a locked device answers 0x5515 to the OS requests too', async () => {
    const device = quietLedger({ appOpen: false, closedAppStatus: 0x6511 });
    expect(toHex(await device.exchange(hex('e0 02 00 01 04 00000000')))).toBe('6511');
    device.lock();
    for (const apdu of ['b0 01 00 00 00', 'e0 01 00 00 00', `e0 d8 00 00 04 ${ascii('Mina')}`]) {
      expect(toHex(await device.exchange(hex(apdu)))).toBe('5515');
    }
  });
});

describe('the SDK default APDUs in the Mina app', () => {
  it('B0 A7 00 00 answers 0x9000 and quits to the dashboard; with P1 ≠ 0 the app refuses CLA 0xB0', async () => {
    const device = quietLedger();
    expect(toHex(await device.exchange(hex('b0 a7 01 00 00')))).toBe('6e00');
    expect(device.appOpen).toBe(true);
    expect(toHex(await device.exchange(hex('b0 a7 00 00 00')))).toBe('9000');
    expect(device.appOpen).toBe(false);
    const info = await device.exchange(hex('b0 01 00 00 00'));
    expect(decodeRunningApp(info.subarray(0, -2)).name).toBe('BOLOS');
  });
});
