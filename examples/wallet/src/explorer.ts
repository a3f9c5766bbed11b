/**
 * The block explorer the holder links transactions to: per network, a URL template with `{hash}`, kept in the wallet
 * origin's storage (a URL, nothing secret). The default is the network's own (Minascan for Mina mainnet and devnet:
 * `NETWORKS[].explorer`). Only https templates are taken: a link the holder clicks must not become a script URL.
 */
import { NETWORKS } from 'chain-ledger';
import { storedRecord } from './dom.js';

const EXPLORER_KEY = 'chain-ledger:wallet-explorers';

const saved = () => storedRecord<string>(EXPLORER_KEY);

/** The network's default template, or undefined where it has no explorer. */
export function defaultExplorer(network: string): string | undefined {
  const explorer = NETWORKS.find((n) => n.networkID === network)?.explorer;
  return explorer === undefined ? undefined : `${explorer}/tx/{hash}`;
}

/** Why a template is refused, or undefined when it is one. */
export function explorerProblem(template: string): string | undefined {
  if (!template.includes('{hash}')) return 'The link needs {hash} where the transaction hash goes.';
  try {
    const url = new URL(template.replace('{hash}', 'hash'));
    return url.protocol === 'https:' ? undefined : 'Only https links.';
  } catch {
    return 'Not a URL.';
  }
}

/** The holder's template for `network`, or the default. */
export function explorerTemplate(network: string): string | undefined {
  const mine = saved()[network];
  return typeof mine === 'string' && explorerProblem(mine) === undefined ? mine : defaultExplorer(network);
}

/** Keeps the holder's template (empty: back to the default). */
export function saveExplorer(network: string, template: string): void {
  const all = saved();
  if (template.trim() === '') delete all[network];
  else all[network] = template.trim();
  localStorage.setItem(EXPLORER_KEY, JSON.stringify(all));
}

/** The transaction's page, when the network has an explorer. */
export function explorerUrl(network: string, hash: string): string | undefined {
  return explorerTemplate(network)?.replace('{hash}', encodeURIComponent(hash));
}
