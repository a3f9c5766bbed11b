/**
 * The wallet's list of the Ledger's accounts (examples/wallet/src/accounts.ts): index and address as the device gave
 * them (the software Ledger here, checked against the vectors' addresses), names the holder chose, kept in a Storage
 * and read back; what does not fit is skipped, never shown as an account.
 */
import { describe, expect, it } from 'vitest';
import { AccountList, ACCOUNTS_KEY, cleanName } from '../../examples/wallet/src/accounts.js';
import { MinaLedgerApp } from '../../src/apdu.js';
import { SoftwareLedger, TEST_MNEMONIC } from '../../src/emulator.js';
import { addressOf } from '../support/vectors.js';

const memory = () => {
  const values = new Map<string, string>();
  return { getItem: (k: string) => values.get(k) ?? null, setItem: (k: string, v: string) => void values.set(k, v), values };
};

describe("the wallet's accounts", () => {
  it('adds the accounts the device reads, in index order, with default and chosen names', async () => {
    const app = new MinaLedgerApp(SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { warn: () => {} }));
    const storage = memory();
    const accounts = new AccountList(storage);
    expect(accounts.nextIndex()).toBe(0);
    accounts.add(0, await app.getAddress(0));
    accounts.add(accounts.nextIndex(), await app.getAddress(1), 'Savings');
    expect(accounts.list()).toEqual([
      { index: 0, address: addressOf(0), name: 'Account 1' },
      { index: 1, address: addressOf(1), name: 'Savings' },
    ]);
    expect(accounts.nextIndex()).toBe(2);
    accounts.rename(0, '  Daily  ');
    expect(new AccountList(storage).get(0)?.name).toBe('Daily');
    expect(accounts.byAddress(addressOf(1))?.index).toBe(1);
    // Another Ledger's address for index 1 replaces the kept one, with its name.
    accounts.add(1, addressOf(2));
    expect(accounts.get(1)).toEqual({ index: 1, address: addressOf(2), name: 'Savings' });
  });

  it('skips what does not fit: a bad address, a negative index, a repeated index, unreadable JSON', () => {
    const storage = memory();
    storage.setItem(
      ACCOUNTS_KEY,
      JSON.stringify([
        { index: 0, address: 'B62qnope', name: 'x' },
        { index: -1, address: addressOf(0), name: 'x' },
        { index: 3, address: addressOf(3), name: 'Three' },
        { index: 3, address: addressOf(0), name: 'again' },
      ]),
    );
    expect(new AccountList(storage).list()).toEqual([{ index: 3, address: addressOf(3), name: 'Three' }]);
    storage.setItem(ACCOUNTS_KEY, '{not json');
    expect(new AccountList(storage).list()).toEqual([]);
  });

  it('names are trimmed, at most 40 characters, the default when empty', () => {
    expect(cleanName('', 4)).toBe('Account 5');
    expect(cleanName('x'.repeat(60), 0)).toHaveLength(40);
  });
});
