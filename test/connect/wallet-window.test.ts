/**
 * The wallet window is the wallet: the connector opens it under a random name, and notices within
 * `livenessTimeoutMs` (10 s by default) when it goes to another page (a look-alike a script of the dapp's page sent it
 * to), is reloaded, closed, or stops answering; the calls waiting on it then end with 1001 naming why, the window is
 * closed, and the next call opens a new one. Fake timers: the bound is checked on the clock, exactly.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectWallet } from '../../src/connect.js';
import { CONNECT_PROTOCOL } from '../../src/connect/protocol.js';
import type { ProviderError } from '../../src/index.js';
import { WalletHost } from '../../src/wallet/host.js';
import { memorySites } from '../../src/wallet/sites.js';
import { FakeWindow } from '../support/fake-windows.js';
import { quietLedger } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

const DAPP = 'https://dapp.example';
const WALLET = 'https://wallet.example';
const LOOK_ALIKE = 'https://wallet-look-alike.example';
const ADDRESS = addressOf(0);
/** The default `livenessTimeoutMs`. */
const BOUND = 10_000;
/** The time between pings: a fifth of the bound. */
const INTERVAL = BOUND / 5;

afterEach(() => void vi.useRealTimers());

/**
 * A dapp whose site the wallet remembers, on fake timers. Its wallet windows get a wallet host each, with no device
 * until `withDevice()`: a call that needs the device then waits in the wallet window, sent, as long as the test likes.
 */
function rig(options: { livenessTimeoutMs?: number } = {}) {
  vi.useFakeTimers();
  const sites = memorySites();
  sites.add({ origin: DAPP, address: ADDRESS, connectedAt: '2026-01-01T00:00:00.000Z' });
  const dapp = new FakeWindow(DAPP);
  const hosts: WalletHost[] = [];
  dapp.onOpen = (url) => {
    const wallet = new FakeWindow(new URL(url).origin);
    const host = new WalletHost({ provider: { network: 'devnet' }, sites });
    hosts.push(host);
    setTimeout(() => host.attach(wallet)); // the wallet page's script runs once the window has loaded
    return wallet;
  };
  const chain = connectWallet({ walletUrl: `${WALLET}/`, window: dapp, ...options });
  const events: string[] = [];
  chain.on('accountsChanged', (accounts) => events.push(`accountsChanged ${JSON.stringify(accounts)}`));
  chain.on('disconnect', (error) => events.push(`disconnect ${error.code} ${error.data?.reason}`));
  return { dapp, chain, hosts, events, wallet: () => dapp.opened.at(-1)! };
}

/** What a call settled with so far (read synchronously, as the fake clock moves). */
function track<T>(call: Promise<T>): { outcome?: { value: T } | { error: ProviderError } } {
  const state: { outcome?: { value: T } | { error: ProviderError } } = {};
  call.then(
    (value) => (state.outcome = { value }),
    (error: ProviderError) => (state.outcome = { error }),
  );
  return state;
}

/** A call that the wallet answers without a device, once its window is there (a few message hops). */
async function served<T>(call: Promise<T>): Promise<T> {
  const state = track(call);
  await vi.advanceTimersByTimeAsync(50);
  if (!state.outcome || !('value' in state.outcome)) throw new Error(`not served: ${JSON.stringify(state.outcome)}`);
  return state.outcome.value;
}

const sentOfType = (window: FakeWindow, type: string) =>
  window.received.map((m) => m.data as { type?: string }).filter((m) => m.type === type) as Record<string, unknown>[];

const NAME = /^chain-ledger-wallet-[A-Za-z0-9_-]{22}$/;

