import Client from 'mina-signer';
import type { BrowserContext } from 'playwright-core';
import { expect } from 'vitest';
import {
  ACCOUNT_0,
  approveInWallet,
  clickOpeningWallet,
  docsImage,
  env,
  expectNoOverflow,
  expectOk,
  openDapp,
  openOwnWallet,
  result,
  routeCheckedNode,
  walletContext,
  walletScreen,
} from '../support/wallet-harness.js';

const NODE = 'https://node.example/graphql';
/** 42.5 MINA, nonce 2: what the routed node says of account 0. */
const BALANCE = '42500000000';

/** Every GraphQL request the wallet sent the node, with the schema's verdict on it: account 0 is known, others not. */
const routeNode = (context: BrowserContext) =>
  routeCheckedNode(context, NODE, (_operation, variables) => ({
    account: variables.publicKey === ACCOUNT_0 ? { balance: { total: BALANCE }, nonce: '2', inferredNonce: '2' } : null,
  }));

export async function walletScreens(): Promise<void> {
  const { issuer } = await env();
  const context = await walletContext(undefined);
  const queries = await routeNode(context);

  // Home, the holder's own wallet: the device's account 0, its balance and nonce from the node.
  const wallet = await openOwnWallet(context, 390);
  await wallet.fill('#graphql', NODE);
  await wallet.locator('#graphql').dispatchEvent('change');
  await wallet.click('#demo');
  await wallet.waitForSelector('#account-address[data-state="known"]');
  expect(await wallet.locator('#account-address').textContent()).toBe(ACCOUNT_0);
  await wallet.waitForSelector('#balance[data-state="ok"]');
  expect(await wallet.locator('#balance').textContent()).toBe('42.5 MINA');
  expect(await wallet.locator('#nonce').textContent()).toBe('Nonce 2');
  expect(await wallet.locator('#device-app').textContent()).toBe('1.6.0');
  expect(await wallet.locator('#device-firmware').getAttribute('data-extension')).toBe('true');
  expect(await wallet.locator('#device-blind').textContent()).toMatch(/^On\. /);
  expect(await wallet.locator('#network').inputValue()).toBe('mina:devnet');
  expect(queries.length).toBeGreaterThan(0);
  expect(
    queries.every((q) => q.operation === 'walletAccount' && q.errors.length === 0),
    JSON.stringify(queries),
  ).toBe(true);
  await expectNoOverflow(wallet, 'Home at 390 px');
  expect(
    await wallet
      .locator('#tab-home')
      .boundingBox()
      .then((box) => box!.height),
  ).toBeGreaterThanOrEqual(44); // a thumb's target
  await wallet.evaluate(() => scrollTo(0, 0)); // the node field's fill scrolled it
  await wallet.screenshot({ path: docsImage('wallet-home-390') });

  // The switcher: mainnet, then back to devnet; the balance is read again each time (the same node, asked for it).
  const before = queries.length;
  await wallet.selectOption('#network', 'mina:mainnet');
  expect(await wallet.locator('#network-note').getAttribute('data-network')).toBe('mina:mainnet');
  await wallet.selectOption('#network', 'mina:devnet');
  await expect.poll(() => queries.length).toBeGreaterThanOrEqual(before + 2);
  await wallet.waitForSelector('#balance[data-state="ok"]');

  // A site connects and signs in, in its wallet window: the request is a sheet over the wallet.
  const { page } = await openDapp(context, issuer);
  const { popup } = await clickOpeningWallet(page, '#connect');
  await popup.click('#demo');
  await approveInWallet(popup, /Address/i);
  await page.waitForSelector('#connection[data-state="connected"]');
  await page.click('#sign-in');
  await popup.waitForSelector('#demo-device[data-review="true"]');
  expect(await popup.locator('#sheet').isVisible()).toBe(true);
  await popup.screenshot({ path: docsImage('wallet-sheet-440') });
  await approveInWallet(popup, /Requested by[\s\S]*Message/);
  const signed = await result(page, 'result-sign-in');
  expectOk(signed);
  const text = await page.locator('#sign-in-text').inputValue();
  expect(new Client({ network: 'testnet' }).verifyMessage({ data: text, publicKey: ACCOUNT_0, signature: signed.json.signature })).toBe(
    true,
  );

  // Activity: the sign-in, for the issuer, newest first.
  await walletScreen(popup, 'activity');
  const entries = popup.locator('#activity li.entry');
  await expect.poll(() => entries.count()).toBe(1);
  expect(await entries.first().getAttribute('data-kind')).toBe('message');
  expect(await entries.first().getAttribute('data-origin')).toBe(issuer);
  expect(await entries.first().textContent()).toContain('Signed a message');

  // Sites: the issuer, with its account and network; the holder's own window lists it too (one storage).
  await walletScreen(popup, 'sites');
  const site = popup.locator(`#sites li[data-origin="${issuer}"]`);
  expect(await site.textContent()).toMatch(/mina:devnet/);
  expect(await site.getAttribute('data-origin')).toBe(issuer);
  for (const width of [390, 1280]) {
    const shown = await openOwnWallet(context, width);
    for (const screen of ['activity', 'sites'] as const) {
      await walletScreen(shown, screen);
      await expectNoOverflow(shown, `${screen} at ${width} px`);
      await shown.screenshot({ path: docsImage(`wallet-${screen}-${width}`) });
    }
    if (width === 1280) {
      await walletScreen(shown, 'home');
      await shown.click('#demo');
      await shown.waitForSelector('#balance[data-state="ok"]');
      await shown.screenshot({ path: docsImage('wallet-home-1280') });
      // Dark, as the holder's system asks (prefers-color-scheme): the same screens in the dark theme.
      await shown.emulateMedia({ colorScheme: 'dark' });
      await shown.screenshot({ path: docsImage('wallet-home-1280-dark') });
      await walletScreen(shown, 'activity');
      await shown.screenshot({ path: docsImage('wallet-activity-1280-dark') });
    }
    await shown.close();
  }

  // Revoke: the site's next call is refused with 1001, and nothing more is recorded.
  await popup.click(`#sites button.revoke[data-origin="${issuer}"]`);
  await expect.poll(() => popup.locator(`#sites li[data-origin="${issuer}"]`).count()).toBe(0);
  // The page's own call (its sign-in button would ask to connect again, a new address review): refused, no prompt.
  const refused = await page.evaluate(() =>
    window.chain!.request({ method: 'chain_signMessage', params: { message: 'after the revoke' } }).then(
      () => 'resolved',
      (e: { code: number }) => e.code,
    ),
  );
  expect(refused).toBe(1001);
  expect(await popup.locator('#demo-device').getAttribute('data-review')).not.toBe('true');
  await walletScreen(popup, 'activity');
  expect(await popup.locator('#activity li.entry').count()).toBe(1);
  await context.close();
}
