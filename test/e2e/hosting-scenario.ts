/**
 * The wallet hosted as a static host would host it: the build's `_headers` file (Netlify, Cloudflare Pages) is what
 * the dev server's rules say (examples/wallet/headers.ts), the e2e wallet server sends exactly its headers and no
 * others (test/support/headers-file.ts reads the file as those hosts do; every scenario of web-dapp.browser.test.ts
 * runs against that server), and with only those headers the site works: the wallet window is cross-origin isolated
 * with its opener kept, a site connects to the demo device, signs a sign-in text (checked with mina-signer) and makes
 * a nullifier (o1js in the isolated wallet window, checked with o1js), and the prover window is isolated by COOP.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { headersFile, walletHeadersFor } from '../../examples/wallet/headers.js';
import { verifiers, verifyNullifier } from '../support/wallet-checks.js';
import {
  ACCOUNT_0,
  REPO,
  approveInWallet,
  clickOpeningWallet,
  env,
  expectOk,
  openDapp,
  result,
  walletContext,
} from '../support/wallet-harness.js';

/** The headers a path of the served wallet got, checked against the rules: each rule's header, and nothing more. */
async function expectServedAsTheRulesSay(wallet: string, path: string): Promise<void> {
  const response = await fetch(`${wallet}${path}`);
  expect(response.status, path).toBe(200);
  const served = Object.fromEntries(
    [...response.headers].filter(
      ([name]) => !['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name),
    ),
  );
  const expected = Object.fromEntries(Object.entries(walletHeadersFor(path)).map(([name, value]) => [name.toLowerCase(), value]));
  expect(served, path).toEqual(expected);
  await response.body?.cancel();
}

export async function hostedByItsHeadersFile(): Promise<void> {
  const { wallet, issuer, walletSizes, walletO1jsChunk } = await env();
  expect(await readFile(join(REPO, 'examples/wallet/dist/_headers'), 'utf8')).toBe(headersFile());
  const initialScript = walletSizes.initial.files.find((f) => f.file.endsWith('.js'))!.file;
  for (const path of ['/', '/index.html', '/prover.html', `/${initialScript}`, walletO1jsChunk]) {
    await expectServedAsTheRulesSay(wallet, path);
  }

  const context = await walletContext(undefined);
  const { page, watched } = await openDapp(context, issuer);
  const { popup, watched: popupWatched } = await clickOpeningWallet(page, '#connect');
  expect(await popup.evaluate(() => ({ isolated: crossOriginIsolated, opener: window.opener !== null }))).toEqual({
    isolated: true,
    opener: true,
  });
  await popup.click('#demo');
  await approveInWallet(popup, /Address/i);
  await page.waitForSelector('#connection[data-state="connected"]');
  expect(await page.locator('#connection').getAttribute('data-address')).toBe(ACCOUNT_0);

  await page.click('#sign-in');
  await approveInWallet(popup, /Requested by[\s\S]*Message \(1\/\d\)/);
  const signedIn = await result(page, 'result-sign-in');
  expectOk(signedIn);
  const text = await page.locator('#sign-in-text').inputValue();
  expect(verifiers.mesa.verifyMessage({ data: text, publicKey: ACCOUNT_0, signature: signedIn.json.signature })).toBe(true);

  await page.click('#nullifier');
  await approveInWallet(popup, /nullifier/i);
  const nullifier = await result(page, 'result-nullifier', 120_000);
  expectOk(nullifier);
  await verifyNullifier(nullifier.json, ['2026', '11', '22']);

  // The prover window, opened as the wallet opens it (./prover.html): isolated by COOP + COEP from the file alone.
  const prover = await context.newPage();
  const response = await prover.goto(`${wallet}/prover.html`);
  expect(response?.headers()['cross-origin-opener-policy']).toBe('same-origin');
  expect(await prover.evaluate(() => crossOriginIsolated)).toBe(true);
  expect([...watched.errors, ...popupWatched.errors]).toEqual([]);
  await context.close();
}
