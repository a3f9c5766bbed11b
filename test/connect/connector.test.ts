/**
 * chain-ledger/connect against the wallet host (src/wallet) on the software Ledger, with the browser's windows and
 * postMessage modelled in test/support/fake-windows.ts: the protocol's cases one by one. The same code runs in
 * Chromium, across real origins, in test/e2e/web-dapp.browser.test.ts.
 */
import Client from 'mina-signer';
import { describe, expect, it } from 'vitest';
import { connectWallet, type WalletConnector } from '../../src/connect.js';
import { WALLET_METHODS } from '../../src/connect/methods.js';
import { CONNECT_PROTOCOL, readDappMessage, readWalletMessage } from '../../src/connect/protocol.js';
import type { Review } from '../../src/emulator.js';
import {
  LedgerProvider,
  METHODS,
  createLedgerProvider,
  REQUEST_PROVIDER_EVENT,
  ANNOUNCE_PROVIDER_EVENT,
  type ProgressEvent,
  type ProviderDetail,
} from '../../src/index.js';
import { WalletHost, type WalletActivity } from '../../src/wallet/host.js';
import { memorySites, type ConnectedSites } from '../../src/wallet/sites.js';
import { FakeWindow, settle } from '../support/fake-windows.js';
import { never, quietLedger, within } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

const DAPP = 'https://dapp.example';
const WALLET = 'https://wallet.example';
const ADDRESS = addressOf(0);

interface Rig {
  dapp: FakeWindow;
  chain: WalletConnector;
  ledger: ReturnType<typeof quietLedger>;
  reviews: Review[];
  activities: WalletActivity[];
  sites: ConnectedSites;
  /** The host of the newest wallet window (after the first call opened one). */
  host(): WalletHost;
  wallet(): FakeWindow;
}

/**
 * A dapp at DAPP with a connector; each wallet window it opens gets a WalletHost (sharing `sites`, as wallet windows
 * share their origin's storage), whose device is given by `device` (default: the software Ledger at once).
 */
function rig(
  options: {
    approve?: (review: Review) => boolean | Promise<boolean>;
    sites?: ConnectedSites;
    device?: 'now' | 'later';
    onProgress?: (event: ProgressEvent) => void;
  } = {},
): Rig {
  const reviews: Review[] = [];
  const activities: WalletActivity[] = [];
  const sites = options.sites ?? memorySites();
  const ledger = quietLedger({ extensions: true, approve: (r) => (reviews.push(r), options.approve?.(r) ?? true) });
  const dapp = new FakeWindow(DAPP);
  const hosts: WalletHost[] = [];
  dapp.onOpen = (url) => {
    const wallet = new FakeWindow(new URL(url).origin);
    const host = new WalletHost({
      provider: { network: 'devnet', onProgress: options.onProgress },
      sites,
      onActivity: (a) => activities.push(a),
    });
    hosts.push(host);
    if (options.device !== 'later') host.useDevice(ledger);
    setTimeout(() => host.attach(wallet)); // the wallet page's script runs once the window has loaded
    return wallet;
  };
  const chain = connectWallet({ walletUrl: `${WALLET}/`, window: dapp });
  return { dapp, chain, ledger, reviews, activities, sites, host: () => hosts.at(-1)!, wallet: () => dapp.opened.at(-1)! };
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (e: { code: number; message: string; data?: unknown }) => ({ code: e.code, message: e.message, data: e.data }),
  );

