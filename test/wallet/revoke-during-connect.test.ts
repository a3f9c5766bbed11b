/**
 * A revoke that lands while the device shows the address (a remembered site reconnecting in a new wallet window, or
 * the site's own requestAccounts) wins: when the user then approves the address, the site is not connected, so no
 * site can sign that is missing from the Connected sites list (where its Revoke button is). The provider refuses a
 * connect dropped during it (1001, src/provider/connection.ts); the wallet host holds to the list either way.
 */
import { describe, expect, it } from 'vitest';
import { connectWallet } from '../../src/connect.js';
import type { Review } from '../../src/emulator.js';
import { WalletHost } from '../../src/wallet/host.js';
import { memorySites } from '../../src/wallet/sites.js';
import { FakeWindow, settle } from '../support/fake-windows.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { quietLedger, within } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

const DAPP = 'https://dapp.example';

/** A dapp whose remembered site reconnects in a new wallet window; the address review waits for `answer()`. */
function reconnecting() {
  const sites = memorySites();
  sites.add({ origin: DAPP, address: addressOf(0), connectedAt: '2026-01-01T00:00:00.000Z' });
  let answer!: () => void;
  let shown!: () => void;
  const addressShown = new Promise<void>((resolve) => (shown = resolve));
  const approved = new Promise<void>((resolve) => (answer = resolve));
  const ledger = quietLedger({
    extensions: true,
    approve: async (review: Review) => {
      if (review.kind === 'address') {
        shown();
        await approved;
      }
      return true;
    },
  });
  const dapp = new FakeWindow(DAPP);
  const hosts: WalletHost[] = [];
  dapp.onOpen = (url) => {
    const wallet = new FakeWindow(new URL(url).origin);
    const host = new WalletHost({ provider: { network: 'devnet' }, sites });
    host.useDevice(ledger);
    hosts.push(host);
    setTimeout(() => host.attach(wallet));
    return wallet;
  };
  const chain = connectWallet({ walletUrl: 'https://wallet.example/', window: dapp });
  return { sites, chain, ledger, addressShown, answer: () => answer(), host: () => hosts.at(-1)! };
}

describe('a revoke during a connect', () => {
  it('a site revoked while its reconnection waits on the device is not connected when the address is approved', async () => {
    const { sites, chain, ledger, addressShown, answer, host } = reconnecting();
    void chain.getNetworkId(); // opens the wallet window: the remembered site is reconnected, the address on the device
    await within(addressShown, 'the address on the device');
    host().revoke(DAPP); // the user clicks Revoke (here, or in another wallet window: the storage event)
    expect(sites.get(DAPP)).toBeUndefined();
    answer(); // …and then approves the address on the device
    await settle();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(host().provider?.isConnected()).toBe(false);
    expect(sites.get(DAPP)).toBeUndefined();
    const exchanges = ledger.exchanges.length;
    expect(await failure(within(chain.signMessage({ message: 'after the revoke' }), 'signMessage'))).toMatchObject({ code: 1001 });
    expect(ledger.exchanges.length).toBe(exchanges); // nothing reached the device
    expect(chain.isConnected()).toBe(false);
  });
});
