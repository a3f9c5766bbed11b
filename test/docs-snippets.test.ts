/**
 * Every ```ts block of README.md and docs/*.md (not the generated docs/api), type-checked as a consumer's module:
 * strict TypeScript, bundler resolution, `chain-ledger` resolved through the package's `exports` to the built
 * declarations (dist/, `npm test` builds first). A snippet that does not compile fails here, naming its file and line.
 * And the README's command lines (its "Command line" block), each run with the built CLI as written, with the
 * samples under examples/cli: no hardware here, so `--device usb` (or none) becomes the software Ledger, and a
 * stand-in Mina node answers `--graphql`; `speculos-server` is started as written (on a free port), and the
 * `--device speculos:5000` line drives it, its buttons pressed on its stdin.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeMinaNode } from './support/mina-node.js';
import { REPO, spawnBounded } from './support/process.js';
import { BIN, freePort, startSpeculosCli, type SpeculosCli } from './support/speculos-cli.js';
import { addressOf } from './support/vectors.js';
import { verifySigned } from './support/zkapp.js';

interface Snippet {
  /** `README.md:64`: where the block starts. */
  where: string;
  code: string;
}

function snippetsOf(file: string): Snippet[] {
  const text = readFileSync(join(REPO, file), 'utf8');
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => ({
    where: `${file}:${text.slice(0, m.index).split('\n').length}`,
    code: m[1]!,
  }));
}

const DOCS = [
  'README.md',
  ...readdirSync(join(REPO, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const snippets = DOCS.flatMap(snippetsOf);
const project = mkdtempSync(join(tmpdir(), 'chain-ledger-snippets-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe("the documentation's TypeScript", () => {
  it('finds the snippets it checks (README and the guides)', () => {
    expect(snippets.filter((s) => s.where.startsWith('README.md')).length).toBeGreaterThanOrEqual(2);
    expect(snippets.some((s) => s.where.startsWith('docs/provider.md'))).toBe(true);
    expect(snippets.every((s) => /from 'chain-ledger(\/[a-z/]+)?'|^interface /m.test(s.code))).toBe(true);
  });

  it('every ```ts block compiles under strict TypeScript against the built package', async () => {
    writeFileSync(join(project, 'package.json'), JSON.stringify({ type: 'module', dependencies: { 'chain-ledger': '*' } }));
    mkdirSync(join(project, 'node_modules'));
    symlinkSync(REPO, join(project, 'node_modules', 'chain-ledger'), 'dir');
    // The other packages a snippet imports (a transport, Ledger's DMK, rxjs) as the repository installed them.
    const others = new Set(snippets.flatMap((s) => [...s.code.matchAll(/from '((?:@[\w.-]+\/)?[\w.-]+)[^']*'/g)].map((m) => m[1]!)));
    for (const name of [...others].filter((n) => n !== 'chain-ledger')) {
      if (name.startsWith('@')) mkdirSync(join(project, 'node_modules', name.split('/')[0]!), { recursive: true });
      symlinkSync(join(REPO, 'node_modules', name), join(project, 'node_modules', name), 'dir');
    }
    const files = snippets.map((snippet, i) => {
      const file = `snippet-${i}.ts`;
      // `export {}` makes each block a module of its own (top-level await, no shared names), as in an application.
      writeFileSync(join(project, file), `${snippet.code}\nexport {};\n`);
      return file;
    });
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2022', 'DOM'],
          module: 'preserve',
          moduleResolution: 'bundler',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(REPO, 'node_modules/@types')],
        },
        files,
      }),
    );
    const { code, stdout } = await spawnBounded(join(REPO, 'node_modules/.bin/tsc'), ['-p', join(project, 'tsconfig.json')], 120_000);
    // tsc reports `snippet-3.ts(5,7): error …`: name the document and the line instead.
    const errors = stdout.replace(/\S*snippet-(\d+)\.ts\((\d+),(\d+)\)/g, (_, i: string, line: string) => {
      const [file, start] = snippets[Number(i)]!.where.split(':');
      return `${file}:${Number(start) + Number(line)}`;
    });
    expect(errors).toBe('');
    expect(code).toBe(0);
  });
});

/** The README's "Command line" block: its `npx chain-ledger …` lines, comments dropped, as argument lists. */
function readmeCommandLines(): string[][] {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const block = /^## Command line\n[\s\S]*?^```sh\n([\s\S]*?)^```$/m.exec(readme)?.[1] ?? '';
  return block
    .split('\n')
    .filter((line) => line.startsWith('npx chain-ledger '))
    .map((line) =>
      line
        .replace(/\s+#.*$/, '')
        .split(/\s+/)
        .slice(2),
    );
}

/** Runs the built CLI in the repository (as `npx chain-ledger` does in a clone); `XDG_DATA_HOME` for its store. */
function runCli(args: string[], dataHome: string, answer?: string): Promise<{ code: number; stdout: string; stderr: string; json: any }> {
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: REPO, timeout: 400_000, env: { ...process.env, XDG_DATA_HOME: dataHome } },
      (error, stdout, stderr) => {
        let json: unknown;
        try {
          json = JSON.parse(stdout);
        } catch {
          json = undefined;
        }
        done({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr, json });
      },
    );
    // What the person at the terminal types when the command asks (present: the request's [y/N]).
    if (answer !== undefined) child.stdin?.end(answer);
  });
}

