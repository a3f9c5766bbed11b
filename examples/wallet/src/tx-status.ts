/**
 * Each sent transaction's status in Activity (pending, included, failed), from the node (`fetchCommandStatus`), kept
 * in the wallet origin's storage by hash so that an included one stays so after it leaves the blocks the node is
 * asked about. Pending ones are asked again every few seconds while the wallet is open, for an hour at most.
 */
import { NETWORKS } from 'chain-ledger';
import { type ActivityEntry, type CommandStatus, fetchCommandStatus } from 'chain-ledger/wallet';
import { storedRecord } from './dom.js';

const STATUS_KEY = 'chain-ledger:wallet-tx-status';
/** How often pending transactions are asked about (a Mina slot is 3 minutes; the e2e's node answers at once). */
export const STATUS_POLL_MS = 5_000;
/** A transaction not included after this long is left as the node last said (dropped, most likely). */
const STATUS_WATCH_MS = 60 * 60_000;

export type ShownStatus = CommandStatus | { status: 'checking' };

const saved = () => storedRecord<CommandStatus>(STATUS_KEY);

export function statusOf(hash: string): ShownStatus {
  return saved()[hash] ?? { status: 'checking' };
}

function save(hash: string, status: CommandStatus): void {
  localStorage.setItem(STATUS_KEY, JSON.stringify({ ...saved(), [hash]: status }));
}

const isFinal = (status: ShownStatus) => status.status === 'included' || status.status === 'failed';
/** Payments and delegations have a status by hash (a zkApp command's is by id: not asked here). */
const watched = (entry: ActivityEntry) => entry.hash !== undefined && (entry.kind === 'payment' || entry.kind === 'delegation');

/** The status in words, for the entry's line. */
export function statusText(status: ShownStatus): string {
  switch (status.status) {
    case 'pending':
      return 'Pending: in the node’s pool, not in a block yet';
    case 'included':
      return 'Included in a block';
    case 'failed':
      return `Failed in its block: ${status.reason} (the fee was paid)`;
    case 'unknown':
      return 'Not seen by the node (dropped, or older than the blocks it was asked about)';
    case 'checking':
      return 'Asking the node…';
  }
}

/**
 * Asks the node about every watched entry whose status is not final, and calls `changed` when one changed. `nodeFor`
 * names the node of an entry's network (the holder's node for the network Home is on, else the network's public one).
 */
export class StatusWatch {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #entries: () => ActivityEntry[];
  #nodeFor: (network: string) => string | undefined;
  onChange: () => void = () => {};

  constructor(entries: () => ActivityEntry[], nodeFor: (network: string) => string | undefined) {
    this.#entries = entries;
    this.#nodeFor = nodeFor;
  }

  /** A transaction the wallet just sent: the node accepted it, so it is pending until the node says more. */
  sent(hash: string): void {
    save(hash, { status: 'pending' });
    this.check();
  }

  /** Asks now, and again while any is pending. */
  check(): void {
    clearTimeout(this.#timer);
    void this.#round().then((more) => {
      if (more) this.#timer = setTimeout(() => this.check(), STATUS_POLL_MS);
    });
  }

  async #round(): Promise<boolean> {
    const now = Date.now();
    const open = this.#entries().filter(
      (e) => watched(e) && !isFinal(statusOf(e.hash!)) && now - new Date(e.at).getTime() < STATUS_WATCH_MS,
    );
    let changed = false;
    for (const entry of open) {
      const url = this.#nodeFor(entry.network) ?? NETWORKS.find((n) => n.networkID === entry.network)?.graphqlUrl;
      if (url === undefined) continue;
      try {
        const status = await fetchCommandStatus(url, entry.hash!, { timeoutMs: 15_000 });
        const before = statusOf(entry.hash!);
        // Just sent and not yet in the pool the node is asked (another node than the one that took it): still pending.
        if (status.status === 'unknown' && before.status === 'pending') continue;
        if (JSON.stringify(before) !== JSON.stringify(status)) {
          save(entry.hash!, status);
          changed = true;
        }
      } catch {
        // The node did not answer: asked again next round.
      }
    }
    if (changed) this.onChange();
    return open.length > 0;
  }
}
