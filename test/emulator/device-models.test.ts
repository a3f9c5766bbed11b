/**
 * The software Ledger as each device the Mina app ships for, through the Speculos-compatible server as a tool sees
 * it: the Nano X (the Nano S Plus's BAGL screens, its own target id), the touch devices (Stax, Flex: the app's NBGL
 * review, address review and settings, driven with `POST /finger` at the positions Ledger's Ragger taps for each use
 * case, ragger/firmware/touch/positions.py), and the dashboard once the app has quit.
 */
import Client from 'mina-signer';
import { afterEach, describe, expect, it } from 'vitest';
import { fromHex } from '../../src/apdu/bytes.js';
import { signatureFromRawHex } from '../../src/apdu/signature.js';
import { type DeviceModel, type SoftwareLedger, type SpeculosServer, startSpeculosServer } from '../../src/emulator.js';
import { quietLedger, within } from '../support/rig.js';
import { pixelsOf } from '../support/screen-snapshots.js';
import { WAIT_MS } from '../support/speculos-screens.js';
import { addressOf, exchange, txOf } from '../support/vectors.js';

/** Ragger's positions (x, y) for the touch use cases. */
const RAGGER = {
  stax: {
    next: [342, 606],
    previous: [200, 606],
    reject: [36, 606],
    confirm: [200, 515],
    settings: [342, 55],
    exit: [36, 36],
    center: [200, 336],
  },
  flex: {
    next: [430, 550],
    previous: [240, 550],
    reject: [55, 530],
    confirm: [240, 435],
    settings: [405, 75],
    exit: [45, 45],
    center: [240, 300],
  },
} as const;

