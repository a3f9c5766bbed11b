/**
 * The e2e test's world: the wallet page built and served at its own site (127.0.0.2, with
 * Document-Isolation-Policy), the web dapp built for that wallet and served, as it would be by three unrelated sites,
 * from 127.0.0.1 (the issuer), 127.0.0.3 (the verifier) and 127.0.0.4 (a stranger), and the packaged Chromium.
 * Distinct loopback addresses are distinct sites (ports are not), so storage, isolation and postMessage origins are
 * what they are between real sites.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { fromHex, toHex } from '../../src/apdu/bytes.js';
import { SoftwareLedger, TEST_MNEMONIC, type Review } from '../../src/emulator.js';
import type { BundleSizes } from '../../examples/web-dapp/build.js';
import type { KeyCacheReport } from '../../src/presentations/indexeddb-key-cache.js';
import { CHROMIUM_FLAGS, chromiumPath } from './chromium.js';
import { runBounded } from './process.js';
import { serveIsolated } from './serve-isolated.js';
import { headersFileServer } from './headers-file.js';
import { hostileScript, walletProbe } from './hostile.js';
import { nodeCacheRoute } from './key-cache.js';
import { checkOperation } from './mina-node.js';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
const DAPP_DIST = join(REPO, 'examples/web-dapp/dist');
const WALLET_DIST = join(REPO, 'examples/wallet/dist');
export const SCREENSHOTS = join(REPO, 'test-results/screenshots');
/** Account 0 of the test mnemonic. */
export const ACCOUNT_0 = 'B62qnzbXmRNo9q32n4SNu2mpB8e7FYYLH8NmaX6oFCBYjjQ8SbD7uzV';

/**
 * The browser's flags: the tests' usual ones, plus `--site-per-process`. Desktop Chrome runs strict site isolation
 * by default; the packaged headless-shell does not, and without it Chromium ignores Document-Isolation-Policy (the
 * wallet window would not be cross-origin isolated, and o1js could not prove there).
 */
export const WALLET_CHROMIUM_FLAGS = [...CHROMIUM_FLAGS, '--site-per-process'];

export interface Env {
  browser: Browser;
  wallet: string;
  issuer: string;
  verifier: string;
  stranger: string;
  sizes: BundleSizes;
  walletSizes: BundleSizes;
  hidBridge: string;
  buildMillis: number;
  /** The wallet build's o1js chunk, as a request path. */
  walletO1jsChunk: string;
}

let pending: Promise<Env> | undefined;
const closers: (() => Promise<void>)[] = [];

/** Built, served and launched once, by the first test (not a beforeAll: a missing Chromium must fail, not skip). */
export function env(): Promise<Env> {
  return (pending ??= (async () => {
    const executablePath = await chromiumPath();
    const started = Date.now();
    const tsx = join(REPO, 'node_modules/.bin/tsx');
    // The wallet's own headers, as a static host sends them: only what the build's _headers file says (Netlify,
    // Cloudflare Pages; examples/wallet/headers.ts writes it), read once the build has written it. Listening before
    // the build, so that the dapp (whose wallet URL is a build-time constant, as a real dapp's would be) builds beside it.
    const hosted = headersFileServer(join(WALLET_DIST, '_headers'));
    const wallet = await serveIsolated(WALLET_DIST, nodeCacheRoute, { host: '127.0.0.2', headers: hosted.headers, noStore: false });
    closers.push(wallet.close);
    const [, , hidBridge] = await Promise.all([
      runBounded(tsx, ['examples/wallet/build.ts'], 300_000, 'the wallet build'),
      runBounded(tsx, ['examples/web-dapp/build.ts'], 300_000, 'the web dapp build', { CHAIN_LEDGER_WALLET_URL: `${wallet.origin}/` }),
      runBounded(
        join(REPO, 'node_modules/.bin/esbuild'),
        ['test/support/hid-bridge.ts', '--bundle', '--format=iife', '--platform=browser', '--target=es2022', '--log-level=error'],
        60_000,
      ),
    ]);
    const buildMillis = Date.now() - started;
    await hosted.load();
    const sizesOf = async (example: string) =>
      JSON.parse(await readFile(join(REPO, `examples/${example}/bundle-sizes.json`), 'utf8')) as BundleSizes;
    const [sizes, walletSizes] = await Promise.all([sizesOf('web-dapp'), sizesOf('wallet')]);
    // No isolation headers for the dapps: they prove nothing, and COOP would cut them off from the wallet window.
    const [issuer, verifier, stranger] = await Promise.all(
      ['127.0.0.1', '127.0.0.3', '127.0.0.4'].map((host) => serveIsolated(DAPP_DIST, undefined, { host, headers: {} })),
    );
    closers.push(issuer!.close, verifier!.close, stranger!.close);
    const browser = await chromium.launch({ executablePath, headless: true, args: WALLET_CHROMIUM_FLAGS });
    closers.push(() => browser.close());
    await mkdir(SCREENSHOTS, { recursive: true });
    return {
      browser,
      wallet: wallet.origin,
      issuer: issuer!.origin,
      verifier: verifier!.origin,
      stranger: stranger!.origin,
      sizes,
      walletSizes,
      hidBridge,
      buildMillis,
      walletO1jsChunk: `/${walletSizes.o1js[0]!.file}`,
    };
  })());
}

