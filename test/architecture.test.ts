/**
 * The layers of src/, as docs/architecture.md draws them: every import (static, dynamic or type-only) between two
 * folders of src/ must be an edge of the graph below, which points one way (lower layers never import higher ones),
 * so there are no cycles between folders. Files at the top of src/ are package entry points and build tools: they
 * may import any folder, and no folder may import them. A new edge is a decision: add it here and to
 * docs/architecture.md. A package.json "imports" specifier (`#upstream/attestations`, a Node/browser twin) is an edge
 * to each of its twins. Below the folders, no module imports itself back through any chain of imports either (inside
 * a folder too, type-only imports included): a type two modules share lives in the lower one.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import type * as FileStoreBrowser from '../src/credentials/file-store.browser.js';
import type * as FileStoreNode from '../src/credentials/file-store.js';
import type * as ProverKeysBrowser from '../src/presentations/prover-keys.browser.js';
import type * as ProverKeysNode from '../src/presentations/prover-keys.js';
import type * as AttestationsBrowser from '../src/upstream/attestations.browser.js';
import type * as AttestationsNode from '../src/upstream/attestations.js';
import type * as SignerBrowser from '../src/upstream/mina-signer-internals.browser.js';
import type * as SignerNode from '../src/upstream/mina-signer-internals.js';
import { INTERNAL_PREFIX } from '../src/vite.js';

const SRC = resolve(import.meta.dirname, '../src');
const ROOT = resolve(SRC, '..');

interface SourceTwins {
  'chain-ledger-source': { browser: string; default: string };
  browser: string;
  default: string;
}
/** package.json "imports": `#…` → its twins (under `chain-ledger-source` in src/, otherwise in dist/). */
const IMPORTS = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { imports: Record<string, SourceTwins> }).imports;

/** folder → the folders it may import. Listed bottom-up: a folder only names folders listed before it. */
const ALLOWED: Record<string, readonly string[]> = {
  util: [],
  errors: [],
  apdu: [],
  upstream: ['errors'],
  transport: ['apdu', 'util'],
  device: ['apdu', 'transport'],
  dmk: ['apdu', 'device', 'transport', 'util'],
  emulator: ['apdu', 'transport', 'upstream'],
  nullifier: ['apdu', 'device', 'errors', 'upstream', 'util'],
  messages: ['apdu', 'device', 'errors', 'upstream', 'util'],
  zkapp: ['apdu', 'device', 'errors', 'upstream', 'util'],
  payments: ['apdu', 'device', 'errors', 'upstream', 'util', 'zkapp'],
  credentials: ['apdu', 'device', 'errors', 'upstream', 'util'],
  presentations: ['apdu', 'credentials', 'device', 'errors', 'upstream', 'util'],
  provider: [
    'apdu',
    'credentials',
    'device',
    'errors',
    'messages',
    'nullifier',
    'payments',
    'presentations',
    'transport',
    'upstream',
    'util',
    'zkapp',
  ],
  connect: ['errors', 'provider'],
  wallet: ['connect', 'credentials', 'errors', 'presentations', 'provider', 'transport', 'zkapp'],
  cli: ['credentials', 'emulator', 'errors', 'provider', 'transport', 'util', 'zkapp'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Relative and `#` specifiers of every import, export-from, dynamic import() and import type in a file. */
function relativeImports(text: string): string[] {
  const specifier = `(\\.{1,2}\\/[^'"]+|#[^'"]+)`;
  const found = [
    ...text.matchAll(new RegExp(`\\b(?:import|export)\\s[^'";]*?\\sfrom\\s+['"]${specifier}['"]`, 'g')),
    ...text.matchAll(new RegExp(`\\bimport\\s*\\(\\s*['"]${specifier}['"]\\s*\\)`, 'g')),
    ...text.matchAll(new RegExp(`^\\s*import\\s+['"]${specifier}['"]`, 'gm')),
  ];
  return found.map((m) => m[1]!);
}

/** The files an import of `specifier` in `file` may load: one for a relative path, both twins for a `#` import. */
function targetsOf(file: string, specifier: string): string[] {
  if (!specifier.startsWith('#')) return [resolve(dirname(file), specifier)];
  const twins = IMPORTS[specifier];
  if (!twins) throw new Error(`${relative(SRC, file)}: ${specifier} is not in package.json "imports"`);
  return Object.values(twins['chain-ledger-source']).map((path) => resolve(ROOT, path));
}

/** The folder of src/ a file is in, or undefined for a top-level file. */
function folderOf(file: string): string | undefined {
  const parts = relative(SRC, file).split(sep);
  return parts.length > 1 ? parts[0] : undefined;
}

interface Edge {
  from: string;
  to: string;
  file: string;
  specifier: string;
}

function edges(): Edge[] {
  const result: Edge[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    for (const specifier of relativeImports(readFileSync(file, 'utf8'))) {
      for (const target of targetsOf(file, specifier)) {
        const to = target.startsWith(SRC + sep) ? folderOf(target) : '(outside src)';
        if (from === undefined || from === to) continue;
        result.push({ from, to: to ?? '(an entry point)', file: relative(SRC, file), specifier });
      }
    }
  }
  return result;
}

/** file → the src/ files it imports (relative to src/, `.js` specifiers resolved to their `.ts` source). */
function moduleGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const targets = relativeImports(readFileSync(file, 'utf8'))
      .flatMap((specifier) => targetsOf(file, specifier).map((target) => target.replace(/\.js$/, '.ts')))
      .filter((target) => target.startsWith(SRC + sep))
      .map((target) => relative(SRC, target));
    graph.set(relative(SRC, file), [...new Set(targets)]);
  }
  return graph;
}

