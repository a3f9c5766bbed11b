/**
 * How many cases the property and crash tests run. `npm test` is the edit-test loop, run many times a day; CI
 * (`.ci/run`) sets `CHAIN_LEDGER_FULL_RUNS=1` and runs the full counts. Only counts that never found a bug are lower
 * by default (the bad-input properties, which have found bugs, always run in full in `npm test`).
 * Each test prints its count in its name, so a run's report says which it was.
 */
export const FULL_RUNS = process.env.CHAIN_LEDGER_FULL_RUNS === '1';

/**
 * The fast tier (`npm run test:unit`, vitest.unit.config.ts sets CHAIN_LEDGER_TIER=unit): the loop run while editing
 * draws a fifth of every count, so that the properties still run there without taking most of its minute. `npm test`
 * and CI draw the counts below in full.
 */
export const FAST_TIER = process.env.CHAIN_LEDGER_TIER === 'unit';
const tier = (count: number) => (FAST_TIER ? Math.ceil(count / 5) : count);

/** `full` under CHAIN_LEDGER_FULL_RUNS=1 (CI), else `quick` (a fifth of it in the fast tier). */
export function runs(full: number, quick: number): number {
  return FULL_RUNS ? full : tier(quick);
}

/**
 * `PROPERTY_RUNS` when set (a count asked for on the command line: PROPERTY_RUNS=20000 npx vitest run ...), else
 * `count`: the knob of the no-throw property (test/emulator/no-throw.property.test.ts), whatever CHAIN_LEDGER_FULL_RUNS.
 */
export function propertyRuns(count: number): number {
  return Number(process.env.PROPERTY_RUNS ?? tier(count));
}

/**
 * The fuzz mode of the bad-input properties (test/reliability/bad-input/): CHAIN_LEDGER_FUZZ=10000 runs that many
 * calls of every public method (the wallet methods and `request`), a method's properties sharing them in the
 * proportion of their default counts. Off (undefined) in `npm test` and in CI: it takes hours on 2 cores. Each
 * property file prints its calls per method when it ends ("bad-input: …").
 */
export const FUZZ_CALLS: number | undefined = (() => {
  const value = process.env.CHAIN_LEDGER_FUZZ;
  if (value === undefined || value === '') return undefined;
  const calls = Number(value);
  if (!Number.isInteger(calls) || calls < 1)
    throw new Error(`CHAIN_LEDGER_FUZZ must be a positive integer of calls per method, not ${value}`);
  return calls;
})();

/**
 * A property file's runs: its defaults, or under CHAIN_LEDGER_FUZZ the fuzz count per method, split among the
 * properties of one method (`methodOf` a property's key; default: the key is the method) as their defaults are.
 */
export function fuzzRuns<K extends string>(defaults: Record<K, number>, methodOf: (key: K) => string = (key) => key): Record<K, number> {
  const keys = Object.keys(defaults) as K[];
  if (FUZZ_CALLS === undefined) return Object.fromEntries(keys.map((k) => [k, tier(defaults[k])])) as Record<K, number>;
  const total = (method: string) => keys.filter((k) => methodOf(k) === method).reduce((n, k) => n + defaults[k], 0);
  return Object.fromEntries(keys.map((k) => [k, Math.ceil((FUZZ_CALLS * defaults[k]) / total(methodOf(k)))])) as Record<K, number>;
}

/** A property's time bound: `ms`, or in the fuzz mode a day (what bounds it there is each call's own bound). */
export const fuzzTimeout = (ms: number) => (FUZZ_CALLS === undefined ? ms : 24 * 3_600_000);
