/**
 * The examples are templates: each file imports chain-ledger only by its package subpaths (`chain-ledger`,
 * `chain-ledger/wallet`, …: package.json `exports`), other packages by name (the package's dependencies, peers and
 * development dependencies, or Node's built-ins), and its own files by relative path inside examples/, never a path
 * into src/ or anywhere else in the repository. Copied out beside an installed chain-ledger, an example runs as it is.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../support/process.js';

const EXAMPLES = join(REPO, 'examples');
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const SUBPATHS = new Set(Object.keys(pkg.exports).map((subpath) => (subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`)));
const PACKAGES = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies), ...Object.keys(pkg.devDependencies)]);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sources(path);
    return /\.(ts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every specifier of an import, export-from, dynamic import() or side-effect import in `text`. */
function specifiers(text: string): string[] {
  const quoted = `['"]([^'"]+)['"]`;
  return [
    ...text.matchAll(new RegExp(`\\b(?:import|export)\\s[^'";]*?\\sfrom\\s+${quoted}`, 'g')),
    ...text.matchAll(new RegExp(`\\bimport\\s*\\(\\s*${quoted}\\s*\\)`, 'g')),
    ...text.matchAll(new RegExp(`^\\s*import\\s+${quoted}`, 'gm')),
  ].map((m) => m[1]!);
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`, `name/sub` → `name`). */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** Why `specifier` in `file` is not a template's import, or undefined when it is one. */
function refusal(file: string, specifier: string): string | undefined {
  if (specifier.startsWith('.')) {
    const target = resolve(dirname(file), specifier);
    return target.startsWith(EXAMPLES + sep) ? undefined : `a relative path out of examples/ (to ${relative(REPO, target)})`;
  }
  if (specifier.startsWith('node:')) return undefined;
  if (packageOf(specifier) === pkg.name) return SUBPATHS.has(specifier) ? undefined : 'no subpath of the package';
  return PACKAGES.has(packageOf(specifier)) ? undefined : 'a package that is no dependency of chain-ledger';
}

describe('the examples import chain-ledger as its users do', () => {
  const files = sources(EXAMPLES);

  it('finds the examples and their imports (the reader still works)', () => {
    expect(files.map((file) => relative(EXAMPLES, file))).toEqual(
      expect.arrayContaining([
        'quick-start.ts',
        join('wallet', 'src', 'app.ts'),
        join('transports', 'dmk.ts'),
        join('wallet', 'vite.config.ts'),
      ]),
    );
    expect(specifiers("import a from 'x';\nimport type { B } from '../../src/b.js';\nexport { c } from './c.js';")).toEqual([
      'x',
      '../../src/b.js',
      './c.js',
    ]);
    expect(specifiers("const m = await import('chain-ledger/transport/node');\nimport './side.js';")).toEqual([
      'chain-ledger/transport/node',
      './side.js',
    ]);
    expect(refusal(join(EXAMPLES, 'wallet/src/app.ts'), '../../../src/wallet/host.js')).toBe(
      'a relative path out of examples/ (to src/wallet/host.js)',
    );
    expect(refusal(join(EXAMPLES, 'quick-start.ts'), 'chain-ledger/src/index.js')).toBe('no subpath of the package');
    expect(refusal(join(EXAMPLES, 'quick-start.ts'), 'left-pad')).toBe('a package that is no dependency of chain-ledger');
  });

  it('every file imports only chain-ledger subpaths, dependencies, Node built-ins and files of examples/', () => {
    const bad = files.flatMap((file) =>
      specifiers(readFileSync(file, 'utf8')).flatMap((specifier) => {
        const why = refusal(file, specifier);
        return why === undefined ? [] : [`${relative(REPO, file)}: ${specifier}: ${why}`];
      }),
    );
    expect(bad).toEqual([]);
  });

  it('the wallet page reaches its host through the chain-ledger/wallet subpath', () => {
    const imported = specifiers(readFileSync(join(EXAMPLES, 'wallet/src/app.ts'), 'utf8'));
    expect(imported).toContain('chain-ledger/wallet');
  });
});