describe('chain-ledger/connect and the wallet host', () => {
  it("serves exactly the provider's wallet methods: each direct method sends its wallet name, as the provider's table says", async () => {
    expect(Object.fromEntries(Object.entries(WALLET_METHODS).map(([name, { method }]) => [name, method]))).toEqual(METHODS);
    const { chain, wallet } = rig();
    await chain.requestAccounts();
    const sent = () =>
      wallet()
        .received.map((m) => m.data as { type: string; method?: string })
        .filter((m) => m.type === 'request');
    for (const [walletName, direct] of Object.entries(METHODS)) {
      const before = sent().length;
      await (chain as unknown as Record<string, (args?: unknown) => Promise<unknown>>)[direct]!({}).catch(() => undefined);
      expect(
        sent()
          .slice(before)
          .map((m) => m.method),
        direct,
      ).toEqual([walletName]);
    }
    for (const name of [
      'request',
      'on',
      'once',
      'off',
      'removeListener',
      'removeAllListeners',
      'isConnected',
      'disconnect',
      'rejectPending',
    ]) {
      expect(typeof (chain as unknown as Record<string, unknown>)[name], name).toBe('function');
      expect(typeof (LedgerProvider.prototype as unknown as Record<string, unknown>)[name], name).toBe('function');
    }
  });

  it("is window.chain and answers mina:requestProvider with chain-ledger's info", () => {
    const { dapp, chain } = rig();
    expect(dapp.chain).toBe(chain);
    const found: ProviderDetail[] = [];
    dapp.addEventListener(ANNOUNCE_PROVIDER_EVENT, (e: Event) => found.push((e as CustomEvent<ProviderDetail>).detail));
    dapp.dispatchEvent(new Event(REQUEST_PROVIDER_EVENT));
    expect(found).toHaveLength(1);
    // Under its own rdns the connector is announced as mina-js callers read it (`minaJsView`: chainChanged as text).
    expect(found[0]!.provider).not.toBe(chain);
    expect((found[0]!.provider as typeof chain).isConnected()).toBe(chain.isConnected());
    expect(found[0]!.info.rdns).toBe('org.chain-ledger');
  });

  it("with identity: 'auro', is announced under Auro's slug and rdns with isAuro, as itself (Auro's { networkID } events); an unknown identity is refused", () => {
    const dapp = new FakeWindow(DAPP);
    const chain = connectWallet({ walletUrl: `${WALLET}/`, window: dapp, identity: 'auro' });
    const found: ProviderDetail[] = [];
    dapp.addEventListener(ANNOUNCE_PROVIDER_EVENT, (e: Event) => found.push((e as CustomEvent<ProviderDetail>).detail));
    dapp.dispatchEvent(new Event(REQUEST_PROVIDER_EVENT));
    expect(found.map((d) => [d.info.slug, d.info.rdns])).toEqual([['aurowallet', 'com.aurowallet']]);
    expect(found[0]!.provider).toBe(chain);
    expect((chain as unknown as { isAuro?: boolean }).isAuro).toBe(true);
    const other = new FakeWindow(DAPP);
    expect(() => connectWallet({ walletUrl: `${WALLET}/`, window: other, identity: 'pallad' as never })).toThrow(/identity must be/);
    expect((other as unknown as { chain?: unknown }).chain).toBeUndefined();
  });

  it('opens the wallet window on the first call, connects the site (the Ledger shows the address) and signs in the wallet', async () => {
    const { chain, dapp, reviews, sites, host, activities } = rig();
    const accountsChanged: string[][] = [];
    chain.on('accountsChanged', (a) => accountsChanged.push(a));
    expect(chain.isConnected()).toBe(false);
    const accounts = chain.requestAccounts();
    expect(dapp.opened).toHaveLength(1); // opened inside the call: the user's click is still current
    expect(await within(accounts, 'requestAccounts')).toEqual([ADDRESS]);
    expect(reviews.map((r) => r.kind)).toEqual(['address']);
    expect(host().site).toBe(DAPP); // bound from the browser-given origin of the handshake
    expect(host().provider!.origin).toBe(DAPP);
    expect(sites.get(DAPP)).toMatchObject({ origin: DAPP, address: ADDRESS });
    await settle();
    expect(accountsChanged).toEqual([[ADDRESS]]);
    expect(chain.isConnected()).toBe(true);

    const signed = await within(chain.signMessage({ message: 'hello from the dapp' }), 'signMessage');
    expect(new Client({ network: 'testnet' }).verifyMessage(signed)).toBe(true);
    expect(dapp.opened).toHaveLength(1); // the same window serves the next calls
    expect(activities.filter((a) => a.kind === 'request').map((a) => (a as { method: string }).method)).toEqual([
      'chain_requestAccounts',
      'chain_signMessage',
    ]);
    expect(await chain.request({ method: 'mina_requestNetwork' })).toEqual({ networkID: 'mina:devnet' });
    expect(await chain.getAccounts()).toEqual([ADDRESS]);
  });

  it("tells the dapp each stage of its calls in the wallet (progress events, in order), as the wallet page's onProgress sees them", async () => {
    const inWallet: ProgressEvent[] = [];
    const { chain } = rig({ onProgress: (e) => inWallet.push(e) });
    const inDapp: ProgressEvent[] = [];
    chain.on('progress', (e) => inDapp.push(e));
    await chain.requestAccounts();
    await within(chain.signMessage({ message: 'hello from the dapp' }), 'signMessage');
    await settle();
    const stages = inDapp.map((e) => `${e.method} ${e.stage}`);
    expect(stages).toEqual([
      'requestAccounts confirm-on-device',
      'requestAccounts done',
      'signMessage confirm-on-device',
      'signMessage done',
    ]);
    expect(inDapp).toEqual(inWallet);
    expect(inDapp[0]!.prompt).toBe('Confirm the address on your Ledger');
    for (const e of inDapp) expect(e.elapsedMs).toBeGreaterThanOrEqual(0);
    // A refusal in the wallet is a stage too: the call's one `failed`.
    await codeOf(chain.signFields({ message: ['not a field'] }));
    await settle();
    expect(inDapp.at(-1)).toMatchObject({ method: 'signFields', stage: 'failed' });
  });

  it('the device shows the origin the browser reported for the dapp, not one the dapp claims', async () => {
    const { chain, reviews } = rig();
    await chain.requestAccounts();
    await within(chain.createNullifier({ message: ['1', '2'] }), 'createNullifier', 60_000);
    const screens = reviews
      .at(-1)!
      .screens.map((s) => s.lines.join(' '))
      .join(' | ');
    expect(screens).toContain(DAPP);
    const claimed = await codeOf(chain.createNullifier({ message: ['1'] }, { origin: 'https://bank.example' }));
    expect(claimed).toMatchObject({ code: 23001, message: 'Origin dismatch.' });
  }, 90_000);

  it("in a web page, only the wallet host makes a bridge provider, and binds it to the dapp's browser-given origin", async () => {
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'location');
    Object.defineProperty(globalThis, 'location', { value: { origin: WALLET }, configurable: true });
    try {
      const page = () => createLedgerProvider({ transport: quietLedger(), network: 'devnet', origin: DAPP, bridge: true });
      expect(page).toThrow(expect.objectContaining({ code: 20003, data: expect.objectContaining({ field: 'bridge' }) }));
      const { chain, host } = rig();
      expect(await chain.requestAccounts()).toEqual([ADDRESS]);
      expect(host().provider!.origin).toBe(DAPP);
      expect(page).toThrow(expect.objectContaining({ data: expect.objectContaining({ field: 'bridge' }) })); // still so afterwards
    } finally {
      if (saved) Object.defineProperty(globalThis, 'location', saved);
      else delete (globalThis as { location?: unknown }).location;
    }
  });

  it('a blocked popup is ProviderError 1001 saying to call from a click', async () => {
    const { chain, dapp } = rig();
    dapp.onOpen = () => null;
    const error = await codeOf(chain.requestAccounts());
    expect(error).toMatchObject({ code: 1001, message: 'User disconnect, please connect first.' });
    expect((error as { data: { reason: string } }).data.reason).toMatch(/blocked the wallet window .*call window\.chain from a click/);
  });

  it('errors come back with their code, message and data: 20003 naming the field, 1002 with the status word', async () => {
    const { chain } = rig({ approve: (r) => r.kind === 'address' });
    await chain.requestAccounts();
    expect(await codeOf(chain.signFields({ message: ['x'] }))).toMatchObject({ code: 20003, data: { field: 'message[0]' } });
    expect(await codeOf(chain.signMessage({ message: 'no' }))).toEqual({
      code: 1002,
      message: 'User rejected the request.',
      data: { reason: 'rejected on the Ledger', statusWord: '0x6985' },
    });
    expect(await codeOf(chain.request({ method: 'chain_listCredentials' } as never))).toMatchObject({ code: 20006 });
  });

  it('a site that never connected gets 1001 at once: no prompt, no device request, not even a device needed', async () => {
    const { chain, ledger, reviews, activities } = rig({ device: 'later' });
    const error = await within(codeOf(chain.createNullifier({ message: ['1'] })), 'the refusal');
    expect(error).toMatchObject({ code: 1001, data: { reason: `${DAPP} is not connected to this wallet: call requestAccounts() first` } });
    expect(await codeOf(chain.signMessage({ message: 'hi' }))).toMatchObject({ code: 1001 });
    expect(ledger.exchanges).toHaveLength(0);
    expect(reviews).toHaveLength(0);
    expect(activities.some((a) => a.kind === 'request' || a.kind === 'waiting-for-device')).toBe(false);
    expect(activities.filter((a) => a.kind === 'refused')).toHaveLength(2);
    // Calls that need no connection are answered.
    expect(await chain.requestNetwork()).toEqual({ networkID: 'mina:devnet' });
    expect(await chain.getAccounts()).toEqual([]);
  });

  it("the wallet's panel names a method from the table, never the page's string: an unknown one is refused unshown (20006)", async () => {
    const { chain, activities, reviews } = rig();
    await chain.requestAccounts();
    const bogus = 'chain_sendTransaction, approved by Ledger';
    expect(await codeOf(chain.request({ method: bogus } as never))).toMatchObject({ code: 20006 });
    expect(activities.map((a) => ('method' in a ? a.method : '')).filter((m) => m.includes('approved by'))).toEqual([]);
    expect(activities.at(-1)).toMatchObject({ kind: 'refused', method: 'an unknown method' });
    // A name longer than any method's, which the wallet would not read, is refused by the connector (never pending).
    const shown = activities.length;
    expect(await codeOf(chain.request({ method: `${bogus} support, just press both buttons` } as never))).toMatchObject({ code: 20006 });
    expect(activities).toHaveLength(shown);
    // Auro's name of a known method is shown by the table's name.
    await chain.request({ method: 'mina_signMessage', params: { message: 'hi' } } as never);
    expect(activities.filter((a) => a.kind === 'request').map((a) => a.method)).toEqual(['chain_requestAccounts', 'chain_signMessage']);
    expect(reviews.map((r) => r.kind)).toEqual(['address', 'text']);
  });

  it('calls wait for the device; a remembered site is reconnected when it comes (address on the Ledger), then served', async () => {
    const sites = memorySites();
    sites.add({ origin: DAPP, address: ADDRESS, connectedAt: '2026-01-01T00:00:00.000Z' });
    const { chain, host, reviews, ledger, activities } = rig({ sites, device: 'later' });
    const signed = chain.signMessage({ message: 'remembered' });
    await settle();
    expect(activities.some((a) => a.kind === 'waiting-for-device')).toBe(true);
    expect(ledger.exchanges).toHaveLength(0);
    host().useDevice(ledger);
    expect(new Client({ network: 'testnet' }).verifyMessage(await within(signed, 'signMessage'))).toBe(true);
    expect(reviews.map((r) => r.kind)).toEqual(['address', 'text']); // SIGN_TEXT (extension 1.2)
    expect(chain.isConnected()).toBe(true);
  });

  it('calls waiting in the wallet window for a device are bounded as the provider bounds them: the 33rd is 1002 at once, unshown', async () => {
    const sites = memorySites();
    sites.add({ origin: DAPP, address: ADDRESS, connectedAt: '2026-01-01T00:00:00.000Z' });
    const { chain, activities } = rig({ sites, device: 'later' });
    const waiting = Array.from({ length: 32 }, (_, i) => codeOf(chain.signMessage({ message: `waiting ${i}` })));
    await settle();
    const refused = await within(codeOf(chain.signMessage({ message: 'one too many' })), 'the 33rd call');
    expect(refused).toMatchObject({
      code: 1002,
      data: { reason: expect.stringMatching(/too many requests are waiting for the Ledger \(32\)/) },
    });
    expect(activities.filter((a) => a.kind === 'request')).toHaveLength(32);
    chain.rejectPending();
    expect(await Promise.all(waiting)).toEqual(Array(32).fill(expect.objectContaining({ code: 1002 })));
  });

  it("ignores messages from any other origin or window, and forged events; the first handshake's origin is the only one", async () => {
    const { chain, dapp, host, wallet, ledger, activities } = rig();
    await chain.requestAccounts();
    const before = ledger.exchanges.length;
    const request = (id: number) => ({
      protocol: CONNECT_PROTOCOL,
      type: 'request',
      id,
      method: 'chain_signMessage',
      params: { message: 'evil' },
    });
    // Another site that got hold of the wallet window (it shares the browsing context group): ignored, unanswered.
    const other = new FakeWindow('https://evil.example');
    wallet().deliver(other, { protocol: CONNECT_PROTOCOL, type: 'hello' }, WALLET);
    wallet().deliver(other, request(900), WALLET);
    // A script of the wallet's own window cannot make up a message from the dapp either (isTrusted false).
    wallet().forge(request(901), DAPP, wallet().opener);
    // The dapp's tab navigates to another site: its messages no longer count, and nothing is posted to it.
    dapp.navigate('https://evil.example');
    const received = dapp.received.length;
    wallet().deliver(dapp, request(902), WALLET);
    await settle();
    expect(ledger.exchanges.length).toBe(before);
    expect(dapp.received.length).toBe(received);
    expect(other.received).toEqual([]);
    expect(host().site).toBe(DAPP);
    const ignored = activities.filter((a) => a.kind === 'ignored').map((a) => (a as { why: string }).why);
    expect(ignored).toEqual([
      'not from the window that opened the wallet',
      'not from the window that opened the wallet',
      `this wallet window serves ${DAPP} only`,
    ]);
    // The connector ignores what does not come from the window it opened, at the wallet's origin.
    dapp.navigate(DAPP);
    const pending = chain.requestNetwork();
    dapp.forge(
      { protocol: CONNECT_PROTOCOL, type: 'result', id: 4, result: { networkID: 'mina:forged' } },
      WALLET,
      wallet().proxyFor(dapp),
    );
    dapp.deliver(other, { protocol: CONNECT_PROTOCOL, type: 'result', id: 4, result: { networkID: 'mina:forged' } }, DAPP);
    expect(await pending).toEqual({ networkID: 'mina:devnet' });
  });

  it('forwards events; a revoke in the wallet disconnects the site and removes it; a closed wallet window disconnects', async () => {
    const { chain, host, sites, wallet } = rig({ approve: (r) => r.kind === 'address' || never() });
    const events: string[] = [];
    chain.on('accountsChanged', (a) => events.push(`accountsChanged ${JSON.stringify(a)}`));
    chain.on('disconnect', (e) => events.push(`disconnect ${e.code}`));
    await chain.requestAccounts();
    host().revoke(DAPP);
    await settle();
    expect(sites.get(DAPP)).toBeUndefined();
    expect(events).toEqual([`accountsChanged ["${ADDRESS}"]`, 'disconnect 1001', 'accountsChanged []']);
    expect(await codeOf(chain.signMessage({ message: 'after revoke' }))).toMatchObject({ code: 1001 });

    await chain.requestAccounts();
    const waiting = chain.signMessage({ message: 'never answered' }).catch((e) => e);
    await settle();
    wallet().close();
    const error = await within(waiting, 'the rejection');
    expect(error).toMatchObject({ code: 1001, data: { reason: 'the wallet window was closed' } });
    expect(chain.isConnected()).toBe(false);
    expect(events.slice(-2)).toEqual(['disconnect 1001', 'accountsChanged []']);
  });

  it("a dapp's disconnect() forgets the site in the wallet; disconnect and accountsChanged([]) come once", async () => {
    const { chain, sites } = rig();
    await chain.requestAccounts();
    const events: string[] = [];
    chain.on('disconnect', (e) => events.push(`disconnect ${e.code}`));
    chain.on('accountsChanged', (a) => events.push(`accountsChanged ${JSON.stringify(a)}`));
    await chain.disconnect();
    await settle();
    expect(sites.get(DAPP)).toBeUndefined();
    expect(chain.isConnected()).toBe(false);
    expect(events).toEqual(['disconnect 1001', 'accountsChanged []']);
  });

  it('an AbortSignal cancels a call at once (1002) and in the wallet; rejectPending rejects every waiting call', async () => {
    let answer: (ok: boolean) => void = () => {};
    const { chain } = rig({ approve: (r) => r.kind === 'address' || new Promise<boolean>((resolve) => (answer = resolve)) });
    await chain.requestAccounts();
    const controller = new AbortController();
    const call = codeOf(chain.signMessage({ message: 'cancel me' }, { signal: controller.signal }));
    await settle();
    controller.abort(new Error('the user left'));
    expect(await call).toMatchObject({ code: 1002, data: { reason: 'cancelled by the caller (the user left)' } });
    answer(true);
    const waiting = codeOf(chain.signMessage({ message: 'reject me' }));
    await settle();
    expect(chain.rejectPending()).toBe(1);
    expect(await waiting).toMatchObject({ code: 1002 });
    answer(true);
  });

  it('refuses, before opening anything, a call that claims another origin (23001); getAccounts without a wallet window is []', async () => {
    const { chain, dapp } = rig();
    expect(await codeOf(chain.requestAccounts({ origin: 'https://bank.example' }))).toMatchObject({
      code: 23001,
      data: { reason: `request from "https://bank.example", but this page is ${DAPP}: a page cannot claim another origin` },
    });
    expect(await chain.getAccounts()).toEqual([]);
    expect(dapp.opened).toHaveLength(0);
  });

  it('arguments that cannot be copied to another window are 20003 naming params', async () => {
    const { chain } = rig();
    await chain.requestAccounts();
    expect(await codeOf(chain.signMessage({ message: 'x', extra: () => 1 } as never))).toMatchObject({
      code: 20003,
      data: { field: 'params' },
    });
  });

  it("reads only its own protocol's messages, of exactly the documented shapes", () => {
    expect(readDappMessage({ protocol: CONNECT_PROTOCOL, type: 'request', id: 1, method: 'chain_accounts' })).toBeDefined();
    for (const bad of [
      null,
      'hello',
      { type: 'hello' },
      { protocol: CONNECT_PROTOCOL, type: 'hello', origin: DAPP },
      { protocol: CONNECT_PROTOCOL, type: 'request', id: 0, method: 'chain_accounts' },
      { protocol: CONNECT_PROTOCOL, type: 'request', id: 1, method: 'x'.repeat(65) },
      { protocol: CONNECT_PROTOCOL, type: 'cancel', id: '1' },
    ]) {
      expect(readDappMessage(bad), JSON.stringify(bad)).toBeUndefined();
    }
    expect(readWalletMessage({ protocol: CONNECT_PROTOCOL, type: 'welcome', networkID: 'mina:devnet', accounts: [ADDRESS] })).toBeDefined();
    expect(readWalletMessage({ protocol: CONNECT_PROTOCOL, type: 'welcome', networkID: 'mina:devnet', accounts: [1] })).toBeUndefined();
    expect(readWalletMessage({ protocol: CONNECT_PROTOCOL, type: 'event', event: 'message', args: [] })).toBeUndefined();
    const progress = { method: 'requestPresentation', stage: 'proving', elapsedMs: 1200 };
    expect(readWalletMessage({ protocol: CONNECT_PROTOCOL, type: 'progress', progress })).toEqual({
      protocol: CONNECT_PROTOCOL,
      type: 'progress',
      progress,
    });
    for (const bad of [
      { ...progress, stage: 'hacking' },
      { ...progress, elapsedMs: -1 },
      { ...progress, elapsedMs: Number.NaN },
      { ...progress, prompt: 3 },
      { ...progress, prompt: 'x'.repeat(501) },
      { ...progress, retry: 'yes' },
      { ...progress, extra: true },
      { ...progress, method: '' },
      [progress],
    ]) {
      expect(readWalletMessage({ protocol: CONNECT_PROTOCOL, type: 'progress', progress: bad }), JSON.stringify(bad)).toBeUndefined();
    }
  });
});
