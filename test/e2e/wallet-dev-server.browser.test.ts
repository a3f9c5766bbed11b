/**
 * `npm run wallet` as a newcomer runs it: examples/wallet/serve.ts, the wallet's and the web dapp's Vite **dev**
 * servers (modules served from src/ and node_modules one by one, CommonJS dependencies pre-bundled by Vite), not the
 * production build the other e2e file serves. One page flow in the packaged Chromium: connect the wallet's demo
 * software Ledger (NOT hardware), sign the dapp's Berkeley sample (mina-signer 3.1.0's files, whose js-sha256 and
 * blakejs are CommonJS), check the signature with mina-signer in Node; and the servers' terminal output holds no
 * warning a newcomer would have to puzzle over.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, describe, expect, it, onTestFailed } from 'vitest';
import { chromiumPath } from '../support/chromium.js';
import { REPO } from '../support/process.js';
import { verifySignedData } from '../support/wallet-checks.js';
import {
  ACCOUNT_0,
  WALLET_CHROMIUM_FLAGS,
  approveInWallet,
  clickOpeningWallet,
  expectOk,
  openDapp,
  pageError,
  result,
} from '../support/wallet-harness.js';

let server: ChildProcess | undefined;
let browser: Browser | undefined;
/** What `npm run wallet` printed (stdout and stderr), as its terminal shows it. */
let output = '';

afterAll(async () => {
  await browser?.close();
  if (server?.exitCode === null) {
    const exited = new Promise((resolve) => server!.once('close', resolve));
    server.kill('SIGTERM');
    await exited;
  }
});

/** Starts `npm run wallet` on free ports; resolves the two URLs it prints. */
async function startServe(): Promise<{ wallet: string; dapp: string }> {
  const child = spawn(join(REPO, 'node_modules/.bin/tsx'), ['examples/wallet/serve.ts', '--wallet-port', '0', '--dapp-port', '0'], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server = child;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm run wallet did not print its URLs within 120 s:\n${output}`)), 120_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const wallet = /wallet page: (http:\S+)/.exec(output)?.[1];
      const dapp = /web dapp using it: +(http:\S+)/.exec(output)?.[1];
      if (wallet && dapp) {
        clearTimeout(timer);
        resolve({ wallet, dapp });
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm run wallet exited ${code}:\n${output}`));
    });
  });
}

describe('npm run wallet (the Vite dev servers of the wallet page and the web dapp)', () => {
  it("signs the dapp's Berkeley sample command in the dev server's wallet window (its CommonJS dependencies pre-bundled), shows the result as readable fields, and prints no source-map warning", async () => {
    onTestFailed(() => console.log(`npm run wallet printed:\n${output}`));
    const [{ dapp }, executablePath] = await Promise.all([startServe(), chromiumPath()]);
    browser = await chromium.launch({ executablePath, headless: true, args: WALLET_CHROMIUM_FLAGS });
    const context = await browser.newContext();
    // The first load of each page waits for Vite to transform and pre-bundle what it imports.
    context.setDefaultTimeout(120_000);
    const { page, watched } = await openDapp(context, dapp.replace(/\/$/, ''));
    const { popup, watched: popupWatched } = await clickOpeningWallet(page, '#connect');
    await popup.click('#demo');
    await approveInWallet(popup, /Address/i);
    await page.waitForSelector('#connection[data-state="connected"]');
    expect(await page.locator('#connection').getAttribute('data-address')).toBe(ACCOUNT_0);

    await page.click('#sample-berkeley');
    await page.click('#send');
    // The device's review, or the error the dapp shows instead (a module the dev server served wrong).
    await expect
      .poll(async () => (await pageError(page, 'result-send')()) ?? (await popup.locator('#demo-device').getAttribute('data-review')), {
        timeout: 120_000,
      })
      .toBe('true');
    await approveInWallet(popup, /Review zkApp[\s\S]*You sign/);
    const sent = await result(page, 'result-send', 120_000);
    expectOk(sent);
    expect(verifySignedData('berkeley', sent.json.signedData, ACCOUNT_0)).toBe(true);
    // The dapp shows the signed command as fields a person reads (its JSON under "signedData:"), not one escaped string.
    expect(sent.text).toMatch(/^signedData:\n {2}\{\n {4}"zkappCommand": \{$/m);
    expect(sent.text).not.toContain('\\"');
    expect([...watched.errors, ...popupWatched.errors]).toEqual([]);
    expect(output).not.toMatch(/points to missing source files/);
    expect(output).not.toMatch(/error/i);
  }, 400_000);
});
