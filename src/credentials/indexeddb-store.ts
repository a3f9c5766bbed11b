/**
 * `IndexedDbCredentialStore` (browser): the same encryption as the file store, in an IndexedDB database.
 *
 * Two object stores: `entries`, keyed by `[account, id]` (with an `account` index), each record an encrypted entry;
 * `headers`, keyed by `account`, holding the account's salt, check value and entry-list MAC (format 2; format-1
 * headers, without salt and MAC, are still read and re-keyed on the next write). Every `add`, `remove` and `rekey` is one
 * read-write transaction over both (atomic by IndexedDB's semantics; `durability: 'strict'`, so it resolves once
 * committed to disk). Encryption happens before the transaction opens (a transaction cannot wait for WebCrypto
 * without committing early), from a snapshot read first; the write transaction checks that the header and the entry
 * ids are still those of the snapshot (else it starts again), so a wrong key or a concurrent change never writes.
 */
import { FifoLock } from '../util/fifo-lock.js';
import { StoreKeys, isSalt, parseSealedEntry, type SealedEntry } from './store-crypto.js';
import {
  CredentialStoreError,
  checkAccountAddress,
  checkId,
  checkSecret,
  ioError,
  type CredentialEntry,
  type CredentialStore,
} from './store.js';

export const DEFAULT_CREDENTIAL_DB = 'chain-ledger-credentials';

/**
 * The page's IndexedDB as it was when this module loaded: a script that replaces `indexedDB` later does not receive
 * the store's requests (docs/security.md, "In-page mode"; what the store keeps there is ciphertext either way).
 */
const INDEXED_DB_AT_LOAD: IDBFactory | undefined = globalThis.indexedDB;
const DB_VERSION = 1;
const ENTRIES = 'entries';
const HEADERS = 'headers';
const ACCOUNT_INDEX = 'account';
const HEADER_FORMAT = 'chain-ledger-credentials';
const HEADER_VERSION = 2;
/** Attempts of a write whose snapshot another writer (another tab) changed meanwhile. */
const WRITE_ATTEMPTS = 20;
/** Writers of one account in this page take turns (other tabs are caught by the snapshot check). */
const writeLocks = new Map<string, FifoLock>();

interface HeaderRecord {
  account: string;
  format: typeof HEADER_FORMAT;
  version: 1 | 2;
  /** Format 2: base64 of the store's random KDF salt. */
  salt?: string;
  check: string;
  /** Format 2: hex HMAC of the entry list (ordered by id). */
  mac?: string;
}

type EntryRecord = SealedEntry & { account: string };

export interface IndexedDbCredentialStoreOptions {
  /** The IndexedDB factory; default `globalThis.indexedDB`. */
  indexedDB?: IDBFactory;
}

/**
 * The credential store for browsers: encrypted entries in an IndexedDB database (`chain-ledger-credentials` unless
 * named), written in one committed transaction per change and safe across tabs. It is the provider's default in a
 * page; make one yourself (`chain-ledger/credentials`) to choose the database name or the IndexedDB factory. The
 * entries are useless without the Ledger: their key is derived from a signature only the device makes.
 *
 * @example
 * ```ts
 * const chain = createLedgerProvider({ transport, network: 'mainnet', credentialStore: new IndexedDbCredentialStore('my-wallet') });
 * ```
 */
export class IndexedDbCredentialStore implements CredentialStore {
  readonly dbName: string;
  readonly #factory: IDBFactory | undefined;
  #db: Promise<IDBDatabase> | undefined;

  constructor(dbName: string = DEFAULT_CREDENTIAL_DB, options: IndexedDbCredentialStoreOptions = {}) {
    if (typeof dbName !== 'string' || dbName === '') throw new CredentialStoreError('invalid', 'dbName: must be a non-empty string');
    this.dbName = dbName;
    this.#factory = options.indexedDB;
  }

  async list(account: string, secret: Uint8Array): Promise<CredentialEntry[]> {
    checkAccountAddress(account);
    checkSecret(secret);
    const snapshot = await this.#snapshot(account);
    if (snapshot.header === undefined) return [];
    const { opened } = await openSnapshot(account, secret, snapshot);
    return opened.sort((a, b) => (a.storedAt === b.storedAt ? compare(a.id, b.id) : compare(a.storedAt, b.storedAt)));
  }

