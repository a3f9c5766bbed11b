/**
 * Accessibility of the wallet page (examples/wallet), checked with axe-core in the packaged Chromium: every screen
 * (Home, Activity, Sites, Credentials locked and listed) and the request sheet with the drawn demo device waiting
 * for an answer, at 390 px and at 1280 px, light and (at 1280 px) dark; then a site's requests in its wallet window
 * (connect, signMessage with what it sent unfolded) and Activity and Sites with their entries, at 440 and 1280 px. A serious or critical violation fails the
 * test, with its rule, help and the elements it found. axe's own source is read from node_modules and evaluated in
 * the page: nothing is loaded from elsewhere.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { approveInWallet, clickOpeningWallet, env, openDapp, openOwnWallet, walletContext } from '../support/wallet-harness.js';

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

let axeSource: Promise<string> | undefined;
const axe = () => (axeSource ??= readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));

/** axe-core's serious and critical violations in what the page shows now, each as a line to read. */
async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(await axe());
  const violations = await page.evaluate(async () => {
    const run = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: unknown[] }> } }).axe.run;
    return (await run(document, { resultTypes: ['violations'] })).violations;
  });
  return (violations as Violation[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.map((n) => `${JSON.stringify(n.target)} ${n.failureSummary ?? ''}`).join(' | ')}`,
    );
}

async function show(page: Page, screen: string): Promise<void> {
  if (await page.locator('#sheet-close').isVisible()) await page.click('#sheet-close');
  await page.click(`#tab-${screen}`);
  await page.waitForSelector(`#screen-${screen}:not([hidden])`);
}

/**
 * A site's requests in its wallet window (the sheet with what the site sent, the drawn device), then Activity and
 * Sites with their entries, at the window's 440 px and at 1280 px.
 */
async function siteRequests(context: BrowserContext, check: (page: Page, what: string) => Promise<void>): Promise<void> {
  const { issuer } = await env();
  const { page } = await openDapp(context, issuer);
  const { popup } = await clickOpeningWallet(page, '#connect');
  await popup.click('#demo');
  await popup.waitForSelector('#demo-device[data-review="true"]');
  await check(popup, "a site's connect in the sheet (440 px)");
  await approveInWallet(popup, /Address/i);
  await page.waitForSelector('#connection[data-state="connected"]');
  await page.click('#sign-in');
  await popup.waitForSelector('#demo-device[data-review="true"]');
  await popup.click('#request-details-box summary');
  await check(popup, "a site's signMessage in the sheet, what it sent unfolded (440 px)");
  await approveInWallet(popup, /Message/);
  await popup.waitForSelector('#sheet-close:not([hidden])');
  for (const width of [440, 1280]) {
    await popup.setViewportSize({ width, height: 900 });
    for (const screen of ['activity', 'sites']) {
      await show(popup, screen);
      await check(popup, `${screen} with entries at ${width} px`);
    }
  }
  await page.close();
}

export async function walletAccessibility(): Promise<void> {
  const { wallet } = await env();
  const context = await walletContext(undefined);
  const found: Record<string, string[]> = {};
  const check = async (page: Page, what: string) => {
    const violations = await seriousViolations(page);
    if (violations.length) found[what] = violations;
  };
  // The check bites: an image without a text alternative (critical) is found, then removed.
  const control = await context.newPage();
  await control.goto(`${wallet}/`);
  await control.waitForSelector('body[data-ready="true"]');
  await control.evaluate(() => document.querySelector('main')!.append(Object.assign(document.createElement('img'), { src: 'data:,' })));
  expect((await seriousViolations(control)).join('\n')).toMatch(/^critical image-alt/m);
  await control.close();
  for (const width of [390, 1280]) {
    const page = await openOwnWallet(context, width);
    await check(page, `Home without a device at ${width} px`);
    await page.click('#demo');
    await page.waitForSelector('#account-address[data-state="known"]');
    for (const screen of ['home', 'send', 'accounts', 'activity', 'sites', 'credentials']) {
      await show(page, screen);
      await check(page, `${screen} at ${width} px`);
    }
    // The request sheet, the drawn device waiting for the store-key answer (the holder's own request).
    await page.click('#show-credentials');
    await page.waitForSelector('#demo-device[data-review="true"]');
    await check(page, `the request sheet at ${width} px`);
    await approveInWallet(page, /Unlock/);
    await page.waitForSelector('#credentials-panel[data-state="listed"]');
    await check(page, `the request sheet, done, at ${width} px`);
    await show(page, 'credentials');
    await check(page, `credentials listed at ${width} px`);
    if (width === 1280) {
      await page.emulateMedia({ colorScheme: 'dark' });
      for (const screen of ['home', 'send', 'accounts', 'activity', 'sites', 'credentials']) {
        await show(page, screen);
        await check(page, `${screen} at ${width} px, dark`);
      }
    }
    await page.close();
  }
  await siteRequests(context, check);
  await context.close();
  expect(found).toEqual({});
}
