/**
 * The wallet's Credentials screen (examples/wallet/src/credentials-screen.ts), end to end in the packaged Chromium
 * with the software Ledger in Node behind the wallet origin's WebHID (each review answered here, its screens read):
 * the issuer site stores a credential through its wallet window (the steps of web-dapp.browser.test.ts); the wallet
 * opened directly reads nothing of the store until the holder asks, then the device's STORE_KEY names the wallet's
 * own origin; the credential is listed with its issuer, the issuer site, its field names and never their values, and
 * the code the device showed (checked against node:crypto's sha256 of the stored text); Delete shows "Delete
 * credential <code>" on the device, and once approved it is gone, also for a fresh wallet window that lists again.
 * Screenshots of the screen at 390 and 1280 px go to docs/images/.
 */
import { createHash } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { shownValue } from '../../src/emulator/review.js';
import {
  ACCOUNT_0,
  clickOpeningWallet,
  docsImage,
  env,
  expectNoOverflow,
  expectOk,
  nodeLedger,
  openDapp,
  openOwnWallet,
  pageError,
  result,
  walletContext,
} from '../support/wallet-harness.js';

/** The wallet page opened directly (the holder's own wallet), its device reopened (allowed before), on Credentials. */
async function ownWallet(context: BrowserContext, width: number): Promise<Page> {
  const page = await openOwnWallet(context, width);
  await page.waitForSelector('#account-address[data-state="known"]');
  await page.click('#tab-credentials');
  await page.waitForSelector('#screen-credentials:not([hidden])');
  return page;
}

/** Back from the request sheet to the screen, once the holder's own request is over. */
async function closeSheet(page: Page): Promise<void> {
  await page.waitForSelector('#sheet-close:not([hidden])');
  await page.click('#sheet-close');
}

/** "Show my credentials": the device's STORE_KEY names the wallet's origin; approved, the list is shown. */
async function unlock(page: Page, device: ReturnType<typeof nodeLedger>): Promise<void> {
  const { wallet } = await env();
  await page.click('#show-credentials');
  const failed = () => page.evaluate(() => document.querySelector('#request[data-state="error"]')?.textContent ?? undefined);
  const storeKey = await device.nextReview(30_000, failed);
  expect(storeKey.review.kind).toBe('store-key');
  expect(shownValue(storeKey.review, 'Requested by')).toBe(wallet);
  storeKey.answer(true);
  await page.waitForSelector('#credentials-panel[data-state="listed"]');
  await closeSheet(page);
}

export async function walletCredentials(): Promise<void> {
  const { issuer } = await env();
  const device = nodeLedger();
  const context = await walletContext(device.ledger);

  // The issuer stores a credential through its wallet window, approved on the device.
  const { page } = await openDapp(context, issuer);
  const { popup } = await clickOpeningWallet(page, '#connect');
  await popup.click('#connect');
  (await device.nextReview()).answer(true); // the address
  await page.waitForSelector('#connection[data-state="connected"]');
  await page.click('#sample-credential');
  await expect.poll(() => page.locator('#credential').inputValue(), { timeout: 120_000 }).toMatch(/^\{/);
  await page.click('#store');
  const approval = await device.nextReview(60_000, pageError(page, 'result-store'));
  const shownCode = /Store credential ([0-9a-f]{8}) from B62q/.exec(JSON.stringify(approval.review.screens))?.[1];
  expect(shownCode).toBeDefined();
  approval.answer(true);
  (await device.nextReview()).answer(true); // the store key, for the issuer
  const stored = await result(page, 'result-store');
  expectOk(stored);
  const text: string = stored.json.credential;
  const parsed = JSON.parse(text) as { witness: { issuer: { value: string } }; credential: { data: Record<string, { value?: unknown }> } };
  // The device's code is sha256 of the stored text (computed here, independently of the wallet).
  expect(createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 8)).toBe(shownCode);

  // The holder's own wallet: Credentials reads nothing before the holder asks.
  const wallet = await ownWallet(context, 390);
  const exchanges = device.ledger.exchanges.length;
  await wallet.waitForTimeout(500);
  expect(await wallet.locator('#credentials-panel').getAttribute('data-state')).toBe('locked');
  expect(device.ledger.exchanges.length).toBe(exchanges);
  expect(device.pendingReviews()).toBe(0);
  await unlock(wallet, device);

  const item = wallet.locator('#credentials li.credential');
  expect(await item.count()).toBe(1);
  expect(await item.getAttribute('data-origin')).toBe(issuer);
  expect(await item.getAttribute('data-id')).toMatch(/^[0-9a-f]{64}$/);
  const shown = (await item.textContent()) ?? '';
  expect(shown).toContain(parsed.witness.issuer.value);
  expect(shown).toContain(`from ${issuer}`);
  expect(shown).toContain(shownCode!);
  for (const [name, field] of Object.entries(parsed.credential.data)) {
    expect(shown).toContain(name);
    // Values are private: none of the longer ones is on the screen (short numbers could be part of a date).
    if (typeof field.value === 'string' && field.value.length >= 4) expect(shown).not.toContain(field.value);
  }
  expect(await wallet.locator('#credentials-status').textContent()).toContain(`${ACCOUNT_0.slice(0, 8)}`);
  await expectNoOverflow(wallet, 'Credentials at 390 px');
  await wallet.evaluate(() => scrollTo(0, 0));
  await wallet.screenshot({ path: docsImage('wallet-credentials-390') });
  await wallet.setViewportSize({ width: 1280, height: 900 });
  await expectNoOverflow(wallet, 'Credentials at 1280 px');
  await wallet.screenshot({ path: docsImage('wallet-credentials-1280') });

  // Shown to: what the record says of presentations of this credential (the host records the holder's chosen store
  // ids, test/wallet/presented.test.ts; proving one here would take minutes), joined by the store id on the screen.
  const { verifier } = await env();
  const id = (await item.getAttribute('data-id'))!;
  await wallet.evaluate(
    ({ id, verifier }) => {
      const record = JSON.parse(localStorage.getItem('chain-ledger:activity') ?? '[]') as unknown[];
      record.push({
        at: new Date().toISOString(),
        origin: verifier,
        network: 'mina:devnet',
        kind: 'presentation',
        method: 'chain_requestPresentation',
        title: 'Presented a credential',
        detail: 'revealed {}',
        credentialIds: [id],
      });
      localStorage.setItem('chain-ledger:activity', JSON.stringify(record));
    },
    { id, verifier },
  );
  await wallet.click('#tab-home');
  await wallet.click('#tab-credentials');
  expect(await item.getAttribute('data-presented')).toBe('1');
  expect(await item.textContent()).toContain(`Shown to${verifier} (`);

  // Delete, approved on the device with the code the store approval showed: gone.
  await wallet.click('#credentials button.delete-credential');
  const deletion = await device.nextReview();
  expect(JSON.stringify(deletion.review.screens)).toContain(`Delete credential ${shownCode}`);
  deletion.answer(true);
  await wallet.waitForSelector('#credentials-panel[data-count="0"]');
  await closeSheet(wallet);
  expect(await wallet.locator('#credentials-status').textContent()).toBe(`Deleted the credential ${shownCode}.`);
  // A fresh wallet window reads the store again (its own STORE_KEY approval): nothing there.
  const again = await ownWallet(context, 390);
  await unlock(again, device);
  expect(await again.locator('#credentials-panel').getAttribute('data-count')).toBe('0');
  await context.close();
}