  async add(account: string, secret: Uint8Array, credential: string): Promise<{ id: string; duplicate: boolean }> {
    const id = (await StoreKeys.derive(account, secret)).idOf(credential); // ids do not depend on the salt
    return this.#write<{ id: string; duplicate: boolean }>(account, secret, async (keys, entries) => {
      if (entries.some((e) => e.id === id)) return { result: { id, duplicate: true } };
      return { result: { id, duplicate: false }, entries: [...entries, await keys.seal(id, credential, new Date().toISOString())] };
    });
  }

  async remove(account: string, secret: Uint8Array, id: string): Promise<boolean> {
    checkAccountAddress(account);
    checkSecret(secret);
    checkId(id);
    return this.#write(account, secret, async (_keys, entries) => {
      const kept = entries.filter((e) => e.id !== id);
      return kept.length === entries.length ? { result: false } : { result: true, entries: kept };
    });
  }

  /**
   * Re-keys the account's store under a fresh random salt: every entry re-encrypted (ids and dates kept), a new
   * check value and entry-list MAC, in one transaction. For a leak of derived keys; a leaked store-key signature
   * still opens it (docs/credentials.md). False if the account has no store (nothing is written).
   */
  async rekey(account: string, secret: Uint8Array): Promise<boolean> {
    checkAccountAddress(account);
    checkSecret(secret);
    // The write re-seals every entry under a fresh salt (as it does a format-1 store); nothing else changes.
    return this.#write(account, secret, async (_keys, entries, exists) => (exists ? { result: true, entries } : { result: false }), {
      rekey: true,
    });
  }

  /** The account's header and entries, read in one transaction and validated (`corrupt`). */
  async #snapshot(account: string): Promise<Snapshot> {
    const { header, records } = await this.#transaction('readonly', async (tx) => ({
      header: await request<unknown>(tx.objectStore(HEADERS).get(account)),
      records: await request<unknown[]>(tx.objectStore(ENTRIES).index(ACCOUNT_INDEX).getAll(account)),
    }));
    if (header === undefined) {
      if (records.length > 0) throw corrupt(account, 'entries without a header');
      return { header: undefined, entries: [] };
    }
    return { header: parseHeader(header, account), entries: records.map((record, i) => parseEntryRecord(record, account, i)) };
  }

  /**
   * Read, change, write: opens a snapshot (a format-1 store, or any store when asked to `rekey`, is re-keyed under a
   * fresh salt), lets `change` seal what it adds, then writes in one transaction if the header and the entry ids are
   * still the snapshot's (else retries).
   */
  async #write<T>(
    account: string,
    secret: Uint8Array,
    change: (keys: StoreKeys, entries: SealedEntry[], exists: boolean) => Promise<Change<T>>,
    options: { rekey?: boolean } = {},
  ): Promise<T> {
    const name = JSON.stringify([this.dbName, account]);
    let lock = writeLocks.get(name);
    if (lock === undefined) {
      lock = new FifoLock();
      writeLocks.set(name, lock);
    }
    return lock.run(() => this.#writeOnce(account, secret, change, options));
  }

  async #writeOnce<T>(
    account: string,
    secret: Uint8Array,
    change: (keys: StoreKeys, entries: SealedEntry[], exists: boolean) => Promise<Change<T>>,
    { rekey = false }: { rekey?: boolean },
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const snapshot = await this.#snapshot(account);
      let keys: StoreKeys;
      let entries: SealedEntry[];
      let rekeyed = false;
      if (snapshot.header === undefined) {
        keys = await StoreKeys.derive(account, secret, StoreKeys.newSalt());
        entries = [];
      } else {
        const opened = await openSnapshot(account, secret, snapshot);
        keys = opened.keys;
        entries = snapshot.entries;
        if (snapshot.header.version === 1 || rekey) {
          keys = await StoreKeys.derive(account, secret, StoreKeys.newSalt());
          entries = await Promise.all(opened.opened.map((e) => keys.seal(e.id, e.credential, e.storedAt)));
          rekeyed = true;
        }
      }
      const { result, entries: changed } = await change(keys, entries, snapshot.header !== undefined);
      const next = changed ?? (rekeyed ? entries : undefined);
      if (next === undefined) return result;
      const sorted = [...next].sort((a, b) => compare(a.id, b.id));
      const header: HeaderRecord = {
        account,
        format: HEADER_FORMAT,
        version: HEADER_VERSION,
        salt: keys.salt!,
        check: keys.check,
        mac: keys.entriesMac(sorted),
      };
      const written = await this.#transaction('readwrite', async (tx) => {
        const headers = tx.objectStore(HEADERS);
        const store = tx.objectStore(ENTRIES);
        const now = await request<unknown>(headers.get(account));
        const ids = (await request<IDBValidKey[]>(store.index(ACCOUNT_INDEX).getAllKeys(account))).map((key) => (key as string[])[1]!);
        const before = snapshot.entries.map((e) => e.id).sort(compare);
        if (JSON.stringify(now) !== JSON.stringify(snapshot.header) || JSON.stringify([...ids].sort(compare)) !== JSON.stringify(before)) {
          return false; // changed by another writer since the snapshot
        }
        const keep = new Set(sorted.map((e) => e.id));
        for (const id of ids) if (!keep.has(id)) await request(store.delete([account, id]));
        for (const entry of sorted) await request(store.put({ account, ...entry } satisfies EntryRecord));
        await request(headers.put(header));
        return true;
      });
      if (written) return result;
      if (attempt >= WRITE_ATTEMPTS)
        throw new CredentialStoreError('io', `IndexedDB credentials of ${account} kept changing during a write; try again`);
    }
  }

  /** Closes the database connection; the next call opens it again. */
  async close(): Promise<void> {
    const db = this.#db;
    this.#db = undefined;
    if (db !== undefined) (await db.catch(() => undefined))?.close();
  }

  #open(): Promise<IDBDatabase> {
    this.#db ??= new Promise<IDBDatabase>((resolve, reject) => {
      const factory = this.#factory ?? INDEXED_DB_AT_LOAD ?? globalThis.indexedDB;
      if (factory === undefined) {
        reject(new CredentialStoreError('io', 'IndexedDB is not available here'));
        return;
      }
      let opening: IDBOpenDBRequest;
      try {
        opening = factory.open(this.dbName, DB_VERSION);
      } catch (cause) {
        reject(ioError(`cannot open the IndexedDB database "${this.dbName}"`, cause));
        return;
      }
      opening.onupgradeneeded = () => {
        const db = opening.result;
        if (!db.objectStoreNames.contains(ENTRIES)) {
          db.createObjectStore(ENTRIES, { keyPath: ['account', 'id'] }).createIndex(ACCOUNT_INDEX, 'account');
        }
        if (!db.objectStoreNames.contains(HEADERS)) db.createObjectStore(HEADERS, { keyPath: 'account' });
      };
      opening.onsuccess = () => {
        const db = opening.result;
        // Another tab upgrading the database, or the browser closing it: let go, reopen on the next call.
        db.onversionchange = () => {
          db.close();
          this.#db = undefined;
        };
        db.onclose = () => {
          this.#db = undefined;
        };
        resolve(db);
      };
      opening.onerror = () => reject(ioError(`cannot open the IndexedDB database "${this.dbName}"`, opening.error));
    });
    const db = this.#db;
    db.catch(() => {
      if (this.#db === db) this.#db = undefined;
    });
    return db;
  }

  /**
   * Runs `body` in one transaction over both object stores and resolves once it has committed. `body` may only wait
   * for requests of this transaction; if it throws, the transaction is aborted (nothing written) and the error is
   * rethrown.
   */
  async #transaction<T>(mode: IDBTransactionMode, body: (tx: IDBTransaction) => Promise<T>): Promise<T> {
    const db = await this.#open();
    let tx: IDBTransaction;
    try {
      tx = db.transaction([ENTRIES, HEADERS], mode, { durability: 'strict' });
    } catch (cause) {
      throw ioError(`cannot use the IndexedDB database "${this.dbName}"`, cause);
    }
    const committed = new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onabort = () => reject(tx.error ?? new Error('transaction aborted'));
    });
    committed.catch(() => undefined);
    let result: T;
    try {
      result = await body(tx);
    } catch (error) {
      try {
        tx.abort();
      } catch {
        // already finished or aborted
      }
      throw error instanceof CredentialStoreError ? error : ioError(`IndexedDB "${this.dbName}" failed`, error);
    }
    try {
      await committed;
    } catch (cause) {
      throw ioError(`IndexedDB "${this.dbName}" did not commit`, cause);
    }
    return result;
  }
}

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/** What a write's change returns: its result, and the entries to write (none: nothing changes). */
interface Change<T> {
  result: T;
  entries?: SealedEntry[];
}

