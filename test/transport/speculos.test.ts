/**
 * The unmodified `@ledgerhq/hw-transport-node-speculos-http` (opened through `openSpeculos`) against
 * `startSpeculosServer` over real loopback HTTP, with the software Ledger as the device: reviews are answered with
 * button presses and followed on the transport's `automationEvents`, as a test against the real Speculos would do.
 *
 * Every wait is bounded (`WAIT_MS`): a missing screen or a call that never settles fails the test instead of
 * hanging it.
 */
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_KEY_MESSAGE } from '../../src/apdu/store-key.js';
import { signatureToRawHex } from '../../src/apdu/signature.js';
import { MinaLedgerApp, toLedgerError, type LedgerDisconnectedError } from '../../src/apdu.js';
import { startSpeculosServer, type SpeculosServer } from '../../src/emulator.js';
import { openSpeculos } from '../../src/transport/node.js';
import { addressOf, exchange, txOf } from '../support/vectors.js';
import { quietLedger, within } from '../support/rig.js';
import { ScreenLog, WAIT_MS, screensOf, type SpeculosEvent } from '../support/speculos-screens.js';

const PATH_0 = "44'/12586'/0'/0/0";

type SpeculosTransport = Awaited<ReturnType<typeof openSpeculos>>;

/** Presses `right` until the screen titled `title` is shown (at most `max` presses), then `both`. */
async function pressRightUntilThenBoth(transport: SpeculosTransport, log: ScreenLog, title: string, max = 20): Promise<void> {
  for (let i = 0; i < max; i++) {
    await within(transport.speculos.button('right'), 'the right button', WAIT_MS);
    if ((await log.nextTitle()) === title) {
      await within(transport.speculos.button('both'), 'both buttons', WAIT_MS);
      return;
    }
  }
  throw new Error(`no screen ${JSON.stringify(title)} after ${max} presses; screens seen: ${JSON.stringify(log.texts)}`);
}

/** A value as shown, its pages joined ("Address (1/2)", "Address (2/2)" → the whole address). */
function valueShown(log: ScreenLog, title: string): string {
  const pages = screensOf(log.events).filter(([t]) => t === title || new RegExp(`^${title} \\(\\d+/\\d+\\)$`).test(t!));
  const unique = pages.filter((page, i) => pages.findIndex((p) => p[0] === page[0]) === i);
  return unique.map((page) => page.slice(1).join('')).join('');
}

async function eventTexts(server: SpeculosServer): Promise<string[]> {
  const response = await within(fetch(`${server.url}/events`), 'GET /events', WAIT_MS);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { events: SpeculosEvent[] };
  return body.events.map((e) => e.text);
}

const sign_tx_1 = exchange('sign_tx_1');
const sign_field = exchange('sign_field_devnet_blind_signing_disabled');

