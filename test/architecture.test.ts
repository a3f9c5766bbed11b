/**
 * The layers of src/, as docs/architecture.md draws them: every import (static, dynamic or type-only) between two
 * folders of src/ must be an edge of the graph below, which points one way (lower layers never import higher ones),
 * so there are no cycles between folders. Files at the top of src/ are package entry points and build tools: they
 * may import any folder, and no folder may import them. A new edge is a decision: add it here and to
 * docs/architecture.md. Below the folders, no module imports itself back through any chain of imports either (inside
 * a folder too, type-only imports included): a type two modules share lives in the lower one.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../src');

/** folder → the folders it may import. Listed bottom-up: a folder only names folders listed before it. */
const ALLOWED: Record<string, readonly string[]> = {
  util: [],
  errors: [],
  apdu: [],
  upstream: [],
  transport: ['apdu', 'util'],
  device: ['apdu', 'transport'],
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
  cli: ['credentials', 'emulator', 'errors', 'provider', 'transport'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Relative specifiers of every import, export-from, dynamic import() and import type in a file. */
function relativeImports(text: string): string[] {
  const found = [
    ...text.matchAll(/\b(?:import|export)\s[^'";]*?\sfrom\s+['"](\.{1,2}\/[^'"]+)['"]/g),
    ...text.matchAll(/\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g),
    ...text.matchAll(/^\s*import\s+['"](\.{1,2}\/[^'"]+)['"]/gm),
  ];
  return found.map((m) => m[1]!);
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
      const target = resolve(dirname(file), specifier);
      const to = target.startsWith(SRC + sep) ? folderOf(target) : '(outside src)';
      if (from === undefined || from === to) continue;
      result.push({ from, to: to ?? '(an entry point)', file: relative(SRC, file), specifier });
    }
  }
  return result;
}

/** file → the src/ files it imports (relative to src/, `.js` specifiers resolved to their `.ts` source). */
function moduleGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const targets = relativeImports(readFileSync(file, 'utf8'))
      .map((specifier) => resolve(dirname(file), specifier).replace(/\.js$/, '.ts'))
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
    // Inside a folder and type-only: the typed dapp API imports the schemas it derives its params from.
    expect(modules.get(join('provider', 'rpc.ts'))).toContain(join('provider', 'schemas.ts'));
  });

  it('no module imports itself back, through any chain of imports (type-only and inside a folder included)', () => {
    expect(cycles(moduleGraph())).toEqual([]);
  });
});
