/**
 * Every ```ts block of README.md and docs/*.md (not the generated docs/api), type-checked as a consumer's module:
 * strict TypeScript, bundler resolution, `chain-ledger` resolved through the package's `exports` to the built
 * declarations (dist/, `npm test` builds first). A snippet that does not compile fails here, naming its file and line.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, spawnBounded } from './support/process.js';

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
