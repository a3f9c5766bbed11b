/**
 * The rest of what real callers of `window.mina` use, each through the caller's own code path (what it builds, what it
 * checks): Auro's `getWalletInfo` / `wallet_info` and `revokePermissions` / `wallet_revokePermissions` (the test dapp
 * finds the latter on the prototype), mina-js's `mina_networkId` (wagmina's connect for every wallet but Auro),
 * `verifyMessage` with the signature as JSON text (Auro's test dapp), and the wallet's identity (slug, rdns, `isAuro`,
 * the `chainChanged` payload).
 */
import { readFileSync } from 'node:fs';
import Client from 'mina-signer';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PROVIDER_INFO,
  install,
  requestProviders,
  wrapProvider,
  type LedgerProvider,
  type ProviderDetail,
} from '../../src/index.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { ORIGIN, connectedProvider, providerRig, quietLedger } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

const testnet = new Client({ network: 'testnet' });
const packageVersion = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

describe("Auro's getWalletInfo / wallet_info", () => {
  it("the test dapp's 'Get wallet base info': { version, init: true }, before connecting too, without the device", async () => {
    const { chain, ledger } = providerRig();
    // BasicActionBox: `setWalletInfo(JSON.stringify(await provider?.getWalletInfo()))`.
    expect(JSON.stringify(await chain.getWalletInfo())).toBe(JSON.stringify({ version: packageVersion, init: true }));
    expect(await chain.request({ method: 'wallet_info' })).toEqual({ version: packageVersion, init: true });
    expect(ledger.exchanges).toEqual([]);
    expect(await failure(chain.request({ method: 'wallet_info' }, { origin: 'https://evil.example' }))).toMatchObject({ code: 23001 });
  });
});

describe("Auro's revokePermissions / wallet_revokePermissions", () => {
  /** Auro's test dapp: revoking is offered only when the provider's prototype has the method. */
  const canRevoke = (provider: object) => Object.getOwnPropertyNames(Object.getPrototypeOf(provider)).includes('revokePermissions');

  it.each([
    ['createLedgerProvider', () => connectedProvider()],
    [
      'wrapProvider',
      async () => {
        const ledger = quietLedger();
        const chain = wrapProvider({}, { transport: ledger, network: 'devnet', origin: ORIGIN, whenUnsupported: 'refuse' });
        await chain.requestAccounts();
        return { chain, ledger };
      },
    ],
  ] as const)('%s: the test dapp finds it on the prototype; revoking forgets the connection and resolves []', async (_made, make) => {
    const { chain, ledger } = await make();
    expect(canRevoke(chain)).toBe(true);
    const accounts: unknown[] = [];
    chain.on('accountsChanged', (a) => accounts.push(a));
    const before = ledger.exchanges.length;
    expect(await (chain as LedgerProvider).revokePermissions()).toEqual([]);
    expect(accounts).toEqual([[]]);
    expect([chain.isConnected(), await chain.getAccounts()]).toEqual([false, []]);
    expect(await failure(chain.signMessage({ message: 'after revoking' }))).toMatchObject({ code: 1001 });
    expect(ledger.exchanges.length).toBe(before);
  });

  it("wagmina's disconnect: wallet_revokePermissions with [{ mina_accounts: {} }] answers within its 100 ms timeout", async () => {
    const { chain } = await connectedProvider();
    const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 100));
    const revoked = chain.request({ method: 'wallet_revokePermissions', params: [{ mina_accounts: {} }] });
    expect(await Promise.race([revoked, timeout])).toEqual([]);
    expect(chain.isConnected()).toBe(false);
  });
});

describe("mina-js's mina_networkId: wagmina's injected connector", () => {
  /**
   * wagmina's `injected()` connector (packages/core/src/connectors/injected.ts), `connect()` then `getNetworkId()`, for
   * a target whose rdns is not Auro's: it asks `wallet_requestPermissions` (and goes on unless the code is 4001 or
   * -32002), `mina_requestAccounts`, then `mina_networkId` and reads the part after the colon.
   */
  async function wagminaConnect(provider: LedgerProvider, rdns: string) {
    let accounts: string[] = [];
    try {
      await provider.request({ method: 'wallet_requestPermissions', params: [{ mina_accounts: {} }] } as never);
    } catch (error) {
      const code = (error as { code?: number }).code;
      if (code === 4001 || code === -32002) throw error;
    }
    accounts = await provider.request({ method: 'mina_requestAccounts' });
    const networkId =
      rdns === 'com.aurowallet'
        ? (await provider.request({ method: 'mina_requestNetwork' })).networkID.split(':')[1]
        : (await provider.request({ method: 'mina_networkId' })).split(':')[1];
    return { accounts, networkId };
  }

  it("connects: accounts and the network id 'devnet' from mina_networkId ('mina:devnet')", async () => {
    const { chain } = providerRig();
    expect(await wagminaConnect(chain, DEFAULT_PROVIDER_INFO.rdns)).toEqual({ accounts: [addressOf(0)], networkId: 'devnet' });
    expect(await chain.getNetworkId()).toBe('mina:devnet');
    expect(await chain.request({ method: 'chain_networkId' })).toBe('mina:devnet');
  });
});

