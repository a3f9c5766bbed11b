/**
 * The package as its users get it (a `.browser` test: the Vite apps run in Chromium, and the sequencer starts it
 * early, beside the other long files): `npm pack` of a fresh tree (the `prepare` script builds dist/), installed into
 * new projects from the npm cache — a Vite 8 + strict TypeScript app with o1js and mina-attestations, the same app on
 * Vite 7 without them, a Node project with an ESM and a CommonJS script and nothing but chain-ledger and the
 * WebHID transport, and a plain Node ES module with Ledger's Device Management Kit. Each type-checks, builds, and runs provider calls on the software Ledger: the Vite apps in the
 * packaged Chromium, served with the COOP/COEP headers. Install and build times are written to
 * test-results/consumers.json.
 */
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_FLAGS, chromiumPath } from './support/chromium.js';
import {
  bytesUnder,
  newWorkDir,
  nodeDmkProject,
  nodeProject,
  npmInstall,
  packFreshTree,
  projectDir,
  spawnIn,
  TSC,
  viteApp,
  writeProject,
} from './support/consumer-projects.js';
import { REPO } from './support/process.js';
import { serveIsolated } from './support/serve-isolated.js';

const ADDRESS = 'B62qnzbXmRNo9q32n4SNu2mpB8e7FYYLH8NmaX6oFCBYjjQ8SbD7uzV';
const O1JS_MISSING = /needs o1js, which is not installed: npm install o1js@2\.15\.0/;
const MB = 1024 * 1024;

const work = newWorkDir();
let tarball = '';
let packed: string[] = [];
let browser: Browser | undefined;
/** What the report in test-results/consumers.json says: seconds and bytes per project. */
const measured: Record<string, Record<string, number>> = {};

beforeAll(async () => {
  ({ tarball, files: packed } = await packFreshTree(work));
  browser = await chromium.launch({ executablePath: await chromiumPath(), headless: true, args: CHROMIUM_FLAGS });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
  mkdirSync(join(REPO, 'test-results'), { recursive: true });
  writeFileSync(join(REPO, 'test-results/consumers.json'), `${JSON.stringify(measured, null, 2)}\n`);
  console.log(`consumer projects: ${JSON.stringify(measured)}`);
});

async function timed(what: string, run: () => Promise<{ code: number | null; output: string }>) {
  const started = performance.now();
  const { code, output } = await run();
  return { code, output, seconds: Math.round((performance.now() - started) / 100) / 10, what };
}

/** Loads the built app from a loopback server with the COOP/COEP headers and waits for its result. */
async function runBuiltApp(dist: string): Promise<Record<string, unknown>> {
  const server = await serveIsolated(dist);
  const page = await browser!.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  try {
    await page.goto(`${server.origin}/`);
    const handle = await page.waitForFunction(() => (globalThis as { consumerResult?: unknown }).consumerResult, undefined, {
      timeout: 120_000,
    });
    const result = (await handle.jsonValue()) as Record<string, unknown>;
    expect(errors).toEqual([]);
    return result;
  } finally {
    await page.close();
    await server.close();
  }
}

/** Files of a Vite build over 1 MB: o1js's chunk is 16 MB; everything else is far smaller. */
function bigFiles(dist: string): { file: string; mb: number }[] {
  const assets = join(dist, 'assets');
  return readdirSync(assets)
    .map((file) => ({ file, mb: statSync(join(assets, file)).size / MB }))
    .filter((f) => f.mb > 1);
}

describe('the tarball', () => {
  it('npm pack of a fresh tree builds and ships dist/ (with declarations), never src/ or the tests', () => {
    expect(packed).toContain('dist/index.js');
    expect(packed).toContain('dist/index.d.ts');
    expect(packed).toContain('dist/cli/main.js');
    expect(packed).toContain('dist/upstream/attestations.browser.js');
    expect(packed.some((f) => f.startsWith('src/') || f.startsWith('test/'))).toBe(false);
  });

  it('in the fresh tree, `npx chain-ledger --version` works once prepare has built dist/ (as after npm install)', async () => {
    const { version, bin } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
      version: string;
      bin: Record<string, string>;
    };
    // npm runs a clone's own bin as a file (no install step sets its mode there): the build makes it executable.
    expect(statSync(join(work, 'tree', bin['chain-ledger']!)).mode & 0o111).toBe(0o111);
    const run = await spawnIn(join(work, 'tree'), 'npx', ['--no-install', 'chain-ledger', '--version'], 60_000);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(`${version}\n`);
  });
});

