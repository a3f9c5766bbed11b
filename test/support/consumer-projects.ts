/**
 * Fresh projects that depend on chain-ledger's packed tarball, written here file by file (no `npm create`): a Vite +
 * strict TypeScript app, and a Node project with an ESM and a CommonJS script. Used by test/consumers.browser.test.ts.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { REPO, runBounded, spawnBounded } from './process.js';

/** Writes `files` (path → text) under `dir`. */
export function writeProject(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

/**
 * `npm pack` of the repository as a fresh clone has it: its files (tracked and new, not ignored: no dist/, no
 * test-results/) copied to a new directory beside this repository's node_modules, so that the `prepare` script has
 * to build dist/ for the tarball. Resolves the tarball's path and the files it holds.
 */
export async function packFreshTree(work: string): Promise<{ tarball: string; files: string[] }> {
  const tree = join(work, 'tree');
  const listed = (await runBounded('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], 30_000)).split('\0');
  const wanted = (f: string) => f !== '' && f !== 'node_modules' && !f.startsWith('node_modules/') && existsSync(join(REPO, f));
  for (const file of listed.filter(wanted)) {
    mkdirSync(dirname(join(tree, file)), { recursive: true });
    cpSync(join(REPO, file), join(tree, file));
  }
  if (existsSync(join(tree, 'dist'))) throw new Error('the copied tree has a dist/ already');
  symlinkSync(join(REPO, 'node_modules'), join(tree, 'node_modules'), 'dir');
  const { code, stdout, stderr } = await spawnIn(tree, 'npm', ['pack', '--json', '--pack-destination', work], 180_000);
  if (code !== 0) throw new Error(`npm pack failed:\n${stderr}`);
  const [report] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  return { tarball: join(work, report!.filename), files: report!.files.map((f) => f.path) };
}

/** A new empty directory for one project, removed with `work`. */
export function projectDir(work: string, name: string): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export const newWorkDir = () => mkdtempSync(join(tmpdir(), 'chain-ledger-consumers-'));

/** `command args` run in `dir` (bounded), how it ended and what it wrote. */
export function spawnIn(dir: string, command: string, args: string[], timeoutMs: number) {
  return spawnBounded('sh', ['-c', `cd "$0" && exec "$@"`, dir, command, ...args], timeoutMs, `${command} ${args.join(' ')} (in ${dir})`);
}

/**
 * `npm install` of `packages` into `dir`, from the npm cache where it has them (`--prefer-offline`: the registry only
 * for what the cache lacks, e.g. on a machine that never installed that Vite). Resolves the seconds it took.
 */
export async function npmInstall(dir: string, packages: string[]): Promise<number> {
  const started = performance.now();
  const { code, output } = await spawnIn(dir, 'npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...packages], 300_000);
  if (code !== 0) throw new Error(`npm install ${packages.join(' ')} failed in ${dir}:\n${output.slice(-3000)}`);
  return (performance.now() - started) / 1000;
}

/** Bytes under `dir`, symbolic links not followed (what `du` counts, in apparent size). */
export function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

/** The repository's TypeScript (the version the package is built with), run on a consumer's tsconfig. */
export const TSC = join(REPO, 'node_modules/.bin/tsc');

/**
 * A Vite app as `npm create vite` makes one (vanilla-ts: index.html, src/main.ts, strict tsconfig), with the
 * chain-ledger plugin in vite.config.ts, and vite.no-plugin.config.ts without it. The page connects a provider to
 * the software Ledger, signs and verifies a message, asks for a nullifier (o1js, loaded lazily), starts a wallet
 * page's host (`chain-ledger/wallet`) with its connected-sites list in `localStorage`, and puts what happened on
 * `globalThis.consumerResult`.
 */
export function viteApp(): Record<string, string> {
  return {
    'package.json': `${JSON.stringify({ name: 'consumer-vite', private: true, type: 'module' }, null, 2)}\n`,
    'index.html': `<!doctype html>
<html lang="en">
  <head><meta charset="UTF-8" /><title>chain-ledger consumer</title></head>
  <body><script type="module" src="/src/main.ts"></script></body>
</html>
`,
    'tsconfig.json': `${JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2022', 'DOM', 'DOM.Iterable'],
          module: 'ESNext',
          moduleResolution: 'bundler',
          types: [],
          skipLibCheck: true,
          noEmit: true,
          strict: true,
          noUnusedLocals: true,
          noUnusedParameters: true,
          noFallthroughCasesInSwitch: true,
        },
        include: ['src', 'vite.config.ts', 'vite.no-plugin.config.ts'],
      },
      null,
      2,
    )}\n`,
    'vite.config.ts': `import { defineConfig } from 'vite';
import { chainLedger } from 'chain-ledger/vite';

export default defineConfig({ plugins: [chainLedger()] });
`,
    'vite.no-plugin.config.ts': `import { defineConfig } from 'vite';

export default defineConfig({ build: { outDir: 'dist-no-plugin' } });
`,
    'src/main.ts': `import { createLedgerProvider, type ProviderError } from 'chain-ledger';
import { SoftwareLedger, TEST_MNEMONIC } from 'chain-ledger/emulator';
import { WalletHost, storageSites } from 'chain-ledger/wallet';

const result: Record<string, unknown> = {};
try {
  const transport = SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { extensions: true, warn: () => {} });
  const chain = createLedgerProvider({ transport, network: 'devnet' });
  const [address] = await chain.requestAccounts();
  result.address = address;
  const signed = await chain.signMessage({ message: 'hello from a consumer' });
  result.verified = await chain.verifyMessage(signed);
  try {
    const nullifier = await chain.createNullifier({ message: ['1', '2'] });
    result.nullifier = nullifier.public.nullifier.x.length > 0;
  } catch (error) {
    const { code, data } = error as ProviderError;
    result.nullifierError = { code, reason: data?.reason };
  }
  const sites = storageSites(localStorage);
  sites.add({ origin: 'https://dapp.example', address: address!, connectedAt: new Date(0).toISOString() });
  const host = new WalletHost({ provider: { network: 'devnet' }, sites });
  host.attach(window);
  host.useDevice(transport);
  result.wallet = { sites: sites.list().map((site) => site.origin), site: host.site ?? null };
} catch (error) {
  result.error = String((error as Error)?.message ?? error);
}
(globalThis as { consumerResult?: unknown }).consumerResult = result;
`,
  };
}

/** A Node project: an ESM script (index.mts) and a CommonJS one (index.cts), compiled by tsc, run by node. */
export function nodeProject(): Record<string, string> {
  const body = `
  const transport = SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { extensions: true, warn: () => {} });
  const chain = createLedgerProvider({ transport, network: 'devnet', origin: 'https://dapp.example' });
  const [address] = await chain.requestAccounts();
  const verified = await chain.verifyMessage(await chain.signMessage({ message: 'hello from node' }));
  let nullifierError: { code: number; reason?: string } | undefined;
  try {
    await chain.createNullifier({ message: ['1'] });
  } catch (error) {
    const { code, data } = error as ProviderError;
    nullifierError = { code, reason: data?.reason };
  }
  console.log(JSON.stringify({ address, verified, nullifierError }));
`;
  return {
    'package.json': `${JSON.stringify({ name: 'consumer-node', private: true }, null, 2)}\n`,
    'tsconfig.json': `${JSON.stringify(
      {
        compilerOptions: { target: 'ES2022', module: 'nodenext', strict: true, skipLibCheck: true, outDir: 'out', types: ['node'] },
        include: ['index.mts', 'index.cts'],
      },
      null,
      2,
    )}\n`,
    'index.mts': `import { createLedgerProvider, type ProviderError } from 'chain-ledger';
import { SoftwareLedger, TEST_MNEMONIC } from 'chain-ledger/emulator';
${body}`,
    'index.cts': `import { createLedgerProvider, type ProviderError } from 'chain-ledger';
import { SoftwareLedger, TEST_MNEMONIC } from 'chain-ledger/emulator';

async function main() {${body}}
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
`,
  };
}

/**
 * A plain Node ES module program (no bundler, no tsx) with Ledger's Device Management Kit: DMK and its Speculos kit
 * required through `createRequire`, as docs/transports.md says (DMK's ESM build does not load in Node), the Mina
 * signer from `chain-ledger/dmk`, the software Ledger behind `startSpeculosServer` with the Mina app closed.
 */
export function nodeDmkProject(): Record<string, string> {
  return {
    'package.json': `${JSON.stringify({ name: 'consumer-node-dmk', private: true, type: 'module' }, null, 2)}\n`,
    'index.mjs': `import { createRequire } from 'node:module';
import { SignerMinaBuilder, toPromise } from 'chain-ledger/dmk';
import { SoftwareLedger, TEST_MNEMONIC, startSpeculosServer } from 'chain-ledger/emulator';

const require = createRequire(import.meta.url);
const { DeviceManagementKitBuilder, DeviceModelId } = require('@ledgerhq/device-management-kit');
const { speculosTransportFactory } = require('@ledgerhq/device-transport-kit-speculos');
const { firstValueFrom } = require('rxjs');

const device = SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { appOpen: false, warn: () => {} });
const server = await startSpeculosServer(device, { buttons: false });
const dmk = new DeviceManagementKitBuilder().addTransport(speculosTransportFactory(server.url, true, DeviceModelId.NANO_SP)).build();
try {
  const sessionId = await dmk.connect({ device: await firstValueFrom(dmk.startDiscovering({})) });
  const action = new SignerMinaBuilder({ dmk, sessionId }).build().getAddress("44'/12586'/0'/0/0");
  const steps = [];
  action.observable.subscribe((state) => state.status === 'pending' && steps.push(state.intermediateValue.step));
  const { address, publicKey } = await toPromise(action);
  console.log(JSON.stringify({ address, x: publicKey.x.toString(), isOdd: publicKey.isOdd, steps: [...new Set(steps)] }));
} finally {
  dmk.close();
  await server.close();
}
`,
  };
}
