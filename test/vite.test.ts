/**
 * The `chain-ledger/vite` plugin's dev-server settings, checked against the installed packages: what the dev server
 * must pre-bundle (every CommonJS package the internal files of both mina-signer eras reach), and mina-signer's files
 * served without the source maps that point to sources the packages do not ship. The dev server itself, in Chromium:
 * test/e2e/wallet-dev-server.browser.test.ts.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTERNAL_FILES } from '../src/upstream/mina-signer-modules.js';
import { chainLedger } from '../src/vite.js';
import { esbuild } from './support/esbuild.js';
import { REPO } from './support/process.js';

const require = createRequire(join(REPO, 'package.json'));
const ERAS = ['mina-signer', 'mina-signer-berkeley'] as const;
/** The directory the plugin resolves `chain-ledger-internal (…):<era>/<file>` against: dist/node/mina-signer. */
const baseOf = (era: string) => dirname(require.resolve(era));

type PluginHooks = { config(): { optimizeDeps: { include: string[] } }; load(this: unknown, id: string): Promise<unknown> };
const plugin = () => chainLedger() as unknown as PluginHooks;

/** The package a file of node_modules belongs to (`js-sha256`, `@noble/hashes`), from the last node_modules in its path. */
function packageOf(file: string): string {
  const parts = relative(REPO, file).split(sep);
  const at = parts.lastIndexOf('node_modules') + 1;
  return parts[at]!.startsWith('@') ? `${parts[at]}/${parts[at + 1]}` : parts[at]!;
}

describe('the chain-ledger/vite plugin (dev server)', () => {
  it("pre-bundles exactly the CommonJS packages that both mina-signer eras' internal files import", async () => {
    const out = await mkdtemp(join(tmpdir(), 'chain-ledger-vite-'));
    try {
      const needed: string[] = [];
      for (const era of ERAS) {
        // esbuild follows each era's files as a browser bundler does and says which inputs are CommonJS.
        const entries = INTERNAL_FILES.map((file) => resolve(baseOf(era), file));
        const metafile = join(out, `${era}.json`);
        await esbuild(
          [
            ...entries,
            '--bundle',
            '--platform=browser',
            '--format=esm',
            `--outdir=${join(out, era)}`,
            '--external:crypto',
            `--metafile=${metafile}`,
          ],
          `${era}'s internal files`,
        );
        const { inputs } = JSON.parse(await readFile(metafile, 'utf8')) as { inputs: Record<string, { format?: string }> };
        const commonjs = Object.entries(inputs).filter(([, input]) => input.format === 'cjs');
        for (const [file] of commonjs) needed.push(`${era} > ${packageOf(resolve(REPO, file))}`);
      }
      expect(needed.length).toBeGreaterThan(0);
      expect([...new Set(needed)].sort()).toEqual([...plugin().config().optimizeDeps.include].sort());
      expect(needed).toContain('mina-signer-berkeley > js-sha256');
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });

  it("serves mina-signer's files (both eras) without their source maps, whose TypeScript sources are not shipped; other files are Vite's", async () => {
    for (const era of ERAS) {
      const file = resolve(baseOf(era), 'src/signature.js');
      const original = await readFile(file, 'utf8');
      const map = JSON.parse(await readFile(`${file}.map`, 'utf8')) as { sources: string[] };
      // Why: the map names sources the package does not ship.
      await expect(readFile(resolve(dirname(file), map.sources[0]!))).rejects.toMatchObject({ code: 'ENOENT' });
      const loaded = (await plugin().load.call({}, `${file}?v=1234`)) as { code: string; map: { mappings: string } };
      expect(original).toMatch(/\/\/# sourceMappingURL=signature\.js\.map\s*$/);
      expect(loaded.map).toEqual({ mappings: '' });
      expect(loaded.code).not.toContain('sourceMappingURL');
      expect(loaded.code.trim()).toBe(original.replace(/\/\/# sourceMappingURL=.*\s*$/, '').trim());
    }
    const attestations = join(REPO, 'node_modules/mina-attestations/build/src/credential.js');
    expect(await plugin().load.call({}, attestations)).toBeNull();
  });
});