describe.each([
  { vite: '^8', name: 'vite8', peers: ['o1js@2.15.0', 'mina-attestations@0.5.3'] },
  { vite: '^7', name: 'vite7', peers: [] },
])('a Vite $vite app with strict TypeScript (optional peers: $peers)', ({ vite, name, peers }) => {
  const dir = projectDir(work, name);
  const withO1js = peers.length > 0;

  beforeAll(async () => {
    writeProject(dir, viteApp());
    measured[name] = { installSeconds: await npmInstall(dir, [tarball, `vite@${vite}`, ...peers]) };
  }, 360_000);

  it('installs without peer conflicts, and without o1js unless the app asks for it', () => {
    expect(existsSync(join(dir, 'node_modules/chain-ledger/dist/index.js'))).toBe(true);
    expect(existsSync(join(dir, 'node_modules/o1js'))).toBe(withO1js);
    expect(existsSync(join(dir, 'node_modules/graphql'))).toBe(false);
    const { version } = JSON.parse(readFileSync(join(dir, 'node_modules/vite/package.json'), 'utf8')) as { version: string };
    expect(version.split('.')[0]).toBe(vite.slice(1));
  });

  it('type-checks (strict) and builds with the chain-ledger plugin', async () => {
    const check = await timed('tsc', () => spawnIn(dir, TSC, ['-p', 'tsconfig.json'], 120_000));
    expect(check.output).toBe('');
    expect(check.code).toBe(0);
    const build = await timed('vite build', () => spawnIn(dir, 'node_modules/.bin/vite', ['build'], 300_000));
    expect(build.code, build.output.slice(-3000)).toBe(0);
    measured[name]!.buildSeconds = build.seconds;
    measured[name]!.distMB = Math.round(bytesUnder(join(dir, 'dist')) / MB);
  }, 420_000);

  it(withO1js ? 'emits o1js once, for the page and the presentation Worker' : 'emits no o1js when it is not installed', () => {
    const big = bigFiles(join(dir, 'dist'));
    expect(big.map((f) => f.file)).toEqual(withO1js ? ['o1js-2.15.0.js'] : []);
    expect(bytesUnder(join(dir, 'dist')) / MB).toBeLessThan(withO1js ? 20 : 4);
  });

  it(withO1js
    ? 'runs in Chromium: connects, signs and verifies a message, verifies a nullifier with o1js, and starts a wallet host'
    : 'runs in Chromium: connects, signs and verifies; the nullifier needs o1js and says so (20006); starts a wallet host', async () => {
    const result = await runBuiltApp(join(dir, 'dist'));
    expect(result).toMatchObject({ address: ADDRESS, verified: true });
    // chain-ledger/wallet in a browser bundle: the host waits for a dapp's hello (it serves no site yet), the list is kept.
    expect(result.wallet).toEqual({ sites: ['https://dapp.example'], site: null });
    if (withO1js) expect(result.nullifier).toBe(true);
    else expect(result.nullifierError).toMatchObject({ code: 20006, reason: expect.stringMatching(O1JS_MISSING) });
  }, 180_000);

  it('without the plugin, the build fails naming chain-ledger/vite and the docs section', async () => {
    const build = await spawnIn(dir, 'node_modules/.bin/vite', ['build', '--config', 'vite.no-plugin.config.ts'], 300_000);
    expect(build.code).not.toBe(0);
    expect(build.output).toMatch(/add chainLedger\(\) from chain-ledger\/vite to the Vite config: docs\/development\.md, Browser bundles/);
  }, 320_000);
});

describe('a Node project: an ESM and a CommonJS script', () => {
  const dir = projectDir(work, 'node');

  beforeAll(async () => {
    writeProject(dir, nodeProject());
    // What a device client with the WebHID transport installs, measured before the type-checking's @types/node.
    const installSeconds = await npmInstall(dir, [tarball, '@ledgerhq/hw-transport-webhid']);
    measured.deviceClientWithWebHid = { installSeconds, nodeModulesMB: Math.round((bytesUnder(join(dir, 'node_modules')) / MB) * 10) / 10 };
    await npmInstall(dir, ['@types/node@^20']);
  }, 360_000);

  it('installs only what the device client uses: no o1js, mina-attestations or graphql', () => {
    for (const name of ['o1js', 'mina-attestations', 'graphql']) expect(existsSync(join(dir, 'node_modules', name)), name).toBe(false);
    expect(existsSync(join(dir, 'node_modules/mina-signer'))).toBe(true);
    expect(measured.deviceClientWithWebHid!.nodeModulesMB).toBeLessThan(40);
  });

  it('type-checks (strict, nodenext) and compiles both scripts', async () => {
    const compile = await timed('tsc', () => spawnIn(dir, TSC, ['-p', 'tsconfig.json'], 120_000));
    expect(compile.output).toBe('');
    expect(compile.code).toBe(0);
    measured.node = { compileSeconds: compile.seconds };
  }, 180_000);

  it.each(['out/index.mjs', 'out/index.cjs'])(
    'node %s: connects, signs and verifies; the nullifier names the missing o1js',
    async (script) => {
      const { code, stdout, stderr } = await spawnIn(dir, process.execPath, [script], 120_000);
      expect(stderr).not.toMatch(/Error/);
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toMatchObject({
        address: ADDRESS,
        verified: true,
        nullifierError: { code: 20006, reason: expect.stringMatching(O1JS_MISSING) },
      });
    },
    150_000,
  );
});

describe('a Node ESM project with DMK (plain node, no bundler)', () => {
  const dir = projectDir(work, 'node-dmk');

  beforeAll(async () => {
    writeProject(dir, nodeDmkProject());
    const peers = ['@ledgerhq/device-management-kit@^1.10.0', '@ledgerhq/device-transport-kit-speculos@^1.2.1', 'rxjs@^7.8.2'];
    measured.nodeDmk = { installSeconds: await npmInstall(dir, [tarball, ...peers]) };
  }, 360_000);

  it('node index.mjs: chain-ledger/dmk loads, the signer opens the Mina app and reads the address by its derivation path', async () => {
    const { code, stdout, stderr } = await spawnIn(dir, process.execPath, ['index.mjs'], 120_000);
    expect(stderr).not.toMatch(/Error/);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      address: ADDRESS,
      x: expect.stringMatching(/^\d+$/),
      isOdd: true,
      steps: ['signer.mina.steps.openApp', 'signer.mina.steps.getAppConfig', 'signer.mina.steps.getAddress'],
    });
  }, 150_000);
});