/** Every cycle of `graph`, one per strongly connected component, as the path `a → b → … → a` (Tarjan). */
function cycles(graph: Map<string, string[]>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = stack.splice(stack.indexOf(node));
    if (component.length > 1 || graph.get(node)!.includes(node)) found.push(pathWithin(graph, new Set(component), node));
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** One cycle through `start` inside a strongly connected component, as `start → … → start`. */
function pathWithin(graph: Map<string, string[]>, component: Set<string>, start: string): string {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (next === start) {
        const path = [start];
        for (let at = node; at !== start; at = previous.get(at)!) path.splice(1, 0, at);
        return [...path, start].join(' → ');
      }
      if (component.has(next) && !previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return start;
}

describe('architecture: imports point one way', () => {
  const all = edges();

  it('finds the imports it checks (the parser still works)', () => {
    expect(all.length).toBeGreaterThan(40);
    expect(all).toContainEqual(expect.objectContaining({ from: 'device', to: 'transport' }));
    expect(relativeImports("const m = await import('../credentials/node.js');")).toEqual(['../credentials/node.js']);
    expect(relativeImports("import type { A } from './a.js';\nexport { b } from '../b/c.js';")).toEqual(['./a.js', '../b/c.js']);
    expect(relativeImports("import { x } from '#upstream/attestations';")).toEqual(['#upstream/attestations']);
    // A twin import is an edge to both twins.
    expect(all).toContainEqual(expect.objectContaining({ from: 'zkapp', to: 'upstream', specifier: '#upstream/mina-signer-internals' }));
  });

  it('every folder of src/ is a known layer', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.filter((f) => !(f in ALLOWED))).toEqual([]);
  });

  it('the allowed graph itself points one way: each folder names only folders listed before it', () => {
    const order = Object.keys(ALLOWED);
    for (const [folder, deps] of Object.entries(ALLOWED)) {
      for (const dep of deps) expect(order.indexOf(dep), `${folder} → ${dep}`).toBeLessThan(order.indexOf(folder));
    }
  });

  it('the folder table of docs/architecture.md is this graph, row for row', () => {
    const rows = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8')
      .split('\n')
      .map((line) => /^\| `([a-z]+)` \| ([^|]+) \|/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null && m[1]! in ALLOWED);
    const documented = Object.fromEntries(
      rows.map((m) => [m[1]!, m[2]!.trim() === '–' ? [] : m[2]!.split(',').map((folder) => folder.trim())]),
    );
    expect(documented).toEqual(ALLOWED);
  });

  it("no folder imports dmk: only the chain-ledger/dmk entry point loads Ledger's Device Management Kit", () => {
    expect(Object.values(ALLOWED).flat()).not.toContain('dmk');
  });

  it('presentations may use the credential store, never the reverse', () => {
    expect(ALLOWED.presentations).toContain('credentials');
    expect(ALLOWED.credentials).not.toContain('presentations');
  });

  it('no import goes up, sideways outside the graph, to an entry point, or out of src/', () => {
    const bad = all.filter((e) => !(ALLOWED[e.from] ?? []).includes(e.to)).map((e) => `${e.file}: ${e.from} → ${e.to} (${e.specifier})`);
    expect(bad).toEqual([]);
  });

  it('finds cycles between modules when there are some (the check still works)', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts', 'd.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
      ['f.ts', ['d.ts']],
    ]);
    expect(cycles(graph).sort()).toEqual(['a.ts → b.ts → c.ts → a.ts', 'e.ts → e.ts']);
    expect(
      cycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ]),
      ),
    ).toEqual([]);
    const modules = moduleGraph();
    expect(modules.size).toBeGreaterThan(60);
    // Inside a folder and type-only: the typed dapp API imports the method table it derives its types from.
    expect(modules.get(join('provider', 'rpc.ts'))).toContain(join('provider', 'methods.ts'));
  });

  it('no module imports itself back, through any chain of imports (type-only and inside a folder included)', () => {
    expect(cycles(moduleGraph())).toEqual([]);
  });
});

