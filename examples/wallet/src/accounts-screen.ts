/**
 * Accounts: the Ledger's accounts the holder added (./accounts.ts), each named by the holder, one selected (Home shows
 * it, Send sends from it, a site connecting now is given it). "Add account" reads the next index's address with the
 * device showing it, so the holder confirms on the Ledger, once, that the address is the device's own.
 */
import { MinaLedgerApp } from 'chain-ledger/apdu';
import type { ApduTransport } from 'chain-ledger/transport';
import { type AccountList, type WalletAccount, defaultName } from './accounts.js';
import { $, el, setText } from './dom.js';

export interface AccountsScreenOptions {
  accounts: AccountList;
  selected: () => number;
  select: (account: WalletAccount) => void;
  /** Runs the holder's own request in the request sheet (where the demo device is drawn), with what it is in words. */
  ownRequest: <T>(what: string, work: () => Promise<T>) => Promise<T>;
}

export class AccountsScreen {
  readonly #options: AccountsScreenOptions;
  #transport: ApduTransport | undefined;
  #busy = false;
  /** Told when the list or the selection changed (Home's selector, the Sites list). */
  onChange: () => void = () => {};

  constructor(options: AccountsScreenOptions) {
    this.#options = options;
    $('add-account').onclick = () => void this.#add();
    this.render();
  }

  useDevice(transport: ApduTransport): void {
    this.#transport = transport;
    this.render();
  }

  render(): void {
    const all = this.#options.accounts.list();
    const selected = this.#options.selected();
    const list = $('accounts');
    if (all.length === 0) list.replaceChildren(el('li', 'note', 'No account yet: connect your Ledger (Home), then add one.'));
    else list.replaceChildren(...all.map((account) => this.#item(account, account.index === selected)));
    const add = $<HTMLButtonElement>('add-account');
    add.disabled = this.#transport === undefined || this.#busy;
    add.textContent = `Add account ${this.#options.accounts.nextIndex() + 1}`;
  }

  #item(account: WalletAccount, selected: boolean): HTMLLIElement {
    const li = el('li', 'entry account-entry');
    li.dataset.index = String(account.index);
    li.dataset.selected = String(selected);
    const name = el('input', 'account-name');
    name.value = account.name;
    name.setAttribute('aria-label', `Name of account ${account.index + 1} (index ${account.index})`);
    name.onchange = () => {
      this.#options.accounts.rename(account.index, name.value);
      this.onChange();
    };
    const address = el('p', 'entry-detail');
    address.append(el('code', 'account-address', account.address));
    const use = el('button', selected ? 'secondary' : '', selected ? 'Selected' : 'Use this account');
    use.type = 'button';
    use.disabled = selected;
    use.className += ' use-account';
    use.onclick = () => {
      this.#options.select(account);
      this.render();
    };
    li.append(name, el('p', 'entry-meta', `Ledger account index ${account.index}`), address, use);
    return li;
  }

  async #add(): Promise<void> {
    if (this.#transport === undefined || this.#busy) return;
    const index = this.#options.accounts.nextIndex();
    const what = `Show the address of ${defaultName(index)} (account index ${index})`;
    this.#busy = true;
    this.render();
    setText('accounts-status', 'Check the address on your Ledger and approve it.', { state: 'pending' });
    const transport = this.#transport;
    try {
      const address = await this.#options.ownRequest(what, () => new MinaLedgerApp(transport).getAddress(index, { display: true }));
      const account = this.#options.accounts.add(index, address);
      setText('accounts-status', `${account.name} added: ${address}.`, { state: 'added', index: String(index) });
      this.#options.select(account);
    } catch (error) {
      setText('accounts-status', `Not added: ${(error as Error).message ?? String(error)}`, { state: 'error' });
    } finally {
      this.#busy = false;
      this.render();
      this.onChange();
    }
  }
}
