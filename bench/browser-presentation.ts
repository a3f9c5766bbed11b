/**
 * chain_requestPresentation in a real browser: headless Chromium, the built web dapp (examples/web-dapp/dist, built by
 * `npm run bench` before this runs), demo mode (the software Ledger in the page, approved by the bench as a user would).
 *
 * Two presentations of the same spec on one origin:
 *   - cold: the first on a fresh browser context (empty IndexedDB), so the whole circuit is compiled in the browser;
 *   - cached: the next one after a page reload, with the keys the first one stored in the key cache.
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
 * Standalone: `npx tsx examples/web-dapp/build.ts && npx tsx bench/browser-presentation.ts` prints the rows as JSON.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import type { KeyCacheReport } from '../src/presentations/indexeddb-key-cache.js';
import { CHROMIUM_FLAGS, chromiumPath } from '../test/support/chromium.js';
import { serveIsolated } from '../test/support/serve-isolated.js';
import { round } from './lib.js';

const DIST = fileURLToPath(new URL('../examples/web-dapp/dist/', import.meta.url));
/** One presentation's bound (a cold in-browser compile on a loaded 2-core machine took up to 5.5 min, the proof 1–2). */
const PRESENTATION_TIMEOUT_MS = 20 * 60_000;
const REPORT_LINE = 'chain-ledger key cache: ';

export interface BrowserPresentationRow {
  presentation: string;
  cache: 'cold' | 'cached';
  /** From the click on "Create presentation" to the result in the page. */
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
  /** The longest main-thread task in the page during the presentation (0: none ≥ 50 ms). */
  longestTaskMs: number;
  longTasks: number;
  /** The longest gap between two beats of a 50 ms heartbeat in the page during the presentation. */
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

/** Clicks the demo device's Approve whenever it is enabled, until stopped (a user approving every review). */
function autoApprove(page: () => Page): () => void {
  let stopped = false;
  void (async () => {
    while (!stopped) {
      await page()
        .evaluate(() => {
          const button = document.getElementById('device-approve') as HTMLButtonElement | null;
          if (button && !button.disabled) button.click();
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

async function connectDemo(page: Page): Promise<void> {
  await waitFor('the page', async () => (await page.evaluate(() => document.body.dataset.ready)) === 'true', 60_000);
  await page.click('#demo');
  await waitFor('the demo connection', async () => (await page.getAttribute('#connection', 'data-state')) === 'connected', 120_000);
}

async function fill(page: Page, button: string, textarea: string): Promise<void> {
  await page.click(button);
  await waitFor(textarea, async () => (await page.locator(textarea).inputValue()).startsWith('{'), 180_000);
}

export async function benchBrowserPresentation(): Promise<BrowserPresentationBench> {
  if (!existsSync(join(DIST, 'index.html')))
    throw new Error('browser bench: build the web dapp first (npx tsx examples/web-dapp/build.ts)');
  const { origin, close } = await serveIsolated(DIST);
  const browser = await chromium.launch({ executablePath: await chromiumPath(), headless: true, args: CHROMIUM_FLAGS });
  try {
    const context = await browser.newContext(); // fresh: empty IndexedDB, so the first presentation is cold
    await context.addInitScript(responsivenessProbe);
    const reports: KeyCacheReport[] = [];
    let page = await context.newPage();
    let crashed = false;
    const watch = (p: Page) => {
      p.on('console', (message) => {
        const text = message.text();
        if (text.startsWith(REPORT_LINE)) reports.push(JSON.parse(text.slice(REPORT_LINE.length)) as KeyCacheReport);
      });
      p.on('crash', () => (crashed = true));
    };
    watch(page);
    const stopApproving = autoApprove(() => page);
    try {
      await page.goto(`${origin}/`);
      await connectDemo(page);
      const environment = await page.evaluate(() => ({
        hardwareConcurrency: navigator.hardwareConcurrency,
        crossOriginIsolated: globalThis.crossOriginIsolated,
      }));
      await fill(page, '#sample-credential', '#credential');
      await page.click('#store');
      await outcome(page, 'result-store', 120_000);

      const present = async (label: string, cache: BrowserPresentationRow['cache']) => {
        await fill(page, '#sample-request', '#presentation-request');
        reports.length = 0;
        await page.evaluate(() => (globalThis as unknown as { __bench: { start(): void } }).__bench.start());
        const started = Date.now();
        await page.click('#present');
        await outcome(page, 'result-present', PRESENTATION_TIMEOUT_MS);
        const totalMs = Date.now() - started;
        const responsiveness = await page.evaluate(() =>
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
      // A reload of the same origin: the page and its Worker start over, IndexedDB stays. (If o1js's wasm took the
      // renderer down after the proof, cf. o1js#2870, a new page of the same context stands in for the reload.)
      if (crashed) {
        page = await context.newPage();
        watch(page);
        crashed = false;
        await page.goto(`${origin}/`);
      } else {
        await page.reload();
      }
      await connectDemo(page);
      const cached = await present('the same spec after a page reload (keys from the cache)', 'cached');
      const rows = [cold, cached].map((row) => ({
        ...row,
        ratioTotal: round(row.totalMs / cold.totalMs),
        ratioCompile: round(row.compileMs / cold.compileMs),
      }));
      return { browser: `Chromium ${browser.version()} (headless)`, ...environment, rows };
    } finally {
      stopApproving();
    }
  } finally {
    await browser.close();
    await close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(JSON.stringify(await benchBrowserPresentation(), null, 2));
}
