/**
 * IndexedDbCredentialStore in a real browser: headless Chromium (test/support/chromium.ts: the one npm installs, or
 * CHROMIUM_BIN), no driver library.
 * The browser entry `src/credentials.ts` is bundled by esbuild for the browser platform (which also proves it
 * imports nothing of Node), served from 127.0.0.1 with a test page (test/credentials/indexeddb.page.ts); the page runs
 * the scenario and POSTs what it saw, reloads, reopens the database and POSTs again; the assertions are here.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHROMIUM_FLAGS, chromiumPath } from '../support/chromium.js';
import { esbuild } from '../support/esbuild.js';
import { REPO, SOURCE_CONDITION_FLAG } from '../support/process.js';
import { ALICE, BOB, DISTINCTIVE, credential, type Phase1Report, type Phase2Report } from './indexeddb.page.js';

const PAGE_SCRIPT = join(REPO, 'test/credentials/indexeddb.page.ts');
const RESULT_TIMEOUT_MS = 60_000;

/** Plus: a new headless browser that stays up until it is killed (nothing connects to the port), logging to stderr. */
const FLAGS = ['--headless', ...CHROMIUM_FLAGS, '--remote-debugging-port=0', '--enable-logging=stderr'];

const bundlePage = () =>
  esbuild(
    [PAGE_SCRIPT, '--bundle', '--format=esm', '--platform=browser', '--target=es2022', SOURCE_CONDITION_FLAG, '--log-level=error'],
    'the browser entry',
  );

interface Reports {
  phase1: Phase1Report;
  phase2: Phase2Report;
  bundleBytes: number;
  millis: number;
}

