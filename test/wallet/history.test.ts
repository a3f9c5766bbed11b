/**
 * The wallet's Activity record (src/wallet/history.ts) as the host keeps it: a site connected through
 * chain-ledger/connect on the software Ledger signs a message and makes a nullifier; the record lists both newest
 * first, for that site and network, with what was signed (checked with mina-signer), and nothing for the calls that
 * sign nothing. A revoked site's next call is refused with 1001 and adds nothing.
 */
import Client from 'mina-signer';
import { describe, expect, it } from 'vitest';
import { connectWallet } from '../../src/connect.js';
import { activityEntry, memoryHistory, storageHistory } from '../../src/wallet/history.js';
import { WalletHost } from '../../src/wallet/host.js';
import { memorySites } from '../../src/wallet/sites.js';
import { FakeWindow, settle } from '../support/fake-windows.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { quietLedger, within } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

const DAPP = 'https://dapp.example';

function rig() {
  const sites = memorySites();
  const history = memoryHistory();
  const ledger = quietLedger({ extensions: true });
  const dapp = new FakeWindow(DAPP);
  const hosts: WalletHost[] = [];
  dapp.onOpen = (url) => {
    const wallet = new FakeWindow(new URL(url).origin);
    const host = new WalletHost({ provider: { network: 'devnet' }, sites, history });
    host.useDevice(ledger);
    hosts.push(host);
    setTimeout(() => host.attach(wallet));
    return wallet;
  };
  const chain = connectWallet({ walletUrl: 'https://wallet.example/', window: dapp });
  return { sites, history, ledger, chain, host: () => hosts.at(-1)! };
}

describe("the wallet's Activity record", () => {
  it('records what a site had signed, newest first, with its site and network; calls that sign nothing add nothing', async () => {
    const { chain, history } = rig();
    expect(await within(chain.requestAccounts(), 'requestAccounts')).toEqual([addressOf(0)]);
    await within(chain.getNetworkId(), 'networkId');
    const signed = await within(chain.signMessage({ message: 'Sign in to dapp.example' }), 'signMessage');
    expect(new Client({ network: 'testnet' }).verifyMessage(signed)).toBe(true);
    await within(chain.createNullifier({ message: ['7'] }), 'createNullifier');
    await settle();
    const entries = history.list();
    expect(entries.map((e) => [e.kind, e.title, e.origin, e.network])).toEqual([
      ['nullifier', 'Made a nullifier', DAPP, 'mina:devnet'],
      ['message', 'Signed a message', DAPP, 'mina:devnet'],
    ]);
    // What was signed is what the device signed: the record's text is the signed data.
    expect(entries[1]!.detail).toBe(signed.data);
    expect(Date.parse(entries[0]!.at)).toBeGreaterThanOrEqual(Date.parse(entries[1]!.at));
  });

  it('a revoked site is refused with 1001 on its next call, nothing reaches the device, and the record is unchanged', async () => {
    const { chain, history, host, sites, ledger } = rig();
    await within(chain.requestAccounts(), 'requestAccounts');
    await within(chain.signMessage({ message: 'before the revoke' }), 'signMessage');
    host().revoke(DAPP); // the holder's Revoke in the wallet's Sites
    await settle();
    expect(sites.get(DAPP)).toBeUndefined();
    const exchanges = ledger.exchanges.length;
    expect(await failure(within(chain.signMessage({ message: 'after the revoke' }), 'signMessage'))).toMatchObject({ code: 1001 });
    expect(ledger.exchanges.length).toBe(exchanges);
    expect(history.list().map((e) => e.detail)).toEqual(['before the revoke']);
  });

  it('a payment and a zkApp command are recorded with their hash or as signed only; unreadable stored entries are skipped', () => {
    const values = new Map<string, string>();
    const storage = { getItem: (k: string) => values.get(k) ?? null, setItem: (k: string, v: string) => void values.set(k, v) };
    const history = storageHistory(storage);
    const at = new Date('2026-12-01T10:00:00.000Z');
    const payment = activityEntry(
      {
        method: 'mina_sendPayment',
        params: { to: addressOf(1), amount: '1.5' },
        result: { hash: '5Jtx' },
        origin: DAPP,
        network: 'mina:devnet',
      },
      at,
    );
    expect(payment).toEqual({
      at: at.toISOString(),
      origin: DAPP,
      network: 'mina:devnet',
      kind: 'payment',
      method: 'chain_sendPayment',
      title: 'Sent a payment',
      detail: `1.5 MINA to ${addressOf(1)}`,
      hash: '5Jtx',
    });
    const zkapp = activityEntry(
      {
        method: 'chain_sendTransaction',
        params: { transaction: JSON.stringify({ feePayer: {}, accountUpdates: [{}, {}], memo: '' }), onlySign: true },
        result: { signedData: '{}' },
        origin: DAPP,
        network: 'mina:devnet',
      },
      new Date('2026-12-01T11:00:00.000Z'),
    );
    expect(zkapp).toMatchObject({
      kind: 'zkapp',
      title: 'Signed a zkApp command',
      detail: 'a zkApp command of 2 account updates, signed only (the site sends it)',
    });
    expect(
      activityEntry({ method: 'chain_accounts', params: undefined, result: [], origin: DAPP, network: 'mina:devnet' }),
    ).toBeUndefined();
    history.add(payment!);
    history.add(zkapp!);
    values.set('chain-ledger:activity', JSON.stringify([...JSON.parse(values.get('chain-ledger:activity')!), { kind: 'bogus' }]));
    expect(history.list().map((e) => e.kind)).toEqual(['zkapp', 'payment']);
  });
});
