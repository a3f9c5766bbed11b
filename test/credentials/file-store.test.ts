/**
 * FileCredentialStore on the file system: atomic writes and the lock (within one process, and between processes:
 * one of them killed, stopped while it holds the lock, on another host, or overtaken), and what else its directory
 * can hold: a symbolic link or a FIFO at the store or the lock path, a directory others can write, each refused or
 * waited for within a bound, never followed, read, blocked on or spun on. The store's contract and its encryption:
 * store.test.ts; the crash and pause loops: test/reliability/store-crash.test.ts.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { readFile, readdir, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../src/credentials-node.js';
import { REPO, SOURCE_CONDITION_FLAG } from '../support/process.js';
import { rejection, settled } from '../support/provider-failure.js';
import { tempDirs, within } from '../support/rig.js';
import { ALICE, BOB, SECRET, SERIAL_PLACEHOLDER, TEMPLATE_TEXT, credential, expectKind } from '../support/store-fixtures.js';
import { addressOf } from '../support/vectors.js';

const NODE_ENTRY = join(REPO, 'src/credentials-node.ts');
const ACCOUNT0 = addressOf(0);
const tempDir = tempDirs('file-store');
/** Each test's own directory, its store in `dir` below it. */
let root: string;
let dir: string;
let store: FileCredentialStore;

beforeEach(() => {
  root = tempDir();
  dir = join(root, 'credentials');
  store = new FileCredentialStore(dir);
});

describe('FileCredentialStore: atomicity and locking', () => {
  it('temporary files left by a crash are ignored by reads and removed by the next write', async () => {
    await store.add(ALICE, SECRET, credential(1));
    const leftovers = [
      `.${ALICE}.json.999999-0a1b2c3d4e5f.tmp`,
      `.${ALICE}.json.12-ffffffffffff.tmp`,
      `${ALICE}.json.lock.0a0a0a0a0a0a.stale`,
    ];
    for (const name of leftovers) await writeFile(join(dir, name), '{"format":"chain-ledger-credentials","ver');
    const bobsTemp = `.${BOB}.json.1-000000000000.tmp`;
    await writeFile(join(dir, bobsTemp), 'partial');
    expect(await store.list(ALICE, SECRET)).toHaveLength(1);
    await store.add(ALICE, SECRET, credential(2));
    expect((await readdir(dir)).sort()).toEqual([bobsTemp, `${ALICE}.json`].sort());
    expect(await store.list(ALICE, SECRET)).toHaveLength(2);
  });

  it('20 concurrent adds in one process, through two store objects, all land', async () => {
    const other = new FileCredentialStore(dir);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? store : other).add(ALICE, SECRET, credential(`c${i}`))),
    );
    expect(results.every((r) => !r.duplicate)).toBe(true);
    const listed = await store.list(ALICE, SECRET);
    expect(listed.map((e) => e.credential).sort()).toEqual(Array.from({ length: 20 }, (_, i) => credential(`c${i}`)).sort());
    // Concurrent duplicates are recognised too.
    const again = await Promise.all(Array.from({ length: 5 }, () => store.add(ALICE, SECRET, credential('c3'))));
    expect(again.every((r) => r.duplicate && r.id === results[3]!.id)).toBe(true);
    // Concurrent removes and adds.
    await Promise.all([
      ...results.slice(0, 10).map((r) => store.remove(ALICE, SECRET, r.id)),
      ...Array.from({ length: 5 }, (_, i) => other.add(ALICE, SECRET, credential(`d${i}`))),
    ]);
    expect(await store.list(ALICE, SECRET)).toHaveLength(15);
    expect(await readdir(dir)).toEqual([`${ALICE}.json`]);
  });

  it('a lock held by another process makes a writer wait, then fail with "io" after its bounded wait', async () => {
    await store.add(ALICE, SECRET, credential(1));
    const impatient = new FileCredentialStore(dir, { lockTimeoutMs: 300 });
    await writeFile(`${store.fileOf(ALICE)}.lock`, '{"pid":1}');
    const started = Date.now();
    const e = await expectKind(impatient.add(ALICE, SECRET, credential(2)), 'io');
    expect(e.message).toMatch(/held by another process/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(5_000);
    // Reads do not take the lock.
    expect(await impatient.list(ALICE, SECRET)).toHaveLength(1);
    // Released while waiting: the writer proceeds.
    const waiting = new FileCredentialStore(dir, { lockTimeoutMs: 5_000 }).add(ALICE, SECRET, credential(3));
    setTimeout(() => void rm(`${store.fileOf(ALICE)}.lock`), 100);
    expect((await waiting).duplicate).toBe(false);
    expect(await store.list(ALICE, SECRET)).toHaveLength(2);
  });

  it('a stale lock (a crashed process) is broken', async () => {
    await store.add(ALICE, SECRET, credential(1));
    const lock = `${store.fileOf(ALICE)}.lock`;
    await writeFile(lock, '{"pid":1}');
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    expect((await store.add(ALICE, SECRET, credential(2))).duplicate).toBe(false);
    expect(await readdir(dir)).toEqual([`${ALICE}.json`]);
  });
});