/** A README line with what this machine lacks stood in for: the device (no Ledger here), the node, the ports. */
function standIns(args: string[], ports: { speculos: number; node: string; id?: string }): string[] {
  const out = args.map((arg) =>
    arg === 'speculos:5000'
      ? `speculos:${ports.speculos}`
      : arg === 'https://node.example/graphql'
        ? ports.node
        : arg === '<id>'
          ? ports.id!
          : arg,
  );
  if (out[0] === 'speculos-server') return out.map((arg, i) => (out[i - 1] === '--port' ? String(ports.speculos) : arg));
  const device = out.indexOf('--device');
  if (device >= 0 && out[device + 1] === 'usb') out[device + 1] = 'software';
  if (device < 0 && !out.includes('--help')) out.push('--device', 'software');
  return out;
}

describe("the README's command lines", () => {
  it('each line of its Command line block runs as written (examples/cli samples, speculos-server, --device speculos:PORT), exit 0 with what it promises', async () => {
    const lines = readmeCommandLines();
    expect(lines.map((args) => args[0])).toEqual([
      '--help',
      'address',
      'send-zkapp',
      'speculos-server',
      'send-zkapp',
      'nullifier',
      'store-credential',
      'present',
      'list-credentials',
      'delete-credential',
    ]);
    const dataHome = mkdtempSync(join(tmpdir(), 'chain-ledger-readme-'));
    const node = await startFakeMinaNode({
      accountNonce: () => ({ data: { account: { nonce: '0', inferredNonce: '0' } } }),
      sendZkapp: () => ({ data: { sendZkapp: { zkapp: { hash: `5Ju${'a'.repeat(49)}`, id: 'readme' } } } }),
    });
    const ports: { speculos: number; node: string; id?: string } = { speculos: await freePort(), node: node.url };
    let server: SpeculosCli | undefined;
    try {
      for (const line of lines) {
        const args = standIns(line, ports);
        if (args[0] === 'speculos-server') {
          server = await startSpeculosCli(args.slice(1));
          continue;
        }
        let settled = false;
        // `present` shows the request and asks [y/N] before anything is computed on the credentials: the reader says y.
        const running = runCli(args, dataHome, args[0] === 'present' ? 'y\n' : undefined).finally(() => (settled = true));
        if (args.includes(`speculos:${ports.speculos}`)) await server!.approveUntil(() => settled);
        const r = await running;
        expect(r.code, `npx chain-ledger ${line.join(' ')}\n${r.stderr}`).toBe(0);
        if (args[0] === '--help') expect(r.stdout).toMatch(/^ {2}speculos-server /m);
        if (args[0] === 'address') expect(r.json).toEqual({ address: addressOf(0) });
        if (args[0] === 'send-zkapp' && args.includes('--only-sign')) {
          expect(verifySigned('berkeley', 'devnet', r.json.signedData, addressOf(0))).toBe(true);
          expect(server!.output()).toContain('│ Review zkApp | transaction'); // reviewed in clear on the server's device
        }
        if (args[0] === 'send-zkapp' && args.includes('mainnet')) expect(r.json.hash).toBe(`5Ju${'a'.repeat(49)}`);
        if (args[0] === 'nullifier') expect(r.json.data).toEqual(['1', '2', '3']);
        if (args[0] === 'store-credential') ports.id = r.json.id;
        if (args[0] === 'present') expect(JSON.parse(r.json.presentation)).toMatchObject({ version: 'v0' });
        if (args[0] === 'list-credentials') expect(r.json.map((e: { id: string }) => e.id)).toEqual([ports.id]);
        if (args[0] === 'delete-credential') expect(r.json).toEqual({ deleted: true });
      }
      expect(node.requests.map((r) => [r.operationName, r.valid])).toEqual([
        ['accountNonce', true],
        ['sendZkapp', true],
      ]);
    } finally {
      server?.child.kill('SIGINT');
      await node.close();
      rmSync(dataHome, { recursive: true, force: true });
    }
  }, 900_000);
});