/** A browser that ignores Document-Isolation-Policy (no strict site isolation): where the wallet needs its prover window. */
export async function browserWithoutSiteIsolation(): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: await chromiumPath(), headless: true, args: CHROMIUM_FLAGS });
  closers.push(() => browser.close());
  return browser;
}

export async function closeEnv(): Promise<void> {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
}

/** What the test sees of a page, kept in Node so that it survives the page: its errors, requests, key-cache reports. */
export interface Watched {
  errors: string[];
  requests: string[];
  reports: KeyCacheReport[];
  /** chain-ledger's own console lines (warnings included). */
  lines: string[];
  crashed: boolean;
}

const KEY_CACHE_LINE = 'chain-ledger key cache: ';

export function watch(page: Page, watched: Watched = { errors: [], requests: [], reports: [], lines: [], crashed: false }): Watched {
  page.on('pageerror', (e) => {
    watched.errors.push(e.message);
    console.log(`page error (${page.url()}): ${e.stack ?? e.message}`);
  });
  page.on('request', (r) => watched.requests.push(new URL(r.url()).pathname));
  page.on('console', (m) => {
    const text = m.text();
    if (!text.startsWith('chain-ledger')) return;
    console.log(`console (${new URL(page.url()).origin}): ${text.slice(0, 2000)}`);
    watched.lines.push(text);
    if (text.startsWith(KEY_CACHE_LINE)) watched.reports.push(JSON.parse(text.slice(KEY_CACHE_LINE.length)) as KeyCacheReport);
  });
  page.on('crash', () => {
    watched.crashed = true;
    console.log(`page crashed (${page.url()})`);
  });
  return watched;
}

/** A software Ledger in Node; each review waits for the test to answer it (and says when it was shown). */
export function nodeLedger(options: { appOpen?: boolean } = {}) {
  const waiting: { review: Review; shownAt: number; answer(ok: boolean): void }[] = [];
  const wakeups: (() => void)[] = [];
  const ledger = SoftwareLedger.fromMnemonic(TEST_MNEMONIC, {
    ...options,
    extensions: true,
    blindSigning: true,
    warn: () => {}, // the test knows: this is the software Ledger
    approve: (review) =>
      new Promise<boolean>((answer) => {
        waiting.push({ review, shownAt: Date.now(), answer });
        wakeups.splice(0).forEach((wake) => wake());
      }),
  });
  /** The next review the device shows; fails early if `failed()` finds an error shown instead. */
  async function nextReview(timeoutMs = 30_000, failed?: () => Promise<string | undefined>) {
    const deadline = Date.now() + timeoutMs;
    while (waiting.length === 0) {
      if (Date.now() > deadline) throw new Error('nothing asked the device for a review');
      const error = await failed?.();
      if (error !== undefined) throw new Error(`an error is shown instead of a device review:\n${error}`);
      await new Promise<void>((wake) => {
        wakeups.push(wake);
        setTimeout(wake, 250);
      });
    }
    return waiting.shift()!;
  }
  return { ledger, nextReview, pendingReviews: () => waiting.length };
}

export type NodeLedger = ReturnType<typeof nodeLedger>;

/**
 * A browser context with the Node Ledger behind the wallet origin's `navigator.hid` (a fake Nano X: its grant is the
 * wallet origin's), the hostile script in every dapp page and the probe in every wallet page.
 */
