import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';
import { SOURCE_CONDITION, SOURCE_CONDITION_FLAG } from './test/support/process.js';
import BrowserFirstSequencer from './test/support/sequencer.js';

export default defineConfig({
  // The tests run chain-ledger's TypeScript sources: package.json "imports" (the Node/browser twins) point at src/
  // under this condition, in vitest's resolver and in the worker threads the tests start (execArgv).
  ssr: { resolve: { conditions: [SOURCE_CONDITION, ...defaultServerConditions] } },
  test: {
    include: ['test/**/*.test.ts'],
    // Signing and key derivation are CPU-bound; 2-core CI machines are slow.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Once per run, before any file: the packaged Chromium inflated, the presentation circuits in o1js's cache.
    globalSetup: ['test/support/global-setup.ts'],
    // vitest's default on 2 cores is 1 worker (cores − 1), which leaves a core idle while a file waits on a browser,
    // a child process or a single-threaded loop. Two files at a time; the longest (the browser e2e) starts first.
    maxWorkers: 2,
    execArgv: [SOURCE_CONDITION_FLAG],
    sequence: { sequencer: BrowserFirstSequencer },
  },
});
