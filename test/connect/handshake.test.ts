/**
 * The connector's handshake with the wallet page: calls made while the wallet window loads wait for its `welcome`,
 * for at most `handshakeTimeoutMs` (30 s by default). A wallet window that never answers (a wrong walletUrl, a 404,
 * a redirect to another origin) ends them with 1001 saying so, instead of leaving them pending forever; a wallet that
 * answers later serves the next call. And a `disconnect()` made with no ready wallet window is sent to the next one.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectWallet } from '../../src/connect.js';
import { WalletHost } from '../../src/wallet/host.js';
import { memorySites } from '../../src/wallet/sites.js';
import { FakeWindow } from '../support/fake-windows.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { quietLedger, within } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

const DAPP = 'https://dapp.example';
const WALLET = 'https://wallet.example/';

/** A dapp whose wallet window loads a page that never says `ready` (until `answer()` attaches a wallet host). */
function silentWallet() {
  const dapp = new FakeWindow(DAPP);
  const sites = memorySites();
  let wallet: FakeWindow | undefined;
  dapp.onOpen = (url) => (wallet ??= new FakeWindow(new URL(url).origin));
  const answer = () => {
    const host = new WalletHost({ provider: { network: 'devnet' }, sites });
    host.useDevice(quietLedger({ extensions: true }));
    host.attach(wallet!);
  };
  return { dapp, answer };
}

afterEach(() => void vi.useRealTimers());

describe('the handshake with the wallet page', () => {
  it('a wallet window that never answers: the waiting calls end with 1001 after 30 s, naming walletUrl', async () => {
    vi.useFakeTimers();
    const { dapp } = silentWallet();
    const chain = connectWallet({ walletUrl: WALLET, window: dapp });
    const outcomes = [chain.getNetworkId(), chain.requestAccounts()].map((call) => failure(call));
    await vi.advanceTimersByTimeAsync(29_999);
    let settled = 0;
    for (const outcome of outcomes) void outcome.then(() => settled++);
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    for (const outcome of outcomes) {
      expect(await outcome).toMatchObject({
        code: 1001,
        data: { reason: `the wallet page did not answer within 30 s: is walletUrl (${WALLET}) right, not a 404 or a redirect?` },
      });
    }
  });

  it('handshakeTimeoutMs bounds the wait; a wallet that answers later serves the next call', async () => {
    const { dapp, answer } = silentWallet();
    const chain = connectWallet({ walletUrl: WALLET, window: dapp, handshakeTimeoutMs: 50 });
    expect(await failure(within(chain.getNetworkId(), 'getNetworkId'))).toMatchObject({
      code: 1001,
      data: { reason: expect.stringMatching(/did not answer within 0.05 s/) },
    });
    answer();
    // (The next call waits for no handshake, so it is not raced against the 50 ms bound on a loaded machine.)
    await vi.waitFor(() => expect(chain.networkID).toBe('mina:devnet'));
    expect(await within(chain.getNetworkId(), 'getNetworkId once the wallet answers')).toBe('mina:devnet');
  });

  it('disconnect() with the wallet window closed: the next wallet window forgets the site right after its handshake', async () => {
    const sites = memorySites();
    sites.add({ origin: DAPP, address: addressOf(0), connectedAt: '2026-01-01T00:00:00.000Z' });
    const ledger = quietLedger({ extensions: true });
    const dapp = new FakeWindow(DAPP);
    dapp.onOpen = (url) => {
      const wallet = new FakeWindow(new URL(url).origin);
      const host = new WalletHost({ provider: { network: 'devnet' }, sites });
      host.useDevice(ledger);
      setTimeout(() => host.attach(wallet));
      return wallet;
    };
    const chain = connectWallet({ walletUrl: WALLET, window: dapp });
    expect(await within(chain.getNetworkId(), 'the first wallet window')).toBe('mina:devnet');
    dapp.opened[0]!.close(); // the user closes the wallet window…
    expect(chain.isConnected()).toBe(false);
    await chain.disconnect(); // …then clicks the dapp's Disconnect
    expect(sites.get(DAPP)).toBeDefined(); // no wallet window to tell yet
    expect(await within(chain.getNetworkId(), 'the next wallet window')).toBe('mina:devnet');
    expect(dapp.opened).toHaveLength(2);
    expect(sites.get(DAPP)).toBeUndefined();
    expect(chain.isConnected()).toBe(false);
    expect(await failure(within(chain.signMessage({ message: 'after disconnect' }), 'signMessage'))).toMatchObject({ code: 1001 });
  });
});
