#!/usr/bin/env node
/**
 * Writes docs/api/ (the API lists, Markdown) from the declarations users get, dist/*.d.ts, with TypeDoc and
 * typedoc-plugin-markdown. TypeDoc does not support TypeScript 7 (the repo's compiler), so it runs here with its
 * own TypeScript 5.9, installed in tools/api-docs/node_modules on first use (its own package.json and lock file).
 *
 *   node tools/api-docs/generate.mjs           write docs/api/ (run `npm run build` first; `npm run docs:api` does)
 *   node tools/api-docs/generate.mjs --check   generate into a temporary folder and fail if docs/api/ differs
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const committed = join(root, 'docs', 'api');
const check = process.argv.includes('--check');

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (!existsSync(join(root, 'dist', 'index.d.ts'))) {
  console.error('dist/ is missing: run `npm run build` first');
  process.exit(1);
}
if (!existsSync(join(here, 'node_modules', 'typedoc'))) {
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: here });
}

const out = check ? mkdtempSync(join(tmpdir(), 'chain-ledger-api-')) : committed;
run(process.execPath, [join(here, 'node_modules', 'typedoc', 'bin', 'typedoc'), '--options', join(here, 'typedoc.json'), '--out', out, '--logLevel', 'Error'], {
  cwd: root,
});

if (check) {
  const files = (dir) =>
    readdirSync(dir, { recursive: true })
      .map(String)
      .filter((f) => statSync(join(dir, f)).isFile())
      .sort();
  const want = files(out);
  const have = existsSync(committed) ? files(committed) : [];
  const differing = [...new Set([...want, ...have])].filter(
    (f) => !want.includes(f) || !have.includes(f) || !readFileSync(join(out, f)).equals(readFileSync(join(committed, f))),
  );
  rmSync(out, { recursive: true, force: true });
  if (differing.length > 0) {
    console.error(`docs/api is out of date (${differing.join(', ')}): run \`npm run docs:api\` and commit the result`);
    process.exit(1);
  }
  console.log(`docs/api is up to date (${want.length} files, from ${relative(root, join(root, 'dist'))}/*.d.ts)`);
}
