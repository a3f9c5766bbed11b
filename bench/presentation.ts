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

/** Which configurations to run (default: all of them, as `npm run bench` does) and the rounds of each child. */
export interface PresentationBenchOptions {
  credentials?: readonly (1 | 2)[];
  backends?: readonly ('native' | 'wasm')[];
  states?: readonly ('cold' | 'warm')[];
  /** Presentations of ours and of the baseline per child (BENCH_ROUNDS there; default 2). */
  rounds?: number;
  /**
   * `fresh` (the default): a new o1js cache directory per backend, so that "cold" compiles from nothing. `inherited`:
   * the cache this process uses (o1js's default), already holding the keys of the one-credential spec when the tests'
   * global setup ran; then "cold" is not cold, which only the smoke test wants (it checks that the bench runs).
   */
  cache?: 'fresh' | 'inherited';
}

export async function benchPresentation(options: PresentationBenchOptions = {}) {
  const {
    credentials: counts = [1, 2],
    backends = ['native', 'wasm'],
    states = ['cold', 'warm'],
    rounds,
    cache: where = 'fresh',
  } = options;
  const rows = [];
  for (const credentials of counts)
    for (const backend of backends) {
      const cache = where === 'fresh' ? mkdtempSync(join(tmpdir(), `chain-ledger-o1js-cache-${backend}-`)) : undefined;
      try {
        for (const state of states) {
          const { stdout } = await run(
            process.execPath,
            ['--import', 'tsx', '--conditions=chain-ledger-source', new URL('./presentation-child.ts', import.meta.url).pathname],
            {
              env: {
                ...process.env,
                O1JS_BACKEND: backend,
                ...(cache === undefined ? {} : { XDG_CACHE_HOME: cache }),
                CREDENTIALS: String(credentials),
                ...(rounds === undefined ? {} : { BENCH_ROUNDS: String(rounds) }),
              },
              timeout: 20 * 60_000,
              maxBuffer: 10 * 1024 * 1024,
            },
          );
          const line = stdout.trim().split('\n').at(-1)!;
          rows.push({ backend, cache: state, ...JSON.parse(line) });
          console.error(`presentation ${credentials} credential(s) ${backend}/${state}: ${line}`);
        }
      } finally {
        if (cache !== undefined) rmSync(cache, { recursive: true, force: true });
      }
    }
  return rows;
}
