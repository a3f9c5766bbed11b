/**
 * `IndexedDbCredentialStore` (browser): the same encryption as the file store, in an IndexedDB database.
 *
 * Two object stores: `entries`, keyed by `[account, id]` (with an `account` index), each record an encrypted entry;
 * `headers`, keyed by `account`, holding the account's check value. Every `add` and `remove` is one read-write
 * transaction over both (atomic by IndexedDB's semantics; `durability: 'strict'`, so it resolves once committed to
 * disk), and the check value is verified inside it, so a wrong key never writes. Encryption happens before the
 * transaction opens: a transaction cannot wait for WebCrypto without committing early.
 */
import { StoreKeys, parseSealedEntry, type SealedEntry } from './store-crypto.js';
import { CredentialStoreError, checkId, type CredentialEntry, type CredentialStore } from './store.js';

export const DEFAULT_CREDENTIAL_DB = 'chain-ledger-credentials';
const DB_VERSION = 1;
const ENTRIES = 'entries';
const HEADERS = 'headers';
const ACCOUNT_INDEX = 'account';
const HEADER_FORMAT = 'chain-ledger-credentials';
const HEADER_VERSION = 1;

interface HeaderRecord {
  account: string;
  format: typeof HEADER_FORMAT;
  version: typeof HEADER_VERSION;
  check: string;
}

type EntryRecord = SealedEntry & { account: string };

export interface IndexedDbCredentialStoreOptions {
  /** The IndexedDB factory; default `globalThis.indexedDB`. */
  indexedDB?: IDBFactory;
}

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
    const keys = await StoreKeys.derive(account, secret);
    const { header, records } = await this.#transaction('readonly', async (tx) => ({
      header: await request<unknown>(tx.objectStore(HEADERS).get(account)),
      records: await request<unknown[]>(tx.objectStore(ENTRIES).index(ACCOUNT_INDEX).getAll(account)),
    }));
    if (header === undefined) {
      if (records.length > 0) throw corrupt(account, 'entries without a header');
      return [];
    }
    keys.verifyCheck(parseHeader(header, account).check);
    const entries = records.map((record, i) => parseEntryRecord(record, account, i));
    const opened = await Promise.all(
      entries.map(async (entry) => ({ id: entry.id, credential: await keys.open(entry), storedAt: entry.storedAt })),
    );
    return opened.sort((a, b) => (a.storedAt === b.storedAt ? compare(a.id, b.id) : compare(a.storedAt, b.storedAt)));
  }

  async add(account: string, secret: Uint8Array, credential: string): Promise<{ id: string; duplicate: boolean }> {
    const keys = await StoreKeys.derive(account, secret);
    const id = keys.idOf(credential);
    const sealed = await keys.seal(id, credential, new Date().toISOString());
    return this.#transaction('readwrite', async (tx) => {
      const headers = tx.objectStore(HEADERS);
      const entries = tx.objectStore(ENTRIES);
      const header = await request<unknown>(headers.get(account));
      if (header !== undefined) keys.verifyCheck(parseHeader(header, account).check);
      const existing = await request(entries.getKey([account, id]));
      if (existing !== undefined) {
        if (header === undefined) throw corrupt(account, 'entries without a header');
        return { id, duplicate: true };
      }
      if (header === undefined) {
        const created: HeaderRecord = { account, format: HEADER_FORMAT, version: HEADER_VERSION, check: keys.check };
        await request(headers.add(created));
      }
      const record: EntryRecord = { account, ...sealed };
      await request(entries.add(record));
      return { id, duplicate: false };
    });
  }

  async remove(account: string, secret: Uint8Array, id: string): Promise<boolean> {
    const keys = await StoreKeys.derive(account, secret);
    checkId(id);
    return this.#transaction('readwrite', async (tx) => {
      const header = await request<unknown>(tx.objectStore(HEADERS).get(account));
      if (header === undefined) return false;
      keys.verifyCheck(parseHeader(header, account).check);
      const entries = tx.objectStore(ENTRIES);
      if ((await request(entries.getKey([account, id]))) === undefined) return false;
      await request(entries.delete([account, id]));
      return true;
    });
  }

  /** Closes the database connection; the next call opens it again. */
  async close(): Promise<void> {
    const db = this.#db;
    this.#db = undefined;
    if (db !== undefined) (await db.catch(() => undefined))?.close();
  }

  #open(): Promise<IDBDatabase> {
    this.#db ??= new Promise<IDBDatabase>((resolve, reject) => {
      const factory = this.#factory ?? globalThis.indexedDB;
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

function parseHeader(value: unknown, account: string): HeaderRecord {
  const h = value as Partial<HeaderRecord> | null;
  if (
    typeof h !== 'object' ||
    h === null ||
    h.account !== account ||
    h.format !== HEADER_FORMAT ||
    h.version !== HEADER_VERSION ||
    typeof h.check !== 'string' ||
    !/^[0-9a-f]{64}$/.test(h.check) ||
    Object.keys(h).length !== 4
  ) {
    throw corrupt(account, 'the header record is damaged');
  }
  return h as HeaderRecord;
}

function parseEntryRecord(value: unknown, account: string, index: number): SealedEntry {
  const where = `IndexedDB credentials of ${account}: entry ${index}`;
  if (typeof value !== 'object' || value === null) throw new CredentialStoreError('corrupt', `${where}: not an object`);
  const { account: owner, ...entry } = value as Record<string, unknown>;
  if (owner !== account) throw new CredentialStoreError('corrupt', `${where}: belongs to another account`);
  return parseSealedEntry(entry, where);
}

const corrupt = (account: string, what: string) =>
  new CredentialStoreError('corrupt', `IndexedDB credentials of ${account}: ${what}`);

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function ioError(what: string, cause: unknown): CredentialStoreError {
  const reason = cause instanceof Error || cause instanceof DOMException ? cause.message : String(cause);
  return new CredentialStoreError('io', `${what}: ${reason}`, { cause });
}
