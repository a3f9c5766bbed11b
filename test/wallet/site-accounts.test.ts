/**
 * Each site sees only the account it was granted (src/wallet/host.ts): a site that connects gets the account the
 * holder chose (`accountFor`), the connected-sites list keeps its index, and when the holder gives the site another
 * account (`switchAccount`) the site is told `accountsChanged` with it, without a disconnect, and signs with it
 * (checked with mina-signer). Another site keeps its own.
 */
import Client from 'mina-signer';
import { describe, expect, it } from 'vitest';
import { connectWallet } from '../../src/connect.js';
import { WalletHost } from '../../src/wallet/host.js';
import { memorySites } from '../../src/wallet/sites.js';
import { FakeWindow, settle } from '../support/fake-windows.js';
import { quietLedger, within } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

const DAPP = 'https://dapp.example';

function walletFor(dappOrigin: string, sites: ReturnType<typeof memorySites>, choice: { index: number }) {
  const reviews: string[] = [];
  const ledger = quietLedger({ extensions: true, approve: (review) => (reviews.push(review.kind), true) });
  const dapp = new FakeWindow(dappOrigin);
  const hosts: WalletHost[] = [];
  dapp.onOpen = (url) => {
    const wallet = new FakeWindow(new URL(url).origin);
    const host = new WalletHost({ provider: { network: 'devnet' }, sites, accountFor: () => choice.index });
    host.useDevice(ledger);
    hosts.push(host);
    setTimeout(() => host.attach(wallet));
    return wallet;
  };
  const chain = connectWallet({ walletUrl: 'https://wallet.example/', window: dapp });
  return { chain, host: () => hosts.at(-1)!, reviews, ledger };
}

describe("a site's account", () => {
  it("is the holder's choice, kept per site; switched by the holder, the site is told accountsChanged and signs with it", async () => {
    const sites = memorySites();
    const choice = { index: 1 };
    const { chain, host } = walletFor(DAPP, sites, choice);
    expect(await within(chain.requestAccounts(), 'requestAccounts')).toEqual([addressOf(1)]);
    expect(sites.get(DAPP)).toMatchObject({ address: addressOf(1), accountIndex: 1 });
    choice.index = 0; // the holder picks another account on Home: a new site would get it, this one keeps its own

    const changes: unknown[] = [];
    const disconnects: unknown[] = [];
    chain.on('accountsChanged', (accounts) => changes.push(accounts));
    chain.on('disconnect', (error) => disconnects.push(error));
    expect(host().switchAccount(DAPP, 2)).toBe(true);
    await within(
      (async () => {
        while (changes.length === 0) await settle();
      })(),
      'accountsChanged',
    );
    expect(changes).toEqual([[addressOf(2)]]);
    expect(disconnects).toEqual([]);
    expect(sites.get(DAPP)).toMatchObject({ address: addressOf(2), accountIndex: 2 });
    expect(await chain.getAccounts()).toEqual([addressOf(2)]);
    const signed = await within(chain.signMessage({ message: 'after the switch' }), 'signMessage');
    expect(signed.publicKey).toBe(addressOf(2));
    expect(new Client({ network: 'testnet' }).verifyMessage(signed)).toBe(true);
    expect(host().switchAccount('https://never.example', 1)).toBe(false);
  });

  it('switched to the account it is served with (another wallet window wrote the list): nothing changes, no second address review', async () => {
    const sites = memorySites();
    const { chain, host, reviews } = walletFor(DAPP, sites, { index: 0 });
    expect(await within(chain.requestAccounts(), 'requestAccounts')).toEqual([addressOf(0)]);
    const before = [...reviews];
    const changes: unknown[] = [];
    chain.on('accountsChanged', (accounts) => changes.push(accounts));
    expect(host().switchAccount(DAPP, 0)).toBe(true);
    await settle();
    const signed = await within(chain.signMessage({ message: 'same account' }), 'signMessage');
    expect(signed.publicKey).toBe(addressOf(0));
    // Only the message's review followed: no address review of a provider made again.
    expect(reviews.slice(before.length)).toEqual(['text']);
    expect(changes).toEqual([]);
  });
});
