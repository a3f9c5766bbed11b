/**
 * What another script of the dapp's page can do to the connector (src/connect): it can make up message events and
 * call the connector's listener with them (it captured it by replacing `addEventListener` first), redefine a real
 * event's `origin` in a listener of its own that runs first, replace `window.open` once the connector exists. None of
 * it changes the connector's accounts or network, settles a call, or shows it the wallet window. And a connector in
 * a sandboxed frame knows its origin is opaque.
 */
import { describe, expect, it } from 'vitest';
import { connectWallet } from '../../src/connect.js';
import { CONNECT_PROTOCOL } from '../../src/connect/protocol.js';
import { WalletHost } from '../../src/wallet/host.js';
import { memorySites } from '../../src/wallet/sites.js';
import { FakeMessageEvent, FakeWindow, settle } from '../support/fake-windows.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { quietLedger, within } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

const DAPP = 'https://dapp.example';
const WALLET = 'https://wallet.example';
const LOOK_ALIKE = 'https://wallet-look-alike.example';
const ADDRESS = addressOf(0);
const SPOOFED = 'B62qSPOOFED';

/** A dapp connected in its wallet window; `before` runs in the dapp's window before the connector is created. */
async function connected(before?: (dapp: FakeWindow) => void) {
  const dapp = new FakeWindow(DAPP);
  dapp.onOpen = (url) => {
    const wallet = new FakeWindow(new URL(url).origin);
    const host = new WalletHost({ provider: { network: 'devnet' }, sites: memorySites() });
    host.useDevice(quietLedger({ extensions: true }));
    setTimeout(() => host.attach(wallet));
    return wallet;
  };
  before?.(dapp);
  const chain = connectWallet({ walletUrl: `${WALLET}/`, window: dapp });
  const accounts: string[][] = [];
  chain.on('accountsChanged', (a) => accounts.push(a));
  expect(await within(chain.requestAccounts(), 'requestAccounts')).toEqual([ADDRESS]);
  await settle();
  return { dapp, chain, accounts, wallet: dapp.opened[0]! };
}

const message = (fields: Record<string, unknown>) => ({ protocol: CONNECT_PROTOCOL, ...fields });
const SPOOFED_ACCOUNTS = message({ type: 'event', event: 'accountsChanged', args: [[SPOOFED]] });
const SPOOFED_CHAIN = message({ type: 'event', event: 'chainChanged', args: [{ networkID: 'mina:spoofed' }] });

describe('scripts of the dapp page against the connector', () => {
  it("an object made up to look like the wallet's message event, given to the connector's captured listener, changes nothing and settles nothing", async () => {
    const { dapp, chain, accounts, wallet } = await connected();
    const proxy = wallet.proxyFor(dapp); // the wallet window's handle, as any message event of it shows it
    const waiting = chain.signMessage({ message: 'pending' }).catch((e) => e);
    await settle(2);
    const id = (wallet.received.at(-1)!.data as { id: number }).id;
    for (const data of [SPOOFED_ACCOUNTS, SPOOFED_CHAIN, message({ type: 'result', id, result: { signature: 'forged' } })]) {
      // As the review's attacker did: `isTrusted: true`, the wallet's origin and window, on a plain object…
      dapp.callListeners({ isTrusted: true, type: 'message', data, origin: WALLET, source: proxy });
      // …or on an object whose prototype is the page's MessageEvent's.
      const own = { isTrusted: true, data, origin: WALLET, source: proxy };
      dapp.callListeners(Object.create(FakeMessageEvent.prototype, Object.getOwnPropertyDescriptors(own)));
      // A real event made by the script (isTrusted false), dispatched or passed to the listener.
      dapp.forge(data, WALLET, proxy);
      dapp.callListeners(new FakeMessageEvent('message', { data, origin: WALLET, source: proxy }));
    }
    await settle();
    expect(accounts).toEqual([[ADDRESS]]);
    expect(chain.networkID).toBe('mina:devnet');
    expect(chain.isConnected()).toBe(true);
    // The call was not settled by the forged result: it gets its own answer (signed on the device).
    expect(await within(waiting, 'the real answer')).toMatchObject({ publicKey: ADDRESS, data: 'pending' });
  });

  it("a real message of a look-alike in the wallet window whose origin a page script redefined (in a listener that runs first) is read for the browser's origin: ignored", async () => {
    const redefine = (event: MessageEvent) => Object.defineProperty(event, 'origin', { value: WALLET });
    const { dapp, chain, accounts, wallet } = await connected((page) => page.addEventListener('message', redefine));
    wallet.navigate(LOOK_ALIKE); // the window's document is now the look-alike (the test skips its pagehide)
    wallet.opener!.postMessage(SPOOFED_ACCOUNTS, '*');
    wallet.opener!.postMessage(SPOOFED_CHAIN, '*');
    await settle();
    expect(dapp.received.slice(-2).map((m) => m.origin)).toEqual([LOOK_ALIKE, LOOK_ALIKE]); // delivered, then redefined
    expect(accounts).toEqual([[ADDRESS]]);
    expect(chain.networkID).toBe('mina:devnet');
  });

  it('a script that replaces window.open once the connector exists never sees the wallet window open, nor its name', async () => {
    const dapp = new FakeWindow(DAPP);
    const chain = connectWallet({ walletUrl: `${WALLET}/`, window: dapp });
    const seen: unknown[] = [];
    const open = dapp.open.bind(dapp);
    dapp.open = (...args: Parameters<FakeWindow['open']>) => (seen.push(args), open(...args));
    void chain.getNetworkId().catch(() => undefined);
    expect(dapp.opened).toHaveLength(1);
    expect(seen).toEqual([]);
  });

  it("a connector in a sandboxed frame (self.origin 'null', location the site's) refuses a call claiming the site's origin: 23001, nothing opened", async () => {
    const dapp = new FakeWindow(DAPP, { sandboxed: true });
    const chain = connectWallet({ walletUrl: `${WALLET}/`, window: dapp });
    expect(chain.origin).toBe('null');
    expect(await failure(chain.requestAccounts({ origin: DAPP }))).toMatchObject({
      code: 23001,
      data: { reason: `request from "${DAPP}", but this page is null: a page cannot claim another origin` },
    });
    expect(dapp.opened).toHaveLength(0);
  });
});
