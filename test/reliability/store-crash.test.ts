/**
 * Crash safety of FileCredentialStore (src/credentials/file-store.ts, its lock src/credentials/store-lock.ts), with
 * real processes killed by SIGKILL, and stopped by SIGSTOP (as a debugger or a stalled VM stops them) while they hold
 * the lock.
 *
 * The child is plain `node` running a small .mjs script that imports the store bundled from the CURRENT src by
 * esbuild into a temporary directory (so the test never depends on, nor writes to, the shared dist/). A child writes
 * credentials in a loop and prints `added <serial>` only after `add` resolved: those are acknowledged and must
 * never be lost. Children are started ahead of time and wait for "go" on stdin, so the kill delay is measured from
 * the start of writing (a delay of 0 kills during the first write), and process start-up is overlapped with the
 * previous round. Delays come from a seeded PRNG; the seed is printed (set STORE_CRASH_SEED to replay).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { lstat, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FileCredentialStore, parseCredentialFile } from '../../src/credentials-node.js';
import { esbuild } from '../support/esbuild.js';
import { REPO, SOURCE_CONDITION_FLAG } from '../support/process.js';
import { tempDir, within } from '../support/rig.js';
import { runs } from '../support/runs.js';

// The tests come first; the rig and the oracles they use follow them, at the end of the file.

describe('FileCredentialStore: writers killed with SIGKILL at random points', () => {
  it(`${KILLS} kills of one writer: the store always opens, nothing acknowledged is lost, the next writer proceeds`, async () => {
    const random = prng(SEED);
    const ROUNDS = KILLS;
    const PER_DIRECTORY = 25; // a fresh directory now and then keeps the file small (each add rewrites it)
    const STALE_MS = 40; // one live writer at a time here; a killed writer's lock is broken at once (its process is gone)
    let dir = '';
    let acknowledged = new Set<string>();
    const stats = { kills: 0, killedBeforeFirstAck: 0, killedAfterAck: 0, lockLeftBehind: 0, tmpLeftBehind: 0, acknowledged: 0 };
    let next: Writer | undefined;
    for (let round = 0; round < ROUNDS; round++) {
      if (round % PER_DIRECTORY === 0) {
        dir = await mkdtemp(join(work, 'seq-'));
        acknowledged = new Set();
        next?.process.kill('SIGKILL');
        if (next) await within(next.exited, 'discarded writer', 5_000);
        next = undefined;
      }
      const writer = next ?? startWriter(dir, `r${round}-`, 'forever', STALE_MS);
      await within(writer.ready, `writer ${round} ready`, 20_000);
      // Start the next round's process now, so its start-up overlaps this round (it waits for "go").
      next =
        (round + 1) % PER_DIRECTORY === 0 || round + 1 === ROUNDS ? undefined : startWriter(dir, `r${round + 1}-`, 'forever', STALE_MS);
      // A quarter of the kills within 15 ms (while starting the first write, or waiting for the lock the previous
      // writer left), the rest in the middle of a stream of writes.
      const delay = random() < 0.25 ? Math.floor(random() * 15) : 40 + Math.floor(random() * 100);
      writer.process.stdin!.write('go\n');
      if (delay > 0) await sleep(delay);
      writer.process.kill('SIGKILL');
      const { signal } = await within(writer.exited, `killed writer ${round}`, 5_000);
      expect(signal, `writer ${round} died of SIGKILL, not on its own: ${writer.stderr()}`).toBe('SIGKILL');
      expect(writer.stderr(), `writer ${round}`).toBe('');
      stats.kills++;
      const acked = writer.acknowledged();
      if (acked.length === 0) stats.killedBeforeFirstAck++;
      else stats.killedAfterAck++;
      stats.acknowledged += acked.length;
      for (const serial of acked) acknowledged.add(serial);

      const names = await readdir(dir);
      for (const name of names) if (!name.endsWith('.mjs')) expect(name, `round ${round}: unexpected file`).toMatch(LEFTOVER);
      if (names.includes(`${ACCOUNT}.json.lock`)) {
        stats.lockLeftBehind++;
        // Inside the lock: its owner, and the next version if the writer died while writing it.
        const inLock = await readdir(join(dir, `${ACCOUNT}.json.lock`));
        for (const name of inLock) expect(name, `round ${round}: unexpected file in the lock`).toMatch(/^(owner|[0-9a-f]{24}\.tmp)$/);
        if (inLock.some((n) => n.endsWith('.tmp'))) stats.tmpLeftBehind++;
      }
      // Never a partial file: the account file, when there is one, parses completely and every entry authenticates.
      if (names.includes(`${ACCOUNT}.json`)) {
        const text = await readFile(join(dir, `${ACCOUNT}.json`), 'utf8');
        expect(() => parseCredentialFile(text, ACCOUNT), `round ${round}: a partial or damaged file`).not.toThrow();
      }
      const stored = await storedSerials(dir);
      const missing = [...acknowledged].filter((s) => !stored.includes(s));
      expect(missing, `round ${round} (delay ${delay} ms, seed ${SEED}): acknowledged but lost`).toEqual([]);
      // At most one unacknowledged add of this writer may have committed (killed between rename and print).
      const mine = stored.filter((s) => s.startsWith(`r${round}-`));
      expect(mine.length - acked.length, `round ${round}`).toBeGreaterThanOrEqual(0);
      expect(mine.length - acked.length, `round ${round}`).toBeLessThanOrEqual(1);
      for (const serial of mine) acknowledged.add(serial); // committed, so from now on it must stay
      expect(new Set(stored).size, `round ${round}: an entry stored twice`).toBe(stored.length);
    }
    console.log(`store-crash: ${JSON.stringify(stats)}`);
    expect(stats.kills).toBe(ROUNDS);
    // The schedule really hit writes: some kills came before any acknowledgement, some left the lock behind.
    expect(stats.killedBeforeFirstAck).toBeGreaterThan(0);
    expect(stats.lockLeftBehind + stats.tmpLeftBehind).toBeGreaterThan(0);
    expect(stats.killedAfterAck).toBeGreaterThan(0);

    // After the last kill, a writer (another process's view: a new store object) proceeds and cleans up.
    const after = new FileCredentialStore(dir, { staleLockMs: STALE_MS, lockTimeoutMs: 5_000 });
    expect((await after.add(ACCOUNT, SECRET, credential('after'))).duplicate).toBe(false);
    expect((await readdir(dir)).filter((n) => !n.endsWith('.mjs'))).toEqual([`${ACCOUNT}.json`]);
    expect(await storedSerials(dir)).toEqual(expect.arrayContaining([...acknowledged, 'after']));
  }, 120_000);

  it('concurrent writers, some killed: every acknowledged credential is there at the end', async () => {
    const random = prng(SEED ^ 0x5bd1e995);
    // Short: a live writer's lock is never broken however long it holds it (a live writer has held it past 1 s on
    // the 2-core machine at a load average of 11); only the killed writers' locks are, at once.
    const STALE_MS = 100;
    const dir = await mkdtemp(join(work, 'conc-'));
    const acknowledged = new Set<string>();
    let kills = 0;
    for (let round = 0; round < 5; round++) {
      // Four writers at once on one account: two write 6 credentials and exit, two are killed at random moments.
      const survivors = [0, 1].map((k) => startWriter(dir, `c${round}-s${k}-`, 6, STALE_MS));
      const victims = [0, 1].map((k) => startWriter(dir, `c${round}-v${k}-`, 'forever', STALE_MS));
      const all = [...survivors, ...victims];
      await within(Promise.all(all.map((w) => w.ready)), `round ${round} ready`, 20_000);
      for (const w of all) w.process.stdin!.write('go\n');
      await Promise.all(
        victims.map(async (v) => {
          await sleep(Math.floor(random() * 80));
          v.process.kill('SIGKILL');
          kills++;
        }),
      );
      const results = await within(Promise.all(all.map((w) => w.exited)), `round ${round} writers`, 60_000);
      results.slice(0, 2).forEach((r, k) => {
        expect(r.code, `survivor ${k} of round ${round}: ${survivors[k]!.stderr()}`).toBe(0);
        expect(survivors[k]!.stderr(), `survivor ${k} of round ${round}: no add failed`).toBe('');
      });
      results.slice(2).forEach((r) => expect(r.signal).toBe('SIGKILL'));
      for (const w of all) for (const serial of w.acknowledged()) acknowledged.add(serial);

      const stored = await storedSerials(dir); // opens: never corrupt
      expect(
        [...acknowledged].filter((s) => !stored.includes(s)),
        `round ${round} (seed ${SEED})`,
      ).toEqual([]);
      expect(new Set(stored).size).toBe(stored.length);
      for (const s of survivors) expect(s.acknowledged()).toHaveLength(6);
    }
    expect(kills).toBe(10);
    const after = new FileCredentialStore(dir, { staleLockMs: STALE_MS, lockTimeoutMs: 5_000 });
    expect((await after.add(ACCOUNT, SECRET, credential('final'))).duplicate).toBe(false);
    expect(await readdir(dir)).toEqual([`${ACCOUNT}.json`]);
  }, 120_000);
});

describe('FileCredentialStore: writers stopped with SIGSTOP while they hold the lock', () => {
  it(`four writers, the lock's holder stopped (SIGSTOP) for longer than staleLockMs ${PAUSES} times and killed now and then: its lock is never broken, nothing acknowledged is lost`, async () => {
    const random = prng(SEED ^ 0x2545f491);
    // Short, so that every stop outlasts it several times over: a lock is broken only when its holder is dead.
    const STALE_MS = 100;
    const dir = await mkdtemp(join(work, 'pause-'));
    const stats = { stops: 0, holderStopped: 0, lockKeptWhileStopped: 0, kills: 0, acknowledged: 0 };
    let started = 0;
    const start = () => startWriter(dir, `p${started++}-`, 'forever', STALE_MS);
    const writers = [start(), start(), start(), start()];
    let spare = start(); // the next killed writer's replacement, started ahead (its start-up overlaps the stops)
    const all = [...writers, spare];
    await within(Promise.all(writers.map((w) => w.ready)), 'writers ready', 20_000);
    for (const w of writers) w.process.stdin!.write('go\n');
    const acks = () => all.reduce((n, w) => n + w.acknowledged().length, 0);
    for (let cycle = 0; cycle < PAUSES; cycle++) {
      // The schedule counts events, not time: each cycle starts once some writer acknowledged an add since the last.
      const before = acks();
      await eventually(() => acks() > before, `cycle ${cycle}: an acknowledged add`, 30_000);
      const { writer: holder, owner } = await stopTheHolder(dir, writers, random);
      stats.stops++;
      if (owner !== undefined) stats.holderStopped++;
      if (cycle % 5 === 4 && owner !== undefined) {
        // A holder that dies instead: its lock is broken (its process is gone) and the others go on, one of them
        // stopped meanwhile too (it may be stopped while it breaks the lock).
        const others = writers.filter((w) => w !== holder);
        const waiter = others[Math.floor(random() * others.length)]!;
        holder.process.kill('SIGKILL');
        await sleep(random() * 5);
        waiter.process.kill('SIGSTOP');
        await within(holder.exited, `killed writer ${cycle}`, 5_000);
        stats.kills++;
        await sleep(STALE_MS * 2);
        waiter.process.kill('SIGCONT');
        await within(spare.ready, 'the spare writer ready', 20_000);
        spare.process.stdin!.write('go\n');
        writers[writers.indexOf(holder)] = spare;
        spare = start();
        all.push(spare);
        continue;
      }
      await sleep(STALE_MS * (2 + 2 * random()));
      // Still the stopped holder's lock, byte for byte: nobody broke a lock whose process is alive.
      if (owner !== undefined && (await lockOwner(dir))?.text === owner.text) stats.lockKeptWhileStopped++;
      holder.process.kill('SIGCONT');
    }
    for (const w of all) w.process.kill('SIGKILL');
    const results = await within(Promise.all(all.map((w) => w.exited)), 'writers ended', 10_000);
    results.forEach((r, i) => expect(r.signal, `writer ${i}: ${all[i]!.stderr()}`).toBe('SIGKILL'));
    const acknowledged = all.flatMap((w) => w.acknowledged());
    stats.acknowledged = acknowledged.length;
    console.log(`store-crash pauses: ${JSON.stringify(stats)}`);
    const stored = await storedSerials(dir); // opens and authenticates: never a damaged file
    expect(
      acknowledged.filter((s) => !stored.includes(s)),
      `acknowledged but lost (seed ${SEED})`,
    ).toEqual([]);
    expect(new Set(stored).size, 'an entry stored twice').toBe(stored.length);
    // No writer ever failed: a stopped holder keeps its lock, the others wait for it.
    for (const [i, w] of all.entries()) expect(w.stderr(), `writer ${i}`).toBe('');
    // The schedule did what it says: almost every stop caught the lock's holder inside its critical section.
    expect(stats.stops).toBe(PAUSES);
    expect(stats.holderStopped).toBeGreaterThanOrEqual(Math.ceil(PAUSES * 0.8));
    expect(stats.lockKeptWhileStopped).toBe(stats.holderStopped - stats.kills);
    expect(stats.kills).toBeGreaterThan(0);
  }, 120_000);
});

// ---- the rig and the oracles used above (module code: it runs before vitest collects the tests) ----

const ACCOUNT = 'B62qo6wASdEftjuRPaoxxcqqCFteG4SD36SeTkfZKzR98UyLZJa3chs';
const SECRET = Uint8Array.from({ length: 32 }, (_, i) => i + 7);
const SECRET_HEX = Buffer.from(SECRET).toString('hex');

const SEED = Number(process.env.STORE_CRASH_SEED ?? Date.now() % 2 ** 31);
/** SIGKILLs of the single writer: 200 in CI (CHAIN_LEDGER_FULL_RUNS=1), 100 by default (test/support/runs.ts). */
const KILLS = runs(200, 100);
/** Stops (SIGSTOP) of the lock's holder in the pause loop: 60 in CI (CHAIN_LEDGER_FULL_RUNS=1), 30 by default. */
const PAUSES = runs(60, 30);
/** mulberry32: a small seeded PRNG, so a failing schedule of kills can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A credential-shaped JSON object text (the store takes any JSON object text); `serial` makes each one distinct. */
const credential = (serial: string) =>
  JSON.stringify({
    version: 'v0',
    witness: { type: 'unsigned' },
    metadata: null,
    credential: { owner: { _type: 'PublicKey', value: ACCOUNT }, data: { serial: { _type: 'String', value: serial } } },
  });

