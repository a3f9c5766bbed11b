/**
 * chain-ledger/connect as a dapp's bundler sees it: esbuild bundles src/connect.ts for the browser, minified. It must
 * hold chain-ledger's own modules only (no zod, mina-signer, o1js or any other package) and stay a few kB.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { esbuild } from '../support/esbuild.js';

const dir = mkdtempSync(join(tmpdir(), 'chain-ledger-connect-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the chain-ledger/connect bundle', () => {
  it('holds only its own modules (no zod, mina-signer or o1js), a few kB gzipped', async () => {
    const out = join(dir, 'connect.js');
    const meta = join(dir, 'meta.json');
    await esbuild(
      [
        'src/connect.ts',
        '--bundle',
        '--format=esm',
        '--platform=browser',
        '--target=es2022',
        '--minify',
        `--outfile=${out}`,
        `--metafile=${meta}`,
      ],
      'src/connect.ts',
    );
    const inputs = Object.keys((JSON.parse(readFileSync(meta, 'utf8')) as { inputs: Record<string, unknown> }).inputs).sort();
    expect(inputs).toEqual([
      'src/connect.ts',
      'src/connect/calls.ts',
      'src/connect/connector.ts',
      'src/connect/methods.ts',
      'src/connect/options.ts',
      'src/connect/protocol.ts',
      'src/connect/wallet-window.ts',
      'src/errors/provider-error.ts',
      'src/provider/discovery.ts',
      'src/provider/events.ts',
    ]);
    const code = readFileSync(out);
    const gzip = gzipSync(code, { level: 9 }).length;
    console.log(`chain-ledger/connect: ${code.length} bytes minified, ${gzip} bytes gzipped`);
    // 6.2 kB since the drop-in round's methods and the announced mina-js view (issue #33); zod alone would be ≈ 15 kB
    // gzipped, so the bound still catches a schema library, or any other package, pulled into a dapp's bundle.
    expect(gzip).toBeLessThan(6.5 * 1024);
  });
});
