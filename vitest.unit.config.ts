/**
 * `npm run test:unit`: the fast tier (test/support/tiers.ts), the loop to run while editing. The full configuration
 * less the heavy files and less the global setup (no browser to inflate, no circuit to warm up: nothing here compiles
 * one), with the property counts at a fifth (CHAIN_LEDGER_TIER, test/support/runs.ts) drawn from one fixed seed
 * (test/support/fast-tier-seed.ts). `npm test` runs it all.
 */
import { defineConfig, mergeConfig } from 'vitest/config';
import { HEAVY } from './test/support/tiers.js';
import base from './vitest.config.js';

export default mergeConfig(
  { ...base, test: { ...base.test, globalSetup: [] } },
  defineConfig({
    test: {
      exclude: ['**/node_modules/**', 'test/**/*.browser.test.ts', ...Object.keys(HEAVY)],
      env: { CHAIN_LEDGER_TIER: 'unit' },
      // One fixed draw for the fifth-size properties (test/support/fast-tier-seed.ts).
      setupFiles: ['test/support/fast-tier-seed.ts'],
    },
  }),
);