describe('Speculos HTTP transport against startSpeculosServer (software Ledger)', () => {
  let server: SpeculosServer | undefined;
  let transport: SpeculosTransport | undefined;
  let log: ScreenLog | undefined;

  afterEach(async () => {
    log?.close();
    await transport?.close();
    await server?.close();
    log = undefined;
    transport = undefined;
    server = undefined;
  });

  async function setup(options: { blindSigning?: boolean } = {}) {
    const device = quietLedger({ ...options });
    server = await startSpeculosServer(device, { port: 0 });
    transport = await within(openSpeculos({ apiPort: server.port }), 'openSpeculos', WAIT_MS);
    log = new ScreenLog(transport.speculos);
    return { device, server, transport, log, app: new MinaLedgerApp(transport) };
  }

  it('reads the app version 1.6.0', async () => {
    const { app } = await setup();
    const version = await within(app.getAppVersion(), 'getAppVersion', WAIT_MS);
    expect(version).toEqual({ version: '1.6.0', major: 1, minor: 6, patch: 0 });
  });

  it('reads the address of account 0 silently, with nothing on screen', async () => {
    const { app, device, log } = await setup();
    await expect(within(app.getAddress(0), 'getAddress(0)', WAIT_MS)).resolves.toBe(addressOf(0));
    // Silent: version read (for gating) then P1 = 1; no review screen.
    expect(device.exchanges.map((e) => e.request.slice(0, 8))).toEqual(['e0010000', 'e0020100']);
    expect(log.texts).toEqual([]);
  });

  it('shows an address review and resolves it when approved with the buttons; GET/DELETE /events', async () => {
    const { app, server, transport, log } = await setup();
    const pending = app.getAddress(0, { display: true });

    // Two stages, as on the device: "Get Address" and the path with Generate, then the address with Approve.
    await log.waitFor('Get');
    await pressRightUntilThenBoth(transport, log, 'Generate');
    await log.waitFor('Address (1/2)'); // the second stage is on screen
    await pressRightUntilThenBoth(transport, log, 'Approve');
    await expect(within(pending, 'the approved address', WAIT_MS)).resolves.toBe(addressOf(0));
    await log.waitFor('is ready');

    const titles = screensOf(log.events).map(([title]) => title);
    // "Processing..." between the stages, as the app draws it while it derives the address.
    expect(titles).toEqual(['Get', 'Path', 'Generate', 'Processing...', 'Address (1/2)', 'Address (2/2)', 'Approve', 'Mina']);
    expect(valueShown(log, 'Path')).toBe(PATH_0);
    expect(valueShown(log, 'Address')).toBe(addressOf(0));
    // After the decision the device is back on its idle screen.
    expect(server.currentScreen?.lines).toEqual(['Mina', 'is ready']);

    const listed = await eventTexts(server);
    expect(listed).toEqual(expect.arrayContaining(['Get', 'Address', 'Path', PATH_0, 'Generate', 'Address (1/2)', 'Approve']));

    const reset = await within(fetch(`${server.url}/events`, { method: 'DELETE' }), 'DELETE /events', WAIT_MS);
    expect(reset.status).toBe(200);
    expect(await eventTexts(server)).toEqual([]);
  });

  it('rejects with LedgerUserRejectedError (0x6985) when "Reject" is chosen', async () => {
    const { app, transport, log } = await setup();
    const pending = app.getAddress(0, { display: true });
    // Observe the outcome at once, so the rejection is never unhandled while the buttons are pressed.
    const outcome = pending.then(
      () => undefined,
      (error: unknown) => error,
    );

    await log.waitFor('Get');
    await pressRightUntilThenBoth(transport, log, 'Generate');
    await log.waitFor('Address (1/2)'); // the second stage is on screen
    await pressRightUntilThenBoth(transport, log, 'Reject');
    const error = await within(outcome, 'the rejected address', WAIT_MS);
    expect(error).toMatchObject({ name: 'LedgerUserRejectedError', statusCode: 0x6985 });
    expect(log.texts).toContain('Approve'); // passed over on the way to "Reject"
  });

  it('signs the sign_tx_1 payment approved with the buttons, giving the vector signature', async () => {
    const { app, transport, log, device } = await setup();
    const p = sign_tx_1.params;
    const pending = app.signTransaction(txOf(sign_tx_1));

    await log.waitFor('Transaction');
    await pressRightUntilThenBoth(transport, log, 'Approve');
    const signature = await within(pending, 'the payment signature', WAIT_MS);
    expect(signature).toEqual({ field: sign_tx_1.signature!.field, scalar: sign_tx_1.signature!.scalar });
    expect(log.texts).toEqual(expect.arrayContaining(['testnet', 'Payment', 'MINA 1729.0', 'MINA 2.0', 'Hello Mina!', 'Signing...']));
    expect([valueShown(log, 'Sender'), valueShown(log, 'Receiver')]).toEqual([p.from, p.to]);
    // The bytes that went over HTTP are the vector's, both ways.
    expect(device.exchanges).toEqual([{ request: sign_tx_1.request, reply: sign_tx_1.reply }]);
  });

  it('answers an unknown instruction with TransportStatusError 0x6D00, mapped to LedgerUnsupportedInstructionError', async () => {
    const { transport } = await setup();
    const error = await within(
      transport.send(0xe0, 0x07, 0, 0).then(
        () => undefined,
        (e: unknown) => e,
      ),
      'INS 07',
      WAIT_MS,
    );
    expect(error).toMatchObject({ name: 'TransportStatusError', statusCode: 0x6d00 });
    const mapped = toLedgerError(error, 0x07);
    expect(mapped).toMatchObject({ name: 'LedgerUnsupportedInstructionError', statusCode: 0x6d00, ins: 0x07 });
    expect((mapped as Error).cause).toBe(error);
    // The transport is still usable afterwards.
    await expect(within(new MinaLedgerApp(transport).getAppVersion(), 'getAppVersion', WAIT_MS)).resolves.toMatchObject({
      version: '1.6.0',
    });
  });

  it('shows "Blind signing not enabled" for a field element when blind signing is off, ending on a Reject to press', async () => {
    const { app, server, transport, log, device } = await setup();
    const p = sign_field.params;
    const outcome = app.signFieldElement(p.account, BigInt(p.field), p.networkId).then(
      () => undefined,
      (error: unknown) => error,
    );

    await log.waitFor('not enabled');
    // Both buttons on the notice do nothing; only its last screen, Reject, answers.
    await within(transport.speculos.button('both'), 'both buttons', WAIT_MS);
    expect(server.currentScreen?.lines).toEqual(['Blind signing', 'not enabled']);
    expect(device.exchanges.filter((e) => e.request.startsWith('e006'))).toEqual([]);
    await pressRightUntilThenBoth(transport, log, 'Reject');
    const error = await within(outcome, 'the dismissed notice', WAIT_MS);
    expect(error).toMatchObject({ name: 'LedgerUserRejectedError', statusCode: 0x6985, ins: 0x06 });
    expect((error as Error).message).toMatch(/Blind signing/);
  });

  it('reports a disconnect when the server goes away: pending and later calls fail with LedgerDisconnectedError', async () => {
    const { app, server, transport, log } = await setup();
    const innerDisconnect = new Promise<unknown>((resolve) => transport.inner.on!('disconnect', resolve));
    const queueDisconnect = new Promise<LedgerDisconnectedError>((resolve) => transport.on('disconnect', resolve));
    const outcome = app.getAddress(0, { display: true }).then(
      () => undefined,
      (error: unknown) => error,
    );

    await log.waitFor('Get'); // the call is now held by the device, waiting for buttons
    expect(transport.disconnected).toBe(false);
    await within(server.close(), 'server.close()', WAIT_MS);

    const fromTransport = await within(innerDisconnect, 'the transport "disconnect" event', WAIT_MS);
    expect(fromTransport).toMatchObject({ name: 'DisconnectedDevice' });
    const fromQueue = await within(queueDisconnect, 'the queue "disconnect" event', WAIT_MS);
    expect(fromQueue.name).toBe('LedgerDisconnectedError');
    expect(transport.disconnected).toBe(true);

    const pendingError = await within(outcome, 'the pending address review', WAIT_MS);
    expect(pendingError).toMatchObject({ name: 'LedgerDisconnectedError' });
    await expect(within(app.getAppVersion(), 'a call after the disconnect', WAIT_MS)).rejects.toMatchObject({
      name: 'LedgerDisconnectedError',
    });
  });

  it('the store-key reply is never published on @ledgerhq/logs (other replies are), and it is still exact', async () => {
    const device = quietLedger();
    server = await startSpeculosServer(device, { port: 0, buttons: false });
    transport = await within(openSpeculos({ apiPort: server.port }), 'openSpeculos', WAIT_MS);
    const app = new MinaLedgerApp(transport);
    // The CommonJS build of @ledgerhq/logs: the one the CommonJS Speculos transport publishes on.
    const { listen } = createRequire(import.meta.url)('@ledgerhq/logs') as typeof import('@ledgerhq/logs');
    const logged: string[] = [];
    const stop = listen((entry) => logged.push(`${entry.type} ${entry.message ?? ''}`));
    try {
      const normal = await within(app.signMessage(0, 'hello', 1), 'signMessage', WAIT_MS);
      expect(logged.some((line) => line.includes(signatureToRawHex(normal).slice(0, 64)))).toBe(true);
      const key = await within(app.signMessage(0, STORE_KEY_MESSAGE, 1), 'store-key signMessage', WAIT_MS);
      expect(key.signedMessage).toBe(`Message : ${STORE_KEY_MESSAGE}`);
      const expected = await new MinaLedgerApp(quietLedger()).signMessage(0, STORE_KEY_MESSAGE, 1);
      expect(signatureToRawHex(key)).toBe(signatureToRawHex(expected));
      for (const line of logged) expect(line).not.toContain(signatureToRawHex(key).slice(0, 64));
    } finally {
      stop();
    }
  });

  it('refuses to listen on a non-loopback host', async () => {
    const device = quietLedger();
    await expect(startSpeculosServer(device, { host: '0.0.0.0' })).rejects.toThrow(/non-loopback/);
  });

  it('serialises two concurrent calls from two clients on the same transport, in arrival order', async () => {
    const { transport, log, device } = await setup();
    const first = new MinaLedgerApp(transport);
    const second = new MinaLedgerApp(transport);
    expect(second.transport).toBe(first.transport);

    const settled: string[] = [];
    const a = first.getAddress(0, { display: true }).then((address) => (settled.push('first'), address));
    const b = second.getAddress(1, { display: true }).then((address) => (settled.push('second'), address));
    // Mark both as handled: if an assertion below fails first, the cleanup's disconnect must not surface as unhandled.
    a.catch(() => {});
    b.catch(() => {});

    await log.waitFor('Get');
    // Only the first review is on the device; the second call waits its turn in the queue, not on the device.
    expect(transport.pending).toBe(1);
    expect(device.exchanges).toEqual([]);
    await pressRightUntilThenBoth(transport, log, 'Generate');
    await log.waitFor('Address (1/2)'); // the second stage is on screen
    await pressRightUntilThenBoth(transport, log, 'Approve');
    await expect(within(a, 'the first address', WAIT_MS)).resolves.toBe(addressOf(0));
    expect(log.texts).toContain(PATH_0);
    expect(valueShown(log, 'Address')).toBe(addressOf(0));

    await log.waitFor('Get');
    expect(transport.pending).toBe(0);
    await pressRightUntilThenBoth(transport, log, 'Generate');
    await log.waitFor('Address (1/2)'); // the second stage is on screen
    await pressRightUntilThenBoth(transport, log, 'Approve');
    await expect(within(b, 'the second address', WAIT_MS)).resolves.toBe(addressOf(1));
    expect(log.texts).toContain("44'/12586'/1'/0/0");

    expect(settled).toEqual(['first', 'second']);
    expect(device.exchanges.map((e) => e.request)).toEqual([
      exchange('get_address_0_show').request,
      exchange('get_address_1_show').request,
    ]);
  });
});