describe('device models through the Speculos-compatible server', () => {
  let server: SpeculosServer | undefined;
  let device: SoftwareLedger;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function start(model: DeviceModel, options: { appOpen?: boolean } = {}) {
    device = quietLedger({ model, ...options });
    server = await startSpeculosServer(device, { buttons: true });
    const base = server.url;
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await within(
        fetch(`${base}${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }),
        path,
        WAIT_MS,
      );
      return {
        status: response.status,
        body: response.headers.get('content-type')?.includes('json') ? await response.json() : await response.arrayBuffer(),
      };
    };
    const screen = async () =>
      ((await call('GET', '/events?currentscreenonly=true')).body as { events: Array<{ text: string }> }).events.map((e) => e.text);
    return {
      call,
      screen,
      apdu: (hex: string) => call('POST', '/apdu', { data: hex }).then((r) => (r.body as { data: string }).data),
      tap: async ([x, y]: readonly [number, number], delay?: number) =>
        expect(
          (await call('POST', '/finger', { action: 'press-and-release', x, y, ...(delay === undefined ? {} : { delay }) })).status,
        ).toBe(200),
      press: async (button: 'left' | 'right' | 'both') =>
        expect((await call('POST', `/button/${button}`, { action: 'press-and-release' })).status).toBe(200),
      /** Waits until the screen's first text is `title`. */
      async waitFor(title: string): Promise<string[]> {
        const deadline = Date.now() + WAIT_MS;
        for (;;) {
          const shown = await screen();
          if (shown[0] === title) return shown;
          if (Date.now() > deadline) throw new Error(`no screen ${JSON.stringify(title)}; on screen: ${JSON.stringify(shown)}`);
          await new Promise((r) => setTimeout(r, 10));
        }
      },
    };
  }

  it('the Nano X shows the Nano S Plus screens, 128 x 64, and its OS names the Nano X target', async () => {
    const nanox = await start('nanox');
    expect(await nanox.screen()).toEqual(['Mina', 'is ready']);
    const png = new Uint8Array((await nanox.call('GET', '/screenshot')).body as ArrayBuffer);
    expect([pixelsOf(png).width, pixelsOf(png).height]).toEqual([128, 64]);
    expect(await device.exchange(fromHex('b0a7000000'))).toEqual(fromHex('9000')); // quits to the dashboard
    expect(
      Buffer.from(await device.exchange(fromHex('e001000000')))
        .toString('hex')
        .slice(0, 8),
    ).toBe('33000004');
  });

  it('with the app closed a Nano shows the dashboard (the Mina tile), and both buttons open the app', async () => {
    const nano = await start('nanosp', { appOpen: false });
    expect(await nano.screen()).toEqual(['Mina']);
    const { rgb } = pixelsOf(new Uint8Array((await nano.call('GET', '/screenshot')).body as ArrayBuffer));
    expect(rgb.some((v) => v === 0xdd)).toBe(true);
    await nano.press('both');
    expect(device.appOpen).toBe(true);
    expect(await nano.screen()).toEqual(['Mina', 'is ready']);
  });

  for (const model of ['stax', 'flex'] as const) {
    const at = RAGGER[model];

    it(`${model}: a payment is reviewed as the app's NBGL code lists it and signed by holding "Hold to sign"`, async () => {
      const touch = await start(model);
      const home = await touch.screen();
      expect([home[0], home.slice(1, -1).join(' '), home.at(-1)]).toEqual([
        'Mina',
        'This app enables signing transactions on the Mina network.',
        'Quit app',
      ]);
      const signed = touch.apdu(exchange('sign_tx_1').request);
      expect(await touch.waitFor('Review transaction')).toEqual(['Review transaction', 'Reject transaction']);
      const seen: string[] = [];
      for (let i = 0; i < 10 && (await touch.screen())[0] !== 'Sign transaction'; i++) {
        await touch.tap(at.next);
        seen.push(...(await touch.screen()));
      }
      const tx = txOf(exchange('sign_tx_1'));
      for (const item of ['Network', 'Testnet', 'Type', 'Payment', 'From', 'To', 'Amount', 'Fee', 'Total', 'Nonce', 'Memo', 'Hello Mina!'])
        expect(seen).toContain(item);
      expect(seen.join('')).toContain(tx.from);
      expect(await touch.screen()).toEqual(['Sign transaction', 'Hold to sign', 'Reject transaction']);
      await touch.tap(at.confirm); // a tap is not a hold
      expect((await touch.screen())[0]).toBe('Sign transaction');
      await touch.tap(at.confirm, 3);
      const reply = await signed;
      expect(reply).toBe(exchange('sign_tx_1').reply);
      const signature = signatureFromRawHex(reply.slice(0, -4));
      const client = new Client({ network: 'testnet' });
      const data = {
        to: tx.to,
        from: tx.from,
        fee: String(tx.fee),
        amount: String(tx.amount),
        nonce: tx.nonce,
        memo: tx.memo ?? '',
        validUntil: tx.validUntil!,
      };
      expect(client.verifyPayment({ data, signature, publicKey: tx.from })).toBe(true);
      expect(await touch.screen()).toEqual(['Transaction signed']);
      const log = ((await touch.call('GET', '/events')).body as { events: Array<{ text: string }> }).events.map((e) => e.text);
      expect(log.slice(log.lastIndexOf('Processing'))).toEqual(['Processing', 'Transaction signed']); // the app's spinner, then the status
      await touch.tap(at.center);
      expect((await touch.screen())[0]).toBe('Mina');
    });

    it(`${model}: "Reject transaction" asks first; "Go back to transaction" returns, "Yes, reject" answers 0x6985`, async () => {
      const touch = await start(model);
      const rejected = touch.apdu(exchange('sign_tx_1').request);
      await touch.waitFor('Review transaction');
      await touch.tap(at.next);
      const page = await touch.screen();
      await touch.tap(at.reject);
      expect(await touch.screen()).toEqual(['Reject transaction?', 'Yes, reject', 'Go back to transaction']);
      await touch.tap(at.reject); // "Go back to transaction"
      expect(await touch.screen()).toEqual(page);
      await touch.tap(at.reject);
      await touch.tap(at.confirm); // "Yes, reject"
      expect(await rejected).toBe('6985');
      expect(await touch.screen()).toEqual(['Transaction rejected']);
    });

    it(`${model}: an address is verified (nbgl_useCaseAddressReview: "Verify Mina address", the address and its path, Confirm)`, async () => {
      const touch = await start(model);
      const shown = touch.apdu(exchange('get_address_0_show').request);
      expect(await touch.waitFor('Verify Mina')).toEqual(['Verify Mina', 'address', 'Cancel']);
      await touch.tap(at.confirm); // the intro's "tap to continue"
      const page = await touch.screen();
      expect(page[0]).toBe('Address');
      expect(page.join('')).toContain(addressOf(0));
      expect(page).toEqual(expect.arrayContaining(['Path', "44'/12586'/0'/0/0", 'Confirm', 'Cancel']));
      await touch.tap(at.confirm);
      expect(await shown).toBe(exchange('get_address_0_show').reply);
      expect(await touch.screen()).toEqual(['Address verified']);
      const cancelled = touch.apdu(exchange('get_address_0_show').request);
      await touch.waitFor('Verify Mina');
      await touch.tap(at.reject); // Cancel
      expect(await cancelled).toBe('6985');
      expect(await touch.screen()).toEqual(['Address verification', 'cancelled']);
    });

    it(`${model}: the settings switch Blind signing, then show the app's version, developer and copyright`, async () => {
      const touch = await start(model);
      await touch.tap(at.settings);
      const settings = await touch.screen();
      expect(settings[0]).toBe('Blind signing');
      expect(settings.slice(1).join(' ')).toBe('Enable transaction blind signing');
      await touch.tap([200, 110]); // the switch's row
      expect(device.blindSigning).toBe(true);
      await touch.tap(at.next);
      expect(await touch.screen()).toEqual(['Version', '1.6.0', 'Developer', 'Zondax AG', 'Copyright', '(c) 2024 Ledger']);
      await touch.tap(at.exit);
      expect((await touch.screen())[0]).toBe('Mina');
      const png = pixelsOf(new Uint8Array((await touch.call('GET', '/screenshot')).body as ArrayBuffer));
      expect([png.width, png.height]).toEqual(model === 'stax' ? [400, 672] : [480, 600]);
    });
  }
});
