/**
 * `FileCredentialStore` (Node): one file per account, `<directory>/<address>.json`, replaced atomically on every
 * change. Node-only; exported from `chain-ledger/credentials/node` (src/credentials-node.ts), never from the
 * browser entry.
 *
 * - Atomic and durable: a change is written to a new file, fsynced, renamed over the account's file, and the
 *   directory is fsynced (best effort). A crash leaves the old or the new file, never a partial one; readers never
 *   take a lock and never see a partial file. What a crash leaves behind is ignored and removed by the next write.
 * - Serialised: writers of one file wait on a `FifoLock` in the process and on a lock directory
 *   (`<address>.json.lock`, store-lock.ts) across processes, so concurrent adds never lose one another. The lock of
 *   a live process is never broken, however long it holds it; the new file is renamed from inside the lock, so a
 *   writer that lost its lock writes nothing, and the change is made again under a new lock.
 * - Private: the directory is created with mode 0o700, files with 0o600; a directory writable by group or others is
 *   refused (as OpenSSH refuses such key directories), and so is a store file that is not a regular file (a symbolic
 *   link, a FIFO, a device): it is opened with O_NOFOLLOW | O_NONBLOCK and checked before anything is read.
 */
import { constants } from 'node:fs';
import { mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { FifoLock } from '../util/fifo-lock.js';
import { StoreKeys, isSalt, parseSealedEntry, type SealedEntry } from './store-crypto.js';
import { StoreLock, errorCode, removeLockLeftovers } from './store-lock.js';
import {
  CredentialStoreError,
  checkAccountAddress,
  checkId,
  checkSecret,
  ioError,
  type CredentialEntry,
  type CredentialStore,
} from './store.js';

export const CREDENTIAL_FILE_FORMAT = 'chain-ledger-credentials';
/** The format written; format 1 (no salt, no list MAC, no padding) is still read, and re-keyed on its next write. */
export const CREDENTIAL_FILE_VERSION = 2;

/** The content of `<address>.json`. */
export interface CredentialFile {
  format: typeof CREDENTIAL_FILE_FORMAT;
  version: 1 | 2;
  account: string;
  /** Format 2: base64 of the store's random 32-byte KDF salt. */
  salt?: string;
  /** Hex HMAC of a constant and the account under the check key: recognises a wrong secret. */
  check: string;
  entries: SealedEntry[];
  /** Format 2: hex HMAC of the entry list (ids, IVs, dates): a dropped or added entry is detected. */
  mac?: string;
}

export interface FileCredentialStoreOptions {
  /**
   * How long a write waits for another process's lock (a stopped holder's too) before failing with kind `io`.
   * Default 10 s.
   */
  lockTimeoutMs?: number;
  /**
   * A lock whose holder cannot be checked (on another host, or of an older version) is broken once its lease has
   * not been renewed for this long. A holder on this host is checked instead: its lock is broken as soon as its
   * process is gone, and never while it lives. Default 30 s.
   */
  staleLockMs?: number;
}

const DIRECTORY_MODE = 0o700;

/** One lock per file for the whole process, shared by every store instance on the same directory. */
const processLocks = new Map<string, FifoLock>();

/**
 * The credential store for Node: one encrypted file per account in `directory` (mode 0o700; files 0o600), replaced
 * atomically on every change and safe for several processes at once. Make one with
 * `new FileCredentialStore(directory)` from `chain-ledger/credentials/node` and pass it as `credentialStore` to
 * `createLedgerProvider` (the default in Node is `$XDG_DATA_HOME/chain-ledger/credentials`). The files are useless
 * without the Ledger: their key is derived from a signature only the device makes.
 *
 * @example
 * ```ts
 * const chain = createLedgerProvider({ transport, network: 'mainnet', origin, credentialStore: new FileCredentialStore('./credentials') });
 * ```
 */
export class FileCredentialStore implements CredentialStore {
  readonly directory: string;
  readonly #lockTimeoutMs: number;
  readonly #staleLockMs: number;

  constructor(directory: string, options: FileCredentialStoreOptions = {}) {
    if (typeof directory !== 'string' || directory === '') throw new CredentialStoreError('invalid', 'directory: must be a path');
    this.directory = resolve(directory);
    this.#lockTimeoutMs = options.lockTimeoutMs ?? 10_000;
    this.#staleLockMs = options.staleLockMs ?? 30_000;
  }

  /** The file holding `account`'s credentials. */
  fileOf(account: string): string {
    return join(this.directory, `${checkAccountAddress(account)}.json`);
  }

  async list(account: string, secret: Uint8Array): Promise<CredentialEntry[]> {
    checkAccountAddress(account); // even when there is no file
    checkSecret(secret);
    const file = await this.#read(account);
    if (file === undefined) return [];
    return openAll(await StoreKeys.derive(account, secret, file.salt), file);
  }

  async add(account: string, secret: Uint8Array, credential: string): Promise<{ id: string; duplicate: boolean }> {
    const id = (await StoreKeys.derive(account, secret)).idOf(credential); // ids do not depend on the salt
    return this.#update<{ id: string; duplicate: boolean }>(account, async (file) => {
      // Authenticates every entry: nothing is ever written on top of a damaged or foreign file.
      const { keys, entries, rekeyed } = await keysForWrite(account, secret, file);
      if (entries.some((e) => e.id === id)) return { result: { id, duplicate: true }, write: rekeyed ? fileOf(keys, entries) : undefined };
      const entry = await keys.seal(id, credential, new Date().toISOString());
      return { result: { id, duplicate: false }, write: fileOf(keys, [...entries, entry]) };
    });
  }

  async remove(account: string, secret: Uint8Array, id: string): Promise<boolean> {
    checkAccountAddress(account);
    checkSecret(secret);
    checkId(id);
    if ((await this.#read(account)) === undefined) return false;
    return this.#update(account, async (file) => {
      if (file === undefined) return { result: false };
      const { keys, entries, rekeyed } = await keysForWrite(account, secret, file);
      const kept = entries.filter((e) => e.id !== id);
      if (kept.length === entries.length) return { result: false, write: rekeyed ? fileOf(keys, entries) : undefined };
      return { result: true, write: fileOf(keys, kept) };
    });
  }

  /**
   * Re-keys the account's store under a fresh salt (every entry re-encrypted, ids unchanged), e.g. after a derived
   * key may have leaked. A leaked store-key signature still opens it (docs/credentials.md). False if there is no store.
   */
  async rekey(account: string, secret: Uint8Array): Promise<boolean> {
    checkAccountAddress(account);
    checkSecret(secret);
    return this.#update(account, async (file) => {
      if (file === undefined) return { result: false };
      const { keys, entries } = await keysForWrite(account, secret, file, { rekey: true });
      return { result: true, write: fileOf(keys, entries) };
    });
  }

  /** The account's file, validated; undefined if there is none. Never takes a lock: files are replaced atomically. */
  async #read(account: string): Promise<CredentialFile | undefined> {
    const path = this.fileOf(account);
    if (!(await this.#checkDirectory())) return undefined;
    let handle: FileHandle;
    try {
      // No symbolic link is followed, and a FIFO cannot block the open.
      handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (cause) {
      if (errorCode(cause) === 'ENOENT') return undefined;
      if (errorCode(cause) === 'ELOOP') throw ioError(`${path} is a symbolic link; refused`, cause);
      throw ioError(`cannot read ${path}`, cause);
    }
    let text: string;
    try {
      if (!(await handle.stat()).isFile()) throw new CredentialStoreError('io', `${path} is not a regular file; refused`);
      text = await handle.readFile('utf8');
    } catch (cause) {
      throw cause instanceof CredentialStoreError ? cause : ioError(`cannot read ${path}`, cause);
    } finally {
      await handle.close();
    }
    return parseCredentialFile(text, account, path);
  }

  /** False if the directory does not exist; `io` if it is writable by group or others (or not a directory). */
  async #checkDirectory(): Promise<boolean> {
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(this.directory);
    } catch (cause) {
      if (errorCode(cause) === 'ENOENT') return false;
      throw ioError(`cannot inspect ${this.directory}`, cause);
    }
    if (!info.isDirectory()) throw new CredentialStoreError('io', `${this.directory} is not a directory`);
    if (process.platform !== 'win32' && (info.mode & 0o022) !== 0) {
      throw new CredentialStoreError(
        'io',
        `${this.directory} is writable by ${info.mode & 0o002 ? 'others' : 'its group'} (mode ${(info.mode & 0o777).toString(8)}): refused; make it 0700`,
      );
    }
    return true;
  }

  /**
   * Runs `change` on the current file while holding both locks, and writes what it returns through the lock. A write
   * that finds its lock lost wrote nothing: the change is made again, on the file as it then is, under a new lock
   * (within the same `lockTimeoutMs`). Removes what crashed writers left behind.
   */
  async #update<T>(
    account: string,
    change: (file: CredentialFile | undefined) => Promise<{ result: T; write?: CredentialFile }>,
  ): Promise<T> {
    const path = this.fileOf(account);
    try {
      await mkdir(this.directory, { recursive: true, mode: DIRECTORY_MODE });
    } catch (cause) {
      throw ioError(`cannot create ${this.directory}`, cause);
    }
    await this.#checkDirectory();
    let lock = processLocks.get(path);
    if (lock === undefined) {
      lock = new FifoLock();
      processLocks.set(path, lock);
    }
    const timing = { deadline: Date.now() + this.#lockTimeoutMs, timeoutMs: this.#lockTimeoutMs, staleMs: this.#staleLockMs };
    return lock.run(async () => {
      for (;;) {
        const fileLock = await StoreLock.acquire(`${path}.lock`, timing);
        try {
          await removeLockLeftovers(path, this.#staleLockMs);
          const { result, write } = await change(await this.#read(account));
          if (write === undefined || (await fileLock.replace(path, `${JSON.stringify(write, null, 2)}\n`))) return result;
        } finally {
          await fileLock.release();
        }
        if (Date.now() >= timing.deadline) {
          throw new CredentialStoreError('io', `lost the lock of ${path} (broken by another process); nothing was written`);
        }
      }
    });
  }
}

/** Parses and validates a credential file (kind `corrupt` otherwise); `account` must be the one it belongs to. */
export function parseCredentialFile(text: string, account: string, where = `the credential file of ${account}`): CredentialFile {
  const bad = (what: string, cause?: unknown) => new CredentialStoreError('corrupt', `${where}: ${what}`, { cause });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw bad('not JSON (damaged)', cause);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('not a credential file');
  const { format, version, account: owner, salt, check, entries, mac, ...extra } = value as Record<string, unknown>;
  if (format !== CREDENTIAL_FILE_FORMAT) throw bad(`not a credential file (format ${JSON.stringify(format)})`);
  if (version !== 1 && version !== 2) {
    throw bad(`unsupported version ${JSON.stringify(version)} (this library reads 1 and ${CREDENTIAL_FILE_VERSION})`);
  }
  if (version === 1 && (salt !== undefined || mac !== undefined)) throw bad(`unknown field "${salt !== undefined ? 'salt' : 'mac'}"`);
  if (version === 2 && !isSalt(salt)) throw bad('salt is not 32 bytes of base64');
  if (version === 2 && (typeof mac !== 'string' || !/^[0-9a-f]{64}$/.test(mac))) throw bad('mac is not 64 hex digits');
  const unknownKeys = Object.keys(extra);
  if (unknownKeys.length > 0) throw bad(`unknown field "${unknownKeys[0]}"`);
  if (owner !== account) throw bad(`holds the credentials of another account (${String(owner)})`);
  if (typeof check !== 'string' || !/^[0-9a-f]{64}$/.test(check)) throw bad('check is not 64 hex digits');
  if (!Array.isArray(entries)) throw bad('entries is not a list');
  const parsed = entries.map((e, i) => parseSealedEntry(e, `${where}: entries[${i}]`));
  if (new Set(parsed.map((e) => e.id)).size !== parsed.length) throw bad('an id appears twice');
  return version === 1
    ? { format, version, account, check, entries: parsed }
    : { format, version, account, salt: salt as string, check, entries: parsed, mac: mac as string };
}

/**
 * Checks the key against the header (`wrong-key`), the entry list against its MAC (format 2), then decrypts and
 * authenticates every entry (`corrupt`).
 */
async function openAll(keys: StoreKeys, file: CredentialFile): Promise<CredentialEntry[]> {
  keys.verifyCheck(file.check);
  if (file.version === 2) keys.verifyEntries(file.entries, file.mac!);
  return Promise.all(file.entries.map(async (entry) => ({ id: entry.id, credential: await keys.open(entry), storedAt: entry.storedAt })));
}

/**
 * The keys and sealed entries to write back after a change: the file's own (authenticated first), or for a
 * format-1 file (or when asked to `rekey`) every entry re-sealed under a fresh salt (`rekeyed`), or a fresh salt for
 * a new store.
 */
async function keysForWrite(
  account: string,
  secret: Uint8Array,
  file: CredentialFile | undefined,
  { rekey = false } = {},
): Promise<{ keys: StoreKeys; entries: SealedEntry[]; rekeyed: boolean }> {
  if (file === undefined) return { keys: await StoreKeys.derive(account, secret, StoreKeys.newSalt()), entries: [], rekeyed: false };
  const current = await StoreKeys.derive(account, secret, file.salt);
  const opened = await openAll(current, file);
  if (file.version === CREDENTIAL_FILE_VERSION && !rekey) return { keys: current, entries: file.entries, rekeyed: false };
  const keys = await StoreKeys.derive(account, secret, StoreKeys.newSalt());
  return { keys, entries: await Promise.all(opened.map((e) => keys.seal(e.id, e.credential, e.storedAt))), rekeyed: true };
}

function fileOf(keys: StoreKeys, entries: SealedEntry[]): CredentialFile {
  return {
    format: CREDENTIAL_FILE_FORMAT,
    version: CREDENTIAL_FILE_VERSION,
    account: keys.account,
    salt: keys.salt!,
    check: keys.check,
    entries,
    mac: keys.entriesMac(entries),
  };
}