/** One raw HTTP request to the server, with the headers a browser page (or a rebinding DNS name) would send. */
function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; text: string }> {
  return within(
    import('node:http').then(
      (http) =>
        new Promise<{ status: number; text: string }>((resolve, reject) => {
          const req = http.request({ host: '127.0.0.1', port, method, path, headers, setHost: false }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          });
          req.on('error', reject);
          req.end(body);
        }),
    ),
    `${method} ${path}`,
    WAIT_MS,
  );
}

describe('startSpeculosServer refuses web pages (CSRF, DNS rebinding): only a local tool may press its buttons', () => {
  let server: SpeculosServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** A server with an address review waiting for the buttons. */
  async function waitingReview() {
    const device = quietLedger();
    server = await startSpeculosServer(device, { port: 0 });
    const port = server.port;
    const host = `127.0.0.1:${port}`;
    const json = { 'content-type': 'application/json', host };
    const outcome = rawRequest(port, 'POST', '/apdu', json, JSON.stringify({ data: exchange('get_address_0_show').request }));
    outcome.catch(() => undefined); // a review left waiting is cut off when the server closes
    for (let i = 0; i < 100 && server.currentScreen?.lines[0] !== 'Get'; i++) await new Promise((r) => setTimeout(r, 10));
    expect(server.currentScreen?.lines).toEqual(['Get', 'Address']);
    return { device, port, host, json, outcome, server };
  }

  it('a request carrying an Origin header is refused (403) and presses nothing', async () => {
    const { port, host, server } = await waitingReview();
    const pressed = await rawRequest(
      port,
      'POST',
      '/button/right',
      { host, 'content-type': 'application/json', origin: 'https://evil.example' },
      '{"action":"press-and-release"}',
    );
    expect(pressed.status).toBe(403);
    expect(server.currentScreen?.lines).toEqual(['Get', 'Address']);
    const read = await rawRequest(port, 'GET', '/events', { host, origin: 'https://evil.example' });
    expect(read.status).toBe(403);
  });

  it('a Host header that is not a loopback name (DNS rebinding) is refused (403)', async () => {
    const { port, server } = await waitingReview();
    const pressed = await rawRequest(
      port,
      'POST',
      '/button/right',
      { host: `rebind.evil.example:${port}`, 'content-type': 'application/json' },
      '{}',
    );
    expect(pressed.status).toBe(403);
    expect(server.currentScreen?.lines).toEqual(['Get', 'Address']);
    const apdu = await rawRequest(
      port,
      'POST',
      '/apdu',
      { host: `rebind.evil.example:${port}`, 'content-type': 'application/json' },
      JSON.stringify({ data: 'e001000000' }),
    );
    expect(apdu.status).toBe(403);
  });

  it('a form or text/plain POST from a page carries an Origin header and is refused (403), JSON body or not', async () => {
    const { device, port, host, server } = await waitingReview();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const headers = { host, 'content-type': type, origin: 'https://evil.example' };
      for (const body of ['{"action":"press-and-release"}', 'action=press-and-release']) {
        expect((await rawRequest(port, 'POST', '/button/both', headers, body)).status).toBe(403);
      }
      expect((await rawRequest(port, 'POST', '/apdu', headers, JSON.stringify({ data: 'e001000000' }))).status).toBe(403);
    }
    // A sandboxed frame or a file:// page sends `Origin: null`: refused too.
    const nullOrigin = { host, 'content-type': 'application/x-www-form-urlencoded', origin: 'null' };
    expect((await rawRequest(port, 'POST', '/button/both', nullOrigin, '{"action":"press-and-release"}')).status).toBe(403);
    expect(server.currentScreen?.lines).toEqual(['Get', 'Address']);
    expect(device.exchanges).toEqual([]);
  });

  it('a local tool written for the real Speculos works unchanged: `curl -d` (a form Content-Type, a JSON body)', async () => {
    const { port, host, outcome, server } = await waitingReview();
    // What `curl -d '{"action":"press-and-release"}' http://127.0.0.1:5000/button/right` sends.
    const curl = { host, 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'curl/8.5.0', accept: '*/*' };
    for (const button of ['right', 'right', 'both']) {
      expect((await rawRequest(port, 'POST', `/button/${button}`, curl, '{"action":"press-and-release"}')).status).toBe(200);
    }
    expect(server.currentScreen?.title).toBe('Address (1/2)');
    const { 'content-type': _, ...noType } = curl; // and with no Content-Type at all
    for (const headers of [curl, curl, noType]) {
      const button = headers === noType ? 'both' : 'right';
      expect((await rawRequest(port, 'POST', `/button/${button}`, headers, '{"action":"press-and-release"}')).status).toBe(200);
    }
    const reply = await outcome;
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text)).toEqual({ data: exchange('get_address_0_show').reply });
    // And /apdu, as `curl -d '{"data":"e001000000"}' http://127.0.0.1:5000/apdu` sends it.
    const version = await rawRequest(port, 'POST', '/apdu', curl, JSON.stringify({ data: 'e001000000' }));
    expect(version.status).toBe(200);
    expect(JSON.parse(version.text)).toEqual({ data: exchange('get_version').reply });
  });

  it("a body that is not JSON, or JSON not of the route's schema, is refused (400, as Speculos) and presses nothing", async () => {
    const { device, port, host, server } = await waitingReview();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/json']) {
      for (const body of ['action=press-and-release', '', '{"action":', '{}', '{"action":"jump"}', '{"action":"press","extra":1}']) {
        expect((await rawRequest(port, 'POST', '/button/both', { host, 'content-type': type }, body)).status).toBe(400);
      }
    }
    for (const body of ['data=e001000000', '{"data":""}', '{"data":"e00"}', '{"data":"zz"}', '{}', '{"data":"e001000000","x":1}']) {
      expect((await rawRequest(port, 'POST', '/apdu', { host, 'content-type': 'text/plain' }, body)).status).toBe(400);
    }
    expect(server.currentScreen?.lines).toEqual(['Get', 'Address']);
    expect(device.exchanges).toEqual([]);
  });

  it('GET /screenshot answers the screen as a 128 × 64 PNG, not cached', async () => {
    const { host } = await waitingReview();
    const response = await within(fetch(`http://${host}/screenshot`), 'GET /screenshot', WAIT_MS);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('cache-control')).toBe('no-cache,no-store');
    const png = new Uint8Array(await response.arrayBuffer());
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const header = new DataView(png.buffer, 16, 8); // IHDR: width, height
    expect([header.getUint32(0), header.getUint32(4)]).toEqual([128, 64]);
  });

  it('the same requests from a local tool (loopback Host, JSON, no Origin) are served', async () => {
    const { port, host, json, outcome, server } = await waitingReview();
    for (const h of [host, `localhost:${port}`]) expect((await rawRequest(port, 'GET', '/events', { host: h })).status).toBe(200);
    for (const button of ['right', 'right', 'both'])
      expect((await rawRequest(port, 'POST', `/button/${button}`, json, '{"action":"press-and-release"}')).status).toBe(200);
    expect(server.currentScreen?.title).toBe('Address (1/2)');
    for (const button of ['right', 'right', 'both'])
      await rawRequest(
        port,
        'POST',
        `/button/${button}`,
        { ...json, 'content-type': 'application/json; charset=utf-8' },
        '{"action":"press-and-release"}',
      );
    const reply = await outcome;
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text)).toEqual({ data: exchange('get_address_0_show').reply });
  });
});
