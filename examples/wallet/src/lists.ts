/**
 * Activity and Sites: what the wallet signed and sent (newest first, from its own record), and the connected sites
 * with their account and network, each with a Revoke button.
 */
import type { ActivityEntry, ActivityHistory, ConnectedSites } from 'chain-ledger/wallet';
import type { WalletAccount } from './accounts.js';
import { $, el, shortAddress, when } from './dom.js';
import { explorerUrl } from './explorer.js';

/** A transaction's page on the holder's block explorer for the network (./explorer.ts), when there is one. */
function explorerLink(network: string, hash: string): HTMLElement {
  const url = explorerUrl(network, hash);
  const code = el('code', '', hash);
  if (url === undefined) return code;
  const link = el('a', '');
  link.href = url;
  link.target = '_blank';
  link.rel = 'noopener noreferrer';
  link.append(code);
  return link;
}

/** `decorate` adds to an entry's item (a transaction's status: ./tx-status.ts). */
export function renderActivity(history: ActivityHistory, decorate: (li: HTMLLIElement, entry: ActivityEntry) => void = () => {}): void {
  const entries = history.list();
  const list = $('activity');
  if (entries.length === 0) {
    list.replaceChildren(el('li', 'note', 'Nothing signed yet. What you sign or send for a site is listed here.'));
    return;
  }
  list.replaceChildren(
    ...entries.map((entry) => {
      const li = el('li', 'entry');
      li.dataset.kind = entry.kind;
      li.dataset.origin = entry.origin;
      const detail = el('p', 'entry-detail', entry.detail);
      li.append(
        el('p', 'entry-title', entry.title),
        el('p', 'entry-meta', `${when(entry.at)} · ${entry.origin} · ${entry.network}`),
        detail,
      );
      if (entry.hash !== undefined) {
        const hash = el('p', 'entry-detail', 'Hash ');
        hash.append(explorerLink(entry.network, entry.hash));
        li.append(hash);
      }
      decorate(li, entry);
      return li;
    }),
  );
}

/** The holder's accounts, for each site's account chooser (none with fewer than two). */
export interface SiteAccounts {
  accounts: WalletAccount[];
  choose: (origin: string, index: number) => void;
}

/** The site's account: a chooser of the holder's accounts, or the address. */
function siteAccount(site: { origin: string; address: string; accountIndex?: number }, choice?: SiteAccounts): HTMLElement {
  const account = el('p', 'entry-detail', 'Account ');
  account.title = site.address;
  const known = choice?.accounts.find((a) => a.address === site.address);
  if (choice === undefined || choice.accounts.length < 2) {
    account.append(el('code', '', known ? `${known.name} · ${shortAddress(site.address)}` : shortAddress(site.address)));
    return account;
  }
  const select = el('select', 'site-account');
  select.setAttribute('aria-label', `The account ${site.origin} sees`);
  select.dataset.origin = site.origin;
  if (known === undefined) select.append(new Option(shortAddress(site.address), '', true, true));
  for (const a of choice.accounts) select.append(new Option(`${a.name} · ${shortAddress(a.address)}`, String(a.index), false, a === known));
  select.onchange = () => select.value !== '' && choice.choose(site.origin, Number(select.value));
  account.append(select);
  return account;
}

export function renderSites(sites: ConnectedSites, revoke: (origin: string) => void, choice?: SiteAccounts): void {
  const list = $('sites');
  const all = sites.list();
  if (all.length === 0) {
    list.replaceChildren(el('li', 'note', 'No site is connected.'));
    return;
  }
  list.replaceChildren(
    ...all.map((site) => {
      const li = el('li', 'entry');
      li.dataset.origin = site.origin;
      const account = siteAccount(site, choice);
      const button = el('button', 'secondary revoke', 'Revoke');
      button.type = 'button';
      button.dataset.origin = site.origin;
      button.setAttribute('aria-label', `Revoke ${site.origin}`);
      button.onclick = () => revoke(site.origin);
      li.append(
        el('p', 'entry-title', site.origin),
        account,
        el('p', 'entry-meta', `${site.network ?? 'network not recorded'} · connected ${when(site.connectedAt)}`),
        button,
      );
      return li;
    }),
  );
}
