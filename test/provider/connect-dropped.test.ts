/**
 * A connect still on the device (the address shown) when the connection is dropped — `disconnect()`,
 * `revokePermissions()`, a revoke in the wallet page — is refused when the device answers (1001): what was dropped
 * during it is not connected by a late approval, and no `accountsChanged` says otherwise.
 */
import { describe, expect, it } from 'vitest';
import { createLedgerProvider, type LedgerProvider } from '../../src/index.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { ORIGIN, quietLedger, within } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

/** A provider whose first address review waits for `approve()`; `shown` resolves when it is on the device. */
function addressWaiting() {
  let approve!: () => void;
  let shown!: () => void;
  const onScreen = new Promise<void>((resolve) => (shown = resolve));
  const approved = new Promise<void>((resolve) => (approve = resolve));
  const ledger = quietLedger({
    approve: async (review) => {
      if (review.kind === 'address') {
        shown();
        await approved;
      }
      return true;
    },
  });
  const chain = createLedgerProvider({ transport: ledger, network: 'devnet', origin: ORIGIN });
  const accounts: string[][] = [];
  chain.on('accountsChanged', (list) => accounts.push([...list]));
  return { chain, accounts, shown: onScreen, approve: () => approve() };
}

describe('a connect dropped while the device shows the address', () => {
  for (const [how, drop] of [
    ['disconnect()', (chain: LedgerProvider) => chain.disconnect()],
    ['revokePermissions()', (chain: LedgerProvider) => chain.revokePermissions()],
  ] as const) {
    it(`${how} during requestAccounts: the approved address connects nothing (1001), no accountsChanged`, async () => {
      const { chain, accounts, shown, approve } = addressWaiting();
      const connecting = chain.requestAccounts();
      await within(shown, 'the address on the device');
      await drop(chain);
      approve();
      expect(await failure(within(connecting, 'requestAccounts'))).toMatchObject({
        code: 1001,
        data: { reason: expect.stringMatching(/closed while the Ledger was connecting/) },
      });
      expect(chain.isConnected()).toBe(false);
      expect(accounts).toEqual([]);
      // Asked again, the user connects as usual.
      expect(await within(chain.requestAccounts(), 'requestAccounts again')).toEqual([addressOf(0)]);
    });
  }
});
