/**
 * The wallet's connected sites: which origins the user connected, to which account, and when. Kept by the wallet
 * page in its own first-party storage (no dapp can read it), shared by every wallet window of the wallet's origin,
 * and shown in the wallet with a Revoke button per site. A site that is not in the list gets 1001 for every call
 * that needs a connection, before anything is shown or asked.
 */

export interface ConnectedSite {
  /** The site's origin, as the browser reported it for the site's messages. */
  origin: string;
  /** The account the site was given. */
  address: string;
  /** ISO 8601 date of the connection. */
  connectedAt: string;
  /** The network the site was connected on, and switched to since (`mina:devnet`), when known. */
  network?: string;
  /** The Ledger account index of `address` (absent in entries of earlier versions: account 0). */
  accountIndex?: number;
}

export interface ConnectedSites {
  list(): ConnectedSite[];
  get(origin: string): ConnectedSite | undefined;
  /** Adds or replaces the site's entry. */
  add(site: ConnectedSite): void;
  /** Removes the site; false if it was not there. */
  remove(origin: string): boolean;
}

/** The part of `localStorage` the list uses. */
export type SiteStorage = Pick<Storage, 'getItem' | 'setItem'>;

/** The storage key of the list in the wallet origin's `localStorage`. */
export const CONNECTED_SITES_KEY = 'chain-ledger:connected-sites';

function isSite(value: unknown): value is ConnectedSite {
  const site = value as Partial<ConnectedSite> | null;
  return typeof site?.origin === 'string' && typeof site.address === 'string' && typeof site.connectedAt === 'string';
}

/**
 * The list in a `Storage` (the wallet page's `localStorage`, whose `storage` event tells the other wallet windows of
 * a change), read afresh on every call so that every window sees the others' changes. Unreadable contents count as
 * an empty list (nobody is connected), never as a connection.
 */
export function storageSites(storage: SiteStorage, key = CONNECTED_SITES_KEY): ConnectedSites {
  const read = (): ConnectedSite[] => {
    try {
      const parsed = JSON.parse(storage.getItem(key) ?? '[]') as unknown;
      return Array.isArray(parsed) ? parsed.filter(isSite) : [];
    } catch {
      return [];
    }
  };
  const write = (sites: ConnectedSite[]) => storage.setItem(key, JSON.stringify(sites));
  return {
    list: read,
    get: (origin) => read().find((s) => s.origin === origin),
    add(site) {
      write([
        ...read().filter((s) => s.origin !== site.origin),
        {
          origin: site.origin,
          address: site.address,
          connectedAt: site.connectedAt,
          ...(typeof site.network === 'string' ? { network: site.network } : {}),
          ...(Number.isInteger(site.accountIndex) && site.accountIndex! >= 0 ? { accountIndex: site.accountIndex } : {}),
        },
      ]);
    },
    remove(origin) {
      const sites = read();
      const kept = sites.filter((s) => s.origin !== origin);
      if (kept.length === sites.length) return false;
      write(kept);
      return true;
    },
  };
}

/** A list in memory (tests, and a wallet that remembers nothing). */
export function memorySites(): ConnectedSites {
  const values = new Map<string, string>();
  return storageSites({ getItem: (k) => values.get(k) ?? null, setItem: (k, v) => void values.set(k, v) });
}
