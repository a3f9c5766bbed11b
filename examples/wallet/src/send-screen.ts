/**
 * Send and delegate from the wallet itself: the form (./send-form.ts checks it as the holder types), Auro's fee levels,
 * then the device review through a provider of the wallet's own origin, made as a site's would be (the same
 * `chain_sendPayment` / `chain_sendStakeDelegation`, the same zod boundary and device review, the wallet's origin as
 * the site), then the hash with a link to the holder's block explorer (./explorer.ts), recorded in Activity and
 * watched there until included (./tx-status.ts).
 */
import { createLedgerProvider, type LedgerProvider } from 'chain-ledger';
import type { ApduTransport } from 'chain-ledger/transport';
import { type ActivityHistory, type WalletHostOptions, activityEntry } from 'chain-ledger/wallet';
import { $, el, setText, shortAddress } from './dom.js';
import { explorerProblem, explorerTemplate, explorerUrl, saveExplorer } from './explorer.js';
import { balanceNode, type WalletSettings } from './home.js';
import { AURO_FEES, type SendCheck, type SendInput, type SendKind, canSend, checkSend } from './send-form.js';
import type { StatusWatch } from './tx-status.js';

/** The account the wallet sends from: its index on the Ledger and the address confirmed for it. */
export interface SendingAccount {
  index: number;
  address: string;
  name: string;
}

export interface SendScreenOptions {
  account: () => SendingAccount | undefined;
  /** The balance Home read (nanomina), undefined when the node has not said. */
  balance: () => bigint | undefined;
  settings: () => WalletSettings;
  /** The wallet's provider options (review hooks, progress): the same as a site's. */
  provider: WalletHostOptions['provider'];
  history: ActivityHistory;
  statuses: StatusWatch;
  /** Runs the holder's own request in the request sheet (where the demo device is drawn), with what it is in words. */
  ownRequest: <T>(what: string, work: () => Promise<T>) => Promise<T>;
}

const FIELDS = ['to', 'amount', 'fee', 'memo'] as const;
const input = (id: string) => $<HTMLInputElement>(id);

export class SendScreen {
  readonly #options: SendScreenOptions;
  #transport: ApduTransport | undefined;
  /** The wallet's own provider, per device and account (made again when either changes). */
  #provider: { provider: LedgerProvider; transport: ApduTransport; index: number; network: string; node?: string } | undefined;
  #busy = false;
  /** Fields the holder has left once: their problems are shown from then on, not while first typed. */
  readonly #touched = new Set<string>();

  constructor(options: SendScreenOptions) {
    this.#options = options;
    const levels = $('send-fee-levels');
    for (const fee of AURO_FEES) {
      const label = el('label', 'fee-level');
      const radio = el('input', '');
      radio.type = 'radio';
      radio.name = 'send-fee-level';
      radio.value = fee.mina;
      radio.checked = fee.level === 'medium';
      radio.onchange = () => {
        input('send-fee').value = fee.mina;
        this.render();
      };
      const text = el('span', 'fee-text', fee.label);
      text.append(el('small', '', `${fee.mina} MINA`));
      label.append(radio, text);
      levels.append(label);
    }
    input('send-fee').value = AURO_FEES[1].mina;
    for (const field of FIELDS) {
      const box = input(`send-${field}`);
      box.oninput = () => this.render();
      box.onblur = () => {
        this.#touched.add(field);
        this.render();
      };
    }
    input('send-fee').addEventListener('input', () => {
      for (const radio of document.querySelectorAll<HTMLInputElement>('input[name="send-fee-level"]'))
        radio.checked = radio.value === input('send-fee').value.trim();
    });
    for (const radio of document.querySelectorAll<HTMLInputElement>('input[name="send-kind"]')) radio.onchange = () => this.render();
    $('send-max').onclick = () => this.#max();
    $<HTMLFormElement>('send-form').onsubmit = (event) => {
      event.preventDefault();
      for (const field of FIELDS) this.#touched.add(field);
      void this.#send();
    };
    input('explorer').onchange = () => this.#saveExplorer();
    this.render();
  }

  /** The device this window uses (the wallet's provider is made on it at the next send). */
  useDevice(transport: ApduTransport): void {
    this.#transport = transport;
    this.render();
  }

