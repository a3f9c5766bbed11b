/**
 * The bodies of the web dapp e2e test's self-contained scenarios, each in a browser context and with a device of its
 * own: demo mode, a 360 px phone on the released app, Ledger DMK over WebHID, the prover window of a browser without
 * site isolation, a wallet window replaced by a look-alike. Their titles, timeouts and order are in web-dapp.browser.test.ts, the one test file that runs them,
 * beside the shared flow (one build and one set of servers for all: test/support/wallet-harness.ts `env()`).
 */
import { createServer } from 'node:http';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { shownValue } from '../../src/emulator/review.js';
import { circuitEntries, circuitOf, seedKeyCache } from '../support/key-cache.js';
import { FULL_RUNS } from '../support/runs.js';
import { addressOf } from '../support/vectors.js';
import { handOverWithStateWrite } from '../support/zkapp.js';
import {
  canvasBits,
  firstAddressScreen,
  hidWire,
  verifiers,
  verifyNullifier,
  verifyPresentation,
  verifySignedData,
} from '../support/wallet-checks.js';
import {
  ACCOUNT_0,
  answerPresentation,
  approveInWallet,
  browserWithoutSiteIsolation,
  clickOpeningWallet,
  env,
  expectNoOverflow,
  expectOk,
  inView,
  type NodeLedger,
  nodeLedger,
  openDapp,
  pageError,
  result,
  shot,
  presentationReview,
  walletContext,
  walletStoragePage,
  watch,
} from '../support/wallet-harness.js';

/** The wallet's question panel as the holder reads it: one line per paragraph, title, label and value. */
const panelText = (popup: Page) =>
  popup.locator('#summary-text').evaluate((panel) => [...panel.querySelectorAll('p, h3, dt, dd')].map((e) => e.textContent).join('\n'));

/** The demo mode test: the wallet window isolated with its opener kept, its software Ledger drawn as the device
 * draws it, a sign-in text, a zkApp command in clear and a nullifier, each verified in Node. */
export async function demoModeInTheWalletWindow(): Promise<void> {
  const { issuer, sizes, walletO1jsChunk } = await env();
  const context = await walletContext(undefined);
  const { page, watched } = await openDapp(context, issuer);
  const { popup, watched: popupWatched } = await clickOpeningWallet(page, '#connect');
  expect(await popup.evaluate(() => ({ isolated: crossOriginIsolated, opener: window.opener !== null }))).toEqual({
    isolated: true,
    opener: true,
  });
  expect(await popup.locator('#site').getAttribute('data-origin')).toBe(issuer);
  await popup.click('#demo');
  expect(await popup.locator('#demo-banner').textContent()).toMatch(/NOT HARDWARE/);
  // The device drawn as the device draws it: the address review's first screen, pixel for pixel as renderScreen
  // draws it in Node, at an integer scale.
  await popup.waitForSelector('#demo-device[data-review="true"]');
  const expected = await firstAddressScreen();
  expect(await canvasBits(popup)).toEqual({ integerScale: true, bits: expected });
  expect(await inView(popup, '#request-card')).toBe(true);
  expect(await inView(popup, '#device-screen', true)).toBe(true);
  await approveInWallet(popup, /Address/i);
  await page.waitForSelector('#connection[data-state="connected"]');
  expect(await page.locator('#connection').getAttribute('data-address')).toBe(ACCOUNT_0);
  await shot(popup, 'wallet-demo-connected');

  // Sign in: a 296-byte sign-in text, several lines, signed on the device (the extension's SIGN_TEXT) and checked by
  // the dapp against its own text; checked again here, with mina-signer in Node.
  await page.click('#sign-in');
  await approveInWallet(popup, /Requested by[\s\S]*Message \(1\/\d\)/);
  const signedIn = await result(page, 'result-sign-in');
  expectOk(signedIn);
  expect(await page.locator('#result-sign-in').getAttribute('data-verified')).toBe('true');
  const text = await page.locator('#sign-in-text').inputValue();
  expect(text.split('\n').length).toBeGreaterThan(5);
  expect(new TextEncoder().encode(text).length).toBeGreaterThan(280);
  expect(signedIn.json.data).toBe(text);
  expect(verifiers.mesa.verifyMessage({ data: text, publicKey: ACCOUNT_0, signature: signedIn.json.signature })).toBe(true);

  await page.click('#sample-berkeley');
  await page.click('#send');
  await expect.poll(() => popup.locator('#status').textContent()).toMatch(/^Review the zkApp transaction on your Ledger/);
  expect(await popup.locator('#request').textContent()).toBe(`${issuer} asks: chain_sendTransaction`);
  // The request where the user looks: the wallet's request panel and the device; the dapp's waiting line.
  expect(await inView(popup, '#request-card')).toBe(true);
  expect(await inView(popup, '#device-screen', true)).toBe(true);
  expect(await popup.evaluate(() => document.getElementById('request-card')!.contains(document.activeElement))).toBe(true);
  expect(await inView(page, '#result-send')).toBe(true);
  expect(await page.locator('#result-send').textContent()).toMatch(/^Confirm on your Ledger \(see the wallet window\)… \d+ s$/);
  await shot(popup, 'wallet-demo-confirm');
  await approveInWallet(popup, /Review zkApp[\s\S]*You sign/);
  const sent = await result(page, 'result-send');
  expectOk(sent);
  expect(verifySignedData('berkeley', sent.json.signedData, ACCOUNT_0)).toBe(true);

  // o1js: the wallet loads it for the first method that needs it; the dapp never (no sample button was used).
  expect(popupWatched.requests).not.toContain(walletO1jsChunk);
  await page.click('#nullifier');
  await approveInWallet(popup, /nullifier/i);
  const nullifier = await result(page, 'result-nullifier', 120_000);
  expectOk(nullifier);
  expect(popupWatched.requests).toContain(walletO1jsChunk);
  expect(watched.requests).not.toContain(`/${sizes.o1js[0]!.file}`);
  await verifyNullifier(nullifier.json, ['2026', '11', '22']);
  await shot(page, 'dapp-demo-results');
  expect([...watched.errors, ...popupWatched.errors]).toEqual([]);
  await context.close();
}

