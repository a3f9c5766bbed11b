/**
 * Wallet discovery (src/provider/discovery.ts) as @mina-js/connect and Auro's docs do it: `install()` sets
 * `window.chain` (and `window.mina` when asked) and answers `mina:requestProvider` with `mina:announceProvider`.
 */
import { describe, expect, it } from 'vitest';
import {
  ANNOUNCE_PROVIDER_EVENT,
  DEFAULT_PROVIDER_INFO,
  REQUEST_PROVIDER_EVENT,
  install,
  requestProviders,
  type ProviderDetail,
} from '../../src/index.js';
import { providerRig } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

const ACCOUNT0 = addressOf(0);
const setup = () => providerRig();

describe('wallet discovery: mina:requestProvider / mina:announceProvider', () => {
  /** A minimal window stand-in: an EventTarget that can hold globals. */
  const fakeWindow = () => new EventTarget() as EventTarget & Record<string, unknown>;

  it('install() sets window.chain and answers requestProvider with { info, provider }, as @mina-js/connect asks', async () => {
    const window = fakeWindow();
    const { chain } = setup();
    const early: ProviderDetail[] = [];
    window.addEventListener(ANNOUNCE_PROVIDER_EVENT, (e) => early.push((e as CustomEvent<ProviderDetail>).detail));
    const uninstall = install(chain, { window });
    expect(window.chain).toBe(chain);
    expect(window.mina).toBeUndefined(); // Auro's name, untouched unless asked
    expect(early).toHaveLength(1); // announced once when installed

    // The dapp side, as @mina-js/connect and Auro's docs do it: listen, then request.
    const found = await requestProviders({ window });
    expect(found).toHaveLength(1);
    // Under this wallet's own identity the announced provider is its mina-js view (chainChanged as text: minaJsView).
    expect(found[0]!.provider).not.toBe(chain);
    expect(found[0]!.info).toEqual(DEFAULT_PROVIDER_INFO);
    expect(found[0]!.info.icon).toMatch(/^data:image\//);
    expect(Object.isFrozen(found[0])).toBe(true);
    // The discovered provider works: connect through it.
    expect(await (found[0]!.provider as typeof chain).requestAccounts()).toEqual([ACCOUNT0]);
    expect(chain.isConnected()).toBe(true); // the same provider

    uninstall();
    expect(window.chain).toBeUndefined();
    expect(await requestProviders({ window })).toEqual([]);
  });

  it('asMina also sets window.mina; custom info is checked (icon must be a data:image URI)', () => {
    const window = fakeWindow();
    const { chain } = setup();
    const info = { slug: 'my-ledger', name: 'My Ledger', icon: 'data:image/png;base64,AAAA', rdns: 'com.example.ledger' };
    install(chain, { window, asMina: true, info });
    expect(window.mina).toBe(chain);
    let detail: ProviderDetail | undefined;
    window.addEventListener(ANNOUNCE_PROVIDER_EVENT, (e) => (detail = (e as CustomEvent<ProviderDetail>).detail));
    window.dispatchEvent(new Event(REQUEST_PROVIDER_EVENT));
    expect(detail?.info).toEqual(info);
    expect(() => install(chain, { window: fakeWindow(), info: { ...info, icon: 'https://example.com/icon.png' } })).toThrow(/data:image/);
  });
});
