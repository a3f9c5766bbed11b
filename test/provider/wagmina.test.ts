/**
 * wagmina's injected connector (DeMonkeyCoder/wagmina `packages/core/src/connectors/injected.ts`), replayed with its
 * own code shape against the provider found through wallet discovery: its id is the announced `rdns`; only under
 * `com.aurowallet` does it read `chainChanged` as `{ networkID }` and ask `mina_requestNetwork`; for every other wallet
 * it calls `arg.split(':')` and asks `mina_networkId`, and switches with `mina_switchChain` and `params: [caipId]`.
 * It must connect, follow a network switch (its own and the page's) and follow an account change, both under this
 * wallet's own identity (the default: the announced view gives the network id as text) and under `identity: 'auro'`;
 * while Auro's callers on `window.chain` / `window.mina` keep reading `{ networkID }`.
 */
import { describe, expect, it } from 'vitest';
import { install, requestProviders, type InstallOptions, type LedgerProvider } from '../../src/index.js';
import { providerRig } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

const ACCOUNT0 = addressOf(0);
const fakeWindow = () => new EventTarget() as EventTarget & Record<string, unknown>;

/** wagmina's connector for one discovered wallet, as its source does it; `events` is what wagmina's emitter receives. */
function wagminaConnector(target: { id: string; provider: LedgerProvider }) {
  const events: unknown[][] = [];
  const listenerErrors: unknown[] = [];
  const provider = target.provider as unknown as {
    request(args: { method: string; params?: unknown }): Promise<any>;
    on(event: string, listener: (arg: any) => void): unknown;
  };
  const getNetworkId = async (): Promise<string> => {
    if (target.id === 'com.aurowallet') {
      const response: string = (await provider.request({ method: 'mina_requestNetwork' })).networkID.split(':')[1];
      return response === 'testnet' ? 'devnet' : response;
    }
    return (await provider.request({ method: 'mina_networkId' })).split(':')[1]!;
  };
  const onChainChanged = (networkId: string) => events.push(['change', { networkId }]);
  const onAccountsChanged = (accounts: string[]) =>
    accounts.length === 0 ? events.push(['disconnect']) : events.push(['change', { accounts }]);
  return {
    events,
    listenerErrors,
    async connect() {
      let accounts: string[] = [];
      try {
        const permissions = await provider.request({ method: 'wallet_requestPermissions', params: [{ mina_accounts: {} }] });
        accounts = permissions[0]?.caveats?.[0]?.value ?? [];
      } catch (err) {
        const code = (err as { code?: number }).code;
        if (code === 4001 || code === -32002) throw err; // wagmina rethrows only a user rejection or a busy prompt
      }
      if (!accounts.length) accounts = await provider.request({ method: 'mina_requestAccounts' });
      provider.on('accountsChanged', onAccountsChanged);
      provider.on('chainChanged', (arg) => {
        try {
          let newNetworkId = arg;
          if (target.id === 'com.aurowallet') newNetworkId = arg.networkID === 'mina:testnet' ? 'mina:devnet' : arg.networkID;
          onChainChanged(newNetworkId.split(':')[1]!);
        } catch (error) {
          listenerErrors.push(error); // (the provider swallows a listener's throw: wagmina would just never learn)
        }
      });
      return { accounts, networkId: await getNetworkId() };
    },
    async switchChain(networkId: string) {
      const caipNetworkId = `mina:${networkId}`;
      await (target.id === 'com.aurowallet'
        ? provider.request({
            method: 'mina_switchChain',
            params: { networkID: caipNetworkId === 'mina:devnet' ? 'mina:testnet' : caipNetworkId },
          })
        : provider.request({ method: 'mina_switchChain', params: [caipNetworkId] }));
      return getNetworkId();
    },
  };
}

/** A provider installed on a stand-in window, and wagmina's connector for what discovery announced. */
async function discovered(options: Omit<InstallOptions, 'window'> = {}) {
  const window = fakeWindow();
  const { chain } = providerRig({}, { allowUnconfirmedSwitchChain: true });
  install(chain, { window, ...options });
  const [detail] = await requestProviders<LedgerProvider>({ window });
  // wagmina's multi-injected discovery: one connector per announced wallet, its id the rdns.
  const target = { id: detail!.info.rdns, name: detail!.info.name, provider: detail!.provider };
  return { chain, window, detail: detail!, wagmina: wagminaConnector(target) };
}

