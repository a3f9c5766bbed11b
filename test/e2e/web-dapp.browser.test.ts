/**
 * The web dapp (examples/web-dapp), BUILT with Vite, end to end in real Chromium (Debian's `chromium`, driven
 * headless by playwright-core), served from 127.0.0.1 with the COOP/COEP headers o1js needs:
 *
 * - demo mode: the software Ledger inside the page (labelled NOT HARDWARE), approved with the page's own buttons;
 * - WebHID: the page's real `@ledgerhq/hw-transport-webhid` talks the Ledger HID framing to test/support/hid-shim.ts
 *   (injected before the page's scripts), whose device is bridged to a software Ledger here in Node; the reviews are
 *   answered from the test, so the page's "Confirm on your Ledger…" state can be observed;
 * - sendTransaction with onlySign (signatures verified here with both eras' mina-signer), createNullifier (verified
 *   here with o1js `Nullifier.verify`), a rejection on the device (1002), an origin mismatch (23001), a remembered
 *   device reopened after a reload without the chooser, and one credential stored and presented in the browser.
 *
 * Screenshots of the key states go to test-results/screenshots/. The build also writes
 * examples/web-dapp/bundle-sizes.json and fails if o1js or mina-attestations reach the initial bundle.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import ClientMesa from 'mina-signer';
import ClientBerkeley from 'mina-signer-berkeley';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { SoftwareLedger, TEST_MNEMONIC, type Review } from '../../src/emulator/index.js';
import type { BundleSizes } from '../../examples/web-dapp/build.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const EXAMPLE = join(REPO, 'examples/web-dapp');
const DIST = join(EXAMPLE, 'dist');
const SCREENSHOTS = join(REPO, 'test-results/screenshots');
/** Account 0 of the test mnemonic (the sender of test/fixtures/zkapp-command-berkeley.json). */
const ACCOUNT_0 = 'B62qnzbXmRNo9q32n4SNu2mpB8e7FYYLH8NmaX6oFCBYjjQ8SbD7uzV';

/** As test/credentials/indexeddb.browser.test.ts: Debian's chromium, or CHROMIUM_BIN. */
function findChromium(): string {
  const candidates = process.env.CHROMIUM_BIN ? [process.env.CHROMIUM_BIN] : ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
  const found = candidates.find((p) => existsSync(p));
  if (found === undefined) {
    throw new Error(
      'Chromium is not installed, and this test needs a real browser: run `apt-get update && apt-get install -y chromium` ' +
        `(Debian), or set CHROMIUM_BIN to a Chromium/Chrome binary. Looked for: ${candidates.join(', ')}`,
    );
  }
  return found;
}

/** The flags that work for Debian's chromium as root in a container. */
const CHROMIUM_FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-extensions', '--no-first-run'];

