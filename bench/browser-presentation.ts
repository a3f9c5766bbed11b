/**
 * chain_requestPresentation in a real browser: headless Chromium, the built wallet page (examples/wallet/dist, built by
 * `npm run bench` before this runs) at its own site with the web dapp (built here for that wallet) asking, the
 * wallet's demo mode (the software Ledger in the wallet window, approved by the bench as a user would).
 *
 * Two presentations of the same spec in one wallet window:
 *   - cold: the first on a fresh browser context (empty IndexedDB), so the whole circuit is compiled in the browser;
 *   - cached: the next one, in a fresh presentation Worker, with the keys the first one stored in the key cache.
 * Each is split as the key cache reports it (event `chain-ledger:key-cache`, console line `chain-ledger key cache:
 * {...}`): loading the cache from IndexedDB, the compile, the device step (from the end of the compile to the start
 * of the proof: the owner's signature), the proof, and persisting what o1js wrote. And whether the page stayed
 * responsive while o1js worked in the presentation Worker: the longest main-thread task (PerformanceObserver
 * 'longtask', tasks ≥ 50 ms) and the longest gap of a 50 ms heartbeat, from the click on "Create presentation" to the
 * result.
 *
 * The baseline is "no cache", i.e. the cold row: what every presentation costs in Auro and Pallad, which compile in a
 * sandboxed iframe without storage every time (docs/performance.md).
 *
 * Standalone: `npm run build:wallet && npx tsx bench/browser-presentation.ts` prints the rows as JSON.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import type { KeyCacheReport } from '../src/presentations/indexeddb-key-cache.js';
import { buildWebDapp, type BundleSizes } from '../examples/web-dapp/build.js';
import { walletHeadersFor } from '../examples/wallet/headers.js';
import { CHROMIUM_FLAGS, chromiumPath } from '../test/support/chromium.js';
import { serveIsolated } from '../test/support/serve-isolated.js';
import { round } from './lib.js';

const DAPP_DIST = fileURLToPath(new URL('../examples/web-dapp/dist/', import.meta.url));
const WALLET_DIST = fileURLToPath(new URL('../examples/wallet/dist/', import.meta.url));
/** Strict site isolation, which desktop Chrome has by default and the packaged headless-shell lacks: without it Chromium ignores Document-Isolation-Policy. */
const FLAGS = [...CHROMIUM_FLAGS, '--site-per-process'];
/** One presentation's bound (a cold in-browser compile on a loaded 2-core machine took up to 5.5 min, the proof 1–2). */
const PRESENTATION_TIMEOUT_MS = 20 * 60_000;
const REPORT_LINE = 'chain-ledger key cache: ';

export interface BrowserPresentationRow {
  presentation: string;
  cache: 'cold' | 'cached';
  /** From the click on "Create presentation" in the dapp to the result there. */
  totalMs: number;
  loadMs: number;
  compileMs: number;
  deviceMs: number;
  proofMs: number;
  persistMs: number;
  /** Ratios to the cold row (the baseline: no cache). */
  ratioTotal: number;
  ratioCompile: number;
  entriesLoaded: number;
  loadedMB: number;
  hits: number;
  written: number;
  /** The longest main-thread task in the wallet window during the presentation (0: none ≥ 50 ms). */
  longestTaskMs: number;
  longTasks: number;
  /** The longest gap between two beats of a 50 ms heartbeat in the wallet window during the presentation. */
  longestHeartbeatGapMs: number;
}

export interface BrowserPresentationBench {
  browser: string;
  hardwareConcurrency: number;
  crossOriginIsolated: boolean;
  rows: BrowserPresentationRow[];
}

/**
 * In every page of the context, before its scripts: long tasks and heartbeat gaps, measured between
 * `__bench.start()` and `__bench.stop()`.
 */
