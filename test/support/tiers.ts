/**
 * The test tiers. `npm run test:unit` (vitest.unit.config.ts) is the loop to run while editing: every test file
 * that needs no browser, no circuit compile (o1js compile or proof, a mina-attestations Presentation) and no child
 * process. `npm test` runs every file, the heavy ones included.
 *
 * A file is heavy by name (`*.browser.test.ts`: it drives Chromium) or by its entry in `HEAVY`, with the reason.
 * test/tiers.test.ts fails when a file in the fast tier starts a browser or a child process or compiles a circuit
 * (by what it imports and calls), and when an entry here names no file, so a new file cannot slip into the wrong
 * tier unseen.
 */

/** Why a file is not in the fast tier. */
export type HeavyReason = 'browser' | 'circuit' | 'child process';

/** The heavy files that the browser naming convention does not already mark, by path from the repository root. */
export const HEAVY: Readonly<Record<string, HeavyReason>> = {
  'test/bench/processes-smoke.test.ts': 'child process',
  'test/cli/cli.test.ts': 'child process',
  'test/connect/bundle.test.ts': 'child process',
  'test/credentials/file-store.test.ts': 'child process',
  'test/credentials/provider-credentials.test.ts': 'circuit',
  'test/dmk/provider.test.ts': 'circuit',
  'test/docs-snippets.test.ts': 'child process',
  'test/examples/quick-start.test.ts': 'child process',
  'test/examples/transports.test.ts': 'child process',
  'test/package.test.ts': 'child process',
  'test/presentations/abort.test.ts': 'circuit',
  'test/presentations/consent.test.ts': 'circuit',
  'test/presentations/in-thread.test.ts': 'circuit',
  'test/presentations/progress.test.ts': 'circuit',
  'test/presentations/retry.test.ts': 'circuit',
  'test/presentations/runner.test.ts': 'child process',
  'test/presentations/worker-reuse.test.ts': 'circuit',
  'test/reliability/confirmation-faults.test.ts': 'circuit',
  'test/reliability/device-faults.test.ts': 'circuit',
  'test/reliability/dishonest-device.test.ts': 'circuit',
  'test/reliability/store-crash.test.ts': 'child process',
  'test/security/secrets.test.ts': 'child process',
  'test/vite.test.ts': 'child process',
};

/** A test file's tier: `heavy` when it is a browser test or listed in `HEAVY`. */
export function isHeavy(file: string): boolean {
  return file.endsWith('.browser.test.ts') || file in HEAVY;
}
