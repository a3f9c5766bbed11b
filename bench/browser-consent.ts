/**
 * Consent costs no time: a presentation in the wallet page, in the packaged Chromium, with the holder's review first
 * (examples/wallet/src/presentation-panel.ts). The circuit's compile depends on the request alone, so the wallet
 * starts it (and loads the cached keys) while the holder reads the request; the holder approves once it has
 * finished, and what is left is the device's signature and the proof.
 *
 * Measured per presentation, cold (a fresh browser context: the circuit compiled from nothing) and cached (the same
 * spec again: the keys from the wallet's IndexedDB cache, in a fresh Worker):
 *   - request → the holder's first question: from the dapp's click on "Create presentation" to the wallet's panel
 *     showing the request (`questionMs`), and to its stored credentials listed there (`candidatesMs`); target ≤ 1 s;
 *   - the compile, during the review (the key cache's report: `compileMs`);
 *   - consent → result: from the click on Approve (once the compile has finished) to the presentation in the dapp
 *     (`consentToResultMs`), against the proof alone (`proofMs`, the key cache's report of the proof); target ≤ 1.1×.
 * The Ledger is the software Ledger in Node behind the wallet origin's `navigator.hid` (the e2e test's bridge,
 * test/support/hid-bridge.ts), approving at once: the device step is the host's exchange, not a person.
 *
 * Standalone (it builds both pages itself, as the e2e test does):
 *   npx tsx --conditions=chain-ledger-source bench/browser-consent.ts
 * prints the rows as JSON and as a Markdown table (bench/RESULTS.md keeps the last run's).
 */
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { SoftwareLedger, TEST_MNEMONIC } from '../src/emulator.js';
import {
  type Watched,
  answerPresentation,
  clickOpeningWallet,
  closeEnv,
  env,
  openDapp,
  presentationReview,
  walletContext,
} from '../test/support/wallet-harness.js';
import { round } from './lib.js';

/** One presentation's bound (a cold in-browser compile on a loaded 2-core machine took up to 5.5 min, the proof 1–2). */
const PRESENTATION_TIMEOUT_MS = 20 * 60_000;

export interface ConsentRow {
  cache: 'cold' | 'cached';
  /** Click → the request shown in the wallet's panel (the holder's first question). */
  questionMs: number;
  /** Click → the fitting stored credentials listed in the panel. */
  candidatesMs: number;
  /** The compile (and key loading) that ran during the review, as the key cache reports it. */
  compileMs: number;
  /** Click → the compile done (how long a holder who approves at once would wait for it). */
  compiledAfterMs: number;
  /** Approve → the presentation in the dapp, the compile done during the review. */
  consentToResultMs: number;
  /** The proof alone, in the wallet's Worker (the key cache's report). */
  proofMs: number;
  /** consentToResultMs ÷ proofMs. */
  ratio: number;
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`consent bench: timed out waiting for ${what}`);
    await new Promise((wake) => setTimeout(wake, 50));
  }
}

/** The dapp's result box once it is no longer pending; throws with its text on an error. */
async function result(page: Page, id: string): Promise<void> {
  const state = () => page.evaluate((id) => document.getElementById(id)?.dataset.state ?? '', id);
  await waitFor(id, async () => ['ok', 'error'].includes(await state()), PRESENTATION_TIMEOUT_MS);
  if ((await state()) !== 'ok') throw new Error(`consent bench: ${id}: ${(await page.locator(`#${id}`).textContent())?.slice(0, 500)}`);
}

/** One presentation of the dapp's sample request, reviewed in the wallet and approved once its compile is done. */
async function present(page: Page, popup: Page, watched: Watched, cache: ConsentRow['cache']): Promise<ConsentRow> {
  await page.fill('#presentation-request', '');
  await page.click('#sample-request');
  await waitFor('the sample request', async () => (await page.locator('#presentation-request').inputValue()).startsWith('{'), 180_000);
  watched.reports.length = 0;
  const clicked = Date.now();
  await page.click('#present');
  await popup.waitForSelector('#presentation-review[data-state="reviewing"] h3', { timeout: 120_000 });
  const questionMs = Date.now() - clicked;
  await presentationReview(popup);
  const candidatesMs = Date.now() - clicked;
  await waitFor('the compile during the review', () => watched.reports.some((r) => r.phase === 'compile'), PRESENTATION_TIMEOUT_MS);
  const compiledAfterMs = Date.now() - clicked;
  const approved = Date.now();
  await answerPresentation(popup, 'approve');
  await result(page, 'result-present');
  const consentToResultMs = Date.now() - approved;
  await waitFor('the proof report', () => watched.reports.some((r) => r.phase === 'proof'), 60_000);
  const compile = watched.reports.find((r) => r.phase === 'compile')!;
  const proof = watched.reports.find((r) => r.phase === 'proof')!;
  const proofMs = proof.proofMillis ?? 0;
  const row = {
    cache,
    questionMs,
    candidatesMs,
    compileMs: compile.compileMillis,
    compiledAfterMs,
    consentToResultMs,
    proofMs,
    ratio: round(consentToResultMs / proofMs),
  };
  console.error(`consent bench ${cache}: ${JSON.stringify(row)}`);
  return row;
}

export async function benchBrowserConsent(): Promise<{ browser: string; rows: ConsentRow[] }> {
  const { browser, issuer } = await env();
  const ledger = SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { extensions: true, approve: () => true, warn: () => {} });
  const context = await walletContext(ledger); // fresh: empty IndexedDB, so the first presentation is cold
  const { page } = await openDapp(context, issuer);
  const { popup, watched } = await clickOpeningWallet(page, '#connect');
  await popup.click('#connect'); // the WebHID chooser (the test's shim grants the bridged device)
  await page.waitForSelector('#connection[data-state="connected"]', { timeout: 120_000 });
  await page.click('#sample-credential');
  await waitFor('the sample credential', async () => (await page.locator('#credential').inputValue()).startsWith('{'), 180_000);
  await page.click('#store');
  await result(page, 'result-store');
  const rows = [await present(page, popup, watched, 'cold'), await present(page, popup, watched, 'cached')];
  return { browser: `Chromium ${browser.version()} (headless, --site-per-process)`, rows };
}

/** The rows as a Markdown table, in bench/RESULTS.md's style. */
export function consentTable(rows: ConsentRow[]): string {
  const lines = [
    '| cache | request → question (ms) | → candidates listed (ms) | compile during the review (ms) | click → compiled (ms) | approve → result (ms) | the proof alone (ms) | ratio |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.cache} | ${r.questionMs} | ${r.candidatesMs} | ${r.compileMs} | ${r.compiledAfterMs} | ${r.consentToResultMs} | ${r.proofMs} | ${r.ratio} |`,
    ),
  ];
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const bench = await benchBrowserConsent();
    console.log(JSON.stringify(bench, null, 2));
    console.log(`\n${bench.browser}\n\n${consentTable(bench.rows)}`);
  } finally {
    await closeEnv();
  }
  process.exit(0);
}