/** A child process writing to the store through the real module (tsx), started on "go" from stdin. */
const CHILD_SCRIPT = `
import { pathToFileURL } from 'node:url';
const [entry, dir, account, secretHex, prefix, count, staleLockMs] = process.argv.slice(2);
const { FileCredentialStore } = await import(pathToFileURL(entry).href);
const store = new FileCredentialStore(dir, { staleLockMs: Number(staleLockMs) });
const secret = Uint8Array.from(Buffer.from(secretHex, 'hex'));
const template = process.env.CREDENTIAL_TEMPLATE;
process.stdout.write('ready\\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
for (let i = 0; count === 'forever' || i < Number(count); i++) {
  const { duplicate } = await store.add(account, secret, template.replace('${SERIAL_PLACEHOLDER}', prefix + i));
  if (duplicate) throw new Error('unexpected duplicate');
  process.stdout.write('added ' + i + '\\n');
}
process.exit(0);
`;

interface Child {
  process: ChildProcess;
  /** Resolves when the child printed a line matching `pattern`; bounded. */
  waitFor(pattern: RegExp, ms: number): Promise<string>;
  exited: Promise<{ code: number | null; signal: string | null; stderr: string }>;
  output(): string;
}

async function startWriter(args: { prefix: string; count: number | 'forever'; staleLockMs?: number }): Promise<Child> {
  const script = join(root, 'writer.mjs');
  await writeFile(script, CHILD_SCRIPT);
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      SOURCE_CONDITION_FLAG,
      script,
      NODE_ENTRY,
      dir,
      ALICE,
      Buffer.from(SECRET).toString('hex'),
      args.prefix,
      String(args.count),
      String(args.staleLockMs ?? 30_000),
    ],
    { cwd: REPO, env: { ...process.env, CREDENTIAL_TEMPLATE: TEMPLATE_TEXT }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const listener of listeners) listener();
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: string | null; stderr: string }>((resolve) =>
    // 'close', not 'exit': it comes after the child's output has all been read.
    child.on('close', (code, signal) => resolve({ code, signal, stderr })),
  );
  return {
    process: child,
    exited,
    output: () => stdout,
    waitFor: (pattern, ms) =>
      new Promise<string>((resolve, reject) => {
        const check = () => {
          const m = pattern.exec(stdout);
          if (m) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(m[0]);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`child did not print ${pattern} within ${ms} ms; stdout: ${stdout} stderr: ${stderr}`));
        }, ms);
        void exited.then(({ code }) => {
          if (!pattern.test(stdout)) {
            clearTimeout(timer);
            listeners.delete(check);
            reject(new Error(`child exited (${code}) before printing ${pattern}; stderr: ${stderr}`));
          }
        });
        listeners.add(check);
        check();
      }),
  };
}