export async function walletContext(
  ledger: SoftwareLedger | undefined,
  browser?: Browser,
  options: BrowserContextOptions = {},
): Promise<BrowserContext> {
  const { hidBridge, wallet, ...rest } = await env();
  const context = await (browser ?? rest.browser).newContext(options);
  closers.push(() => context.close());
  if (ledger) {
    // The device answers the wallet's frames only: a dapp's page has no permission for it, as WebHID grants are per origin.
    await context.exposeBinding('__hidExchange', async (source, hex: string) => {
      if (new URL(source.frame.url()).origin !== wallet) throw new Error('this origin was never granted the device');
      return toHex(await ledger.exchange(fromHex(hex)));
    });
    await context.addInitScript({ content: `if (location.origin === ${JSON.stringify(wallet)}) {\n${hidBridge}\n}` });
  }
  await context.addInitScript(hostileScript, wallet);
  await context.addInitScript(walletProbe, wallet);
  await context.addInitScript(() => {
    // A heartbeat: it advances only while the page's main thread is free (checked while o1js proves).
    const w = window as unknown as { __ticks: number };
    w.__ticks = 0;
    setInterval(() => w.__ticks++, 50);
  });
  return context;
}

/**
 * A page of the wallet's origin with no wallet in it (one of the wallet build's scripts, shown as text: nothing runs),
 * sharing the wallet windows' storage: where the test reads and writes the wallet's key cache. Those 150 MB of
 * IndexedDB values hold a page's main thread for seconds (measured: 4.5 s for a seeding), and a wallet window's main
 * thread must stay free to answer its connector's pings, or the connector closes it (docs/wallet.md).
 */
export async function walletStoragePage(context: BrowserContext): Promise<Page> {
  const { wallet, walletSizes } = await env();
  const page = await context.newPage();
  await page.goto(`${wallet}/${walletSizes.initial.files.find((f) => f.file.endsWith('.js'))!.file}`);
  return page;
}

/** Opens the dapp at `origin` in a new page of `context`. */
export async function openDapp(context: BrowserContext, origin: string): Promise<{ page: Page; watched: Watched }> {
  const page = await context.newPage();
  const watched = watch(page);
  await page.goto(`${origin}/`);
  await page.waitForSelector('body[data-ready="true"]');
  return { page, watched };
}

/**
 * Clicks `selector` in the dapp (a real click: a user gesture, as window.open needs) and returns the wallet window it
 * opens, loaded.
 */
export async function clickOpeningWallet(page: Page, selector: string): Promise<{ popup: Page; watched: Watched; clickedAt: number }> {
  const opened = page.waitForEvent('popup');
  const clickedAt = Date.now();
  await page.click(selector);
  const popup = await opened;
  const watched = watch(popup);
  // The wallet window as the connector opens it (440 × 720), or as wide as the phone's screen.
  const { width, height } = page.viewportSize() ?? { width: 1280, height: 720 };
  await popup.setViewportSize({ width: Math.min(width, 440), height: Math.min(height, 720) });
  await popup.waitForSelector('body[data-ready="true"]');
  return { popup, watched, clickedAt };
}

/**
 * Waits for a dapp's result box to settle; returns its state, error code, the text shown and the result it shows (the
 * call's result, or its error as an object: the box's `data-result`).
 */
export async function result(page: Page, id: string, timeout = 60_000): Promise<{ state: string; code?: number; json: any; text: string }> {
  const handle = await page.waitForFunction(
    (id) => {
      const box = document.getElementById(id);
      const state = box?.dataset.state;
      return state === 'ok' || state === 'error'
        ? { state, code: box!.dataset.code, text: box!.textContent ?? '', value: box!.dataset.result }
        : false;
    },
    id,
    { timeout, polling: 250 },
  );
  const { state, code, text, value } = (await handle.jsonValue()) as { state: string; code?: string; text: string; value?: string };
  return { state, code: code === undefined ? undefined : Number(code), json: value === undefined ? undefined : JSON.parse(value), text };
}

export function expectOk(r: { state: string; text: string }): void {
  if (r.state !== 'ok') throw new Error(`the page shows an error:\n${r.text}`);
}

/** The text of a result box showing an error, if it does. */
export const pageError = (page: Page, id: string) => async () =>
  page.evaluate((id) => {
    const box = document.getElementById(id);
    return box?.dataset.state === 'error' ? (box.textContent ?? '') : undefined;
  }, id);

/**
 * Answers the review the wallet's demo software Ledger shows (once it matches `expectText`, in its list of screens)
 * with the device's buttons, as a user does: right to the stage's last screen (its stop choice), left to its go-on
 * choice (Approve, Generate, ACCEPT RISK…), both; again for each stage, until the review is over.
 */
export async function approveInWallet(popup: Page, expectText: RegExp): Promise<void> {
  const device = popup.locator('#demo-device');
  await popup.waitForSelector('#demo-device[data-review="true"]', { timeout: 60_000 });
  await expect.poll(() => popup.locator('#demo-screens').textContent()).toMatch(expectText);
  for (let presses = 0; (await device.getAttribute('data-review')) === 'true'; presses++) {
    if (presses > 200) throw new Error('the review did not end after 200 button presses');
    if ((await device.getAttribute('data-right')) === 'true') await popup.click('#device-right');
    else {
      await popup.click('#device-left');
      await popup.click('#device-both');
    }
  }
}