  #kind(): SendKind {
    return document.querySelector<HTMLInputElement>('input[name="send-kind"]:checked')?.value === 'delegation' ? 'delegation' : 'payment';
  }

  #input(): SendInput {
    return {
      kind: this.#kind(),
      to: input('send-to').value,
      amount: input('send-amount').value,
      fee: input('send-fee').value,
      memo: input('send-memo').value,
    };
  }

  /** Shows each field's problem (once touched, or once typed in) and whether the form can go to the device. */
  render(): SendCheck {
    const kind = this.#kind();
    $('send-amount-row').hidden = kind === 'delegation';
    setText('send-to-label', kind === 'payment' ? 'Receiver' : 'Block producer to delegate to');
    const account = this.#options.account();
    const balance = this.#options.balance();
    setText(
      'send-from',
      account === undefined
        ? 'No account yet: connect your Ledger on Home.'
        : `From ${account.name} (${shortAddress(account.address)}) · ${balance === undefined ? 'balance not known yet' : `balance ${formatNanomina(balance)} MINA`}`,
    );
    const check = checkSend(this.#input(), balance);
    for (const field of FIELDS) {
      const box = input(`send-${field}`);
      const shown = this.#touched.has(field) || (box.value !== '' && field !== 'to') ? check.problems[field] : undefined;
      const text = shown ?? check.warnings[field] ?? '';
      setText(`send-${field}-problem`, text, { state: shown ? 'error' : text ? 'warning' : '' });
      box.setAttribute('aria-invalid', String(shown !== undefined));
    }
    setText(
      'send-total',
      check.totalNanomina === undefined
        ? ''
        : `${kind === 'payment' ? 'Amount and fee' : 'Fee'}: ${formatNanomina(check.totalNanomina)} MINA`,
    );
    const ready = canSend(check) && account !== undefined && this.#transport !== undefined && !this.#busy;
    $<HTMLButtonElement>('send-submit').disabled = !ready;
    $('send-submit').dataset.ready = String(ready);
    return check;
  }

  /** The screen is shown: the balance and network may have changed since (Home), and the explorer is the network's. */
  show(): void {
    const network = this.#options.settings().networkID;
    input('explorer').value = explorerTemplate(network) ?? '';
    setText('explorer-note', `For ${network}; empty: the network's own explorer.`);
    this.render();
  }

  #max(): void {
    const balance = this.#options.balance();
    const fee = checkSend({ ...this.#input(), amount: '1' }, undefined).totalNanomina;
    if (balance === undefined || fee === undefined) return;
    const amount = balance - (fee - 1_000_000_000n);
    input('send-amount').value = amount > 0n ? formatNanomina(amount) : '0';
    this.render();
  }

  #saveExplorer(): void {
    const network = this.#options.settings().networkID;
    const template = input('explorer').value.trim();
    const problem = template === '' ? undefined : explorerProblem(template);
    if (problem) {
      setText('explorer-note', problem, { state: 'error' });
      return;
    }
    saveExplorer(network, template);
    setText('explorer-note', `Links for ${network} go to ${explorerTemplate(network) ?? 'no explorer'}.`, { state: 'saved' });
  }

  /** The wallet's own provider for the account: the wallet's origin is the site it serves (a web page's own). */
  #providerFor(account: SendingAccount): LedgerProvider {
    const settings = this.#options.settings();
    const node = balanceNode(settings);
    const made = this.#provider;
    if (
      made &&
      made.transport === this.#transport &&
      made.index === account.index &&
      made.network === settings.networkID &&
      made.node === node
    )
      return made.provider;
    const provider = createLedgerProvider({
      ...this.#options.provider,
      network: settings.networkID === 'mina:mainnet' ? 'mainnet' : 'devnet',
      graphqlUrl: node,
      transport: this.#transport!,
      accountIndex: account.index,
      // The address was shown and confirmed on the device when the account was added (Accounts): read, and compared.
      confirmAddress: false,
    });
    this.#provider = {
      provider,
      transport: this.#transport!,
      index: account.index,
      network: settings.networkID,
      ...(node ? { node } : {}),
    };
    return provider;
  }

  async #send(): Promise<void> {
    const check = this.render();
    const account = this.#options.account();
    if (!canSend(check) || account === undefined || this.#transport === undefined || this.#busy) return;
    const form = this.#input();
    const method = form.kind === 'payment' ? 'chain_sendPayment' : 'chain_sendStakeDelegation';
    const params = {
      to: form.to.trim(),
      ...(form.kind === 'payment' ? { amount: form.amount.trim() } : {}),
      fee: form.fee.trim(),
      ...(form.memo === '' ? {} : { memo: form.memo }),
    };
    this.#busy = true;
    this.render();
    setText('send-result', 'Review it on your Ledger: receiver, amount, fee and memo.', { state: 'pending' });
    $('send-result').hidden = false;
    const what =
      form.kind === 'payment' ? `Send ${params.amount} MINA to ${shortAddress(params.to)}` : `Delegate to ${shortAddress(params.to)}`;
    try {
      const result = await this.#options.ownRequest(what, async () => {
        const provider = this.#providerFor(account);
        const [address] = await provider.request({ method: 'chain_requestAccounts' });
        if (address !== account.address)
          throw new Error(`This Ledger's account ${account.index} is ${address}, not the ${account.address} added here: another Ledger?`);
        return (await provider.request({ method, params } as never)) as { hash: string };
      });
      this.#sent(method, params, result);
    } catch (error) {
      const e = error as { code?: number; message?: string; data?: { reason?: string } };
      setText('send-result', `Not sent: ${e.message ?? String(error)}${e.data?.reason ? ` (${e.data.reason})` : ''}`, { state: 'error' });
    } finally {
      this.#busy = false;
      this.render();
    }
  }

  #sent(method: string, params: object, result: { hash: string }): void {
    const network = this.#options.settings().networkID;
    const entry = activityEntry({ method, params, result, origin: location.origin, network });
    if (entry) this.#options.history.add(entry);
    this.#options.statuses.sent(result.hash);
    const line = $('send-result');
    line.replaceChildren('Sent. Hash ');
    const url = explorerUrl(network, result.hash);
    const code = el('code', '', result.hash);
    if (url === undefined) line.append(code);
    else {
      const link = el('a', '');
      link.href = url;
      link.target = '_blank';
      link.rel = 'noopener noreferrer';
      link.append(code);
      line.append(link);
    }
    line.append(' · its status is in Activity.');
    Object.assign(line.dataset, { state: 'ok', hash: result.hash });
    input('send-amount').value = '';
    input('send-memo').value = '';
    this.#touched.clear();
  }
}

/** Nanomina as MINA digits, exact ("1.5"), for the form's fields and lines. */
export function formatNanomina(nanomina: bigint): string {
  const whole = nanomina / 1_000_000_000n;
  const fraction = (nanomina % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return fraction === '' ? whole.toString() : `${whole}.${fraction}`;
}