const CHILD_SCRIPT = `
import { pathToFileURL } from 'node:url';
const [bundle, dir, account, secretHex, prefix, count, staleLockMs] = process.argv.slice(2);
const { FileCredentialStore } = await import(pathToFileURL(bundle).href);
const store = new FileCredentialStore(dir, { staleLockMs: Number(staleLockMs), lockTimeoutMs: 30000 });
const secret = Uint8Array.from(Buffer.from(secretHex, 'hex'));
const credential = ${credential.toString()};
const ACCOUNT = account;
process.stdout.write('ready\\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
for (let i = 0; count === 'forever' || i < Number(count); i++) {
  const serial = prefix + i;
  try {
    const { duplicate } = await store.add(account, secret, credential(serial));
    if (duplicate) { process.stderr.write('unexpected duplicate ' + serial + '\\n'); process.exit(3); }
    // Pipes are synchronous in Node on Linux: once this returns, the parent will read the line even after a SIGKILL.
    process.stdout.write('added ' + serial + '\\n');
  } catch (error) {
    // Only "io" is acceptable here (a lock broken as stale under load: nothing was written); anything else is a bug.
    process.stderr.write('error ' + error.name + ' ' + error.kind + ': ' + error.message + '\\n');
    if (error.kind !== 'io') process.exit(2);
  }
}
process.exit(0);
`;

