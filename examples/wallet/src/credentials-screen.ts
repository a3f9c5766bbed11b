/**
 * Credentials: the credentials stored for the account, as the holder reads them — issuer, kind, when and from which
 * site each was stored, the names and types of its fields (their values are private: they leave the wallet only in
 * presentations the holder approves), the sites that were shown a presentation of it and when, and Delete.
 *
 * Consent first: the store is encrypted under a key the device derives (the extension's STORE_KEY, naming this
 * wallet's own origin as the one asking), so nothing is read on load; "Show my credentials" asks the device, and
 * Delete asks it again ("Delete credential <8 hex>", the code the store approval showed). Both run on the wallet's own
 * provider (this page's origin, account 0, the address read silently), in the request sheet where the device is
 * drawn. Which site stored a credential and which sites saw it come from the wallet's Activity record (never a
 * secret: the device's approval code and the store's opaque ids).
 */
import { credentialManager, type LedgerProvider } from 'chain-ledger';
import type { CredentialEntry } from 'chain-ledger/credentials';
import type { ApduTransport } from 'chain-ledger/transport';
import { credentialCode, type ActivityEntry, type ActivityHistory } from 'chain-ledger/wallet';
import { z } from 'zod';
import { el, shortAddress, when } from './dom.js';

/** What the screen needs of the page. */
export interface CredentialsScreenOptions {
  /** The wallet's record, where the sites' store and presentation calls are (./lists.ts shows it as Activity). */
  history: ActivityHistory;
  /** The wallet's own provider on `transport` (this page's origin, the address read without a prompt). */
  provider: (transport: ApduTransport) => LedgerProvider;
  /** Runs a device step the holder asked for here, shown in the request sheet (where the demo device is drawn). */
  ownRequest: <T>(what: string, work: () => Promise<T>) => Promise<T>;
}

/** What the screen reads of a stored credential's JSON (mina-attestations' stored form); the rest is not shown. */
const storedSchema = z.object({
  witness: z.object({ type: z.string(), issuer: z.object({ value: z.string() }).optional() }).passthrough(),
  metadata: z.unknown().optional(),
  credential: z.object({
    owner: z.object({ value: z.string() }).optional(),
    data: z.record(z.string(), z.unknown()).optional(),
  }),
});

/** Controls, zero-width characters and direction overrides: what could make a shown text read as another. */
const hidden = (code: number) =>
  code < 0x20 ||
  (code >= 0x7f && code <= 0x9f) ||
  (code >= 0x200b && code <= 0x200f) ||
  (code >= 0x202a && code <= 0x202e) ||
  (code >= 0x2066 && code <= 0x2069) ||
  code === 0xfeff;

/** Text an issuer chose, with the characters above made visible (it is shown, never interpreted). */
const visible = (text: string) =>
  [...text].map((c) => (hidden(c.codePointAt(0)!) ? `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}` : c)).join('');

/** A field as "age (UInt64)": its name and type, never its value. */
function fieldName(name: string, value: unknown): string {
  const type =
    typeof value === 'object' && value !== null && typeof (value as { _type?: unknown })._type === 'string'
      ? (value as { _type: string })._type
      : undefined;
  return type === undefined ? visible(name) : `${visible(name)} (${visible(type)})`;
}

/** mina-attestations' kinds of credential, in words. */
const KINDS: Record<string, string> = {
  native: 'Native (signed by its issuer’s key)',
  imported: 'Imported (from a zero-knowledge proof)',
  unsigned: 'Unsigned (no issuer vouches for it)',
};

/** A ProviderError as the holder reads it: its message and why. */
function why(error: unknown): string {
  const { message, data } = error as { message?: string; data?: { reason?: string } };
  return data?.reason ? `${message} (${data.reason})` : (message ?? String(error));
}

export class CredentialsScreen {
  readonly #root: HTMLElement;
  readonly #options: CredentialsScreenOptions;
  #transport: ApduTransport | undefined;
  #provider: LedgerProvider | undefined;
  /** The listed credentials, once the holder asked (undefined: not read). */
  #entries: CredentialEntry[] | undefined;
  #status = '';

  constructor(root: HTMLElement, options: CredentialsScreenOptions) {
    this.#root = root;
    this.#options = options;
    this.render();
  }

