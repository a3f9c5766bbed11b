/**
 * The lock of one store file between processes (Node), and the only way to replace that file: through the lock.
 *
 * - The lock is a directory, `<file>.lock`, with an `owner` file: pid, host name, boot id and process start time
 *   (Linux), and a random token. It is made complete under another name (`<file>.lock.<token>.new`) and renamed into
 *   place, so a lock is never seen without its owner; the rename fails while another lock is there.
 * - A waiting writer breaks a lock only when its holder is gone. A holder on this host (same host name and boot) is
 *   checked: a dead process, a zombie or a reused pid is gone at once; a live one, even stopped (a debugger, a
 *   stalled VM) or busy, is never broken, and the writer waits its bounded time. A holder that cannot be checked
 *   (another host, a lock of an older version, something else at the path) is gone once its lease, the owner file's
 *   mtime that the holder renews while it holds, is older than `staleMs`.
 * - The commit cannot outlive the lock: the next version is written inside the holder's lock directory and renamed
 *   over the file from there, through the lock path. A writer whose lock was broken or replaced (by a wrong verdict,
 *   a lease lost on another host, a person) finds its file missing at that path and writes nothing; the store then
 *   starts its change again. The rename itself is what protects, not a check before it: there is no window to race,
 *   and nothing acknowledged is overwritten by a writer that lost its lock.
 */