function run(command: string, args: string[], timeoutMs: number): Promise<string> {
  const child = spawn(command, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`${command} did not finish within ${timeoutMs} ms`))), timeoutMs);
    child.on('error', (e) => (clearTimeout(timer), reject(e)));
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${out.slice(-4000)}`));
    });
  });
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
};

/** Serves the built example with the headers that make the page cross-origin isolated (o1js: SharedArrayBuffer). */
async function serve(): Promise<{ server: Server; origin: string }> {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://127.0.0.1').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(DIST, path.endsWith('/') ? `${path}index.html` : path);
    try {
      if (!file.startsWith(DIST)) throw new Error('outside');
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'cross-origin-opener-policy': 'same-origin',
        'cross-origin-embedder-policy': 'require-corp',
        'cache-control': 'no-store',
      });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

interface Env {
  browser: Browser;
  origin: string;
  sizes: BundleSizes;
  hidBridge: string;
  buildMillis: number;
}

let pending: Promise<Env> | undefined;
let server: Server | undefined;
let browser: Browser | undefined;
const contexts: BrowserContext[] = [];

/** Built, served and launched once, by the first test (not a beforeAll: a missing Chromium must fail, not skip). */
function env(): Promise<Env> {
  return (pending ??= (async () => {
    const executablePath = findChromium();
    const started = Date.now();
    const [, hidBridge] = await Promise.all([
      run(join(REPO, 'node_modules/.bin/tsx'), ['examples/web-dapp/build.ts'], 240_000),
      run(join(REPO, 'node_modules/.bin/esbuild'), ['test/e2e/hid-bridge.ts', '--bundle', '--format=iife', '--platform=browser', '--target=es2022', '--log-level=error'], 60_000),
    ]);
    const buildMillis = Date.now() - started;
    const sizes = JSON.parse(await readFile(join(EXAMPLE, 'bundle-sizes.json'), 'utf8')) as BundleSizes;
    const served = await serve();
    server = served.server;
    browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_FLAGS });
    await mkdir(SCREENSHOTS, { recursive: true });
    return { browser, origin: served.origin, sizes, hidBridge, buildMillis };
  })());
}

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => {});
  await browser?.close();
  if (server) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server!.close(() => resolve()));
  }
});

async function newPage(): Promise<{ page: Page; errors: string[]; requests: string[] }> {
  const { browser } = await env();
  const context = await browser.newContext();
  contexts.push(context);
  const page = await context.newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('pageerror', (e) => {
    errors.push(e.message);
    console.log(`page error: ${e.stack ?? e.message}`);
  });
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  return { page, errors, requests };
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

/** Waits for a method's result box to settle; returns its state, error code and parsed JSON. */
async function result(page: Page, id: string, timeout = 60_000): Promise<{ state: string; code?: number; json: any; text: string }> {
  // One round trip once the box has settled (the page may be busy with o1js's workers right after a proof).
  const handle = await page.waitForFunction(
    (id) => {
      const box = document.getElementById(id);
      const state = box?.dataset.state;
      return state === 'ok' || state === 'error' ? { state, code: box!.dataset.code, text: box!.textContent ?? '' } : false;
    },
    id,
    { timeout, polling: 250 },
  );
  const { state, code, text } = (await handle.jsonValue()) as { state: string; code?: string; text: string };
  let json: unknown;
  try {
    json = JSON.parse(text.slice(text.indexOf('\n\n') + 2));
  } catch {
    json = undefined;
  }
  return { state, code: code === undefined ? undefined : Number(code), json, text };
}

function expectOk(r: { state: string; text: string }): void {
  if (r.state !== 'ok') throw new Error(`the page shows an error:\n${r.text}`);
}

const verifiers = {
  berkeley: new ClientBerkeley({ network: 'devnet' }),
  mesa: new ClientMesa({ network: 'devnet' }),
};

function verifySignedData(era: 'berkeley' | 'mesa', signedData: string, publicKey: string): boolean {
  const data = JSON.parse(signedData);
  return verifiers[era].verifyZkappCommand({ data, publicKey, signature: data.zkappCommand.feePayer.authorization });
}

async function verifyNullifier(json: unknown, message: string[]): Promise<string> {
  const { Field, Nullifier } = await import('o1js');
  const { data, ...nullifier } = json as { data: unknown };
  expect(data).toEqual(message);
  const n = Nullifier.fromJSON(nullifier as never);
  n.verify(message.map((m) => Field(m))); // throws if it does not verify
  return n.key().toString();
}

/** A software Ledger in Node behind the page's navigator.hid; each review waits for the test to answer it. */
function nodeLedger() {
  const waiting: { review: Review; answer(ok: boolean): void }[] = [];
  const wakeups: (() => void)[] = [];
  const ledger = SoftwareLedger.fromMnemonic(TEST_MNEMONIC, {
    blindSigning: true,
    warn: () => {}, // the test knows: this is the software Ledger
    approve: (review) =>
      new Promise<boolean>((answer) => {
        waiting.push({ review, answer });
        wakeups.splice(0).forEach((wake) => wake());
      }),
  });
  /** The next review the device shows; fails early if `failed()` finds the page reporting an error instead. */
  async function nextReview(timeoutMs = 30_000, failed?: () => Promise<string | undefined>): Promise<{ review: Review; answer(ok: boolean): void }> {
    const deadline = Date.now() + timeoutMs;
    while (waiting.length === 0) {
      if (Date.now() > deadline) throw new Error('the page did not ask the device for a review');
      const error = await failed?.();
      if (error !== undefined) throw new Error(`the page reports an error instead of asking the device:\n${error}`);
      await new Promise<void>((wake) => {
        wakeups.push(wake);
        setTimeout(wake, 250);
      });
    }
    return waiting.shift()!;
  }
  return { ledger, nextReview };
}

async function hidPage(ledger: SoftwareLedger) {
  const { hidBridge } = await env();
  const opened = await newPage();
  const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex');
  await opened.page.exposeFunction('__hidExchange', async (hex: string) => toHex(await ledger.exchange(Uint8Array.from(Buffer.from(hex, 'hex')))));
  await opened.page.addInitScript({ content: hidBridge });
  return opened;
}

/** The text of a result box showing an error, if it does. */
const pageError = (page: Page, id: string) => async () =>
  page.evaluate((id) => {
    const box = document.getElementById(id);
    return box?.dataset.state === 'error' ? (box.textContent ?? '') : undefined;
  }, id);

/** Clicks the page's Approve on the in-page (demo) software Ledger once it shows a review of `kind`. */
async function approveInPage(page: Page, expectText: RegExp): Promise<void> {
  await page.waitForSelector('#device-approve:not([disabled])', { timeout: 30_000 });
  await expect.poll(() => page.locator('#demo-screens').textContent()).toMatch(expectText);
  await page.click('#device-approve');
}

describe('web dapp (examples/web-dapp) in Chromium', () => {
  it('builds with o1js and mina-attestations only in lazy chunks, and reports the sizes', async () => {
    const { sizes, buildMillis } = await env();
    const initialPackages = new Set(sizes.initial.files.flatMap((f) => f.packages));
    expect(initialPackages.has('chain-ledger')).toBe(true);
    expect(initialPackages.has('o1js')).toBe(false);
    expect(initialPackages.has('mina-attestations')).toBe(false);
    expect(sizes.o1js.length).toBeGreaterThan(0);
    expect(sizes.minaAttestations.length).toBeGreaterThan(0);
    // Both eras' mina-signer internals are bundled (as lazy chunks), and the WebHID transport too.
    const lazyPackages = new Set(sizes.lazy.files.flatMap((f) => f.packages));
    for (const p of ['mina-signer', 'mina-signer-berkeley', '@ledgerhq/hw-transport-webhid']) expect(lazyPackages.has(p)).toBe(true);
    const kB = (n: number) => `${(n / 1024).toFixed(0)} kB`;
    console.log(
      `web-dapp: built in ${buildMillis} ms; initial ${kB(sizes.initial.bytes)} (gzip ${kB(sizes.initial.gzipBytes)}), ` +
        `lazy ${kB(sizes.lazy.bytes)} (gzip ${kB(sizes.lazy.gzipBytes)}), o1js chunk ${kB(sizes.o1js[0]!.bytes)}`,
    );
  }, 300_000);

  it('demo mode: the software Ledger in the page, labelled NOT HARDWARE; sendTransaction onlySign and createNullifier', async () => {
    const { origin, sizes } = await env();
    const { page, errors, requests } = await newPage();
    await page.goto(`${origin}/`);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.locator('#demo-banner').isHidden()).toBe(true);
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
    await page.click('#demo');
    await expect.poll(() => page.locator('#demo-banner').isVisible()).toBe(true);
    expect(await page.locator('#demo-banner').textContent()).toMatch(/NOT HARDWARE/);
    await approveInPage(page, /Address/i);
    await page.waitForSelector('#connection[data-state="connected"]');
    expect(await page.locator('#connection').getAttribute('data-address')).toBe(ACCOUNT_0);
    expect(await page.locator('#connection').getAttribute('data-kind')).toBe('software');
    await shot(page, 'demo-connected');

    await page.click('#sample-berkeley');
    await page.click('#send');
    await expect.poll(() => page.locator('#status').textContent()).toMatch(/^Confirm on your Ledger… Blind-sign the zkApp commitment/);
    await shot(page, 'demo-confirm-on-device');
    await approveInPage(page, /fullCommitment/i);
    const sent = await result(page, 'result-send');
    expectOk(sent);
    expect(verifySignedData('berkeley', sent.json.signedData, ACCOUNT_0)).toBe(true);
    expect(await page.locator('#status').isHidden()).toBe(true);

    // o1js is a lazy chunk: not loaded before the first method that needs it.
    const o1jsChunk = `/${sizes.o1js[0]!.file}`;
    expect(requests).not.toContain(o1jsChunk);
    await page.click('#nullifier');
    await approveInPage(page, /nullifier/i);
    const nullifier = await result(page, 'result-nullifier', 120_000);
    expectOk(nullifier);
    expect(requests).toContain(o1jsChunk);
    await verifyNullifier(nullifier.json, ['2026', '11', '22']);
    await shot(page, 'demo-results');
    expect(errors).toEqual([]);
  }, 240_000);

  let hid: { page: Page; errors: string[]; device: ReturnType<typeof nodeLedger> } | undefined;

  it('WebHID through the real @ledgerhq/hw-transport-webhid: connect, sendTransaction onlySign, createNullifier', async () => {
    const { origin } = await env();
    const device = nodeLedger();
    const { page, errors } = await hidPage(device.ledger);
    hid = { page, errors, device };
    await page.goto(`${origin}/`);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.locator('#demo-banner').isHidden()).toBe(true);
    await page.click('#connect');
    const address = await device.nextReview();
    expect(address.review.kind).toBe('address');
    await expect.poll(() => page.locator('#status').textContent()).toBe('Confirm on your Ledger… Confirm the address on your Ledger');
    await shot(page, 'webhid-confirm-address');
    address.answer(true);
    await page.waitForSelector('#connection[data-state="connected"]');
    expect(await page.locator('#connection').getAttribute('data-address')).toBe(ACCOUNT_0);
    expect(await page.locator('#connection').getAttribute('data-kind')).toBe('ledger');
    const wire = await page.evaluate(() => ({ frames: window.__hidShim!.frames, calls: window.__hidShim!.calls, errors: window.__hidShim!.protocolErrors.length }));
    expect(wire.calls.requestDevice).toBe(1);
    expect(wire.frames.out).toBeGreaterThan(0);
    expect(wire.frames.in).toBeGreaterThan(0);
    expect(wire.errors).toBe(0);
    expect(device.ledger.exchanges.length).toBeGreaterThan(0);

    // A Mesa-era command this time (32 app-state fields), signed only.
    await page.click('#sample-mesa');
    await page.fill('#memo', 'from the browser');
    await page.click('#send');
    const blind = await device.nextReview();
    expect(blind.review.kind).toBe('field-element');
    await shot(page, 'webhid-confirm-transaction');
    blind.answer(true);
    const sent = await result(page, 'result-send');
    expectOk(sent);
    expect(verifySignedData('mesa', sent.json.signedData, ACCOUNT_0)).toBe(true);
    expect(JSON.parse(sent.json.signedData).feePayer.memo).toBe('from the browser');

    await page.fill('#nullifier-message', '7, 8, 9');
    await page.click('#nullifier');
    const review = await device.nextReview();
    expect(review.review.kind).toBe('nullifier');
    review.answer(true);
    const nullifier = await result(page, 'result-nullifier', 120_000);
    expectOk(nullifier);
    await verifyNullifier(nullifier.json, ['7', '8', '9']);
    await shot(page, 'webhid-results');
    expect(errors).toEqual([]);
  }, 240_000);

  it('a rejection on the device is shown as ProviderError 1002', async () => {
    const { page, device } = hid!;
    await page.click('#nullifier');
    const review = await device.nextReview();
    review.answer(false);
    const rejected = await result(page, 'result-nullifier');
    expect(rejected.state).toBe('error');
    expect(rejected.code).toBe(1002);
    expect(rejected.text.split('\n').slice(0, 2)).toEqual(['Error 1002: User rejected the request.', 'Why: rejected on the Ledger']);
    expect(rejected.json).toEqual({ code: 1002, message: 'User rejected the request.', data: { reason: 'rejected on the Ledger', statusWord: '0x6985' } });
    expect(await page.locator('#status').isHidden()).toBe(true);
    await shot(page, 'webhid-rejected');
  }, 60_000);

  it('a call from another origin is refused with 23001 and never reaches the device', async () => {
    const { origin } = await env();
    const { page, device } = hid!;
    const before = device.ledger.exchanges.length;
    const error = await page.evaluate(() =>
      window.chain!.request({ method: 'chain_createNullifier', params: [{ message: ['1'] }] }, { origin: 'https://evil.example' }).then(
        () => 'resolved',
        (e: { name: string; code: number; message: string; data: unknown }) => ({ name: e.name, code: e.code, message: e.message, data: e.data }),
      ),
    );
    expect(error).toEqual({
      name: 'ProviderError',
      code: 23001,
      message: 'Origin dismatch.',
      data: { reason: `request from https://evil.example, but this provider serves ${origin}` },
    });
    expect(device.ledger.exchanges.length).toBe(before);
  }, 30_000);

  it('after a reload, the remembered Ledger is reopened without the chooser', async () => {
    const { page, device, errors } = hid!;
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    await expect.poll(() => page.locator('#webhid-note').textContent()).toMatch(/allowed before/);
    await page.click('#connect');
    const address = await device.nextReview(); // a new provider shows the address once
    expect(address.review.kind).toBe('address');
    address.answer(true);
    await page.waitForSelector('#connection[data-state="connected"]');
    const calls = await page.evaluate(() => window.__hidShim!.calls);
    expect(calls.requestDevice).toBe(0);
    expect(calls.getDevices).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  }, 60_000);

  it('a credential stored in IndexedDB and presented: the proof is made in the browser and verifies in Node', async () => {
    const { origin } = await env();
    const { page, device, errors } = hid!;
    await page.click('#sample-credential');
    await expect.poll(() => page.locator('#credential').inputValue(), { timeout: 120_000 }).toMatch(/^\{/);
    await page.click('#store');
    // First the credential itself, then (once per connection) the message whose signature keys the store.
    const approval = await device.nextReview(60_000, pageError(page, 'result-store'));
    expect(approval.review.kind).toBe('message');
    expect(JSON.stringify(approval.review.screens)).toMatch(/Store credential [0-9a-f]{8} from B62q/);
    approval.answer(true);
    const storeKey = await device.nextReview();
    expect(storeKey.review.kind).toBe('message');
    expect(JSON.stringify(storeKey.review.screens)).toContain('chain-ledger credential store key v1');
    storeKey.answer(true);
    const stored = await result(page, 'result-store');
    expectOk(stored);
    const credential = JSON.parse(stored.json.credential);
    expect(credential.credential.owner).toEqual({ _type: 'PublicKey', value: ACCOUNT_0 });

    await page.click('#sample-request');
    await expect.poll(() => page.locator('#presentation-request').inputValue(), { timeout: 60_000 }).toMatch(/^\{/);
    const requestJson = await page.locator('#presentation-request').inputValue();
    await page.click('#present');
    const started = Date.now();
    // Presentation.prepare compiles the circuit in the page first (o1js has no key cache in browsers), then the proof.
    const owner = await device.nextReview(400_000, pageError(page, 'result-present'));
    expect(owner.review.kind).toBe('sign-fields');
    const compiled = Date.now();
    await shot(page, 'webhid-confirm-presentation');
    owner.answer(true);
    const presented = await result(page, 'result-present', 400_000);
    expectOk(presented);
    console.log(`web-dapp: presentation in the browser: ${compiled - started} ms to the owner signature (compile), ${Date.now() - compiled} ms more to the proof`);
    // Right after a proof the page can stay busy in o1js's wasm for minutes (in one CI run of five, a screenshot
    // timed out after 30 s there, with o1js's "memory access out of bounds" reported): this picture is an artifact,
    // not a check, so a timeout is logged, not failed. The result was read from the page and is verified below.
    await shot(page, 'webhid-presentation').catch((e: Error) => console.log(`web-dapp: no screenshot after the proof: ${e.message.split('\n')[0]}`));

    const { Presentation, PresentationRequest } = await import('mina-attestations');
    const request = PresentationRequest.fromJSON('https', requestJson);
    const output = await Presentation.verify(request, Presentation.fromJSON(presented.json.presentation), { verifierIdentity: origin });
    const { Poseidon, PublicKey } = await import('o1js');
    const issuer = PublicKey.fromJSON(credential.witness.issuer.value);
    expect(String(output)).toBe(Poseidon.hashWithPrefix('mina-cred:v0:native', issuer.toFields()).toString());
    // o1js's wasm may report "memory access out of bounds" from its bindings after a proof in the browser (an o1js
    // issue, seen with o1js 2.15 in Chromium; cf. o1-labs/o1js#2870); the proof above verified. Nothing else is allowed.
    expect(errors.filter((e) => e !== 'memory access out of bounds')).toEqual([]);
  }, 900_000);
});
