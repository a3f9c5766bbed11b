/**
 * Request ids of chain-ledger/connect: each connector starts at its own random id, so the ids of two connectors of
 * one page (a remount, a library and the app) never collide in what the page sees, and a reply settles only a call
 * the connector has sent (an old wallet document's `result` for an id not yet sent settles nothing).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectWallet } from '../../src/connect.js';
import { CONNECT_PROTOCOL } from '../../src/connect/protocol.js';
import { WalletHost } from '../../src/wallet/host.js';
import { memorySites } from '../../src/wallet/sites.js';
import { FakeWindow, settle } from '../support/fake-windows.js';
import { quietLedger, within } from '../support/rig.js';

const DAPP = 'https://dapp.example';
const WALLET = 'https://wallet.example/';

/** A dapp window whose wallet windows get a wallet host each (attached once loaded, unless `attach` is false). */
function dappWithWallet(attach = true) {
  const dapp = new FakeWindow(DAPP);
  dapp.onOpen = (url) => {
    const wallet = new FakeWindow(new URL(url).origin);
    const host = new WalletHost({ provider: { network: 'devnet' }, sites: memorySites() });
    host.useDevice(quietLedger({ extensions: true }));
    if (attach) setTimeout(() => host.attach(wallet));
    return wallet;
  };
  return { dapp, wallet: () => dapp.opened.at(-1)! };
}

afterEach(() => vi.restoreAllMocks());

describe('connector request ids', () => {
  it('two connectors of one page each open a wallet window of their own (their names differ) and each get their own answer', async () => {
    const { dapp } = dappWithWallet();
    const a = connectWallet({ walletUrl: WALLET, window: dapp });
    const b = connectWallet({ walletUrl: WALLET, window: dapp, install: false });
    const answers = within(Promise.all([a.getNetworkId(), b.getWalletInfo()]), 'both answers');
    expect(await answers).toEqual(['mina:devnet', { version: expect.any(String), init: true }]);
    expect(dapp.opened).toHaveLength(2);
    expect(dapp.opened[0]!.name).not.toBe(dapp.opened[1]!.name);
    const ids = dapp.opened
      .flatMap((w) => w.received.map((m) => m.data as { type?: string; id?: number }))
      .filter((m) => m.type === 'request')
      .map((m) => m.id);
    expect(new Set(ids).size).toBe(2);
  });

  it('a result for an id the connector has not sent yet settles nothing; the call gets its own answer once sent', async () => {
    // The first id made predictable (random bits all zero), as an old wallet document could guess id 1 before.
    vi.spyOn(crypto, 'getRandomValues').mockImplementationOnce((array) => array);
    const { dapp, wallet } = dappWithWallet(false);
    const chain = connectWallet({ walletUrl: WALLET, window: dapp });
    const call = chain.getNetworkId();
    await settle();
    // The wallet window (before its page says ready) posts a result for id 1, the unsent call's id.
    wallet().opener!.postMessage({ protocol: CONNECT_PROTOCOL, type: 'result', id: 1, result: 'mina:forged' }, DAPP);
    const host = new WalletHost({ provider: { network: 'devnet' }, sites: memorySites() });
    host.useDevice(quietLedger({ extensions: true }));
    await settle();
    host.attach(wallet());
    expect(await within(call, 'getNetworkId')).toBe('mina:devnet');
  });
});
