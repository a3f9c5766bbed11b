/**
 * Bad input for signMessage and createNullifier, property-based: generated and mutated arguments, each judged
 * against its method's oracle (what every call must do: test/support/bad-input/rig.ts; the oracles:
 * test/support/bad-input/messages-and-nullifiers.ts).
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import {
  createNullifierArgs,
  createNullifierCase,
  signMessageArgs,
  signMessageCase,
} from '../../support/bad-input/messages-and-nullifiers.js';
import { badInputRig, made, run } from '../../support/bad-input/rig.js';
import { fuzzRuns, fuzzTimeout } from '../../support/runs.js';

badInputRig();

describe('bad input never escapes as anything but a documented ProviderError, and never reaches the device', () => {
  it(
    `signMessage: ${RUNS.signMessage} generated and mutated arguments`,
    async () => {
      await fc.assert(
        fc.asyncProperty(signMessageArgs.map(signMessageCase), (c) => run('signMessage', c, () => made.chain.signMessage(c.args as never))),
        { numRuns: RUNS.signMessage },
      );
    },
    fuzzTimeout(300_000),
  );

  it(
    `createNullifier: ${RUNS.createNullifier} generated and mutated arguments`,
    async () => {
      await fc.assert(
        fc.asyncProperty(createNullifierArgs.map(createNullifierCase), (c) =>
          run('createNullifier', c, () => made.chain.createNullifier(c.args as never)),
        ),
        { numRuns: RUNS.createNullifier },
      );
    },
    fuzzTimeout(300_000),
  );
});

/** Runs per property. Valid arguments cost real signing (≈ 40 ms a message, ≈ 60 ms a nullifier). */
const RUNS = fuzzRuns({ signMessage: 500, createNullifier: 250 });
