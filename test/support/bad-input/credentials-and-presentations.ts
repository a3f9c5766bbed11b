/**
 * storePrivateCredential's and requestPresentation's invalid arguments in the bad-input properties, which
 * `request`'s property draws too: garbage and invalid credentials; presentation requests made schema-invalid however
 * the provider looks at them, so nothing is ever proved.
 */
import fc from 'fast-check';
import { defineOwn, isObject, withinBounds } from '../json-values.js';
import { deepTextArb, garbageArb, hugeString } from '../odd-values.js';
import { keyArb, mutate, mutationArb } from '../value-mutations.js';
import { type Case, made, makeCase } from './rig.js';

// storePrivateCredential: invalid only (the valid mutations are its own property's)

export const storeInvalidCases: fc.Arbitrary<Case> = fc.oneof(
  { weight: 1, arbitrary: garbageArb.map((args) => makeCase({ args, expect: 'invalid', note: 'garbage arguments' })) },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        garbageArb.filter((v) => !isObject(v) || !('version' in v)),
        hugeString,
        deepTextArb,
        fc.constantFrom('{nope', '[]', '{}', 'null', '"x"', JSON.stringify('{}')),
      )
      .map((credential) => makeCase({ args: { credential }, expect: 'invalid', note: 'invalid credential' })),
  },
);

// requestPresentation: invalid only (a schema-valid request would go on to the device and the prover)

const invalidPresentation = (args: unknown, note: string) => makeCase({ args, expect: 'invalid', note });
/**
 * Schema-valid and within the documented bounds (docs/provider.md: 64 KiB, 48 levels, 2 000 values). The bounds come
 * first: mina-attestations' schema takes seconds and gigabytes on large invalid values (a 16-level shared-subtree
 * value ran this test out of memory), and the provider refuses anything beyond them without asking the schema.
 */
const schemaValid = (v: unknown) =>
  withinBounds(v, { chars: 64 * 1024, depth: 48, values: 2_000 }) &&
  made.attestations.validation.PresentationRequestSchema.safeParse(v).success;
/** A request as given, without an own "__proto__", and through JSON. */
function viewsOf(request: Record<string, unknown>): unknown[] {
  const views: unknown[] = [request, Object.fromEntries(Object.entries(request).filter(([k]) => k !== '__proto__'))];
  try {
    const json = JSON.stringify(request);
    if (json !== undefined) views.push(JSON.parse(json));
  } catch {
    // a bigint: not JSON at all
  }
  return views;
}

export const presentationCases: fc.Arbitrary<Case> = fc.oneof(
  { weight: 2, arbitrary: garbageArb.map((args) => invalidPresentation(args, 'garbage arguments')) },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        garbageArb.filter((v) => !isObject(v)),
        fc.constant({}),
      )
      .map((presentation) => invalidPresentation({ presentation }, 'invalid presentation')),
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(garbageArb, hugeString, deepTextArb, fc.constantFrom('{nope', '[]', '{}', 'null', JSON.stringify({ type: 'https' })))
      .map((presentationRequest) => invalidPresentation({ presentation: { presentationRequest } }, 'invalid presentationRequest')),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom<unknown>(5, 'x', [], null, true, [{}], new Date(0), new Map())
      .map((zkAppAccount) =>
        invalidPresentation(
          { presentation: { presentationRequest: structuredClone(made.validRequest), zkAppAccount } },
          'invalid zkAppAccount',
        ),
      ),
  },
  {
    weight: 4,
    arbitrary: fc
      .record({ mutation: mutationArb({ keys: keyArb(['type', 'spec', 'claims', 'inputContext']) }), text: fc.boolean() })
      .map(({ mutation, text }) => {
        const m = mutate(made.validRequest, mutation);
        let note = m.description;
        let request = m.value;
        // Make sure it is schema-invalid however the provider looks at it: as given, without an own top-level
        // "__proto__" (a copy by assignment drops it), through JSON (which drops undefined values and functions), or
        // parsed when the mutation turned it into JSON text. The top level is strict: one unknown key does it.
        if (typeof request === 'string') {
          try {
            const parsed: unknown = JSON.parse(request);
            if (isObject(parsed) && viewsOf(parsed).some(schemaValid)) {
              request = JSON.stringify({ ...parsed, chainLedgerFuzz: 1 });
              note += ', plus an unknown top-level key';
            }
          } catch {
            // not JSON text: invalid as it is
          }
        } else if (isObject(request) && viewsOf(request).some(schemaValid)) {
          defineOwn(request, 'chainLedgerFuzz', 1);
          note += ', plus an unknown top-level key';
        }
        m.value = request;
        let presentationRequest = m.value;
        if (text) {
          try {
            presentationRequest = JSON.stringify(m.value) ?? m.value;
          } catch {
            // bigint leaf
          }
        }
        return invalidPresentation({ presentation: { presentationRequest } }, note);
      }),
  },
);