describe('FileCredentialStore: several processes', () => {
  const children: Child[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
      await within(child.exited, 'child exit', 5_000);
    }
  });

  it('two processes adding 10 different credentials each to the same account file at the same time: all 20 land', async () => {
    const a = await startWriter({ prefix: 'a', count: 10 });
    const b = await startWriter({ prefix: 'b', count: 10 });
    children.push(a, b);
    await Promise.all([a.waitFor(/ready/, 20_000), b.waitFor(/ready/, 20_000)]);
    a.process.stdin!.write('go\n');
    b.process.stdin!.write('go\n');
    const [ea, eb] = await Promise.all([within(a.exited, 'writer a', 30_000), within(b.exited, 'writer b', 30_000)]);
    expect([ea.code, ea.stderr]).toEqual([0, '']);
    expect([eb.code, eb.stderr]).toEqual([0, '']);
    const stored = (await store.list(ALICE, SECRET)).map((e) => e.credential).sort();
    const expected = [
      ...Array.from({ length: 10 }, (_, i) => credential(`a${i}`)),
      ...Array.from({ length: 10 }, (_, i) => credential(`b${i}`)),
    ];
    expect(stored).toEqual(expected.sort());
    expect(await readdir(dir)).toEqual([`${ALICE}.json`]);
  }, 60_000);

  it('a writer killed (SIGKILL) at any moment leaves a valid store; its lock goes stale and is broken', async () => {
    for (let round = 0; round < 3; round++) {
      const writer = await startWriter({ prefix: `k${round}-`, count: 'forever', staleLockMs: 300 });
      children.push(writer);
      await writer.waitFor(/ready/, 20_000);
      writer.process.stdin!.write('go\n');
      await writer.waitFor(new RegExp(`added ${3 + round * 2}\\n`), 20_000);
      writer.process.kill('SIGKILL');
      await within(writer.exited, 'killed writer', 5_000);
      const written = writer.output().match(/added \d+/g)!.length;

      const entries = await store.list(ALICE, SECRET); // never a partial file
      const mine = entries.filter((e) => e.credential.includes(`"k${round}-`));
      expect(mine.length === written || mine.length === written + 1).toBe(true); // the last add may have committed unreported
      // The next write waits for the lock it left (if any) to go stale, then proceeds and cleans up.
      const after = new FileCredentialStore(dir, { staleLockMs: 300, lockTimeoutMs: 5_000 });
      expect((await after.add(ALICE, SECRET, credential(`after${round}`))).duplicate).toBe(false);
      expect(await readdir(dir)).toEqual([`${ALICE}.json`]);
    }
  }, 60_000);
});

