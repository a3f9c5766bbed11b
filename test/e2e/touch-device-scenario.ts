/**
 * The wallet window's demo device as a Stax, in Chromium, on a 390 px phone: the holder picks the model, and answers
 * on its touch screen as on the device: the address review (the app's NBGL address review: "Verify Mina address",
 * the address, Confirm) connects the site; a sign-in text is approved by holding "Hold to sign" (a short tap does
 * nothing); the signature verifies in the dapp. A scenario of web-dapp.browser.test.ts, which runs it on its one build
 * and servers (two test files calling `env()` at once would build into the same dist folders while the other serves
 * them).
 */
import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import {
  ACCOUNT_0,
  clickOpeningWallet,
  env,
  expectNoOverflow,
  expectOk,
  inView,
  openDapp,
  result,
  shot,
  walletContext,
} from '../support/wallet-harness.js';

/** Ragger's Stax positions of the touch use cases (ragger/firmware/touch/positions.py). */
const STAX = { next: [342, 606], confirm: [200, 515] } as const;

/** A finger on the Stax's screen at device coordinates, held `ms` milliseconds. */
async function touch(popup: Page, [x, y]: readonly [number, number], ms = 0): Promise<void> {
  const box = (await popup.locator('#device-screen').boundingBox())!;
  await popup.mouse.move(box.x + ((x + 0.5) / 400) * box.width, box.y + ((y + 0.5) / 672) * box.height);
  await popup.mouse.down();
  if (ms > 0) await popup.waitForTimeout(ms);
  await popup.mouse.up();
}

const title = (popup: Page) => popup.locator('#demo-device').getAttribute('data-title');
const shown = async (popup: Page) => (await popup.locator('#device-screen').getAttribute('aria-label')) ?? '';

/** The site connects through the Stax's touch screen, and a sign-in text is signed by holding "Hold to sign". */
export async function staxOnAPhone(): Promise<void> {
  const { issuer } = await env();
  const phone = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
  const context = await walletContext(undefined, undefined, phone);
  const { page } = await openDapp(context, issuer);
  const { popup } = await clickOpeningWallet(page, '#connect');
  await popup.selectOption('#demo-model', 'stax');
  await popup.click('#demo');
  await popup.waitForSelector('#demo-device[data-review="true"][data-model="stax"]');
  expect(await title(popup)).toBe('Verify Mina');
  expect(await inView(popup, '#device-screen')).toBe(true);
  await expectNoOverflow(popup, 'the wallet showing a Stax');
  await shot(popup, 'wallet-demo-stax-address');
  await touch(popup, STAX.confirm); // the intro: tap to continue
  expect(await title(popup)).toBe('Address');
  expect((await shown(popup)).replaceAll(' / ', '')).toContain(ACCOUNT_0);
  await touch(popup, STAX.confirm); // Confirm
  await page.waitForSelector('#connection[data-state="connected"]');
  expect(await page.locator('#connection').getAttribute('data-address')).toBe(ACCOUNT_0);
  expect(await title(popup)).toBe('Address verified');

  await page.click('#sign-in');
  await popup.waitForSelector('#demo-device[data-review="true"]');
  for (let i = 0; i < 30 && (await title(popup)) !== 'Approve'; i++) await touch(popup, STAX.next);
  expect(await title(popup)).toBe('Approve');
  expect(await shown(popup)).toContain('Hold to sign');
  await touch(popup, STAX.confirm); // a tap is not a hold
  expect(await title(popup)).toBe('Approve');
  await shot(popup, 'wallet-demo-stax-hold');
  await touch(popup, STAX.confirm, 2_600);
  const signedIn = await result(page, 'result-sign-in');
  expectOk(signedIn);
  expect(await page.locator('#result-sign-in').getAttribute('data-verified')).toBe('true');
  expect(await title(popup)).toBe('Transaction signed');
}
