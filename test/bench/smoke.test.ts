/**
 * One round of each in-process benchmark (bench/: sendTransaction, clear against blind signing, createNullifier),
 * so that `npm run bench` is known to run: every row has its fields and finite numbers. No timing is asserted (the
 * figures are bench/RESULTS.md's, from `npm run bench` on an idle machine). The benchmarks that start processes
 * (imports, presentations) are in processes-smoke.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { benchClearSigning } from '../../bench/clear-signing.js';
import { benchCreateNullifier } from '../../bench/create-nullifier.js';
import { benchSendTransaction } from '../../bench/send-transaction.js';

/** Every timing of a comparison row: a finite, non-negative number of milliseconds (and its ratio). */
function expectTimed(row: { oursMs: number; baselineMs: number; ratio: number; rounds: number }) {
  for (const value of [row.oursMs, row.baselineMs, row.ratio]) {
    expect(Number.isFinite(value) && value >= 0).toBe(true);
  }
  expect(row.rounds).toBe(1);
}

describe('the benchmarks, one round each', () => {
  it('sendTransaction against mina-signer: both eras, 1, 5 and 11 account updates, the device traffic of each', async () => {
    const rows = await benchSendTransaction(1);
    expect(rows.map((r) => `${r.era} ${r.accountUpdates}`)).toEqual([
      'berkeley 1',
      'berkeley 5',
      'berkeley 11',
      'mesa 1',
      'mesa 5',
      'mesa 11',
    ]);
    for (const row of rows) {
      expectTimed(row);
      expect(row.deviceRequests).toBeGreaterThan(0);
      expect(row.apduBytes).toBeGreaterThan(0);
    }
  });

  it('in clear against blind: the APDUs, bytes, payload and device permutations of each side', async () => {
    const rows = await benchClearSigning(1);
    expect(rows).toHaveLength(6);
    for (const row of rows) {
      expectTimed(row);
      expect(row.clear).toEqual({
        apdus: expect.any(Number),
        bytes: expect.any(Number),
        payloadBytes: expect.any(Number),
        permutations: expect.any(Number),
      });
      expect(Math.min(row.clear.apdus, row.clear.permutations, row.blind.apdus, row.blind.signatures)).toBeGreaterThan(0);
    }
  });

  it('createNullifier against mina-signer: 1, 16 and 64 fields', async () => {
    const rows = await benchCreateNullifier(1);
    expect(rows.map((r) => r.fields)).toEqual([1, 16, 64]);
    for (const row of rows) {
      expectTimed(row);
      expect(row.deviceRequests).toBeGreaterThan(0);
    }
  });
});
