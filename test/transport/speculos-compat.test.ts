/**
 * `startSpeculosServer` as tools written for the real Speculos see it (LedgerHQ/speculos speculos/api/*.py,
 * api/swagger.yaml, docs/user/automation.md): a walker that knows only Speculos's documented REST API (fetch, no
 * code of this project) uses the app's menu to turn Blind signing on; buttons count as Speculos counts them; the
 * event log, the current screen, the pieces of a row, automation rules, the ticker and the statuses are Speculos's.
 *
 * Every wait is bounded: a missing screen fails the test instead of hanging it.
 */
import Client from 'mina-signer';
import { afterEach, describe, expect, it } from 'vitest';
import { fromHex } from '../../src/apdu/bytes.js';
import { signatureFromRawHex, signatureToBase58 } from '../../src/apdu/signature.js';
import { MinaLedgerApp } from '../../src/apdu.js';
import { startSpeculosServer, type Approver, type SoftwareLedger, type SpeculosServer } from '../../src/emulator.js';
import { openSpeculos } from '../../src/transport/node.js';
import { addressOf, exchange, txOf } from '../support/vectors.js';
import { quietLedger, within } from '../support/rig.js';
import { WAIT_MS } from '../support/speculos-screens.js';

type Event = { text: string; x: number; y: number; w: number; h: number; clear: boolean };

/**
 * A client of the real Speculos's REST API, as its documentation describes it: POST /apdu, GET /events (with
 * `currentscreenonly`), DELETE /events, POST /button/{left,right,both} with `{"action": "press-and-release"}`.
 */