describe('FileCredentialStore: the lock of a writer that is stopped, dead, elsewhere or overtaken', () => {
  const children: Child[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
      await within(child.exited, 'child exit', 5_000);
    }
  });

  /** A writer adding forever, stopped (SIGSTOP) while it holds the lock and `when` holds of the lock's files. */
  async function stoppedHolder(when: (names: string[]) => boolean = () => true): Promise<Child> {
    const writer = await startWriter({ prefix: 'w', count: 'forever', staleLockMs: 50 });
    children.push(writer);
    await writer.waitFor(/ready/, 20_000);
    writer.process.stdin!.write('go\n');
    const lock = `${store.fileOf(ALICE)}.lock`;
    const holds = async () => (await ownerOf(lock))?.pid === writer.process.pid && when(await readdir(lock).catch(() => []));
    for (let attempt = 0; attempt < 2_000; attempt++) {
      if (await holds()) {
        writer.process.kill('SIGSTOP');
        if (await holds()) return writer; // checked again once stopped: it can no longer let go
        writer.process.kill('SIGCONT');
      }
      await sleep(1);
    }
    throw new Error(`the writer never held the lock as wanted; stdout: ${writer.output()}`);
  }

  it('a writer stopped (SIGSTOP) while it holds the lock keeps it, however old its lease: another writer waits lockTimeoutMs, then "io" naming the pid; continued, both write', async () => {
    const holder = await stoppedHolder();
    const lock = `${store.fileOf(ALICE)}.lock`;
    const owned = await ownerOf(lock);
    // The lock is private: a 0700 directory, its owner file 0600.
    expect(lstatSync(lock).mode & 0o777).toBe(0o700);
    expect(lstatSync(join(lock, 'owner')).mode & 0o777).toBe(0o600);
    const old = new Date(Date.now() - 3_600_000);
    await utimes(join(lock, 'owner'), old, old); // as if its lease had lapsed an hour ago
    const impatient = new FileCredentialStore(dir, { staleLockMs: 50, lockTimeoutMs: 400 });
    const e = await expectKind(impatient.add(ALICE, SECRET, credential('waiting')), 'io');
    expect(e.message).toMatch(new RegExp(`held by another process \\(pid ${holder.process.pid} on this host, alive`));
    expect((await ownerOf(lock))?.text).toBe(owned?.text);
    const before = holder.output().match(/added \d+/g)?.length ?? 0;
    holder.process.kill('SIGCONT');
    await holder.waitFor(new RegExp(`added ${before + 1}\n`), 20_000);
    expect((await new FileCredentialStore(dir, { lockTimeoutMs: 10_000 }).add(ALICE, SECRET, credential('after'))).duplicate).toBe(false);
    holder.process.kill('SIGKILL');
    await within(holder.exited, 'the writer', 5_000);
    const stored = (await store.list(ALICE, SECRET)).map((entry) => entry.credential);
    const acknowledged = holder
      .output()
      .match(/added \d+/g)!
      .map((line) => credential(`w${line.slice(6)}`));
    expect(stored).toEqual(expect.arrayContaining([...acknowledged, credential('after')]));
    expect(stored, 'the add that gave up wrote nothing').not.toContain(credential('waiting'));
  }, 60_000);

  it('the lock of a writer killed while it holds it is broken at once, long before staleLockMs, and what it left is removed', async () => {
    const holder = await stoppedHolder((names) => names.some((n) => n.endsWith('.tmp'))); // killed while it writes
    holder.process.kill('SIGKILL');
    await within(holder.exited, 'the killed writer', 5_000);
    const patient = new FileCredentialStore(dir, { staleLockMs: 3_600_000, lockTimeoutMs: 10_000 });
    expect((await patient.add(ALICE, SECRET, credential('next'))).duplicate).toBe(false);
    expect(await readdir(dir)).toEqual([`${ALICE}.json`]);
  }, 60_000);

  it('a lock held on another host is broken once its lease is older than staleLockMs, never before', async () => {
    await store.add(ALICE, SECRET, credential(1));
    const lock = `${store.fileOf(ALICE)}.lock`;
    mkdirSync(lock, { mode: 0o700 });
    const owner = { pid: 4242, host: 'another-host.example', token: 'ab'.repeat(12), since: new Date().toISOString() };
    writeFileSync(join(lock, 'owner'), JSON.stringify(owner), { mode: 0o600 });
    const writer = new FileCredentialStore(dir, { staleLockMs: 60_000, lockTimeoutMs: 300 });
    const e = await expectKind(writer.add(ALICE, SECRET, credential(2)), 'io');
    expect(e.message).toMatch(/held by another process \(pid 4242 on another-host\.example\)/);
    const lapsed = new Date(Date.now() - 61_000);
    await utimes(join(lock, 'owner'), lapsed, lapsed);
    expect((await writer.add(ALICE, SECRET, credential(2))).duplicate).toBe(false);
    expect(await readdir(dir)).toEqual([`${ALICE}.json`]);
  });

  it('a lock of this very process that it no longer holds (one it failed to remove) is broken by its next write, not waited for', async () => {
    await store.add(ALICE, SECRET, credential(1));
    const lock = `${store.fileOf(ALICE)}.lock`;
    mkdirSync(lock, { mode: 0o700 });
    // The owner record as docs/credentials.md describes it: this process, this host and boot, its start time.
    const stat = readFileSync(`/proc/${process.pid}/stat`, 'utf8');
    const owner = {
      pid: process.pid,
      host: hostname(),
      boot: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
      start: stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19],
      token: 'cd'.repeat(12),
      since: new Date().toISOString(),
    };
    writeFileSync(join(lock, 'owner'), JSON.stringify(owner), { mode: 0o600 });
    const writer = new FileCredentialStore(dir, { staleLockMs: 3_600_000, lockTimeoutMs: 5_000 });
    expect((await writer.add(ALICE, SECRET, credential(2))).duplicate).toBe(false);
    expect(await readdir(dir)).toEqual([`${ALICE}.json`]);
  });

  it('a writer whose lock is taken away while it writes writes nothing, and makes its change again: nothing acknowledged is lost', async () => {
    for (let round = 0; round < 3; round++) {
      // Stopped with its next version written (or being written) inside its lock, about to rename it.
      const holder = await stoppedHolder((names) => names.some((n) => n.endsWith('.tmp')));
      const lock = `${store.fileOf(ALICE)}.lock`;
      // Taken away as a wrong verdict, a lost lease or a person would: moved aside (a name the next holder removes).
      await rename(lock, `${lock}.0123456789ab.stale`);
      const mine = credential(`overtaking${round}`);
      expect((await new FileCredentialStore(dir).add(ALICE, SECRET, mine)).duplicate).toBe(false);
      const before = holder.output().match(/added \d+/g)?.length ?? 0;
      holder.process.kill('SIGCONT');
      await holder.waitFor(new RegExp(`added ${before + 1}\n`), 20_000); // its stopped add, then one more, landed
      holder.process.kill('SIGKILL');
      await within(holder.exited, 'the writer', 5_000);
      const stored = (await store.list(ALICE, SECRET)).map((entry) => entry.credential);
      expect(stored, `round ${round}: the overtaking add`).toContain(mine);
      for (const line of holder.output().match(/added \d+/g)!) expect(stored).toContain(credential(`w${line.slice(6)}`));
      children.splice(0);
      // The writer's prefix is reused next round: start the file anew.
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

/** The pid in the lock's owner file, and its text; undefined if there is none. */
async function ownerOf(lock: string): Promise<{ pid: number; text: string } | undefined> {
  try {
    const text = await readFile(join(lock, 'owner'), 'utf8');
    return { pid: (JSON.parse(text) as { pid: number }).pid, text };
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long a store call may take before it counts as a hang. */
const STORE_MS = 15_000;

describe('FileCredentialStore: links, FIFOs and shared directories never hang or pass', () => {
  const text = JSON.stringify({
    version: 'v0',
    witness: { type: 'unsigned' },
    credential: { owner: { _type: 'PublicKey', value: ACCOUNT0 }, data: {} },
  });

  it('a dangling symbolic link at the lock path: the writer waits its bounded time, then "io", never spins on it', async () => {
    const dir = tempDir();
    const store = new FileCredentialStore(dir, { lockTimeoutMs: 300 });
    symlinkSync(join(dir, 'nowhere'), `${store.fileOf(ACCOUNT0)}.lock`);
    const error = await rejection(store.add(ACCOUNT0, SECRET, text), 'the writer', STORE_MS);
    expect(error).toMatchObject({ name: 'CredentialStoreError', kind: 'io' });
  });

  it('a FIFO at the lock path: the writer waits its bounded time, then "io", never blocks on it; a stale one is broken', async () => {
    const plainOwner = JSON.stringify({ version: 'v0', witness: { type: 'unsigned' }, credential: { owner: ACCOUNT0, data: {} } });
    const dir = tempDir();
    const store = new FileCredentialStore(dir, { lockTimeoutMs: 300 });
    const lock = `${store.fileOf(ACCOUNT0)}.lock`;
    execFileSync('mkfifo', [lock]);
    const error = await rejection(store.add(ACCOUNT0, SECRET, plainOwner), 'the writer', STORE_MS);
    expect(error).toMatchObject({ name: 'CredentialStoreError', kind: 'io', message: expect.stringMatching(/held by another process/) });
    expect(lstatSync(lock).isFIFO()).toBe(true);
    expect(await within(settled(store.list(ACCOUNT0, SECRET)), 'the read', STORE_MS)).toEqual({ value: [] }); // readers take no lock
    // Left there by a crash long ago: broken like any stale lock, and the write goes through.
    const old = Date.now() / 1000 - 3600;
    utimesSync(lock, old, old);
    expect(await within(settled(store.add(ACCOUNT0, SECRET, plainOwner)), 'the writer', STORE_MS)).toMatchObject({
      value: { duplicate: false },
    });
  });

  it('a FIFO or a symbolic link at the store path is refused ("io"), never read or blocked on', async () => {
    const dir = tempDir();
    const store = new FileCredentialStore(dir);
    execFileSync('mkfifo', [store.fileOf(ACCOUNT0)]);
    expect(await rejection(store.list(ACCOUNT0, SECRET), 'the FIFO read', STORE_MS)).toMatchObject({
      kind: 'io',
      message: expect.stringMatching(/not a regular file/),
    });
    const other = addressOf(1);
    writeFileSync(join(dir, 'elsewhere.json'), '{}');
    symlinkSync(join(dir, 'elsewhere.json'), store.fileOf(other));
    expect(await rejection(store.list(other, SECRET), 'the link read', STORE_MS)).toMatchObject({
      kind: 'io',
      message: expect.stringMatching(/symbolic link/),
    });
  });

  it('a store directory writable by group or others is refused; 0700 is used', async () => {
    const dir = tempDir();
    const store = new FileCredentialStore(dir);
    for (const mode of [0o777, 0o770, 0o702]) {
      chmodSync(dir, mode);
      for (const call of [store.list(ACCOUNT0, SECRET), store.add(ACCOUNT0, SECRET, text)] as Promise<unknown>[]) {
        expect(await rejection(call, `a store call (mode ${mode.toString(8)})`, STORE_MS)).toMatchObject({
          kind: 'io',
          message: expect.stringMatching(/writable by/),
        });
      }
    }
    chmodSync(dir, 0o700);
    expect((await store.add(ACCOUNT0, SECRET, text)).duplicate).toBe(false);
  });
});
