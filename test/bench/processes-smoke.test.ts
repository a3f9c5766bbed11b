/**
 * One round of the benchmarks that start processes, so that `npm run bench` is known to run them: `import()` of the
 * built package (dist/, which `npm test` builds first) in a fresh Node process per scenario, and one presentation
 * configuration in a child process (one credential, the native backend, two proofs: ours and mina-attestations'),
 * its keys from the o1js cache that the global setup filled (the tests' spec), so nothing is compiled from nothing
 * here. Heavy tier (test/support/tiers.ts). No timing is asserted. What only `npm run bench` runs: the other
 * configurations (two credentials, the wasm backend, an empty cache: the same child with other parameters) and the
 * browser rows and bundle sizes, which build the example pages into the directories the e2e test builds into.
 */
import { describe, expect, it } from 'vitest';
import { benchImportCost } from '../../bench/import-cost.js';
import { benchPresentation } from '../../bench/presentation.js';

const finite = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value >= 0;

describe('the benchmarks that start processes, one round each', () => {
  it('import cost: each scenario measured in its own process, against mina-signer', { timeout: 180_000 }, async () => {
    const rows = await benchImportCost(1);
    expect(rows.map((r) => r.scenario)).toContain('mina-signer (baseline)');
    expect(rows).toHaveLength(7);
    for (const row of rows) {
      expect([row.ms, row.rssMB, row.ratioMs, row.ratioRss].every(finite)).toBe(true);
      expect(row.rounds).toBe(1);
    }
    // What the package loads for a credential method: the heavy libraries come only then.
    expect(rows.find((r) => r.scenario === 'chain-ledger')!.loaded).toEqual([]);
    expect(rows.find((r) => r.scenario === 'chain-ledger + a credential method')!.loaded).toEqual(
      expect.arrayContaining(['o1js', 'mina-attestations']),
    );
  });

  it('a presentation, ours against Presentation.create: compiled, proved, verified', { timeout: 600_000 }, async () => {
    const [row, ...others] = await benchPresentation({
      credentials: [1],
      backends: ['native'],
      states: ['warm'],
      rounds: 1,
      cache: 'inherited',
    });
    expect(others).toEqual([]);
    expect(row).toMatchObject({ backend: 'native', cache: 'warm', credentials: 1, rounds: 1, workerStarts: 1 });
    const timed = ['compileMs', 'oursMs', 'baselineMs', 'ratio', 'oursFirstMs', 'toDeviceFirstMs', 'firstVerifyMs', 'verifyMs'];
    expect(timed.filter((key) => !finite(row[key]))).toEqual([]);
    // One round has no second presentation of ours: its columns are empty (JSON null), not a made-up number.
    expect([row.oursNextMs, row.toDeviceNextMs]).toEqual([null, null]);
    expect(row.deviceRequests).toBeGreaterThan(0);
    expect(row.apduBytes).toBeGreaterThan(0);
  });
});