describe('the wallet window is the wallet', () => {
  it('a wallet window sent to a look-alike page: the waiting call ends with 1001 naming why within livenessTimeoutMs, the look-alike receives nothing and cannot answer as the wallet, the window is closed, and the next call opens a new wallet window', async () => {
    const { chain, wallet, events } = rig();
    expect(await served(chain.getNetworkId())).toBe('mina:devnet');
    const waiting = track(chain.signMessage({ message: 'waits for the device' }));
    await vi.advanceTimersByTimeAsync(3 * BOUND);
    expect(waiting.outcome).toBeUndefined(); // waiting in the wallet, its pings answered
    const replaced = wallet();
    const name = replaced.name;
    expect(name).toMatch(NAME);
    const seen = replaced.received.length;
    // A script of the dapp's page navigates the wallet window to a look-alike, which then tries to answer as the
    // wallet: a `ready`, a welcome, an account of its own, a result for the waiting call's id.
    replaced.loadPage(LOOK_ALIKE);
    const [request] = sentOfType(replaced, 'request').slice(-1);
    const asTheWallet = replaced.opener!;
    for (const forged of [
      { type: 'ready' },
      { type: 'welcome', networkID: 'mina:mainnet', accounts: ['B62qSPOOFED'] },
      { type: 'event', event: 'accountsChanged', args: [['B62qSPOOFED']] },
      { type: 'result', id: request!.id, result: { signature: 'forged' } },
    ]) {
      asTheWallet.postMessage({ protocol: CONNECT_PROTOCOL, ...forged }, '*');
    }
    await vi.advanceTimersByTimeAsync(BOUND);
    expect(waiting.outcome).toEqual({
      error: expect.objectContaining({ code: 1001, data: { reason: 'the wallet window navigated away to another page' } }),
    });
    expect(replaced.received.slice(seen)).toEqual([]); // nothing the connector posted reached the look-alike
    expect(replaced.closed).toBe(true); // closed by the connector
    expect(events.join('\n')).not.toContain('SPOOFED');
    expect(chain.networkID).toBe('mina:devnet');

    // The next call opens a new wallet window, under another name, and is served there.
    expect(await served(chain.getNetworkId())).toBe('mina:devnet');
    expect(wallet()).not.toBe(replaced);
    expect(wallet().name).toMatch(NAME);
    expect(wallet().name).not.toBe(name);
  });

  it("a bye with no source, from another wallet window of the page (another connector's, sent to another site), ends that window only", async () => {
    const { chain, dapp } = rig();
    const other = connectWallet({ walletUrl: `${WALLET}/`, window: dapp, install: false });
    const waiting = track(chain.signMessage({ message: 'waits for the device' }));
    expect(await served(other.getNetworkId())).toBe('mina:devnet');
    const [mine, theirs] = dapp.opened;
    theirs!.loadPage(LOOK_ALIKE); // its bye arrives with no source (as Chromium delivers it), naming its own window
    await vi.advanceTimersByTimeAsync(2 * BOUND);
    expect(theirs!.closed).toBe(true);
    expect(mine!.closed).toBe(false);
    expect(waiting.outcome).toBeUndefined();
  });

  it('a wallet window that stops answering (its page stuck or frozen): the waiting call ends with 1001 within livenessTimeoutMs, and the window is closed', async () => {
    const { chain, wallet } = rig();
    const waiting = track(chain.signMessage({ message: 'waits for the device' }));
    await vi.advanceTimersByTimeAsync(BOUND);
    expect(waiting.outcome).toBeUndefined();
    wallet().hung = true;
    await vi.advanceTimersByTimeAsync(BOUND);
    expect(waiting.outcome).toEqual({
      error: expect.objectContaining({ code: 1001, data: { reason: 'the wallet window stopped answering (no answer within 8 s)' } }),
    });
    expect(wallet().closed).toBe(true);
  });

  it('livenessTimeoutMs sets the bound; a bound that is not a positive number of milliseconds is a TypeError naming it', async () => {
    const { chain, wallet } = rig({ livenessTimeoutMs: 500 });
    const waiting = track(chain.signMessage({ message: 'waits for the device' }));
    await vi.advanceTimersByTimeAsync(1_000);
    wallet().hung = true;
    await vi.advanceTimersByTimeAsync(500);
    expect(waiting.outcome).toEqual({
      error: expect.objectContaining({ code: 1001, data: { reason: 'the wallet window stopped answering (no answer within 0.4 s)' } }),
    });
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '5000']) {
      expect(() => connectWallet({ walletUrl: `${WALLET}/`, window: new FakeWindow(DAPP), livenessTimeoutMs: bad as number })).toThrow(
        new TypeError('livenessTimeoutMs must be a positive number of milliseconds'),
      );
    }
  });

  it('a call that waits in the wallet window far longer than the bound (for the device) is not ended: the wallet page answers every ping meanwhile, then the call is answered', async () => {
    const { chain, wallet, hosts } = rig();
    const waiting = track(chain.signMessage({ message: 'waits for the device' }));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(waiting.outcome).toBeUndefined();
    expect(wallet().closed).toBe(false);
    expect(sentOfType(wallet(), 'ping').length).toBeGreaterThanOrEqual(60_000 / INTERVAL - 1); // one every 2 s
    hosts[0]!.useDevice(quietLedger({ extensions: true }));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(waiting.outcome).toEqual({ value: expect.objectContaining({ publicKey: ADDRESS, data: 'waits for the device' }) });
  });

  it('time the dapp page could not use (its main thread busy, its tab throttled or frozen, the machine asleep) counts none of the wait: the answer that waited in its queue is read first', async () => {
    const { chain, wallet } = rig();
    const waiting = track(chain.signMessage({ message: 'waits for the device' }));
    await vi.advanceTimersByTimeAsync(BOUND);
    const window = wallet();
    window.hung = true; // the machine sleeps: the wallet page reads nothing…
    await vi.advanceTimersByTimeAsync(INTERVAL);
    const pings = sentOfType(window, 'ping').length;
    vi.setSystemTime(Date.now() + 10 * 60_000); // …and the dapp's clock moves 10 minutes on while its timers wait,
    await vi.advanceTimersByTimeAsync(INTERVAL); // then its next tick runs before the wallet page has answered
    window.resume();
    await vi.advanceTimersByTimeAsync(BOUND);
    expect(waiting.outcome).toBeUndefined();
    expect(window.closed).toBe(false);
    expect(sentOfType(window, 'ping').length).toBeGreaterThan(pings); // the waiting ping answered, the next sent
  });

  it('a reloaded wallet window: the call its old page had ends with 1001 (reloaded), the new page is greeted by the same name and serves the next call in the same window', async () => {
    const { chain, dapp, wallet } = rig();
    const waiting = track(chain.signMessage({ message: 'waits for the device' }));
    await vi.advanceTimersByTimeAsync(100);
    const window = wallet();
    window.loadPage(WALLET); // the user reloads it: pagehide (bye), then a new wallet page
    new WalletHost({ provider: { network: 'devnet' }, sites: memorySites() }).attach(window);
    await vi.advanceTimersByTimeAsync(100);
    expect(waiting.outcome).toEqual({
      error: expect.objectContaining({ code: 1001, data: { reason: 'the wallet window was reloaded during the call: call again' } }),
    });
    expect(await served(chain.getNetworkId())).toBe('mina:devnet');
    expect(dapp.opened).toEqual([window]);
    expect(window.closed).toBe(false);
    expect(sentOfType(window, 'hello').map((m) => m.name)).toEqual([window.name, window.name]);
  });

  it('a reloaded wallet window whose new page never says ready within the bound is gone: its calls end with 1001 and it is closed', async () => {
    const { chain, wallet } = rig();
    const waiting = track(chain.signMessage({ message: 'waits for the device' }));
    await vi.advanceTimersByTimeAsync(100);
    wallet().loadPage(WALLET); // a page of the wallet's origin that is not the wallet (or not loading)
    await vi.advanceTimersByTimeAsync(BOUND);
    expect(waiting.outcome).toEqual({
      error: expect.objectContaining({ code: 1001, data: { reason: 'the wallet window navigated away to another page' } }),
    });
    expect(wallet().closed).toBe(true);
  });

  it("a wallet page that does not answer the handshake within the bound (it is not this connector's window) ends the waiting calls with 1001 saying so", async () => {
    const { chain, dapp } = rig();
    // The wallet page answers only the name it was opened under: here it believes it has another.
    dapp.onOpen = (url) => {
      const wallet = new FakeWindow(new URL(url).origin);
      setTimeout(() => {
        wallet.name = 'chain-ledger-wallet-another';
        new WalletHost({ provider: { network: 'devnet' }, sites: memorySites() }).attach(wallet);
      });
      return wallet;
    };
    const waiting = track(chain.getNetworkId());
    await vi.advanceTimersByTimeAsync(BOUND);
    expect(waiting.outcome).toEqual({
      error: expect.objectContaining({
        code: 1001,
        data: {
          reason: 'the wallet page did not answer the handshake within 8 s (it serves only a window its connector opened)',
        },
      }),
    });
    expect(dapp.opened[0]!.closed).toBe(true);
  });

  it('with no call waiting, a wallet window that stops answering ends nothing in error: the dapp is told disconnect, and the next call opens a new window', async () => {
    const { chain, dapp, wallet, hosts, events } = rig();
    chain.getNetworkId();
    await vi.advanceTimersByTimeAsync(10);
    hosts[0]!.useDevice(quietLedger({ extensions: true })); // the remembered site reconnects: connected
    await vi.advanceTimersByTimeAsync(1_000);
    expect(chain.isConnected()).toBe(true);
    wallet().hung = true;
    await vi.advanceTimersByTimeAsync(BOUND);
    expect(chain.isConnected()).toBe(false);
    expect(events.slice(-2)).toEqual(['disconnect 1001 the wallet window stopped answering (no answer within 8 s)', 'accountsChanged []']);
    expect(await served(chain.getNetworkId())).toBe('mina:devnet');
    expect(dapp.opened).toHaveLength(2);
  });
});
