/**
 * The fast tier (`npm run test:unit`) holds every test file that is not heavy by name or by its entry in
 * test/support/tiers.ts. This keeps that split true as files come and go: a file in the fast tier that starts a
 * browser or a child process, or compiles a circuit, by its own calls or a test helper's that does, fails here until
 * it is listed as heavy; an entry that names no file fails too. (A compile reached only through the
 * provider, a presentation the test approves, shows in the fast tier's time instead: docs/development.md.)
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HEAVY, isHeavy } from './support/tiers.js';

const ROOT = resolve(import.meta.dirname, '..');
const TEST = join(ROOT, 'test');

/**
 * What a heavy file does, as it reads in source: the modules it imports and the calls it makes (its own, or the
 * test helpers' (test/support/) and benchmarks' (bench/) that start a browser or a process or compile: a new such helper goes here).
 */
const HEAVY_MARKS: [RegExp, string][] = [
  [/from '(node:)?child_process'/, 'child process'],
  [/\b(runBounded|spawnBounded|esbuild|presentOnce|benchImportCost|benchPresentation)\(/, 'child process'],
  [/from 'playwright-core'|\bchromiumPath\(/, 'browser'],
  [/\bPresentation\.(create|compile|precompile)\(|\.compile\(\)|\bverifiedOutput\(/, 'circuit'],
];

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' ? [] : testFiles(path);
    return e.name.endsWith('.test.ts') ? [relative(ROOT, path)] : [];
  });
}

function marksOf(file: string): string[] {
  // This file names the marks; it matches none of them by doing anything.
  if (file === 'test/tiers.test.ts') return [];
  const source = readFileSync(join(ROOT, file), 'utf8');
  return HEAVY_MARKS.filter(([mark]) => mark.test(source)).map(([, what]) => what);
}

describe('test tiers', () => {
  const files = testFiles(TEST);

  it('every file listed as heavy exists and is not a browser test already (which is heavy by name)', () => {
    const stale = Object.keys(HEAVY).filter((f) => !files.includes(f) || f.endsWith('.browser.test.ts'));
    expect(stale).toEqual([]);
  });

  it('no file of the fast tier starts a browser or a child process or compiles a circuit', () => {
    const slipped = files.filter((f) => !isHeavy(f)).flatMap((f) => marksOf(f).map((m) => `${f}: ${m}`));
    expect(slipped).toEqual([]);
  });

  it('the marks find what the heavy list says (the check above would see a new file of each kind)', () => {
    const listed = Object.entries(HEAVY).filter(([, reason]) => reason === 'child process');
    expect(listed.filter(([f]) => marksOf(f).length === 0).map(([f]) => f)).toEqual([]);
  });
});