function speculosClient(base: string) {
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await within(
      fetch(`${base}${path}`, {
        method,
        ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      }),
      `${method} ${path}`,
      WAIT_MS,
    );
    return {
      status: response.status,
      body: response.headers.get('content-type')?.includes('json') ? await response.json() : await response.arrayBuffer(),
    };
  };
  const screen = async (): Promise<string[]> =>
    ((await call('GET', '/events?currentscreenonly=true')).body as { events: Event[] }).events.map((e) => e.text);
  return {
    call,
    screen,
    press: async (button: 'left' | 'right' | 'both') =>
      expect((await call('POST', `/button/${button}`, { action: 'press-and-release' })).status).toBe(200),
    /** Sends an APDU; the reply arrives once the device has answered (after the review, if any). */
    apdu: (hex: string) => call('POST', '/apdu', { data: hex }).then((r) => (r.body as { data: string }).data),
    /** Waits until the current screen's first text is `title`. */
    async waitFor(title: string): Promise<string[]> {
      const deadline = Date.now() + WAIT_MS;
      for (;;) {
        const shown = await screen();
        if (shown[0] === title) return shown;
        if (Date.now() > deadline) throw new Error(`no screen ${JSON.stringify(title)}; on screen: ${JSON.stringify(shown)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    /** Presses right until the current screen's first text is `title` (at most `max` presses). */
    async rightUntil(title: string, max = 30): Promise<string[]> {
      for (let i = 0; i < max; i++) {
        const shown = await screen();
        if (shown[0] === title) return shown;
        await this.press('right');
      }
      throw new Error(`no screen ${JSON.stringify(title)} after ${max} presses`);
    },
  };
}

const signField = exchange('sign_field_devnet_blind_signing_disabled');
const testnet = new Client({ network: 'testnet' });

describe('startSpeculosServer as a tool written for the real Speculos sees it', () => {
  let server: SpeculosServer | undefined;
  let device: SoftwareLedger;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function start(options: { buttons?: boolean; approve?: Approver } = {}) {
    device = quietLedger(options.approve ? { approve: options.approve } : {});
    server = await startSpeculosServer(device, { port: 0, ...(options.buttons === undefined ? {} : { buttons: options.buttons }) });
    return speculosClient(server.url);
  }

  it('a plain HTTP walker turns Blind signing on through the app menu with the buttons; a blind INS 06 signature then works (and is refused before)', async () => {
    const speculos = await start();
    expect(await speculos.screen()).toEqual(['Mina', 'is ready']);

    // Blind signing off (the released app's default): the notice, then a Reject to press; 0x6985.
    const refused = speculos.apdu(signField.request);
    await speculos.waitFor('Blind signing');
    await speculos.rightUntil('Reject');
    await speculos.press('both');
    expect(await refused).toBe('6985');
    expect(await speculos.waitFor('Mina')).toEqual(['Mina', 'is ready']);

    // The app's menu: right walks Version, Developer, Copyright, Blind signing, Quit; both toggles the setting.
    expect(await speculos.rightUntil('Version')).toEqual(['Version', '1.6.0']);
    expect(await speculos.rightUntil('Blind signing')).toEqual(['Blind signing', 'Disabled']);
    await speculos.press('both');
    expect(await speculos.screen()).toEqual(['Mina', 'is ready']); // the app goes back to its first step
    expect(device.blindSigning).toBe(true);
    expect(await speculos.rightUntil('Blind signing')).toEqual(['Blind signing', 'Enabled']);

    // Now the same request is reviewed blind and signed.
    const signed = speculos.apdu(signField.request);
    await speculos.waitFor('Blind');
    await speculos.rightUntil('ACCEPT RISK');
    await speculos.press('both');
    const reply = await signed;
    expect(reply.endsWith('9000')).toBe(true);
    const signature = signatureToBase58(signatureFromRawHex(reply.slice(0, 128)));
    const data = [BigInt(signField.params.field)];
    expect(testnet.verifyFields({ data, publicKey: addressOf(signField.params.account), signature })).toBe(true);
  });

  it('a button acts when released: press then release is one click; left and right held then released are both; a release alone does nothing', async () => {
    const speculos = await start();
    await speculos.call('POST', '/button/right', { action: 'press' });
    expect(await speculos.screen()).toEqual(['Mina', 'is ready']); // pressing shows nothing yet
    await speculos.call('POST', '/button/right', { action: 'release' });
    expect(await speculos.screen()).toEqual(['Version', '1.6.0']); // one step, not two
    await speculos.call('POST', '/button/left', { action: 'release' }); // never pressed
    expect(await speculos.screen()).toEqual(['Version', '1.6.0']);
    await speculos.rightUntil('Blind signing');
    await speculos.call('POST', '/button/left', { action: 'press' });
    await speculos.call('POST', '/button/right', { action: 'press' });
    await speculos.call('POST', '/button/left', { action: 'release' });
    expect(device.blindSigning).toBe(false); // a button is still held
    await speculos.call('POST', '/button/right', { action: 'release' });
    expect(device.blindSigning).toBe(true); // one "both"
    // The menu loops: left on its first step shows Quit.
    await speculos.press('left');
    expect(await speculos.screen()).toEqual(['Quit']);
  });

  it('DELETE /events clears the log, and currentscreenonly still returns the screen shown', async () => {
    const speculos = await start();
    expect((await speculos.call('DELETE', '/events')).body).toEqual({});
    expect(((await speculos.call('GET', '/events')).body as { events: Event[] }).events).toEqual([]);
    const current = ((await speculos.call('GET', '/events?currentscreenonly=true')).body as { events: Event[] }).events;
    expect(current.map((e) => e.text)).toEqual(['Mina', 'is ready']);
    expect(current[0]!.y).toBeLessThan(current[1]!.y); // two rows, top to bottom
  });

  it('never reports clear: true, as the real Speculos (its broadcast resets the screen and reports nothing)', async () => {
    const speculos = await start();
    const reply = speculos.apdu(exchange('get_address_0_show').request);
    await speculos.waitFor('Get');
    await speculos.rightUntil('Generate');
    await speculos.press('both');
    await speculos.rightUntil('Reject');
    await speculos.press('both');
    expect(await reply).toBe('6985');
    const events = ((await speculos.call('GET', '/events')).body as { events: Event[] }).events;
    expect(events.map((e) => e.text)).toContain('Address (1/2)');
    expect(events.filter((e) => e.clear !== false)).toEqual([]);
  });

  it('an _ in a value is reported as a piece of its own on the same row, as Speculos reads it', async () => {
    await start({ buttons: false });
    const transport = await within(openSpeculos({ apiPort: server!.port }), 'openSpeculos', WAIT_MS);
    try {
      const base = txOf(exchange('sign_tx_1'));
      await within(new MinaLedgerApp(transport).signTransaction({ ...base, memo: 'ab_cd' }), 'the payment', WAIT_MS);
    } finally {
      await transport.close();
    }
    const events = ((await speculosClient(server!.url).call('GET', '/events')).body as { events: Event[] }).events;
    const memo = events.slice(events.findIndex((e) => e.text === 'Memo') + 1);
    expect(memo.slice(0, 2).map((e) => e.text)).toEqual(['ab', '_cd']);
    expect(memo[1]!.y).toBe(memo[0]!.y); // the same row
    expect(memo[1]!.x).toBeGreaterThan(memo[0]!.x + memo[0]!.w - 1);
  });

  it('draws "Processing..." between the address stages; an approver that cancels at the first stage draws no second stage', async () => {
    let answer: 'cancel' | boolean = 'cancel';
    const cancelled = await start({ buttons: false, approve: () => answer });
    expect(await cancelled.apdu(exchange('get_address_0_show').request)).toBe('6985');
    const texts = ((await cancelled.call('GET', '/events')).body as { events: Event[] }).events.map((e) => e.text);
    expect(texts).toContain('Cancel');
    expect(texts).not.toContain('Processing...');
    expect(texts).not.toContain('Address (1/2)');

    answer = true;
    await cancelled.call('DELETE', '/events');
    expect((await cancelled.apdu(exchange('get_address_0_show').request)).endsWith('9000')).toBe(true);
    const all = ((await cancelled.call('GET', '/events')).body as { events: Event[] }).events.map((e) => e.text);
    expect(all.indexOf('Processing...')).toBeGreaterThan(all.indexOf('Cancel'));
    expect(all.indexOf('Processing...')).toBeLessThan(all.indexOf('Address (1/2)'));
  });

  it('/automation: rules written as for real Speculos approve an address review; conditions and setbool', async () => {
    const speculos = await start();
    const right = [
      ['button', 2, true],
      ['button', 2, false],
    ];
    const both = [
      ['button', 1, true],
      ['button', 2, true],
      ['button', 1, false],
      ['button', 2, false],
    ];
    const rules = {
      version: 1,
      rules: [
        { text: 'Get', actions: right },
        { text: 'Path', actions: right },
        { regexp: 'Address \\(', actions: right },
        { text: 'Generate', actions: both },
        { text: 'Approve', conditions: [['approved', false]], actions: [['setbool', 'approved', true], ...both] },
      ],
    };
    expect((await speculos.call('POST', '/automation', rules)).status).toBe(200);
    expect(await within(speculos.apdu(exchange('get_address_0_show').request), 'the automated review', WAIT_MS)).toBe(
      exchange('get_address_0_show').reply,
    );
    // The condition held once: a second review stops on Approve, waiting for a person.
    const second = speculos.apdu(exchange('get_address_0_show').request);
    await speculos.waitFor('Approve');
    await speculos.press('both');
    expect(await second).toBe(exchange('get_address_0_show').reply);
  });

  it('/ticker pause does not hold the app: it goes from Generate to the address by itself, as on the real Speculos', async () => {
    const speculos = await start();
    expect((await speculos.call('POST', '/ticker', { action: 'pause' })).status).toBe(200);
    const reply = speculos.apdu(exchange('get_address_0_show').request);
    await speculos.waitFor('Get');
    await speculos.rightUntil('Generate');
    await speculos.press('both');
    expect(await speculos.waitFor('Address (1/2)')).toContain('B62qnzbXmRNo9q32'); // no tick given
    await speculos.rightUntil('Approve');
    await speculos.press('both');
    expect(await reply).toBe(exchange('get_address_0_show').reply);
    for (const action of ['single-step', 'resume']) expect((await speculos.call('POST', '/ticker/', { action })).status).toBe(200);
  });

  it('answers as Speculos: /finger 200 {}, an unknown button 405, a bad automation document 400, an APDU without bytes 400', async () => {
    const speculos = await start();
    expect(await speculos.call('POST', '/finger', { action: 'press-and-release', x: 10, y: 25 })).toEqual({ status: 200, body: {} });
    expect((await speculos.call('POST', '/finger', { action: 'press' })).status).toBe(400);
    expect((await speculos.call('POST', '/button/up', { action: 'press-and-release' })).status).toBe(405);
    expect(await speculos.call('POST', '/automation', { version: 2, rules: [] })).toEqual({ status: 400, body: 'invalid document' });
    expect(await speculos.call('POST', '/automation', { version: 1, rules: [{ txt: 'typo' }] })).toEqual({
      status: 400,
      body: 'invalid document',
    });
    expect((await speculos.call('POST', '/ticker', { action: 'stop' })).status).toBe(400);
    expect((await speculos.call('POST', '/apdu', { data: '' })).status).toBe(400);
    expect(await speculos.screen()).toEqual(['Mina', 'is ready']);
    expect(device.exchanges).toEqual([]);
    expect(fromHex(exchange('get_version').reply)).toEqual(fromHex(await speculos.apdu('e001000000')));
  });
});
