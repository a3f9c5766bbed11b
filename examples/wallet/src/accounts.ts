/**
 * The holder's accounts of the Ledger: account index 0…n, each with the address the device showed and the holder
 * confirmed once, and the name the holder gave it. Kept in the wallet origin's storage (addresses are public; the
 * names are the holder's). Pure over a `Storage`, so test/wallet/accounts.test.ts checks it without a page.
 */
import { isAddress } from 'chain-ledger/apdu';

export interface WalletAccount {
  index: number;
  address: string;
  name: string;
}

export const ACCOUNTS_KEY = 'chain-ledger:wallet-accounts';
const MAX_NAME = 40;

const isAccount = (value: unknown): value is WalletAccount => {
  const a = value as Partial<WalletAccount> | null;
  return (
    Number.isInteger(a?.index) && a!.index! >= 0 && typeof a?.address === 'string' && isAddress(a.address) && typeof a.name === 'string'
  );
};

/** The default name of account `index`: "Account 1" for index 0, as Auro and Ledger Live count for a person. */
export const defaultName = (index: number) => `Account ${index + 1}`;

/** A name as kept: trimmed, at most 40 characters, the default when empty. */
export function cleanName(name: string, index: number): string {
  const trimmed = name.trim().slice(0, MAX_NAME);
  return trimmed === '' ? defaultName(index) : trimmed;
}

export class AccountList {
  readonly #storage: Pick<Storage, 'getItem' | 'setItem'>;

  constructor(storage: Pick<Storage, 'getItem' | 'setItem'>) {
    this.#storage = storage;
  }

  /** By index; entries that do not fit (an older version's, a hand edit) are skipped. */
  list(): WalletAccount[] {
    try {
      const parsed = JSON.parse(this.#storage.getItem(ACCOUNTS_KEY) ?? '[]') as unknown;
      if (!Array.isArray(parsed)) return [];
      const seen = new Set<number>();
      return parsed
        .filter(isAccount)
        .filter((a) => !seen.has(a.index) && seen.add(a.index))
        .sort((a, b) => a.index - b.index);
    } catch {
      return [];
    }
  }

  get(index: number): WalletAccount | undefined {
    return this.list().find((a) => a.index === index);
  }

  /** The first index not yet added. */
  nextIndex(): number {
    const indexes = new Set(this.list().map((a) => a.index));
    let index = 0;
    while (indexes.has(index)) index++;
    return index;
  }

  /**
   * Adds account `index` with the address the device gave. A different address for an index already kept (another
   * Ledger, or another passphrase) replaces it and keeps the name: the device is the authority on its addresses.
   */
  add(index: number, address: string, name = ''): WalletAccount {
    const kept = this.get(index);
    const account = { index, address, name: cleanName(name || kept?.name || '', index) };
    this.#write([...this.list().filter((a) => a.index !== index), account]);
    return account;
  }

  rename(index: number, name: string): void {
    const kept = this.get(index);
    if (kept !== undefined) this.#write([...this.list().filter((a) => a.index !== index), { ...kept, name: cleanName(name, index) }]);
  }

  /** The account with this address, if the holder added it. */
  byAddress(address: string): WalletAccount | undefined {
    return this.list().find((a) => a.address === address);
  }

  #write(accounts: WalletAccount[]): void {
    this.#storage.setItem(ACCOUNTS_KEY, JSON.stringify(accounts.sort((a, b) => a.index - b.index)));
  }
}
