/**
 * Bad input for storePrivateCredential and requestPresentation, property-based: garbage, invalid and mutated
 * credentials, and presentation requests that are all invalid (nothing is proved). What every call must do:
 * test/support/bad-input/rig.ts; the invalid arguments: test/support/bad-input/credentials-and-presentations.ts.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { presentationCases, storeInvalidCases } from '../../support/bad-input/credentials-and-presentations.js';
import { ADDRESS, type Case, addressArb, badInputRig, fail, made, makeCase, run } from '../../support/bad-input/rig.js';
import { defineOwn, describeValue } from '../../support/json-values.js';
import { keyArb, mutate, mutationArb, replacementArb } from '../../support/value-mutations.js';
import { fuzzRuns, fuzzTimeout } from '../../support/runs.js';

badInputRig();

// The tests come first; the arguments they draw follow them, at the end of the file.

describe('bad input never escapes as anything but a documented ProviderError, and never reaches the device', () => {
  it(
    `storePrivateCredential: ${RUNS.storePrivateCredential} garbage, invalid and mutated credentials`,
    async () => {
      await fc.assert(
        fc.asyncProperty(storePrivateCredentialArgs, (c) =>
          run('storePrivateCredential', c, () => made.chain.storePrivateCredential(c.args as never)),
        ),
        { numRuns: RUNS.storePrivateCredential },
      );
    },
    fuzzTimeout(300_000),
  );

  it(
    `requestPresentation: ${RUNS.requestPresentation} invalid requests → 20003, nothing sent, nothing proved`,
    async () => {
      await fc.assert(
        fc.asyncProperty(presentationCases, (c) => run('requestPresentation', c, () => made.chain.requestPresentation(c.args as never))),
        { numRuns: RUNS.requestPresentation },
      );
    },
    fuzzTimeout(300_000),
  );
});

/** Runs per property. */
const RUNS = fuzzRuns({ storePrivateCredential: 300, requestPresentation: 500 });

// storePrivateCredential: valid credentials mutated, beside the invalid ones

const credentialMutation = fc.record({
  mutation: mutationArb({
    values: replacementArb([addressArb, fc.constant(ADDRESS)]),
    keys: keyArb(['metadata', 'version', 'witness', 'credential']),
  }),
  text: fc.boolean(),
});
const metadataArb: fc.Arbitrary<unknown> = fc.oneof(replacementArb(), fc.jsonValue({ maxDepth: 3 }));

const storePrivateCredentialArgs: fc.Arbitrary<Case> = fc.oneof(
  { weight: 4, arbitrary: storeInvalidCases },
  {
    weight: 4,
    arbitrary: credentialMutation.map(({ mutation, text }) => {
      const m = mutate(made.validCredential, mutation);
      let credential = m.value;
      if (text) {
        try {
          credential = JSON.stringify(m.value) ?? m.value;
        } catch {
          // bigint leaf
        }
      }
      return makeCase({ args: { credential }, expect: 'either', note: m.description, check: checkStored });
    }),
  },
  {
    weight: 2,
    arbitrary: metadataArb.map((metadata) => {
      const credential = structuredClone(made.validCredential);
      defineOwn(credential, 'metadata', metadata);
      return makeCase({ args: { credential }, expect: 'either', note: `metadata = ${describeValue(metadata, 60)}`, check: checkStored });
    }),
  },
);

function checkStored(value: unknown): void {
  const { credential } = value as { credential?: unknown };
  if (typeof credential !== 'string') fail(`storePrivateCredential returned ${describeValue(value)}`);
  const parsed = JSON.parse(credential) as { credential?: { owner?: { value?: string } } };
  if (parsed.credential?.owner?.value !== ADDRESS) fail('stored a credential of another owner');
}