import { constants } from 'node:fs';
import { lstat, mkdir, open, readFile, readdir, rename, rm, rmdir, unlink, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { toHex } from '../apdu/bytes.js';
import { CredentialStoreError, ioError } from './store.js';

const LOCK_DIRECTORY_MODE = 0o700;
const FILE_MODE = 0o600;
/** A new file, never through a symbolic link (O_EXCL fails on any existing name, a link included). */
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
const FIRST_RETRY_MS = 2;
const MAX_RETRY_MS = 100;
/** Larger owner files are not ours: they are not read. */
const MAX_OWNER_BYTES = 4096;
/** How `rename(directory, path)` says that something is already at `path` (Windows: a directory there is EPERM). */
const TAKEN = new Set(['EEXIST', 'ENOTEMPTY', 'ENOTDIR', 'EISDIR', ...(process.platform === 'win32' ? ['EPERM', 'EACCES', 'EBUSY'] : [])]);

/** What `owner` records. `boot` and `start` only where /proc tells them (Linux). */
interface Owner {
  pid: number;
  host: string;
  boot?: string;
  start?: string;
  token: string;
  since: string;
}

/** This process as an owner records it (without token and time). */
type Identity = Pick<Owner, 'pid' | 'host' | 'boot' | 'start'>;

export interface LockTiming {
  /** When to give up waiting (epoch ms). */
  deadline: number;
  /** The wait limit, for the message. */
  timeoutMs: number;
  /** A lease not renewed for this long is lost (holders that cannot be checked only). */
  staleMs: number;
}

/**
 * Tokens of the locks this process holds now, shared by every copy of this module in it: a lock of this process
 * whose token is not here is one it failed to remove, and is gone.
 */
const heldHere = sharedInProcess('chain-ledger.store-lock.held', () => new Set<string>());

export class StoreLock {
  readonly path: string;
  readonly #token: string;
  readonly #owner: FileHandle;
  readonly #lease: ReturnType<typeof setInterval>;

  private constructor(path: string, token: string, owner: FileHandle, staleMs: number) {
    this.path = path;
    this.#token = token;
    this.#owner = owner;
    // The lease: renewed on the owner file's own handle, so a lock that is no longer at the path is never renewed.
    this.#lease = setInterval(
      () => {
        const now = new Date();
        owner.utimes(now, now).catch(() => undefined); // a lease that cannot be renewed is lost, and the commit says so
      },
      Math.max(10, Math.floor(staleMs / 4)),
    );
    this.#lease.unref();
  }

  /** Waits (bounded by `timing.deadline`, with backoff) until the lock is this process's; breaks it if its holder is gone. */
  static async acquire(path: string, timing: LockTiming): Promise<StoreLock> {
    const me = await identity();
    let delay = FIRST_RETRY_MS;
    let retriedAtOnce = false;
    for (;;) {
      let holder = await inspect(path, me, timing.staleMs);
      if (holder === undefined) {
        const lock = await StoreLock.#create(path, me, timing.staleMs);
        if (lock !== undefined) return lock;
        holder = await inspect(path, me, timing.staleMs);
      }
      // Once at once after a lock was broken or vanished, then with backoff: never a spin.
      if (!retriedAtOnce && (holder === undefined || (holder.gone && (await breakLock(path))))) {
        retriedAtOnce = true;
        continue;
      }
      retriedAtOnce = false;
      // The deadline is checked on every round that waits.
      if (Date.now() >= timing.deadline) {
        throw new CredentialStoreError(
          'io',
          `${path} is held by another process (${holder?.who ?? 'unknown'}) for more than ${timing.timeoutMs} ms; if no other process uses this store, delete it`,
        );
      }
      await sleep(delay + Math.random() * delay);
      delay = Math.min(delay * 2, MAX_RETRY_MS);
    }
  }

  /** A complete lock made under another name and renamed into place; undefined if another lock is there first. */
  static async #create(path: string, me: Identity, staleMs: number): Promise<StoreLock | undefined> {
    const token = randomHex(12);
    const prepared = `${path}.${token}.new`;
    try {
      await mkdir(prepared, { mode: LOCK_DIRECTORY_MODE });
    } catch (cause) {
      throw ioError(`cannot create the lock ${path}`, cause);
    }
    let owner: FileHandle | undefined;
    try {
      owner = await open(join(prepared, 'owner'), CREATE_NEW, FILE_MODE);
      const record: Owner = { ...me, token, since: new Date().toISOString() };
      await owner.writeFile(`${JSON.stringify(record)}\n`);
      heldHere.add(token); // before it is in place: a lock of this process is never taken for a leftover
      await rename(prepared, path);
      return new StoreLock(path, token, owner, staleMs);
    } catch (cause) {
      heldHere.delete(token);
      await owner?.close().catch(() => undefined);
      await removeLockDirectory(prepared);
      // ENOENT: the prepared directory was swept by the holder (see removeLockLeftovers) before it was placed.
      if (TAKEN.has(String(errorCode(cause))) || errorCode(cause) === 'ENOENT') return undefined;
      throw ioError(`cannot create the lock ${path}`, cause);
    }
  }

  /**
   * Replaces `target` with `text` while this lock is held: a new file inside the lock directory (`wx`, 0o600,
   * fsynced), then renamed over `target` through the lock path, then the directory fsynced (best effort). False if
   * the lock was lost: nothing was written.
   */
  async replace(target: string, text: string): Promise<boolean> {
    const next = join(this.path, `${this.#token}.tmp`);
    try {
      let handle: FileHandle;
      try {
        handle = await open(next, CREATE_NEW, FILE_MODE);
      } catch (cause) {
        if (errorCode(cause) === 'ENOENT' || errorCode(cause) === 'ENOTDIR') return false; // no lock directory at the path
        throw cause;
      }
      try {
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      // Still ours now means ours since it was made (a lock moved away never comes back), so `next` is in it.
      if (!(await this.#held())) {
        await unlink(next).catch(() => undefined);
        return false;
      }
      try {
        await rename(next, target);
      } catch (cause) {
        if (errorCode(cause) === 'ENOENT') return false; // the lock was moved away since: `next` went with it
        throw cause;
      }
    } catch (cause) {
      await unlink(next).catch(() => undefined);
      throw ioError(`cannot write ${target}`, cause);
    }
    await syncDirectory(dirname(target));
    return true;
  }

  /** Stops the lease and removes the lock if it is still this one (a lock lost meanwhile is left to its holder). */
  async release(): Promise<void> {
    clearInterval(this.#lease);
    await this.#owner.close().catch(() => undefined);
    // A lock that cannot be removed (the directory's permissions changed) is this process's leftover from now on:
    // its next writer breaks it; the write it guarded is done.
    if (await this.#held()) await breakLock(this.path).catch(() => undefined);
    heldHere.delete(this.#token);
  }

  /** Whether the lock at the path is this one (its owner's token). */
  async #held(): Promise<boolean> {
    try {
      return (await readOwner(this.path))?.owner.token === this.#token;
    } catch {
      return false; // not known to be ours: the change is made again
    }
  }
}

/**
 * Removes what crashed writers of `file` left: prepared locks never placed (`.new`, once older than `staleMs`),
 * locks set aside to be removed (`.stale`), and temporary files of older versions (`.<file>.<…>.tmp`). Called by
 * the lock's holder.
 */
export async function removeLockLeftovers(file: string, staleMs: number): Promise<void> {
  const directory = dirname(file);
  const name = basename(file);
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return;
  }
  for (const entry of names) {
    const path = join(directory, entry);
    const aside = entry.startsWith(`${name}.lock.`) && entry.endsWith('.stale');
    const temporary = entry.startsWith(`.${name}.`) && entry.endsWith('.tmp');
    const prepared = entry.startsWith(`${name}.lock.`) && entry.endsWith('.new') && (await ageOf(path)) > staleMs;
    if (aside || temporary || prepared) await rm(path, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Who holds the lock at `path`, and whether they are gone; undefined if there is no lock. */
async function inspect(path: string, me: Identity, staleMs: number): Promise<{ who: string; gone: boolean } | undefined> {
  let seen: Awaited<ReturnType<typeof lstat>>;
  try {
    // lstat: whatever is at the path (a link, a FIFO, an older version's lock file) is a lock, never followed.
    seen = await lstat(path);
  } catch (cause) {
    if (errorCode(cause) === 'ENOENT') return undefined;
    throw ioError(`cannot inspect the lock ${path}`, cause);
  }
  let record: Awaited<ReturnType<typeof readOwner>>;
  try {
    record = seen.isDirectory() ? await readOwner(path) : undefined;
  } catch (cause) {
    throw ioError(`cannot inspect the lock ${path}`, cause); // never judged by its age when its owner could not be read
  }
  if (record === undefined) {
    // A directory without an owner that is no longer at the path was a lock being released or replaced: look again.
    if (seen.isDirectory() && !(await stillAt(path, seen))) return undefined;
    return { who: 'no owner recorded', gone: Date.now() - seen.mtimeMs > staleMs };
  }
  const { owner, leaseMs } = record;
  if (owner.host === me.host && owner.boot === me.boot) {
    const alive = owner.pid === me.pid && owner.start === me.start ? heldHere.has(owner.token) : await isAlive(owner);
    return { who: `pid ${owner.pid} on this host, ${alive ? 'alive: stopped or busy' : 'gone'}`, gone: !alive };
  }
  return { who: `pid ${owner.pid} on ${owner.host}`, gone: Date.now() - leaseMs > staleMs };
}

/**
 * Moves the lock at `path` aside (atomic: of several processes breaking it, one moves it) and removes it. False if
 * there was nothing to move. Whoever held what was moved finds it gone when it commits, and writes nothing.
 */
async function breakLock(path: string): Promise<boolean> {
  const aside = `${path}.${randomHex(6)}.stale`;
  try {
    await rename(path, aside);
  } catch (cause) {
    if (errorCode(cause) === 'ENOENT') return false;
    throw ioError(`cannot break the lock ${path}`, cause);
  }
  await removeLockDirectory(aside);
  return true;
}

/**
 * Removes a lock directory no longer at the lock path: its owner file and itself (the common case, and much cheaper
 * than a recursive `rm`), else all it holds. What cannot be removed is left to the next holder's sweep.
 */
async function removeLockDirectory(path: string): Promise<void> {
  try {
    await unlink(join(path, 'owner'));
    await rmdir(path);
  } catch {
    await rm(path, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * The lock's owner and the lease (the owner file's mtime); undefined if it has none that reads as one (missing, a
 * link, not a file, not an owner record). Throws what else stopped the read (too many open files, I/O).
 */
async function readOwner(path: string): Promise<{ owner: Owner; leaseMs: number } | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(join(path, 'owner'), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (cause) {
    if (['ENOENT', 'ENOTDIR', 'ELOOP'].includes(String(errorCode(cause)))) return undefined;
    throw cause;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > MAX_OWNER_BYTES) return undefined;
    const owner = parseOwner(await handle.readFile('utf8'));
    return owner === undefined ? undefined : { owner, leaseMs: info.mtimeMs };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Whether what is at `path` is still the file `seen` (same device and inode). */
async function stillAt(path: string, seen: { dev: number; ino: number }): Promise<boolean> {
  try {
    const now = await lstat(path);
    return now.dev === seen.dev && now.ino === seen.ino;
  } catch {
    return false;
  }
}

function parseOwner(text: string): Owner | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const { pid, host, boot, start, token, since } = (value ?? {}) as Record<string, unknown>;
  const optional = (v: unknown) => v === undefined || typeof v === 'string';
  // A pid of 0 or below would name a process group to `process.kill`: only positive integers are pids.
  if (!Number.isSafeInteger(pid) || (pid as number) <= 0 || typeof host !== 'string' || typeof since !== 'string') return undefined;
  if (!optional(boot) || !optional(start) || typeof token !== 'string' || !/^[0-9a-f]{24}$/.test(token)) return undefined;
  return { pid: pid as number, host, boot: boot as string | undefined, start: start as string | undefined, token, since };
}

/**
 * Whether the owner's process still runs (this host only). `kill(pid, 0)` sends nothing: ESRCH is gone, EPERM
 * (another user's process) alive. On Linux a zombie is gone, and so is a process that started at another time than
 * the owner's (the pid was reused).
 */
async function isAlive(owner: Owner): Promise<boolean> {
  try {
    process.kill(owner.pid, 0);
  } catch (cause) {
    if (errorCode(cause) === 'ESRCH') return false;
  }
  const stat = await procStat(owner.pid);
  if (stat === undefined) return true;
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return owner.start === undefined || owner.start === stat.start;
}

let self: Promise<Identity> | undefined;

function identity(): Promise<Identity> {
  self ??= (async () => {
    const boot = (await readFile('/proc/sys/kernel/random/boot_id', 'utf8').catch(() => undefined))?.trim();
    return { pid: process.pid, host: hostname(), boot, start: (await procStat(process.pid))?.start };
  })();
  return self;
}

/** A process's state and start time (clock ticks after boot) from /proc/<pid>/stat; undefined without /proc. */
async function procStat(pid: number): Promise<{ state: string; start: string } | undefined> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  // "pid (name) state ppid …": the name may hold spaces and parentheses, so fields are counted after the last ")".
  const fields = text?.slice(text.lastIndexOf(')') + 2).split(' ');
  if (fields === undefined || fields.length < 20) return undefined;
  return { state: fields[0]!, start: fields[19]! };
}

async function ageOf(path: string): Promise<number> {
  try {
    return Date.now() - (await lstat(path)).mtimeMs;
  } catch {
    return 0;
  }
}

async function syncDirectory(directory: string): Promise<void> {
  try {
    const handle = await open(directory, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Best effort: some platforms (Windows) and file systems cannot fsync a directory.
  }
}

/** One value per process under `key`, made once, whichever copy of this module asks first. */
function sharedInProcess<T>(key: string, make: () => T): T {
  const registry = globalThis as Record<symbol, unknown>;
  const symbol = Symbol.for(key);
  if (!(symbol in registry)) registry[symbol] = make();
  return registry[symbol] as T;
}

const randomHex = (bytes: number) => toHex(globalThis.crypto.getRandomValues(new Uint8Array(bytes)));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** A Node error's `code` (ENOENT, EEXIST, …). */
export const errorCode = (error: unknown) => (error as { code?: unknown } | undefined)?.code;
