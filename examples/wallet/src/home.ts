/**
 * Home: the selected account (its address, with a copy button), its balance in MINA and nonce from the network's
 * node, the network with its switcher and node, and the device (connected or not, model, Mina app version, the
 * extension or the released app, blind signing). The balance is public chain data: reading it asks the holder nothing.
 */
import { NETWORKS, type Capabilities } from 'chain-ledger';
import { fetchAccountOverview } from 'chain-ledger/wallet';
import { $, setText } from './dom.js';
import { addressQr } from './qr.js';

/** The networks the wallet can be created for (the Ledger signs mainnet and testnet domains; Zeko is reached by switchChain). */
export const WALLET_NETWORKS = NETWORKS.filter((n) => n.networkID === 'mina:mainnet' || n.networkID === 'mina:devnet');
const SETTINGS_KEY = 'chain-ledger:wallet-settings';

/** The holder's choice of network and node, kept in the wallet origin's storage (nothing secret: a URL without credentials). */
export interface WalletSettings {
  networkID: 'mina:mainnet' | 'mina:devnet';
  /** The node the holder typed; empty: the network's public node (for the balance) and none for the provider. */
  graphqlUrl: string;
  /** The account Home shows (the address the device gave, or the one a site was given). */
  address?: string;
  /** The holder's selected account of the Ledger (Accounts): Home, Send and new site connections use it. */
  accountIndex?: number;
}

export function loadSettings(): WalletSettings {
  try {
    const saved = JSON.parse(localStorage.getItem(SETTINGS_KEY) ?? '{}') as Partial<WalletSettings>;
    return {
      networkID: saved.networkID === 'mina:mainnet' ? 'mina:mainnet' : 'mina:devnet',
      graphqlUrl: typeof saved.graphqlUrl === 'string' ? saved.graphqlUrl : '',
      ...(typeof saved.address === 'string' && /^B62q[1-9A-HJ-NP-Za-km-z]{51}$/.test(saved.address) ? { address: saved.address } : {}),
      ...(Number.isInteger(saved.accountIndex) && saved.accountIndex! >= 0 ? { accountIndex: saved.accountIndex } : {}),
    };
  } catch {
    return { networkID: 'mina:devnet', graphqlUrl: '' };
  }
}

export function saveSettings(settings: WalletSettings): void {
  localStorage.setItem(SETTINGS_KEY, JSON.stringify(settings));
}

/** What Home shows of the device. */
export interface DeviceFacts {
  model: string;
  capabilities?: { appVersion: { version: string }; extension: Capabilities['extension'] };
  /** True or false when known (the demo); undefined for a Ledger (no Mina app reports the setting). */
  blindSigning?: boolean;
}

/** The node the balance is read from: the holder's, or the network's public one. */
export const balanceNode = (settings: WalletSettings) =>
  settings.graphqlUrl.trim() || NETWORKS.find((n) => n.networkID === settings.networkID)?.graphqlUrl;

export class Home {
  #settings: WalletSettings;
  #lookup = 0;
  /** The balance read last for the account shown (nanomina), undefined while unknown. */
  #balance: bigint | undefined;
  onNetworkChange: (settings: WalletSettings) => void = () => {};
  /** The holder picked another account in Home's selector. */
  onAccountSelect: (index: number) => void = () => {};
  /** A balance was read (Send checks against it). */
  onBalance: () => void = () => {};

