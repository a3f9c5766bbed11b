/**
 * The provider's events as a page's listeners receive them: any script of the page may register first, so no
 * listener can change what the next one sees, and none can end the host.
 */
import { describe, expect, it } from 'vitest';
import { connectedProvider, providerRig } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

/** Lets every pending promise job and a macrotask run (an unhandled rejection is reported by then). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('event listeners', () => {
  it('each listener gets its own frozen copy: a listener that rewrites the accounts does not change what the next one sees', async () => {
    const { chain } = providerRig();
    const seen: string[][] = [];
    chain.on('accountsChanged', (accounts) => {
      accounts[0] = 'B62qattacker';
    });
    chain.on('accountsChanged', (accounts) => {
      seen.push([...accounts]);
      expect(Object.isFrozen(accounts)).toBe(true);
    });
    await chain.requestAccounts();
    expect(seen).toEqual([[addressOf(0)]]);
  });

  it('a chainChanged payload and a disconnect error are copies too: a change by one listener is not seen by the next', async () => {
    const { chain } = await connectedProvider({}, { allowUnconfirmedSwitchChain: true });
    const networks: string[] = [];
    const codes: number[] = [];
    chain.on('chainChanged', (chainId) => {
      (chainId as { networkID: string }).networkID = 'mina:attacker';
    });
    chain.on('chainChanged', ({ networkID }) => networks.push(networkID));
    chain.on('disconnect', (error) => {
      (error as { code: number }).code = 0;
    });
    chain.on('disconnect', (error) => codes.push(error.code));
    await chain.switchChain({ networkID: 'mina:mainnet' });
    await chain.disconnect();
    expect(networks).toEqual(['mina:mainnet']);
    expect(codes).toEqual([1001]);
  });

  it('an async listener that rejects is no unhandled rejection (which ends a Node host), and the listeners after it still run', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const { chain } = providerRig();
      const after: string[][] = [];
      chain.on('accountsChanged', async () => {
        throw new Error('a page listener failed');
      });
      chain.on('accountsChanged', (accounts) => after.push([...accounts]));
      await chain.requestAccounts();
      await settle();
      await settle();
      expect(after).toEqual([[addressOf(0)]]);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });
});