/** The bundle, the child's script and the stores' directories, removed after the tests. */
const work = tempDir('store-crash');
const bundle = join(work, 'store.mjs');
const script = join(work, 'writer.mjs');

beforeAll(async () => {
  await writeFile(script, CHILD_SCRIPT);
  await esbuild(
    [
      join(REPO, 'src/credentials-node.ts'),
      '--bundle',
      '--format=esm',
      '--platform=node',
      '--target=node20',
      SOURCE_CONDITION_FLAG,
      `--outfile=${bundle}`,
      '--log-level=error',
    ],
    'src/credentials-node.ts',
  );
  console.log(`store-crash seed: ${SEED} (STORE_CRASH_SEED=${SEED} replays the kill schedule)`);
}, 60_000);

interface Writer {
  process: ChildProcess;
  ready: Promise<void>;
  exited: Promise<{ code: number | null; signal: string | null }>;
  /** Serials the child acknowledged (complete lines only). */
  acknowledged(): string[];
  stderr(): string;
}

function startWriter(dir: string, prefix: string, count: number | 'forever', staleLockMs: number): Writer {
  const child = spawn(process.execPath, [script, bundle, dir, ACCOUNT, SECRET_HEX, prefix, String(count), String(staleLockMs)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let onReady: () => void;
  let onFail: (e: Error) => void;
  const ready = new Promise<void>((resolve, reject) => ((onReady = resolve), (onFail = reject)));
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.startsWith('ready\n')) onReady();
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on('close', (code, signal) => {
      onFail(new Error(`writer ${prefix} exited (${code ?? signal}) before it was ready: ${stderr}`));
      resolve({ code, signal });
    }),
  );
  ready.catch(() => undefined);
  return {
    process: child,
    ready,
    exited,
    acknowledged: () => [...stdout.matchAll(/^added (\S+)\n/gm)].map((m) => m[1]!),
    stderr: () => stderr,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `condition` every 5 ms; fails after `ms` (a bound against a hang, not a timing assertion). */
async function eventually(condition: () => boolean, what: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(5);
  }
}

/**
 * Who holds the account's lock, as the lock says (its pid, and its text to compare later); undefined if there is no
 * lock or it is being written. The lock is a directory with an `owner` file.
 */
async function lockOwner(dir: string): Promise<{ pid: number; text: string } | undefined> {
  const lock = join(dir, `${ACCOUNT}.json.lock`);
  try {
    const text = await readFile((await lstat(lock)).isDirectory() ? join(lock, 'owner') : lock, 'utf8');
    const pid = (JSON.parse(text) as { pid?: unknown }).pid;
    return typeof pid === 'number' ? { pid, text } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Stops the writer that holds the lock, checked after the stop (a writer stopped just after it released is let go
 * and another try made); after 200 tries, a random writer is stopped instead (`owner` undefined).
 */
async function stopTheHolder(
  dir: string,
  writers: Writer[],
  random: () => number,
): Promise<{ writer: Writer; owner?: { pid: number; text: string } }> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const seen = await lockOwner(dir);
    const writer = writers.find((w) => w.process.pid === seen?.pid);
    if (writer === undefined) {
      await sleep(2);
      continue;
    }
    writer.process.kill('SIGSTOP');
    const owner = await lockOwner(dir);
    if (owner?.pid === writer.process.pid) return { writer, owner };
    writer.process.kill('SIGCONT');
  }
  const writer = writers[Math.floor(random() * writers.length)]!;
  writer.process.kill('SIGSTOP');
  return { writer };
}

/** The serials stored for the account; `list` authenticates every entry, so this fails on any damage. */
async function storedSerials(dir: string): Promise<string[]> {
  const entries = await new FileCredentialStore(dir).list(ACCOUNT, SECRET);
  return entries.map((e) => JSON.parse(e.credential).credential.data.serial.value as string);
}

/** What a crash may leave next to the account file: the lock, a lock being made, a lock set aside. Nothing else. */
const LEFTOVER = new RegExp(
  `^(${ACCOUNT}\\.json|${ACCOUNT}\\.json\\.lock|${ACCOUNT}\\.json\\.lock\\.[0-9a-f]{24}\\.new|${ACCOUNT}\\.json\\.lock\\.[0-9a-f]{12}\\.stale)$`,
);