/** The 360 px phone test: nothing sticks out sideways at any step; on the released app a sign-in text is refused
 * at once (20006 and the reason) and a zkApp command is summarized in the wallet before the device signs it blind. */
export async function phoneLayoutOnTheReleasedApp(): Promise<void> {
  const { issuer } = await env();
  const phone = { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true };
  const context = await walletContext(undefined, undefined, phone);
  const { page, watched } = await openDapp(context, issuer);
  await expectNoOverflow(page, 'the dapp at load');
  const { popup, watched: popupWatched } = await clickOpeningWallet(page, '#connect');
  expect(popup.viewportSize()?.width).toBe(360);
  await expectNoOverflow(popup, 'the wallet at load');
  await popup.selectOption('#demo-firmware', 'released');
  await popup.click('#demo');
  await popup.waitForSelector('#demo-device[data-review="true"]');
  await expectNoOverflow(popup, 'the wallet showing the device');
  expect(await inView(popup, '#request-card')).toBe(true);
  expect(await inView(popup, '#device-screen', true)).toBe(true);
  await approveInWallet(popup, /Address/i);
  await page.waitForSelector('#connection[data-state="connected"]');
  await expectNoOverflow(page, 'the dapp connected');
  await expectNoOverflow(popup, 'the wallet connected');
  // The address is shortened, whole in its data and copied by its button.
  expect(await page.locator('#connection').textContent()).toBe(`Connected: ${ACCOUNT_0.slice(0, 8)}…${ACCOUNT_0.slice(-6)} on mina:devnet`);
  expect(await page.locator('#copy-address').isVisible()).toBe(true);

  await page.click('#sign-in');
  const refused = await result(page, 'result-sign-in');
  expect(refused.json).toMatchObject({ code: 20006, message: 'Method not supported.' });
  expect(refused.text.split('\n')[1]).toMatch(/^Why: .*1 to 65 printable ASCII bytes \(INS 05\); this message is \d{3} bytes.*SIGN_TEXT/);
  expect(await popup.locator('#demo-device').getAttribute('data-review')).toBe('false'); // never shown on the device
  await expectNoOverflow(page, 'the dapp showing the refusal');
  await shot(page, 'dapp-360-released-sign-in-refused');
  await shot(popup, 'wallet-360-released');
  // A zkApp command on the released app, whose device shows only its hash: the wallet first shows the host's
  // summary (confirmZkapp) in its request panel, and the device is asked only once the user continues.
  await page.click('#sample-berkeley');
  await page.click('#send');
  await popup.waitForSelector('#summary:not([hidden])');
  // The library's whole review (zkappSummaryView) as the holder reads it: one line per label and per value.
  const summary = await panelText(popup);
  expect(summary).toMatch(
    new RegExp(`^${issuer.replace(/[.]/g, '\\.')} asks you to sign a zkApp command on Devnet \\(mina:devnet\\)\\.$`, 'm'),
  );
  expect(summary).toMatch(new RegExp(`^Fee payer\n${ACCOUNT_0} \\(you\\)$`, 'm')); // whole, in unbreakable groups of five
  expect(summary).toMatch(/^Fee\n0\.1 MINA$/m);
  expect(summary).toMatch(/^(⚠ )?Nonce\n\d+ \(/m);
  expect(summary).toMatch(/^Update 3 of 3\nAccount\nB62\w{52}\nToken\nMINA\nBalance\n\+1 MINA$/m);
  expect(summary).toMatch(/^You sign\nthe fee payer and updates 1, 2 \(full commitment\)/m);
  expect(summary).toMatch(/^MINA leaving your account\n2\.1 MINA \(fee included\)$/m);
  expect(await popup.locator('#demo-device').getAttribute('data-review')).toBe('false'); // nothing on the device yet
  expect(await inView(popup, '#summary')).toBe(true);
  await expectNoOverflow(popup, 'the wallet showing the blind summary');
  await shot(popup, 'wallet-360-blind-summary');
  // A second question while the summary waits (the site's switchChain) is queued behind it: the summary stays, its
  // button answers the summary only, and the switch is asked next with its own buttons (here refused: 1002).
  await page.evaluate(() => {
    const w = window as unknown as { chain: { switchChain(args: unknown): Promise<unknown> }; switched?: Promise<unknown> };
    w.switched = w.chain.switchChain({ networkID: 'mina:mainnet' }).then(
      () => 'switched',
      (error: { code: number }) => error.code,
    );
  });
  await popup.waitForSelector('#request[data-method="chain_switchChain"]');
  await popup.evaluate(() => new Promise((resolve) => setTimeout(resolve))); // the host has asked its question now
  expect(await panelText(popup)).toBe(summary);
  await popup.click('#summary-approve');
  await popup.waitForSelector('#summary:not([hidden])');
  await expect
    .poll(() => popup.locator('#summary-text').textContent())
    .toMatch(/asks to switch the network from mina:devnet to mina:mainnet/);
  await approveInWallet(popup, /Blind[\s\S]*Signing/);
  await popup.click('#summary-reject');
  expect(await page.evaluate(() => (window as unknown as { switched: Promise<unknown> }).switched)).toBe(1002);
  const sentBlind = await result(page, 'result-send');
  expectOk(sentBlind);
  expect(verifySignedData('berkeley', sentBlind.json.signedData, ACCOUNT_0)).toBe(true);
  // What the wallet's review must never drop: a zkApp's state write under the holder's signature, and the holder's
  // own send set to None. The page asks; the wallet shows both with their values; refused there, nothing is signed.
  const handOver = handOverWithStateWrite(addressOf(1));
  await page.evaluate((transaction) => {
    const w = window as unknown as { chain: { sendTransaction(args: unknown): Promise<unknown> }; handedOver?: Promise<unknown> };
    w.handedOver = w.chain.sendTransaction({ transaction, onlySign: true }).then(
      () => 'signed',
      (error: { code: number }) => error.code,
    );
  }, handOver);
  await expect.poll(() => panelText(popup)).toMatch(/^Update 4 of 4$/m);
  const review = await panelText(popup);
  expect(review).toMatch(new RegExp(`^Update 4 of 4\nAccount\n${addressOf(1)}\nToken\nMINA\nSets state 0\n42\nSets state 1\n7\n`, 'm'));
  expect(review).toMatch(new RegExp(`^Update 2 of 4\nAccount\n${ACCOUNT_0} \\(you\\)\n`, 'm'));
  expect(review).toMatch(
    /^⚠ Permissions\n[^\n]*send None[^\n]*: anyone may then send, setPermissions on your account without your signature$/m,
  );
  expect(await popup.locator('.review-row[data-flag="danger"]').count()).toBe(2); // the permissions, and "Changes your account"
  await expectNoOverflow(popup, 'the wallet showing a command that hands the account over');
  await popup.click('#summary-reject');
  expect(await page.evaluate(() => (window as unknown as { handedOver: Promise<unknown> }).handedOver)).toBe(1002);
  expect(await popup.locator('#demo-device').getAttribute('data-review')).toBe('false'); // never shown on the device
  // The same pages at 390 × 844.
  await page.setViewportSize({ width: 390, height: 844 });
  await popup.setViewportSize({ width: 390, height: 720 });
  await expectNoOverflow(page, 'the dapp at 390 px');
  await expectNoOverflow(popup, 'the wallet at 390 px');
  await shot(page, 'dapp-390-released-sign-in-refused');
  await shot(popup, 'wallet-390-released');
  expect([...watched.errors, ...popupWatched.errors]).toEqual([]);
  await context.close();
}

/** The Ledger DMK test: over WebHID (the test HID shim), the Mina app opened from the dashboard, the site connects
 * and makes a nullifier; DMK is a lazy chunk of the wallet. */
export async function ledgerDmkOverWebHid(): Promise<void> {
  const { issuer, walletSizes } = await env();
  const device = nodeLedger({ appOpen: false });
  const context = await walletContext(device.ledger);
  const { page, watched } = await openDapp(context, issuer);
  const { popup, watched: popupWatched } = await clickOpeningWallet(page, '#connect');
  // DMK is a lazy chunk of the wallet: loaded by its click, not with the wallet window.
  const dmkChunks = walletSizes.lazy.files.filter((f) => f.packages.includes('@ledgerhq/device-management-kit')).map((f) => `/${f.file}`);
  expect(dmkChunks.length).toBeGreaterThan(0);
  expect(popupWatched.requests.filter((r) => dmkChunks.includes(r))).toEqual([]);
  expect(await popup.locator('#connect-ble').isHidden()).toBe(true); // headless Chromium has no Web Bluetooth
  await popup.click('#connect-dmk');
  // The device action opens the Mina app for the user: the dashboard asks, the wallet says so.
  const open = await device.nextReview();
  expect(open.review.kind).toBe('open-app');
  await expect.poll(() => popup.locator('#status').textContent()).toBe('Open the Mina app: confirm on your Ledger');
  open.answer(true);
  const address = await device.nextReview();
  expect(address.review.kind).toBe('address');
  address.answer(true);
  await page.waitForSelector('#connection[data-state="connected"]');
  expect(await page.locator('#connection').getAttribute('data-address')).toBe(ACCOUNT_0);
  expect(device.ledger.appOpen).toBe(true);
  expect(await hidWire(popup)).toMatchObject({ calls: { requestDevice: 1 }, errors: 0 });
  expect(device.ledger.exchanges.some((e) => e.request.startsWith('e0d8'))).toBe(true);

  await page.fill('#nullifier-message', '4, 5');
  await page.click('#nullifier');
  const review = await device.nextReview();
  expect(review.review.kind).toBe('nullifier');
  review.answer(true);
  const nullifier = await result(page, 'result-nullifier', 120_000);
  expectOk(nullifier);
  await verifyNullifier(nullifier.json, ['4', '5']);
  await shot(popup, 'wallet-dmk-webhid');
  expect([...watched.errors, ...popupWatched.errors]).toEqual([]);
  await context.close();
}

/** The prover window test: in a browser that ignores Document-Isolation-Policy the wallet asks the user to open its
 * prover window (COOP + COEP) and compiles there; then the owner rejects (1002), or, with CHAIN_LEDGER_FULL_RUNS=1,
 * the presentation verifies. */
export async function proverWindowWithoutSiteIsolation(): Promise<void> {
  const { issuer } = await env();
  const device = nodeLedger();
  const context = await walletContext(device.ledger, await browserWithoutSiteIsolation());
  const { page, watched } = await openDapp(context, issuer);
  const { popup, watched: popupWatched } = await clickOpeningWallet(page, '#connect');
  expect(await popup.evaluate(() => ({ isolated: crossOriginIsolated, opener: window.opener !== null }))).toEqual({
    isolated: false,
    opener: true,
  });
  expect(await popup.locator('#isolation').getAttribute('data-isolated')).toBe('false');
  await popup.click('#connect');
  (await device.nextReview()).answer(true); // the address
  await page.waitForSelector('#connection[data-state="connected"]');
  await page.click('#sample-credential');
  await expect.poll(() => page.locator('#credential').inputValue(), { timeout: 120_000 }).toMatch(/^\{/);
  await page.click('#store');
  (await device.nextReview(60_000, pageError(page, 'result-store'))).answer(true); // the credential
  (await device.nextReview()).answer(true); // the store key
  expectOk(await result(page, 'result-store'));
  await page.click('#sample-request');
  await expect.poll(() => page.locator('#presentation-request').inputValue(), { timeout: 120_000 }).toMatch(/^\{/);
  const requestJson = await page.locator('#presentation-request').inputValue();
  const entries = circuitEntries(circuitOf(requestJson));
  const storage = await walletStoragePage(context); // the wallet origin's IndexedDB
  await seedKeyCache(storage, FULL_RUNS ? [] : entries.filter((id) => id !== 'lagrange-basis-fp-8192'));

  await page.click('#present');
  // The wallet says what it waits for, with its button beside the line and focused; the dapp says it too (the
  // waiting-for-prover-window stage), instead of "Compiling…" while nothing happens.
  await expect
    .poll(() => popup.locator('#status').textContent())
    .toMatch(/^To prove, open the prover window: .* ends in 2 minutes without it\.$/);
  expect(await inView(popup, '#status', true)).toBe(true);
  expect(await inView(popup, '#open-prover', true)).toBe(true);
  expect(await popup.evaluate(() => document.activeElement?.id)).toBe('open-prover');
  await expect
    .poll(() => page.locator('#result-present').textContent())
    .toMatch(/^Your wallet cannot prove in its window: click "Open the prover window" there… \d+ s$/);
  await shot(popup, 'wallet-waiting-for-prover-window');
  const opened = popup.waitForEvent('popup');
  await popup.click('#open-prover'); // a click in the wallet window: the browser lets it open a window
  const prover = await opened;
  const proverWatched = watch(prover);
  await prover.waitForSelector('body[data-ready="true"]');
  expect(await prover.evaluate(() => ({ isolated: crossOriginIsolated, opener: window.opener !== null }))).toEqual({
    isolated: true,
    opener: false,
  });
  // The holder's review in the wallet window (the compile began in the prover window meanwhile), then the device.
  await presentationReview(popup);
  await answerPresentation(popup, 'approve');
  const owner = await device.nextReview(400_000, pageError(page, 'result-present'));
  expect(owner.review.kind).toBe('presentation');
  // Once the prover window answered, the compile went on there: the dapp was told so.
  expect(await page.locator('#result-present').getAttribute('data-stages')).toMatch(/\bcompiling waiting-for-prover-window compiling\b/);
  expect(shownValue(owner.review, 'Verifier')).toBe(issuer);
  // The compile ran in the prover window's Worker (its key-cache report), not in the wallet window.
  expect(proverWatched.reports[0]).toMatchObject({ phase: 'compile', circuit: circuitOf(requestJson) });
  expect(popupWatched.reports).toEqual([]);
  if (!FULL_RUNS) {
    owner.answer(false);
    expect((await result(page, 'result-present', 120_000)).code).toBe(1002);
  } else {
    owner.answer(true);
    const presented = await result(page, 'result-present', 400_000);
    expectOk(presented);
    await verifyPresentation(requestJson, presented.json.presentation, issuer);
  }
  // o1js, loaded in the wallet window to validate the credential, tries to start its wasm threads, which cannot start
  // in a window that is not isolated: the wallet handles that (it proves in the prover window) and says so, once.
  expect(popupWatched.lines.filter((l) => /o1js cannot start its worker threads in this window/.test(l))).toHaveLength(1);
  // o1js's wasm threads may trap after a proof (o1-labs/o1js#2870); either message, and only in the prover window.
  const WASM_TRAPS_AFTER_PROOF = ['memory access out of bounds', 'operation does not support unaligned accesses'];
  expect([...watched.errors, ...popupWatched.errors, ...proverWatched.errors.filter((e) => !WASM_TRAPS_AFTER_PROOF.includes(e))]).toEqual(
    [],
  );
}

/**
 * A look-alike of the wallet page at a loopback site of its own (127.0.0.5): it asks for the recovery phrase, answers
 * its opener as the wallet would (`ready`, a `welcome` and an account of its own), and reports to the test every
 * message it receives and the window name it finds (`__lookAlikeSaw`, a binding of the test's browser context).
 */
async function serveLookAlike(): Promise<{ origin: string; close(): Promise<void> }> {
  const page = `<!doctype html><meta charset="utf-8"><title>chain-ledger wallet</title>
<h1>chain-ledger wallet</h1><p>Enter your 24 words to continue</p><textarea></textarea>
<script>
  addEventListener('message', (event) => window.__lookAlikeSaw({ origin: event.origin, data: event.data }));
  window.__lookAlikeSaw({ loaded: true, name: window.name });
  const as = (message) => window.opener?.postMessage({ protocol: 'chain-ledger/connect@2', ...message }, '*');
  as({ type: 'ready' });
  as({ type: 'welcome', networkID: 'mina:mainnet', accounts: ['B62qSPOOFED'] });
  as({ type: 'event', event: 'accountsChanged', args: [['B62qSPOOFED']] });
</script>`;
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.5', resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.5:${port}`,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/**
 * What a script of the dapp page can get, injected before the page's own (as the review's attacker did): the message
 * listeners the page adds (it replaces addEventListener), the wallet window's handle (the `source` of the wallet's
 * messages, which every listener of the page sees), the accounts the dapp is told, and when each pong arrives.
 */
function pageScriptProbe(walletOrigin: string): void {
  if (location.origin === walletOrigin || !location.protocol.startsWith('http')) return;
  const probe = { listeners: [] as EventListener[], wallet: undefined as unknown, pongs: [] as number[], accounts: [] as string[][] };
  (window as unknown as { __probe: typeof probe }).__probe = probe;
  const add = window.addEventListener.bind(window);
  window.addEventListener = ((type: string, listener: EventListener, options?: unknown) => {
    if (type === 'message') probe.listeners.push(listener);
    return add(type, listener, options as AddEventListenerOptions);
  }) as typeof window.addEventListener;
  add(
    'message',
    (event: MessageEvent) => {
      if (event.origin !== walletOrigin) return;
      probe.wallet = event.source;
      if ((event.data as { type?: string })?.type === 'pong') probe.pongs.push(performance.now());
    },
    true,
  );
  addEventListener('DOMContentLoaded', () =>
    (window as unknown as { chain?: { on(e: string, f: (a: string[]) => void): void } }).chain?.on('accountsChanged', (a) =>
      probe.accounts.push(a),
    ),
  );
}

/** The longest time between two pongs the dapp page received (the connector pings every 2 s). */
const longestPongGap = (page: Page) =>
  page.evaluate(() => {
    const { pongs } = (window as unknown as { __probe: { pongs: number[] } }).__probe;
    return Math.round(Math.max(0, ...pongs.slice(1).map((t, i) => t - pongs[i]!)));
  });

/** Connects the dapp in a new wallet window (the Ledger allowed before is reopened, or chosen once). */
async function connectInNewWalletWindow(page: Page, device: NodeLedger, choose: boolean): Promise<Page> {
  const { popup } = await clickOpeningWallet(page, '#connect');
  if (choose) await popup.click('#connect');
  (await device.nextReview()).answer(true); // the address
  await page.waitForSelector('#connection[data-state="connected"]');
  return popup;
}

/**
 * The replaced wallet window test: a script of the dapp page navigates the wallet window to a look-alike while a call
 * waits on the device; the call ends with 1001 naming why, the look-alike receives nothing from the connector and is
 * closed, the next call opens a new wallet window; a stuck wallet window is noticed by its unanswered pings; made-up
 * events given to the connector's captured listener change nothing.
 */
export async function replacedWalletWindow(): Promise<void> {
  const { issuer, wallet } = await env();
  const lookAlike = await serveLookAlike();
  try {
    const device = nodeLedger();
    const context = await walletContext(device.ledger);
    const saw: Record<string, unknown>[] = [];
    await context.exposeBinding('__lookAlikeSaw', (source, entry: Record<string, unknown>) => {
      if (new URL(source.frame.url()).origin === lookAlike.origin) saw.push(entry);
    });
    await context.addInitScript(pageScriptProbe, wallet);
    const { page, watched } = await openDapp(context, issuer);
    const first = await connectInNewWalletWindow(page, device, true);
    const name = await first.evaluate(() => window.name);
    expect(name).toMatch(/^chain-ledger-wallet-[A-Za-z0-9_-]{22}$/);
    // By the name it had before, a script of the page finds no wallet window: the browser opens a blank one.
    expect(
      await page.evaluate(() => {
        const found = window.open('', 'chain-ledger-wallet')!;
        const href = found.location.href; // readable: a same-origin about:blank (the wallet's would throw)
        found.close();
        return href;
      }),
    ).toBe('about:blank');
    // The review's made-up event, given to the connector's captured listener: nothing changes.
    await page.evaluate((walletOrigin) => {
      const { listeners, wallet: source } = (window as unknown as { __probe: { listeners: EventListener[]; wallet: unknown } }).__probe;
      const data = { protocol: 'chain-ledger/connect@2', type: 'event', event: 'accountsChanged', args: [['B62qSPOOFED']] };
      for (const listener of listeners) listener({ isTrusted: true, type: 'message', data, origin: walletOrigin, source } as never);
    }, wallet);

    // A nullifier, served: o1js loads and verifies in the wallet window's main thread meanwhile.
    await page.click('#nullifier');
    (await device.nextReview()).answer(true);
    expectOk(await result(page, 'result-nullifier', 120_000));
    const busyGap = await longestPongGap(page);

    // The attack: a call waits on the device; the page's script sends the wallet window to the look-alike.
    await page.fill('#nullifier-message', '5, 6');
    await page.click('#nullifier');
    const waiting = await device.nextReview();
    const sent = Date.now();
    await page.evaluate((url) => {
      (window as unknown as { __probe: { wallet: { location: { href: string } } } }).__probe.wallet.location.href = url;
    }, `${lookAlike.origin}/`);
    const ended = await result(page, 'result-nullifier', 30_000);
    const noticedMs = Date.now() - sent;
    expect(ended.json).toEqual({
      code: 1001,
      message: 'User disconnect, please connect first.',
      data: { reason: 'the wallet window navigated away to another page' },
    });
    await expect.poll(() => first.isClosed()).toBe(true); // the connector closed the look-alike
    waiting.answer(false);
    // The look-alike loaded in the wallet's window (it read its name there) and received nothing.
    expect(saw).toEqual([{ loaded: true, name }]);
    const accounts = await page.evaluate(() => (window as unknown as { __probe: { accounts: string[][] } }).__probe.accounts);
    expect(accounts.flat()).not.toContain('B62qSPOOFED');
    expect(await page.locator('#connection').getAttribute('data-state')).toBe('disconnected');

    // The next call opens a new wallet window, under another name, at the wallet's origin.
    const second = await connectInNewWalletWindow(page, device, false);
    expect(new URL(second.url()).origin).toBe(wallet);
    const secondName = await second.evaluate(() => window.name);
    expect(secondName).toMatch(/^chain-ledger-wallet-[A-Za-z0-9_-]{22}$/);
    expect(secondName).not.toBe(name);

    // A wallet window that stops answering: its page's main thread stuck (here a 20 s loop), its pings unanswered.
    const stuck = second.evaluate(() => {
      for (const end = Date.now() + 20_000; Date.now() < end; );
    });
    stuck.catch(() => undefined); // the page is closed while it loops
    const stuckAt = Date.now();
    await page.click('#nullifier');
    const unanswered = await result(page, 'result-nullifier', 30_000);
    const stuckNoticedMs = Date.now() - stuckAt;
    expect(unanswered.json).toMatchObject({ code: 1001, data: { reason: 'the wallet window stopped answering (no answer within 8 s)' } });
    // Closed by the connector: the browser closes it once its main thread lets go (its pagehide runs first).
    await expect.poll(() => second.isClosed(), { timeout: 60_000 }).toBe(true);
    console.log(
      `wallet window: replaced by a look-alike, noticed in ${noticedMs} ms (bye, then no new wallet page); stuck, noticed in ` +
        `${stuckNoticedMs} ms (unanswered pings); longest time between pongs while the wallet loaded o1js and verified a nullifier: ${busyGap} ms`,
    );
    expect(watched.errors).toEqual([]);
    await context.close();
  } finally {
    await lookAlike.close();
  }
}