describe("verifyMessage with the signature as JSON text (Auro's test dapp)", () => {
  it('SignMessageBox: sign, keep JSON.stringify(signature) in the text box, send that text back → true', async () => {
    const { chain } = await connectedProvider({ extensions: true });
    const signResult = await chain.signMessage({ message: 'test dapp message' });
    // The test dapp's state: the data and the signature as text.
    const verifyContent = `${signResult.data}`;
    const verifySignature = JSON.stringify(signResult.signature);
    const body = { publicKey: addressOf(0), signature: verifySignature as never, data: verifyContent };
    expect(await chain.verifyMessage(body)).toBe(true);
    expect(await chain.request({ method: 'mina_verifyMessage', params: body })).toBe(true);
    expect(await chain.verifyMessage({ ...body, data: 'another text' })).toBe(false);
  });

  it('verifyJsonMessage takes it too; text that is no { field, scalar } is 20003 naming the signature', async () => {
    const { chain } = await connectedProvider({ extensions: true });
    const signed = await chain.signJsonMessage({ message: [{ label: 'action', value: 'login' }] });
    expect(await chain.verifyJsonMessage({ ...signed, signature: JSON.stringify(signed.signature) as never })).toBe(true);
    expect(testnet.verifyMessage(signed)).toBe(true);
    for (const signature of ['not JSON', '{"field":"1"}', '[1,2]', `{"field":"1","scalar":"x"}`]) {
      expect(await failure(chain.verifyMessage({ ...signed, signature: signature as never }))).toMatchObject({
        code: 20003,
        data: { field: 'signature' },
      });
    }
  });
});

describe('identity: this wallet never claims to be Auro unless the integrator says so', () => {
  const fakeWindow = () => new EventTarget() as EventTarget & Record<string, unknown>;
  /** Auro's test dapp (context/MinaProviderContext.tsx) takes an announced provider only if it is Auro. */
  const auroTestDappPicks = (detail: ProviderDetail) =>
    detail.info.slug === 'aurowallet' || (detail.provider as { isAuro?: boolean }).isAuro === true;

  it("by default: slug chain-ledger, rdns org.chain-ledger, no isAuro: Auro's test dapp does not pick it", async () => {
    const { chain } = providerRig();
    const window = fakeWindow();
    install(chain, { window, asMina: true });
    const [detail] = await requestProviders({ window });
    expect(detail!.info).toMatchObject({ slug: 'chain-ledger', rdns: 'org.chain-ledger' });
    expect('isAuro' in chain).toBe(false);
    expect(auroTestDappPicks(detail!)).toBe(false);
  });

  it("announceAsAuro: true announces Auro's slug (the test dapp picks it), keeps this wallet's name, icon and rdns, and still no isAuro", async () => {
    const { chain } = providerRig();
    const window = fakeWindow();
    install(chain, { window, announceAsAuro: true });
    const [detail] = await requestProviders({ window });
    expect(detail!.info).toEqual({ ...DEFAULT_PROVIDER_INFO, slug: 'aurowallet' });
    expect(auroTestDappPicks(detail!)).toBe(true);
    expect('isAuro' in chain).toBe(false);
  });

  it("chainChanged carries Auro's { networkID }: wagmina's listener for other wallets (which reads a string) throws, and the switch and every other listener go on", async () => {
    const { chain } = await connectedProvider({}, { allowUnconfirmedSwitchChain: true });
    const seen: unknown[] = [];
    // wagmina's listener for a target that is not com.aurowallet: `chainChanged?.(newNetworkId.split(':')[1])`.
    chain.on('chainChanged', (arg) => seen.push((arg as unknown as string).split(':')[1]));
    chain.on('chainChanged', (arg) => seen.push(arg));
    expect(await chain.switchChain({ networkID: 'mina:mainnet' })).toEqual({ networkID: 'mina:mainnet' });
    expect(seen).toEqual([{ networkID: 'mina:mainnet' }]);
  });
});
