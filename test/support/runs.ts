/**
 * How many cases the property and crash tests run. `npm test` is the edit-test loop, run many times a day; CI
 * (`.ci/run`) sets `CHAIN_LEDGER_FULL_RUNS=1` and runs the full counts. Only counts that never found a bug are lower
 * by default (the bad-input properties, which have found bugs, always run in full).
 * Each test prints its count in its name, so a run's report says which it was.
 */
export const FULL_RUNS = process.env.CHAIN_LEDGER_FULL_RUNS === '1';

/** `full` under CHAIN_LEDGER_FULL_RUNS=1 (CI), else `quick`. */
export function runs(full: number, quick: number): number {
  return FULL_RUNS ? full : quick;
}

/**
 * `PROPERTY_RUNS` when set (a count asked for on the command line: PROPERTY_RUNS=20000 npx vitest run ...), else
 * `count`: the knob of the no-throw property (test/emulator/no-throw.property.test.ts), whatever CHAIN_LEDGER_FULL_RUNS.
 */
export function propertyRuns(count: number): number {
  return Number(process.env.PROPERTY_RUNS ?? count);
}
