/**
 * chain_requestPresentation versus mina-attestations `Presentation.create` on the same spec, for one and two
 * credential inputs, each o1js backend, with a cold and a warm compile cache. Each configuration runs in its own
 * process because o1js fixes the backend and the cache directory at start-up.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export async function benchPresentation() {
  const rows = [];
  for (const credentials of [1, 2])
    for (const backend of ['native', 'wasm'] as const) {
      const cache = mkdtempSync(join(tmpdir(), `chain-ledger-o1js-cache-${backend}-`));
      try {
        for (const state of ['cold', 'warm'] as const) {
          const { stdout } = await run(
            process.execPath,
            ['--import', 'tsx', '--conditions=chain-ledger-source', new URL('./presentation-child.ts', import.meta.url).pathname],
            {
              env: { ...process.env, O1JS_BACKEND: backend, XDG_CACHE_HOME: cache, CREDENTIALS: String(credentials) },
              timeout: 20 * 60_000,
              maxBuffer: 10 * 1024 * 1024,
            },
          );
          const line = stdout.trim().split('\n').at(-1)!;
          rows.push({ backend, cache: state, ...JSON.parse(line) });
          console.error(`presentation ${credentials} credential(s) ${backend}/${state}: ${line}`);
        }
      } finally {
        rmSync(cache, { recursive: true, force: true });
      }
    }
  return rows;
}