function responsivenessProbe(): void {
  const state = { measuring: false, longest: 0, count: 0, lastBeat: 0, longestGap: 0 };
  new PerformanceObserver((list) => {
    if (!state.measuring) return;
    for (const entry of list.getEntries()) {
      state.count++;
      state.longest = Math.max(state.longest, entry.duration);
    }
  }).observe({ type: 'longtask', buffered: false });
  setInterval(() => {
    const now = performance.now();
    if (state.measuring) state.longestGap = Math.max(state.longestGap, now - state.lastBeat);
    state.lastBeat = now;
  }, 50);
  (globalThis as unknown as { __bench: unknown }).__bench = {
    start() {
      Object.assign(state, { measuring: true, longest: 0, count: 0, lastBeat: performance.now(), longestGap: 0 });
    },
    stop() {
      state.measuring = false;
      state.longestGap = Math.max(state.longestGap, performance.now() - state.lastBeat);
      return { longestTaskMs: state.longest, longTasks: state.count, longestHeartbeatGapMs: state.longestGap };
    },
  };
}

/**
 * Clicks the demo device's Approve, and the wallet's Approve of a presentation request, whenever one is enabled, until
 * stopped (a user approving every review).
 */
function autoApprove(page: () => Page): () => void {
  let stopped = false;
  void (async () => {
    while (!stopped) {
      await page()
        .evaluate(() => {
          const button = document.getElementById('device-approve') as HTMLButtonElement | null;
          if (button && !button.disabled) button.click();
          const review = document.querySelector<HTMLButtonElement>('#presentation-review button[data-answer="approve"]');
          if (review && !review.disabled) review.click();
        })
        .catch(() => undefined);
      await new Promise((wake) => setTimeout(wake, 100));
    }
  })();
  return () => {
    stopped = true;
  };
}

const state = (page: Page, id: string) => page.evaluate((id) => document.getElementById(id)?.dataset.state, id);

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > until) throw new Error(`browser bench: timed out waiting for ${what}`);
    await new Promise((wake) => setTimeout(wake, 250));
  }
}