/** The page is no wider than its window: nothing sticks out sideways (document.documentElement.scrollWidth ≤ innerWidth). */
export async function expectNoOverflow(page: Page, what: string): Promise<void> {
  const { scrollWidth, width } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    width: window.innerWidth,
  }));
  expect(scrollWidth, `${what}: ${scrollWidth} px wide in a ${width} px window`).toBeLessThanOrEqual(width);
}

/** Whether the element's top edge is inside the window (`whole`: all of it). */
export const inView = (page: Page, selector: string, whole = false) =>
  page.locator(selector).evaluate((element, whole) => {
    const box = element.getBoundingClientRect();
    return whole ? box.top >= 0 && box.bottom <= innerHeight : box.top >= 0 && box.top < innerHeight;
  }, whole);

export const shot = (page: Page, name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

/**
 * The wallet's review of a presentation request (examples/wallet/src/presentation-panel.ts), once its stored
 * credentials are listed (`count` of them fit): its text, as the holder reads it.
 */
export async function presentationReview(popup: Page, timeoutMs = 120_000): Promise<{ text: string; count: number }> {
  const panel = popup.locator('#presentation-review[data-state="reviewing"]');
  await panel.locator('.presentation-candidates[data-count]').waitFor({ timeout: timeoutMs });
  return {
    text: (await panel.textContent()) ?? '',
    count: Number(await panel.locator('.presentation-candidates').getAttribute('data-count')),
  };
}

/** The holder answers the wallet's review of a presentation request: Approve (the newest fitting credential) or Refuse. */
export async function answerPresentation(popup: Page, answer: 'approve' | 'refuse'): Promise<void> {
  await popup.click(`#presentation-review[data-state="reviewing"] button[data-answer="${answer}"]`);
  await popup.waitForSelector('#presentation-review[data-state="idle"]', { state: 'attached' });
}

/**
 * Shows one of the wallet's screens (examples/wallet/src/nav.ts), as the holder does: the request sheet closed first
 * ("Back to the wallet", there once its request is over), then the screen's tab.
 */
export async function walletScreen(popup: Page, screen: 'home' | 'send' | 'accounts' | 'activity' | 'sites'): Promise<void> {
  if (await popup.locator('#sheet-close').isVisible()) await popup.click('#sheet-close');
  await popup.click(`#tab-${screen}`);
  await popup.waitForSelector(`#screen-${screen}:not([hidden])`);
}

/** Where the wallet scenarios put the screenshots docs/wallet.md shows. */
export const docsImage = (name: string) => join(REPO, 'docs/images', `${name}.png`);

/** The wallet page opened directly (the holder's own wallet, no site) at `width`, once its script is ready. */
export async function openOwnWallet(context: BrowserContext, width: number): Promise<Page> {
  const { wallet } = await env();
  const page = await context.newPage();
  watch(page);
  await page.setViewportSize({ width, height: width < 500 ? 844 : 900 });
  await page.goto(`${wallet}/`);
  await page.waitForSelector('body[data-ready="true"]');
  return page;
}

/** A GraphQL request the routed node got, with the daemon schema's verdict on it. */
export interface RoutedQuery {
  operation?: string;
  errors: string[];
}

/**
 * A Mina node at `url`, routed in the browser context: each query checked against the daemon's schema (one the schema
 * refuses is answered with its errors, as a node would), the others answered with `answer`'s data. Returns every
 * request, in order, with its verdict.
 */
export async function routeCheckedNode(
  context: BrowserContext,
  url: string,
  answer: (operation: string | undefined, variables: Record<string, unknown>) => unknown,
): Promise<RoutedQuery[]> {
  const seen: RoutedQuery[] = [];
  await context.route(url, async (route) => {
    const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': 'content-type' };
    if (route.request().method() === 'OPTIONS') return route.fulfill({ status: 204, headers: cors });
    const { query, variables } = JSON.parse(route.request().postData() ?? '{}') as { query: string; variables: Record<string, unknown> };
    const check = checkOperation(query, variables);
    seen.push({ operation: check.operationName, errors: check.errors });
    const body = check.errors.length
      ? { errors: check.errors.map((message) => ({ message })) }
      : { data: answer(check.operationName, variables) };
    await route.fulfill({ status: 200, headers: { ...cors, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  });
  return seen;
}