/** Serves the page, runs Chromium on it until phase 2 reports (bounded), and stops everything it started. */
async function runInChromium(): Promise<Reports> {
  const chromium = await chromiumPath();
  const bundle = await bundlePage();
  const reports: { phase1?: Phase1Report; phase2?: Phase2Report } = {};
  let settle!: { resolve: () => void; reject: (e: Error) => void };
  const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end('<!doctype html><meta charset="utf-8"><title>credential store</title><script type="module" src="/page.js"></script>');
    } else if (req.method === 'GET' && url.pathname === '/page.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' });
      res.end(bundle);
    } else if (req.method === 'POST' && (url.pathname === '/result' || url.pathname === '/error')) {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        res.writeHead(204).end();
        const value = JSON.parse(body) as Phase1Report | Phase2Report | { message: string; stack: string };
        if (url.pathname === '/error') settle.reject(new Error(`the page failed: ${JSON.stringify(value)}`));
        else if ((value as Phase1Report).phase === 1) reports.phase1 = value as Phase1Report;
        else {
          reports.phase2 = value as Phase2Report;
          settle.resolve();
        }
      });
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const profile = await mkdtemp(join(tmpdir(), 'chain-ledger-chromium-'));
  let browser: ChildProcess | undefined;
  let stderr = '';
  const started = Date.now();
  try {
    browser = spawn(chromium, [...FLAGS, `--user-data-dir=${profile}`, `http://127.0.0.1:${port}/?phase=1`], {
      detached: true, // its own process group, so the renderer and helper processes go with it
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    browser.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-20_000)));
    browser.on('error', (e) => settle.reject(new Error(`cannot start ${chromium}: ${e.message}`)));
    browser.on('exit', (code, signal) => settle.reject(new Error(`Chromium exited early (${code ?? signal})`)));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      done,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no result from the page within ${RESULT_TIMEOUT_MS} ms`)), RESULT_TIMEOUT_MS);
      }),
    ])
      .catch((e: Error) => {
        const console = stderr
          .split('\n')
          .filter((l) => /CONSOLE|Uncaught|ERROR:(?!.*dbus)/.test(l))
          .slice(-30)
          .join('\n');
        throw new Error(`${e.message}\nreports so far: ${Object.keys(reports).join(', ') || 'none'}\nChromium said:\n${console}`);
      })
      .finally(() => clearTimeout(timer));
    return { phase1: reports.phase1!, phase2: reports.phase2!, bundleBytes: bundle.length, millis: Date.now() - started };
  } finally {
    if (browser?.pid !== undefined) await stopProcessGroup(browser);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await rm(profile, { recursive: true, force: true, maxRetries: 3 });
  }
}

/**
 * SIGTERM to the browser's main process (it ends and reaps its helpers: killing them all at once would leave
 * zombies where PID 1 does not reap), SIGKILL to its whole process group after 5 s or once it has exited (helpers
 * that outlived it). Every wait is bounded.
 */
async function stopProcessGroup(child: ChildProcess): Promise<void> {
  child.removeAllListeners('exit');
  const group = (s: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, s);
    } catch {
      // already gone
    }
  };
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const killer = setTimeout(() => group('SIGKILL'), 5_000);
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    clearTimeout(killer);
  }
  group('SIGKILL');
}

/**
 * One browser run shared by the tests, started by the first. Not a `beforeAll`: a missing Chromium must fail the
 * tests (vitest reports the tests of a failed `beforeAll` as skipped).
 */
let pending: Promise<Reports> | undefined;
const chromiumRun = () =>
  (pending ??= runInChromium().then((run) => {
    console.log(`chromium: ${run.phase1.environment.userAgent}; bundle ${run.bundleBytes} bytes; both phases in ${run.millis} ms`);
    return run;
  }));
const TEST_TIMEOUT_MS = RESULT_TIMEOUT_MS + 30_000;

describe('IndexedDbCredentialStore in Chromium', () => {
  it(
    'runs in a secure context with WebCrypto',
    async () => {
      const run = await chromiumRun();
      expect(run.phase1.environment).toMatchObject({ isSecureContext: true, subtle: true });
      expect(run.phase1.environment.userAgent).toMatch(/Chrome\/\d+/);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'adds, lists and recognises duplicates (same text, other metadata and key order)',
    async () => {
      const run = await chromiumRun();
      const r = run.phase1;
      expect(r.first).toEqual({ id: expect.stringMatching(/^[0-9a-f]{64}$/), duplicate: false });
      expect(r.again).toEqual({ id: r.first.id, duplicate: true });
      expect(r.withMetadata).toEqual({ id: r.first.id, duplicate: true });
      expect(r.second.duplicate).toBe(false);
      expect(r.listed.map((e) => e.id)).toEqual([r.first.id, r.second.id, r.secret.id]);
      expect(r.listed[0]!.credential).toBe(credential(1));
      expect(r.listed[1]!.credential).toBe(credential(2));
      expect(r.listed[2]!.credential).toContain(DISTINCTIVE);
      for (const e of r.listed) expect(new Date(e.storedAt).toISOString()).toBe(e.storedAt);
      expect(r.bobBefore).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'refuses a wrong key and invalid input with the right kinds',
    async () => {
      const run = await chromiumRun();
      expect(run.phase1.wrongKey).toEqual({ list: 'wrong-key', add: 'wrong-key', remove: 'wrong-key' });
      expect(run.phase1.invalid).toEqual({ account: 'invalid', secret: 'invalid', credential: 'invalid', id: 'invalid' });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'removes by id',
    async () => {
      const run = await chromiumRun();
      expect(run.phase1.removed).toBe(true);
      expect(run.phase1.removedAgain).toBe(false);
      expect(run.phase1.afterRemove).toEqual([run.phase1.second.id, run.phase1.secret.id]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    '25 concurrent adds (20 distinct) from one page: 20 stored, 5 duplicates',
    async () => {
      const run = await chromiumRun();
      expect(run.phase1.concurrent).toEqual({ results: 25, distinct: 20, duplicates: 5, listed: 20 });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'stores only ciphertext: records keyed by [account, id], a header per account',
    async () => {
      const run = await chromiumRun();
      const raw = run.phase1.raw;
      expect(raw.containsPlaintext).toBe(false);
      expect(raw.containsIssuer).toBe(false);
      expect(raw.recordFields).toEqual(['account', 'data', 'id', 'iv', 'storedAt']);
      expect(raw.headerFields).toEqual(['account', 'check', 'format', 'mac', 'salt', 'version']);
      for (const key of raw.entryKeys) {
        expect(key).toHaveLength(2);
        expect([ALICE, BOB]).toContain(key[0]);
        expect(key[1]).toMatch(/^[0-9a-f]{64}$/);
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'detects an entry moved to another account and a flipped ciphertext byte ("corrupt")',
    async () => {
      const run = await chromiumRun();
      expect(run.phase1.moved).toBe('corrupt');
      expect(run.phase1.movedMessage).toMatch(/entry list/); // the entry-list MAC of the header sees the extra entry first
      expect(run.phase1.restored).toBe(20);
      expect(run.phase1.flipped).toBe('corrupt');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'reads a format-1 store and re-keys it (salt, entry-list MAC) on the next write, ids unchanged',
    async () => {
      const { legacy } = (await chromiumRun()).phase1;
      expect(legacy.listed.map((c) => JSON.parse(c).metadata.n)).toEqual([1, 2]);
      expect(legacy.version).toBe(2);
      expect(legacy.headerFields).toEqual(['account', 'check', 'format', 'mac', 'salt', 'version']);
      expect(legacy.ids).toEqual(expect.arrayContaining(legacy.v1Ids));
      expect(legacy.listedAfter).toBe(3);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'keeps the store across a page reload, still keyed',
    async () => {
      const run = await chromiumRun();
      const r = run.phase2;
      expect(r.listed.map((e) => e.id)).toEqual([run.phase1.ids.second, run.phase1.ids.secret]);
      expect(r.listed[0]!.credential).toBe(credential(2));
      expect(r.wrongKey).toBe('wrong-key');
      expect(r.removed).toBe(true);
      expect(r.afterRemove).toBe(1);
    },
    TEST_TIMEOUT_MS,
  );
});