/** The page's result box of `id` once it is no longer pending; throws with its text on an error. */
async function outcome(page: Page, id: string, timeoutMs: number): Promise<void> {
  await waitFor(id, async () => ['ok', 'error'].includes((await state(page, id)) ?? ''), timeoutMs);
  if ((await state(page, id)) !== 'ok') {
    throw new Error(`browser bench: ${id}: ${(await page.locator(`#${id}`).textContent())?.slice(0, 500)}`);
  }
}

async function fill(page: Page, button: string, textarea: string): Promise<void> {
  await page.click(button);
  await waitFor(textarea, async () => (await page.locator(textarea).inputValue()).startsWith('{'), 180_000);
}

/**
 * The wallet window of `dapp`, in demo mode: opened by the dapp's Connect (or by any call, `opener`), its software
 * Ledger started; the bench approves every review there.
 */
async function openDemoWallet(dapp: Page, opener = '#connect'): Promise<Page> {
  const opened = dapp.waitForEvent('popup');
  await dapp.click(opener);
  const wallet = await opened;
  await waitFor('the wallet page', async () => (await wallet.evaluate(() => document.body.dataset.ready)) === 'true', 60_000);
  await wallet.click('#demo');
  return wallet;
}

export async function benchBrowserPresentation(): Promise<BrowserPresentationBench & { dappBundle: BundleSizes }> {
  if (!existsSync(join(WALLET_DIST, 'index.html'))) throw new Error('browser bench: build the wallet first (npm run build:wallet)');
  const wallet = await serveIsolated(WALLET_DIST, undefined, { host: '127.0.0.2', headers: walletHeadersFor });
  process.env.CHAIN_LEDGER_WALLET_URL = `${wallet.origin}/`; // the dapp is built for this wallet
  const dappBundle = await buildWebDapp();
  const dappServer = await serveIsolated(DAPP_DIST, undefined, { headers: {} });
  const browser = await chromium.launch({ executablePath: await chromiumPath(), headless: true, args: FLAGS });
  try {
    const context = await browser.newContext(); // fresh: empty IndexedDB, so the first presentation is cold
    await context.addInitScript(responsivenessProbe);
    const reports: KeyCacheReport[] = [];
    let crashed = false;
    const watch = (p: Page) => {
      p.on('console', (message) => {
        const text = message.text();
        if (text.startsWith(REPORT_LINE)) reports.push(JSON.parse(text.slice(REPORT_LINE.length)) as KeyCacheReport);
      });
      p.on('crash', () => (crashed = true));
    };
    const page = await context.newPage();
    await page.goto(`${dappServer.origin}/`);
    await waitFor('the page', async () => (await page.evaluate(() => document.body.dataset.ready)) === 'true', 60_000);
    let walletPage = await openDemoWallet(page);
    watch(walletPage);
    const stopApproving = autoApprove(() => walletPage);
    try {
      await waitFor('the connection', async () => (await page.getAttribute('#connection', 'data-state')) === 'connected', 120_000);
      const environment = await walletPage.evaluate(() => ({
        hardwareConcurrency: navigator.hardwareConcurrency,
        crossOriginIsolated: globalThis.crossOriginIsolated,
      }));
      await fill(page, '#sample-credential', '#credential');
      await page.click('#store');
      await outcome(page, 'result-store', 120_000);

      const present = async (label: string, cache: BrowserPresentationRow['cache']) => {
        await fill(page, '#sample-request', '#presentation-request');
        reports.length = 0;
        if (crashed) {
          // o1js's wasm took the wallet's renderer down after the proof (cf. o1js#2870): a new wallet window, as a user would open.
          await walletPage.close();
          crashed = false;
          walletPage = await openDemoWallet(page);
          watch(walletPage);
        }
        await walletPage.evaluate(() => (globalThis as unknown as { __bench: { start(): void } }).__bench.start());
        const started = Date.now();
        await page.click('#present');
        await outcome(page, 'result-present', PRESENTATION_TIMEOUT_MS);
        const totalMs = Date.now() - started;
        const responsiveness = await walletPage.evaluate(() =>
          (
            globalThis as unknown as { __bench: { stop(): { longestTaskMs: number; longTasks: number; longestHeartbeatGapMs: number } } }
          ).__bench.stop(),
        );
        // The proof report comes when the run closes, just after the result.
        await waitFor('the key cache reports', async () => reports.some((r) => r.phase === 'proof'), 60_000);
        const compile = reports.find((r) => r.phase === 'compile')!;
        const proof = reports.find((r) => r.phase === 'proof')!;
        if (compile.fallback !== undefined) throw new Error(`browser bench: the compile fell back to no cache: ${compile.fallback}`);
        console.error(`browser presentation ${cache}: ${JSON.stringify({ totalMs, compile, proof, responsiveness })}`);
        return {
          presentation: label,
          cache,
          totalMs,
          loadMs: proof.loadMillis,
          compileMs: proof.compileMillis,
          deviceMs: proof.deviceMillis ?? 0,
          proofMs: proof.proofMillis ?? 0,
          persistMs: proof.persistMillis,
          entriesLoaded: proof.loaded,
          loadedMB: round(proof.loadedBytes / 1e6, 1),
          hits: proof.hits,
          written: proof.writes,
          longestTaskMs: round(responsiveness.longestTaskMs, 0),
          longTasks: responsiveness.longTasks,
          longestHeartbeatGapMs: round(responsiveness.longestHeartbeatGapMs, 0),
        };
      };

      const cold = await present('first of the spec, fresh browser context (nothing cached)', 'cold');
      // Every presentation runs in a fresh Worker: the next one loads the keys the first one stored in IndexedDB.
      const cached = await present('the same spec again (a fresh Worker, keys from the cache)', 'cached');
      const rows = [cold, cached].map((row) => ({
        ...row,
        ratioTotal: round(row.totalMs / cold.totalMs),
        ratioCompile: round(row.compileMs / cold.compileMs),
      }));
      return { browser: `Chromium ${browser.version()} (headless, --site-per-process)`, ...environment, rows, dappBundle };
    } finally {
      stopApproving();
    }
  } finally {
    await browser.close();
    await dappServer.close();
    await wallet.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(JSON.stringify(await benchBrowserPresentation(), null, 2));
}
