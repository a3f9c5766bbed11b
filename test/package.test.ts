/**
 * The built package, as a dependent project sees it: plain Node ESM (no bundler, no tsx), resolving through the
 * package's `exports`. Runs against dist/ (`npm test` builds first).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');
let project: string;

beforeAll(() => {
  if (!existsSync(join(root, 'dist/apdu.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  project = mkdtempSync(join(tmpdir(), 'chain-ledger-consumer-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ type: 'module', dependencies: { 'chain-ledger': '*' } }));
  mkdirSync(join(project, 'node_modules'));
  symlinkSync(root, join(project, 'node_modules', 'chain-ledger'), 'dir');
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

async function node(code: string) {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code], { cwd: project, timeout: 60_000 });
  return stdout.trim();
}

/** A module hook (node:module register) that reports every URL resolved in the process on stderr. */
const hook = `export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  process.stderr.write('resolved ' + result.url + '\\n');
  return result;
}`;
const register = `import { register } from 'node:module'; register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));`;

describe('the built package under native Node ESM', () => {
  it('node -e "import(\'chain-ledger/apdu\')" loads, with the documented entry points', async () => {
    const out = await node(`
      const apdu = await import('chain-ledger/apdu');
      const emulator = await import('chain-ledger/emulator');
      const transport = await import('chain-ledger/transport');
      const root = await import('chain-ledger');
      console.log(JSON.stringify({
        createLedgerProvider: typeof root.createLedgerProvider,
        wrapProvider: typeof root.wrapProvider,
        MinaLedgerApp: typeof apdu.MinaLedgerApp,
        SoftwareLedger: typeof emulator.SoftwareLedger,
        startSpeculosServer: typeof emulator.startSpeculosServer,
        openWebHid: typeof transport.openWebHid,
      }));`);
    expect(JSON.parse(out)).toEqual({
      createLedgerProvider: 'function',
      wrapProvider: 'function',
      MinaLedgerApp: 'function',
      SoftwareLedger: 'function',
      startSpeculosServer: 'function',
      openWebHid: 'function',
    });
  });

  it('signs through the software Ledger and the real Speculos HTTP transport (loaded despite @ledgerhq ESM)', async () => {
    const out = await node(`
      import { MinaLedgerApp } from 'chain-ledger/apdu';
      import { SoftwareLedger, TEST_MNEMONIC, startSpeculosServer } from 'chain-ledger/emulator';
      import { openSpeculos } from 'chain-ledger/transport/node';
      const device = SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { extensions: true, warn: () => {} });
      const direct = await new MinaLedgerApp(device).getAddress(0);
      device.blindSigning = true; // mainnet INS 06 loads mina-signer's signature module by path
      const mainnetField = await new MinaLedgerApp(device).signFieldElement(0, 5n, 1);
      const server = await startSpeculosServer(device, { buttons: false });
      const transport = await openSpeculos({ apiPort: server.port });
      const app = new MinaLedgerApp(transport);
      const viaHttp = await app.getAddress(1);
      const signature = await app.signMessage(0, 'Hello Mina!', 0);
      await transport.close();
      await server.close();
      console.log(JSON.stringify({ direct, viaHttp, field: signature.field, mainnetField: typeof mainnetField.scalar }));`);
    expect(JSON.parse(out)).toEqual({
      direct: 'B62qnzbXmRNo9q32n4SNu2mpB8e7FYYLH8NmaX6oFCBYjjQ8SbD7uzV',
      viaHttp: 'B62qicipYxyEHu7QjUqS7QvBipTs5CzgkYZZZkPoKVYBu6tnDUcE9Zt',
      field: '23536004209505071940333449048863201368529947790427170347179706091667698094108',
      mainnetField: 'string',
    });
  });

  it('exports exactly the public surface in test/fixtures/public-surface.json (a change to it is a decision)', async () => {
    const surface = JSON.parse(readFileSync(join(root, 'test/fixtures/public-surface.json'), 'utf8')) as Record<string, string[]>;
    const out = await node(`
      const entries = ${JSON.stringify(Object.keys(surface).filter((k) => !k.includes('#')))};
      const result = {};
      for (const entry of entries) result[entry] = Object.keys(await import(entry)).sort();
      result['chain-ledger/apdu#codec'] = Object.keys((await import('chain-ledger/apdu')).codec).sort();
      console.log(JSON.stringify(result));`);
    expect(JSON.parse(out)).toEqual(surface);
  });

  it('documents every public member of LedgerProvider in its declarations: on the class, or on the WalletMethods interface it implements', async () => {
    const { LedgerProvider } = await import(join(root, 'dist/index.js'));
    const members = Object.getOwnPropertyNames(LedgerProvider.prototype).filter((name) => name !== 'constructor');
    const declarations = ['dist/provider/provider.d.ts', 'dist/provider/wallet-methods.d.ts'].map((file) =>
      readFileSync(join(root, file), 'utf8'),
    );
    // A doc comment right before the member's declaration (`name(`, `name<`, `get name(`), in either file.
    const documented = (name: string) =>
      declarations.some((text) => new RegExp(`/\\*\\*(?:(?!\\*/)[\\s\\S])*\\*/\\s*(?:get )?${name}[<(]`).test(text));
    expect(members.length).toBeGreaterThan(30);
    expect(members.filter((name) => !documented(name))).toEqual([]);
  });

  it('declares its library files free of import-time side effects (the CLI bin and the examples have them)', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { sideEffects: unknown; bin: Record<string, string> };
    expect(pkg.sideEffects).toEqual([`./${pkg.bin['chain-ledger']}`]);
  });

  it('lists types first in every exports subpath, its source entry under the chain-ledger-source condition, the same declarations for old resolvers, and optional peers at the versions the loaders name', async () => {
    type Target = { types: { 'chain-ledger-source': string; default: string }; 'chain-ledger-source': string; default: string };
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      exports: Record<string, string | Target>;
      typesVersions: Record<string, Record<string, string[]>>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
      dependencies: Record<string, string>;
    };
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      if (subpath === './package.json') continue;
      const { types, 'chain-ledger-source': source, default: built } = target as Target;
      expect(Object.keys(target as object), subpath).toEqual(['types', 'chain-ledger-source', 'default']);
      // In this repository's tools (tsc, tsx, vitest, the examples' Vite configs) a subpath is its source entry.
      expect(source, subpath).toBe(built.replace(/^\.\/dist\//, './src/').replace(/\.js$/, '.ts'));
      expect(types, subpath).toEqual({ 'chain-ledger-source': source, default: built.replace(/\.js$/, '.d.ts') });
      if (subpath !== '.') expect(pkg.typesVersions['*']![subpath.slice(2)]).toEqual([types.default]);
    }
    const { OPTIONAL_PEERS } = await import('../src/upstream/optional-peers.js');
    for (const [name, version] of Object.entries(OPTIONAL_PEERS)) {
      expect(pkg.peerDependencies[name], name).toBe(version);
      expect(pkg.peerDependenciesMeta[name]?.optional, name).toBe(true);
      expect(pkg.dependencies[name], name).toBeUndefined();
    }
    expect(pkg.dependencies.graphql).toBeUndefined();
  });

  it('ships source maps that carry their sources (src/ is not in the package)', () => {
    for (const file of ['index.js.map', 'apdu/codec.js.map', 'provider/provider.js.map']) {
      const map = JSON.parse(readFileSync(join(root, 'dist', file), 'utf8')) as { sources: string[]; sourcesContent?: string[] };
      expect(map.sourcesContent?.length, file).toBe(map.sources.length);
      expect(
        map.sourcesContent!.every((text) => text.length > 0),
        file,
      ).toBe(true);
    }
  });

  it('ships dist with type declarations for every entry point', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, timeout: 60_000 });
    const files = (JSON.parse(stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    for (const entry of [
      'index',
      'apdu',
      'emulator',
      'transport',
      'transport-node',
      'credentials',
      'credentials-node',
      'connect',
      'vite',
      'dmk',
    ]) {
      expect(files).toContain(`dist/${entry}.js`);
      expect(files).toContain(`dist/${entry}.d.ts`);
    }
    expect(files.some((f) => f.startsWith('test/') || f.startsWith('src/'))).toBe(false);
  });

  it("import('chain-ledger') loads neither mina-signer, o1js nor mina-attestations; they come only with the methods that need them", async () => {
    const script = `
      const chain = await import('chain-ledger');
      console.error('--- imported');
      const { SoftwareLedger, TEST_MNEMONIC } = await import('chain-ledger/emulator');
      const p = chain.createLedgerProvider({ transport: SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { extensions: true, warn: () => {} }), network: 'devnet', origin: 'http://localhost' });
      await p.requestAccounts();
      await p.signMessage({ message: 'hi' });
      console.error('--- signed');
      await p.createNullifier({ message: ['1'] });
      console.error('--- nullifier');`;
    const { stderr } = await run(
      process.execPath,
      ['--import', `data:text/javascript,${encodeURIComponent(register)}`, '--input-type=module', '-e', script],
      {
        cwd: project,
        timeout: 120_000,
      },
    );
    const phase = (from: string, to: string) => stderr.slice(stderr.indexOf(from), stderr.indexOf(to));
    const beforeImport = stderr.slice(0, stderr.indexOf('--- imported'));
    expect(beforeImport).toMatch(/chain-ledger|dist\/index\.js/);
    // Not even mina-signer: the provider loads its verifiers with the first signature to check.
    expect(beforeImport).not.toMatch(/node_modules\/mina-signer\//);
    for (const text of [beforeImport, phase('--- imported', '--- signed')]) {
      expect(text).not.toMatch(/node_modules\/o1js\//);
      expect(text).not.toMatch(/node_modules\/mina-attestations\//);
    }
    // The nullifier needs o1js (host verification): it is loaded then, not before.
    expect(phase('--- signed', '--- nullifier')).toMatch(/node_modules\/o1js\//);
  });

  it("no entry point but chain-ledger/dmk loads anything of Ledger's Device Management Kit (ESM or CommonJS)", async () => {
    const script = `
      import { createRequire } from 'node:module';
      for (const entry of ['chain-ledger', 'chain-ledger/apdu', 'chain-ledger/transport', 'chain-ledger/transport/node',
        'chain-ledger/emulator', 'chain-ledger/credentials', 'chain-ledger/credentials/node']) await import(entry);
      const required = Object.keys(createRequire(import.meta.url).cache);
      console.error('--- others ' + JSON.stringify(required.filter((p) => p.includes('@ledgerhq/device-'))));
      await import('chain-ledger/dmk');
      const after = Object.keys(createRequire(import.meta.url).cache);
      console.error('--- dmk ' + JSON.stringify(after.some((p) => p.includes('@ledgerhq/device-management-kit'))));`;
    const { stderr } = await run(
      process.execPath,
      ['--import', `data:text/javascript,${encodeURIComponent(register)}`, '--input-type=module', '-e', script],
      { cwd: project, timeout: 120_000 },
    );
    const others = stderr.slice(0, stderr.indexOf('--- others'));
    expect(others).toMatch(/dist\/index\.js/);
    expect(others).not.toMatch(/@ledgerhq\/device-|dist\/dmk/);
    expect(stderr).toContain('--- others []');
    // chain-ledger/dmk loads the kit, in plain Node through its CommonJS build.
    expect(stderr).toContain('--- dmk true');
  });

  it('chain-ledger/dmk runs in plain Node ESM: DMK and its Speculos kit required as a Node program does, the Mina app opened from the dashboard', async () => {
    const out = await node(`
      import { createRequire } from 'node:module';
      import { SignerMinaBuilder, toPromise } from 'chain-ledger/dmk';
      import { SoftwareLedger, TEST_MNEMONIC, startSpeculosServer } from 'chain-ledger/emulator';
      // Resolved beside chain-ledger, as in an app that installed both (this consumer project installs only chain-ledger).
      const require = createRequire(import.meta.resolve('chain-ledger'));
      const { DeviceManagementKitBuilder } = require('@ledgerhq/device-management-kit');
      const { speculosTransportFactory } = require('@ledgerhq/device-transport-kit-speculos');
      const { firstValueFrom } = require('rxjs');
      const device = SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { appOpen: false, warn: () => {} });
      const server = await startSpeculosServer(device, { buttons: false });
      const dmk = new DeviceManagementKitBuilder().addTransport(speculosTransportFactory(server.url)).build();
      const sessionId = await dmk.connect({ device: await firstValueFrom(dmk.startDiscovering({})) });
      const steps = [];
      const signer = new SignerMinaBuilder({ dmk, sessionId }).build();
      const { address } = await toPromise(signer.getAddress("44'/12586'/0'/0/0"), { onInteraction: (step) => steps.push(step) });
      dmk.close();
      await server.close();
      console.log(JSON.stringify({ address, opened: steps.includes('confirm-open-app') }));`);
    expect(JSON.parse(out)).toEqual({ address: 'B62qnzbXmRNo9q32n4SNu2mpB8e7FYYLH8NmaX6oFCBYjjQ8SbD7uzV', opened: true });
  });
});
