/**
 * The wallet host's side of "the wallet window is the wallet" (src/wallet/host.ts): it serves a site only from a
 * `hello` that names its own window (the random name the site's connector opened it under), answers pings from its
 * message handler, and says `bye` to the site when its page goes.
 */
import { describe, expect, it } from 'vitest';
import { CONNECT_PROTOCOL } from '../../src/connect/protocol.js';
import { WALLET_METHODS } from '../../src/provider/methods.js';
import { WalletHost, type WalletActivity } from '../../src/wallet/host.js';
import { memorySites } from '../../src/wallet/sites.js';
import { FakeWindow, settle } from '../support/fake-windows.js';
import { providerRig, quietLedger, within } from '../support/rig.js';

const DAPP = 'https://dapp.example';
const WALLET = 'https://wallet.example';

/** A wallet page that the dapp's window opened itself, with `window.open(url, name)` (no connector in the dapp). */
function openedBy(name: string) {
  const dapp = new FakeWindow(DAPP);
  const activities: WalletActivity[] = [];
  dapp.open(`${WALLET}/`, name);
  const wallet = dapp.opened[0]!;
  const host = new WalletHost({ provider: { network: 'devnet' }, sites: memorySites(), onActivity: (a) => activities.push(a) });
  host.attach(wallet);
  const post = (fields: Record<string, unknown>) => wallet.proxyFor(dapp).postMessage({ protocol: CONNECT_PROTOCOL, ...fields }, WALLET);
  const answers = () => dapp.received.map((m) => m.data as { type: string }).filter((m) => m.type !== 'ready');
  return { dapp, wallet, host, activities, post, answers };
}

describe('the wallet host and its window', () => {
  it('serves no site from a hello that names another window than its own: ignored, unanswered, nothing bound; a hello naming its window binds the site', async () => {
    const { host, activities, post, answers } = openedBy('chain-ledger-wallet-mine');
    post({ type: 'hello', name: 'chain-ledger-wallet-another' });
    await settle();
    expect(host.site).toBeUndefined();
    expect(answers()).toEqual([]);
    expect(activities).toEqual([
      { kind: 'ignored', origin: DAPP, why: "not the window this site's connector opened (its hello names another)" },
    ]);
    post({ type: 'hello', name: 'chain-ledger-wallet-mine' });
    await settle();
    expect(host.site).toBe(DAPP);
    expect(answers()).toEqual([{ protocol: CONNECT_PROTOCOL, type: 'welcome', networkID: 'mina:devnet', accounts: [] }]);
  });

  it('a hello without a name, or with one that is not a window name, is not read', async () => {
    const { host, activities, post } = openedBy('chain-ledger-wallet-mine');
    for (const name of [undefined, '', 'x'.repeat(101), 'chain-ledger-wallet mine', 7])
      post({ type: 'hello', ...(name === undefined ? {} : { name }) });
    await settle();
    expect(host.site).toBeUndefined();
    expect(activities.map((a) => (a as { why: string }).why)).toEqual(Array(5).fill('not a chain-ledger/connect message'));
  });

  it('answers a ping with a pong to the bound site only, and says bye to it, naming its window, when its page goes (pagehide)', async () => {
    const { wallet, post, answers } = openedBy('chain-ledger-wallet-mine');
    post({ type: 'ping', id: 1 }); // before the handshake: not read
    post({ type: 'hello', name: 'chain-ledger-wallet-mine' });
    post({ type: 'ping', id: 2 });
    await settle();
    wallet.loadPage('https://elsewhere.example');
    await settle();
    expect(answers().map((m) => m.type)).toEqual(['welcome', 'pong', 'bye']);
    expect(answers()[1]).toEqual({ protocol: CONNECT_PROTOCOL, type: 'pong', id: 2 });
    expect(answers()[2]).toEqual({ protocol: CONNECT_PROTOCOL, type: 'bye', name: 'chain-ledger-wallet-mine' });
  });
});

describe('the wallet host and the method table', () => {
  /** Every wallet method but `chain_requestAccounts` (which connects the site), with params no schema accepts. */
  const methods = Object.keys(WALLET_METHODS).filter((name) => name !== 'chain_requestAccounts');
  const needsConnection = methods.filter((name) => {
    const row = WALLET_METHODS[name as keyof typeof WALLET_METHODS];
    return row.connection === 'account' || ('account' in row && row.account === true);
  });

  it("the table's connection column is the provider's: before requestAccounts, exactly the methods that need an account are refused with 1001", async () => {
    const { chain } = providerRig({ extensions: true });
    const refusedUnconnected: string[] = [];
    for (const method of methods) {
      const code = await within(
        chain.request({ method, params: { junk: true } } as never).then(
          () => 0,
          (e: { code: number }) => e.code,
        ),
        method,
      );
      if (code === 1001) refusedUnconnected.push(method);
    }
    expect(needsConnection.length).toBeGreaterThan(5);
    expect(needsConnection.length).toBeLessThan(methods.length);
    expect(refusedUnconnected).toEqual(needsConnection);
  });

  it('refuses a site that never connected at once, before its provider is asked, exactly the methods the table says need a connection', async () => {
    const { host, post, activities } = openedBy('chain-ledger-wallet-mine');
    host.useDevice(quietLedger({ extensions: true }));
    post({ type: 'hello', name: 'chain-ledger-wallet-mine' });
    methods.forEach((method, i) => post({ type: 'request', id: i + 1, method, params: { junk: true } }));
    await within(
      (async () => {
        while (activities.filter((a) => a.kind === 'settled' || a.kind === 'refused').length < methods.length) await settle();
      })(),
      'every call answered',
    );
    const refusedByHost = activities
      .filter((a): a is Extract<WalletActivity, { kind: 'refused' }> => a.kind === 'refused')
      .map(
        (a) => (
          expect(a.error).toMatchObject({ code: 1001, data: { reason: expect.stringContaining('is not connected to this wallet') } }),
          a.method
        ),
      );
    expect(refusedByHost).toEqual(needsConnection);
  });
});