  constructor(settings: WalletSettings) {
    this.#settings = settings;
    const select = $<HTMLSelectElement>('network');
    select.replaceChildren(
      ...WALLET_NETWORKS.map((n) => new Option(`Mina ${n.name}`, n.networkID, false, n.networkID === settings.networkID)),
    );
    $<HTMLInputElement>('graphql').value = settings.graphqlUrl;
    const changed = () => {
      this.#settings = {
        ...this.#settings,
        networkID: select.value as WalletSettings['networkID'],
        graphqlUrl: $<HTMLInputElement>('graphql').value.trim(),
      };
      saveSettings(this.#settings);
      this.#renderNetwork();
      this.onNetworkChange(this.#settings);
      void this.refresh();
    };
    select.onchange = changed;
    $<HTMLInputElement>('graphql').onchange = changed;
    $('refresh-balance').onclick = () => void this.refresh();
    $('copy-address').onclick = () => void this.#copy();
    $('show-qr').onclick = () => {
      const box = $('address-qr');
      box.hidden = !box.hidden;
      $('show-qr').setAttribute('aria-expanded', String(!box.hidden));
      $('show-qr').textContent = box.hidden ? 'Show the QR code' : 'Hide the QR code';
    };
    $<HTMLSelectElement>('account-select').onchange = (event) => this.onAccountSelect(Number((event.target as HTMLSelectElement).value));
    this.#renderNetwork();
    this.#renderAccount();
  }

  get settings(): WalletSettings {
    return this.#settings;
  }

  get balance(): bigint | undefined {
    return this.#balance;
  }

  /** The selector of the holder's accounts (hidden with fewer than two) and the selected one's name as the heading. */
  showAccounts(accounts: { index: number; name: string; address: string }[], selected: number): void {
    this.#settings = { ...this.#settings, accountIndex: selected };
    saveSettings(this.#settings);
    const select = $<HTMLSelectElement>('account-select');
    select.replaceChildren(...accounts.map((a) => new Option(a.name, String(a.index), false, a.index === selected)));
    $('account-choice').hidden = accounts.length < 2;
    const current = accounts.find((a) => a.index === selected);
    setText('account-index', current?.name ?? `Account ${selected + 1}`, { index: String(selected) });
  }

  /** The account to show (from the device or the site's connection): kept, shown, its balance read. */
  setAccount(address: string): void {
    if (this.#settings.address === address) return;
    this.#settings = { ...this.#settings, address };
    this.#balance = undefined;
    saveSettings(this.#settings);
    this.#renderAccount();
    void this.refresh();
  }

  /** Reads the balance and nonce again from the node. */
  async refresh(): Promise<void> {
    const address = this.#settings.address;
    const url = balanceNode(this.#settings);
    if (address === undefined) return;
    if (url === undefined) return setText('balance', 'No node for this network', { state: 'none' });
    const lookup = ++this.#lookup;
    setText('balance', 'Reading the balance…', { state: 'loading' });
    try {
      const overview = await fetchAccountOverview(url, address, { timeoutMs: 15_000 });
      if (lookup !== this.#lookup) return; // a later lookup (another network or account) answers
      if (overview === undefined) {
        this.#balance = 0n;
        setText('balance', '0 MINA', { state: 'new' });
        setText('nonce', 'Not on the chain yet (no transaction received)');
      } else {
        this.#balance = overview.balance;
        setText('balance', overview.balanceText, { state: 'ok', nanomina: String(overview.balance) });
        setText('nonce', `Nonce ${overview.inferredNonce}`, { nonce: String(overview.nonce), inferred: String(overview.inferredNonce) });
      }
      setText('balance-source', `from ${new URL(url).host}`);
      this.onBalance();
    } catch (error) {
      if (lookup !== this.#lookup) return;
      setText('balance', 'The node did not answer', { state: 'error' });
      setText('balance-source', (error as Error).message);
    }
  }

  /** The device: connected or not, and what is known of it. */
  showDevice(facts: DeviceFacts | undefined): void {
    $('device-facts').hidden = facts === undefined;
    if (facts === undefined) return;
    setText('device-model', facts.model);
    const capabilities = facts.capabilities;
    setText('device-app', capabilities ? capabilities.appVersion.version : 'read when a site connects');
    setText(
      'device-firmware',
      capabilities === undefined
        ? '—'
        : capabilities.extension
          ? `chain-ledger extension ${capabilities.extension.version} (reviews in clear)`
          : 'the released app (no extension)',
      { extension: String(Boolean(capabilities?.extension)) },
    );
    const state = facts.blindSigning === undefined ? 'not reported by the Mina app (its Settings say)' : facts.blindSigning ? 'On' : 'Off';
    setText(
      'device-blind',
      `${state}. It lets the device sign a zkApp command it cannot show (on the released app, every one): this wallet shows you the whole command first. Off, the device refuses them.`,
      { enabled: String(facts.blindSigning) },
    );
  }

  #renderNetwork(): void {
    const network = NETWORKS.find((n) => n.networkID === this.#settings.networkID)!;
    const node = this.#settings.graphqlUrl || network.graphqlUrl;
    setText(
      'network-note',
      `${network.name}: signs with the ${network.signingNetwork === 'mainnet' ? 'mainnet' : 'testnet'} domain; node ${node ?? 'none'}.`,
      {
        network: network.networkID,
      },
    );
  }

  #renderAccount(): void {
    const address = this.#settings.address;
    setText('account-address', address ?? 'No account yet: connect your Ledger below.', { state: address ? 'known' : 'none' });
    $('copy-address').hidden = address === undefined;
    $('refresh-balance').hidden = address === undefined;
    $('show-qr').hidden = address === undefined;
    $('address-qr').replaceChildren(...(address === undefined ? [] : [addressQr(address)]));
  }

  async #copy(): Promise<void> {
    const address = this.#settings.address;
    if (address === undefined) return;
    try {
      await navigator.clipboard.writeText(address);
      setText('copy-address', 'Copied', { state: 'copied' });
    } catch {
      // No clipboard permission (an insecure context, a denied prompt): the address is selected for a manual copy.
      getSelection()?.selectAllChildren($('account-address'));
      setText('copy-address', 'Selected', { state: 'selected' });
    }
    setTimeout(() => setText('copy-address', 'Copy', { state: '' }), 2000);
  }
}