interface Snapshot {
  header: HeaderRecord | undefined;
  entries: SealedEntry[];
}

/** Checks the key (`wrong-key`), the entry-list MAC (format 2) and every entry (`corrupt`) of a snapshot. */
async function openSnapshot(
  account: string,
  secret: Uint8Array,
  snapshot: Snapshot,
): Promise<{ keys: StoreKeys; opened: CredentialEntry[] }> {
  const header = snapshot.header!;
  const keys = await StoreKeys.derive(account, secret, header.salt);
  keys.verifyCheck(header.check);
  if (header.version === 2)
    keys.verifyEntries(
      [...snapshot.entries].sort((a, b) => compare(a.id, b.id)),
      header.mac!,
    );
  const opened = await Promise.all(
    snapshot.entries.map(async (entry) => ({ id: entry.id, credential: await keys.open(entry), storedAt: entry.storedAt })),
  );
  return { keys, opened };
}

function parseHeader(value: unknown, account: string): HeaderRecord {
  const h = value as Partial<HeaderRecord> | null;
  const hex64 = (v: unknown) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);
  const ok =
    typeof h === 'object' &&
    h !== null &&
    h.account === account &&
    h.format === HEADER_FORMAT &&
    hex64(h.check) &&
    ((h.version === 1 && Object.keys(h).length === 4) ||
      (h.version === 2 && isSalt(h.salt) && hex64(h.mac) && Object.keys(h).length === 6));
  if (!ok) throw corrupt(account, 'the header record is damaged');
  return h as HeaderRecord;
}

function parseEntryRecord(value: unknown, account: string, index: number): SealedEntry {
  const where = `IndexedDB credentials of ${account}: entry ${index}`;
  if (typeof value !== 'object' || value === null) throw new CredentialStoreError('corrupt', `${where}: not an object`);
  const { account: owner, ...entry } = value as Record<string, unknown>;
  if (owner !== account) throw new CredentialStoreError('corrupt', `${where}: belongs to another account`);
  return parseSealedEntry(entry, where);
}

const corrupt = (account: string, what: string) => new CredentialStoreError('corrupt', `IndexedDB credentials of ${account}: ${what}`);

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