describe("wagmina under this wallet's own identity (the default)", () => {
  it('connects, follows its own switch, the page’s switch and an account change; Auro callers still read { networkID }', async () => {
    const { chain, detail, wagmina } = await discovered();
    expect(detail.info.rdns).toBe('org.chain-ledger');
    const auroReader: unknown[] = [];
    chain.on('chainChanged', ({ networkID }) => auroReader.push(networkID)); // an Auro-written caller of window.chain

    expect(await wagmina.connect()).toEqual({ accounts: [ACCOUNT0], networkId: 'devnet' });
    expect(await wagmina.switchChain('mainnet')).toBe('mainnet');
    await chain.switchChain({ networkID: 'mina:devnet' }); // the page (or another library) switches
    expect(wagmina.events).toEqual([
      ['change', { networkId: 'mainnet' }],
      ['change', { networkId: 'devnet' }],
    ]);
    expect(wagmina.listenerErrors).toEqual([]);
    expect(auroReader).toEqual(['mina:mainnet', 'mina:devnet']);

    // An account change: the site's permission revoked (accountsChanged []), then connected again.
    wagmina.events.length = 0;
    await chain.revokePermissions();
    await chain.requestAccounts();
    expect(wagmina.events).toEqual([['disconnect'], ['change', { accounts: [ACCOUNT0] }]]);
  });

  it('window.mina (asMina) stays the provider itself, with Auro’s { networkID }; the announced view shares its state', async () => {
    const { chain, window, detail } = await discovered({ asMina: true });
    expect(window.mina).toBe(chain);
    const viaView: unknown[] = [];
    const listener = (arg: unknown) => viaView.push(arg);
    // `on` chains on the view; `off` through the view removes what `on` added there.
    expect(detail.provider.on('chainChanged', listener)).toBe(detail.provider);
    await chain.switchChain({ networkID: 'mina:mainnet' });
    detail.provider.off('chainChanged', listener as never);
    await chain.switchChain({ networkID: 'mina:devnet' });
    expect(viaView).toEqual(['mina:mainnet']);
    expect(await detail.provider.requestNetwork()).toEqual({ networkID: 'mina:devnet' });
  });
});

describe("wagmina under identity: 'auro' (the integrator's opt-in)", () => {
  it('announces Auro’s slug and rdns with isAuro, as Clorio does; wagmina takes its Auro path and follows switches', async () => {
    const { chain, detail, wagmina } = await discovered({ identity: 'auro' });
    expect(detail.info).toMatchObject({ slug: 'aurowallet', rdns: 'com.aurowallet', name: 'Ledger (chain-ledger)' });
    expect(detail.provider).toBe(chain);
    expect((chain as unknown as { isAuro?: boolean }).isAuro).toBe(true);
    // Auro's test dapp's filter picks it.
    expect(detail.info.slug === 'aurowallet' || (detail.provider as { isAuro?: boolean }).isAuro === true).toBe(true);

    expect(await wagmina.connect()).toEqual({ accounts: [ACCOUNT0], networkId: 'devnet' });
    expect(await wagmina.switchChain('mainnet')).toBe('mainnet');
    await chain.switchChain({ networkID: 'mina:devnet' });
    expect(await wagmina.switchChain('mainnet')).toBe('mainnet');
    // Its own switch to devnet asks Auro for 'mina:testnet': devnet, answered as 'mina:devnet'.
    expect(await wagmina.switchChain('devnet')).toBe('devnet');
    expect(wagmina.events).toEqual([
      ['change', { networkId: 'mainnet' }],
      ['change', { networkId: 'devnet' }],
      ['change', { networkId: 'mainnet' }],
      ['change', { networkId: 'devnet' }],
    ]);
    expect(wagmina.listenerErrors).toEqual([]);
    await chain.revokePermissions();
    expect(wagmina.events.at(-1)).toEqual(['disconnect']);
  });

  it('uninstalling removes isAuro; an unknown identity is refused', async () => {
    const window = fakeWindow();
    const { chain } = providerRig();
    const uninstall = install(chain, { window, identity: 'auro' });
    uninstall();
    expect('isAuro' in chain).toBe(false);
    expect(() => install(chain, { window, identity: 'pallad' as never })).toThrow(/identity/);
    expect(window.chain).toBeUndefined();
  });
});
