/**
 * Activity and Sites: what the wallet signed and sent (newest first, from its own record), and the connected sites
 * with their account and network, each with a Revoke button.
 */
import { NETWORKS } from 'chain-ledger';
import type { ActivityHistory, ConnectedSites } from 'chain-ledger/wallet';
import { $, el, shortAddress, when } from './dom.js';

/** A transaction's page on the network's block explorer, when the network has one. */
function explorerLink(network: string, hash: string): HTMLElement {
  const explorer = NETWORKS.find((n) => n.networkID === network)?.explorer;
  const code = el('code', '', hash);
  if (explorer === undefined) return code;
  const link = el('a', '');
  link.href = `${explorer}/tx/${encodeURIComponent(hash)}`;
  link.target = '_blank';
  link.rel = 'noopener noreferrer';
  link.append(code);
  return link;
}

export function renderActivity(history: ActivityHistory): void {
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
      return li;
    }),
  );
}

export function renderSites(sites: ConnectedSites, revoke: (origin: string) => void): void {
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
      const account = el('p', 'entry-detail', 'Account ');
      account.append(el('code', '', shortAddress(site.address)));
      account.title = site.address;
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