/** True when the two module types export the same values with the same types. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

describe('architecture: the Node/browser twins of package.json "imports"', () => {
  it("answer one import with the same exports (checked by the type checker; the file store's twin is only its class)", () => {
    const agree: [
      Same<typeof SignerNode, typeof SignerBrowser>,
      Same<typeof AttestationsNode, typeof AttestationsBrowser>,
      Same<typeof ProverKeysNode, typeof ProverKeysBrowser>,
      keyof typeof FileStoreBrowser extends keyof typeof FileStoreNode ? true : false,
    ] = [true, true, true, true];
    expect(agree).toEqual([true, true, true, true]);
  });

  it('each twin is a file of src/, mirrored in dist/ (.js for .ts), and every twin of src/ is listed', () => {
    const listed = new Set<string>();
    for (const [specifier, twins] of Object.entries(IMPORTS)) {
      expect(Object.keys(twins), specifier).toEqual(['chain-ledger-source', 'browser', 'default']);
      for (const condition of ['browser', 'default'] as const) {
        const source = twins['chain-ledger-source'][condition];
        expect(readFileSync(join(ROOT, source), 'utf8').length, source).toBeGreaterThan(0);
        expect(twins[condition]).toBe(source.replace(/^\.\/src\//, './dist/').replace(/\.ts$/, '.js'));
        listed.add(relative(SRC, resolve(ROOT, source)));
      }
      expect(specifier).toBe(`#${twins['chain-ledger-source'].default.replace(/^\.\/src\//, '').replace(/\.ts$/, '')}`);
    }
    const browserTwins = sourceFiles(SRC).filter((file) => file.endsWith('.browser.ts') && !file.endsWith(`${sep}worker.browser.ts`));
    expect(browserTwins.map((file) => relative(SRC, file)).filter((file) => !listed.has(file))).toEqual([]);
  });

  it("the browser twins name upstream's hidden files by ids with the Vite plugin's prefix (which names the plugin when it is missing)", () => {
    const ids = ['upstream/mina-signer-internals.browser.ts', 'upstream/attestations.browser.ts'].flatMap((file) =>
      [...readFileSync(join(SRC, file), 'utf8').matchAll(/import\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]!),
    );
    const internal = ids.filter((id) => !id.startsWith('mina-attestations'));
    expect(internal.length).toBe(22);
    expect(internal.filter((id) => !id.startsWith(INTERNAL_PREFIX))).toEqual([]);
    expect(INTERNAL_PREFIX).toContain('chainLedger() from chain-ledger/vite');
    expect(readFileSync(join(SRC, 'upstream/internal-modules.d.ts'), 'utf8')).toContain(`declare module '${INTERNAL_PREFIX}*'`);
  });

  it('src/ imports a twin only through its "#" specifier, never by its path (except the Node-only CLI and entry)', () => {
    const twinFiles = new Set(
      Object.values(IMPORTS).flatMap((twins) => Object.values(twins['chain-ledger-source']).map((p) => resolve(ROOT, p))),
    );
    const nodeOnly = (file: string) => file.startsWith(`cli${sep}`) || file === 'credentials-node.ts';
    const byPath = edgesWithin().filter(({ file, target }) => twinFiles.has(target) && !nodeOnly(file));
    expect(byPath.map(({ file, specifier }) => `${file}: ${specifier}`)).toEqual([]);
  });
});

/** Every value import by relative path (type-only imports erase at build and choose nothing), and what it loads. */
function edgesWithin(): { file: string; specifier: string; target: string }[] {
  return sourceFiles(SRC).flatMap((file) => {
    const text = readFileSync(file, 'utf8').replace(/\bimport\s+type\s[^;]*;/g, '');
    if (file.endsWith('.browser.ts') && !file.endsWith(`${sep}worker.browser.ts`)) return [];
    return relativeImports(text)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => ({ file: relative(SRC, file), specifier, target: resolve(dirname(file), specifier).replace(/\.js$/, '.ts') }));
  });
}