  /** The device in use from now on: what was listed with another one is forgotten. */
  useDevice(transport: ApduTransport): void {
    if (transport === this.#transport) return;
    this.#transport = transport;
    void this.#provider?.disconnect();
    this.#provider = undefined;
    this.#entries = undefined;
    this.#status = '';
    this.render();
  }

  /** Draws the screen afresh (the record may have grown since). */
  render(): void {
    const entries = this.#entries;
    const status = el('p', 'note credentials-status', this.#status);
    status.id = 'credentials-status';
    status.setAttribute('role', 'status');
    if (entries === undefined) {
      const show = el('button', 'show-credentials', 'Show my credentials');
      show.type = 'button';
      show.id = 'show-credentials';
      show.disabled = this.#transport === undefined;
      show.onclick = () => void this.#list();
      const why = el(
        'p',
        'note',
        this.#transport === undefined
          ? 'Connect your Ledger (or start the demo) on Home first.'
          : 'Your Ledger asks you to unlock your credentials for this wallet: nothing is read before you approve there.',
      );
      this.#root.replaceChildren(show, why, status);
      this.#root.dataset.state = 'locked';
      return;
    }
    const list = el('ul', 'entries');
    list.id = 'credentials';
    if (entries.length === 0) list.append(el('li', 'note', 'No credential is stored for this account.'));
    const history = this.#options.history.list();
    list.append(...[...entries].reverse().map((entry) => this.#item(entry, history)));
    this.#root.replaceChildren(status, list);
    this.#root.dataset.state = 'listed';
    this.#root.dataset.count = String(entries.length);
  }

  /** One stored credential: what it is, where it came from, who saw it, Delete. */
  #item(entry: CredentialEntry, history: ActivityEntry[]): HTMLLIElement {
    const li = el('li', 'entry credential');
    li.dataset.id = entry.id;
    const parsed = storedSchema.safeParse(JSON.parse(entry.credential) as unknown);
    const code = credentialCode(entry.credential);
    // The first store of it (the store keeps the first date; a later store of the same credential changes nothing).
    const stored = history.filter((e) => e.kind === 'credential' && e.credentialCode === code).at(-1);
    if (stored !== undefined) li.dataset.origin = stored.origin;
    const witness = parsed.success ? parsed.data.witness : undefined;
    const title =
      witness?.type === 'native' && witness.issuer
        ? `Issued by ${shortAddress(witness.issuer.value)}`
        : `A ${witness?.type ?? 'credential'} credential`;
    const heading = el('p', 'entry-title', title);
    if (witness?.issuer) heading.title = witness.issuer.value;
    const facts = el('dl', 'facts');
    const row = (name: string, value: string) => facts.append(el('dt', '', name), el('dd', '', value));
    row('Kind', witness === undefined ? 'not readable' : (KINDS[witness.type] ?? visible(witness.type)));
    if (witness?.issuer) row('Issuer', witness.issuer.value);
    row('Stored', `${when(entry.storedAt)}${stored ? ` from ${stored.origin}` : ' (the site is not in this wallet’s record)'}`);
    const data = parsed.success ? (parsed.data.credential.data ?? {}) : {};
    row(
      'Fields',
      Object.keys(data).length
        ? Object.entries(data)
            .map(([k, v]) => fieldName(k, v))
            .join(', ')
        : 'none',
    );
    row('Device code', code);
    const shown = history.filter((e) => e.kind === 'presentation' && e.credentialIds?.includes(entry.id));
    li.dataset.presented = String(shown.length);
    row('Shown to', shown.length ? shown.map((e) => `${e.origin} (${when(e.at)})`).join('; ') : 'no site yet');
    const remove = el('button', 'danger delete-credential', 'Delete');
    remove.type = 'button';
    remove.dataset.id = entry.id;
    remove.setAttribute('aria-label', `Delete the credential ${code}`);
    remove.onclick = () => void this.#delete(entry.id, code);
    li.append(heading, facts, remove);
    return li;
  }

  #manager() {
    this.#provider ??= this.#options.provider(this.#transport!);
    return { provider: this.#provider, credentials: credentialManager(this.#provider) };
  }

  /** The holder asked: the device unlocks the store (STORE_KEY naming this wallet), then it is listed. */
  async #list(): Promise<void> {
    if (this.#transport === undefined) return;
    const { provider, credentials } = this.#manager();
    try {
      const { address, entries } = await this.#options.ownRequest('Show my credentials', async () => {
        const [address] = await provider.requestAccounts();
        return { address: address!, entries: await credentials.list() };
      });
      this.#entries = entries;
      this.#status = `Account 0 (${shortAddress(address)}): ${entries.length} stored.`;
    } catch (error) {
      this.#status = `Not unlocked: ${why(error)}`;
    }
    this.render();
  }

  /** Delete, approved on the device; the list read again (the store stays unlocked for this connection). */
  async #delete(id: string, code: string): Promise<void> {
    const { credentials } = this.#manager();
    try {
      const deleted = await this.#options.ownRequest('Delete a credential', () => credentials.delete(id));
      this.#entries = await credentials.list();
      this.#status = deleted ? `Deleted the credential ${code}.` : `The credential ${code} was no longer stored.`;
    } catch (error) {
      this.#status = `Not deleted: ${why(error)}`;
    }
    this.render();
  }
}
