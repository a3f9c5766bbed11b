/**
 * Odd values for the property tests: non-canonical number text, edge numbers, JavaScript values no JSON argument
 * has, huge strings, deep and shared-subtree values, prototype-pollution objects (and a snapshot of the prototypes
 * they would pollute), and `garbageArb`, anything a page might pass where an argument object belongs.
 *
 * Nothing here builds a value recursively: deep values are built in loops, so the TEST never overflows its stack,
 * whatever the code under test does with them.
 */
import fc from 'fast-check';
import { PALLAS_P } from '../../src/apdu/constants.js';
import { defineOwn } from './json-values.js';

export const P = PALLAS_P;

/** Strings that look like numbers but are not canonical decimal integers (or are out of range). */
export const NON_CANONICAL_NUMBER_STRINGS: readonly string[] = [
  '01',
  '00',
  '007',
  '1e3',
  '1E3',
  '1e+3',
  '-0',
  '+0',
  ' 1',
  '1 ',
  '\t1',
  '1\n',
  '\n1',
  '+1',
  '-1',
  '0x10',
  '0X1A',
  '0b1',
  '0o7',
  '1_000',
  '1,000',
  '1.0',
  '1.',
  '.5',
  '0.5',
  '١',
  '１',
  '¹',
  'NaN',
  'Infinity',
  '-Infinity',
  '',
  ' ',
  'null',
  'true',
  '9'.repeat(81),
  P.toString(),
  (P + 1n).toString(),
  (2n ** 256n).toString(),
  (2n ** 255n).toString(),
  `${'1'.repeat(40)}.${'5'.repeat(40)}`,
  `0.${'0'.repeat(100)}1`,
  '123456789012345678901234567890.123456789012',
  '9007199254740993',
  '1e21',
  '1e-7',
  '0.1',
  '\u0000',
  '1\u0000',
  '٣',
  '𝟏',
];

/** Numbers that are not safe, not integers, not finite, or at the edges. */
export const ODD_NUMBERS: readonly number[] = [
  NaN,
  Infinity,
  -Infinity,
  -0,
  -1,
  1.5,
  0.1 + 0.2,
  2 ** 53,
  2 ** 53 + 2,
  2 ** 64,
  1e21,
  1e300,
  -1e-7,
  5e-324,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  Number.EPSILON,
  2 ** 31,
  2 ** 32,
  2 ** 32 - 1,
  -(2 ** 31),
];

/** JavaScript values no JSON argument has. Built fresh per use (functions, maps and arrays are mutable). */
export function exoticValues(): unknown[] {
  const sparse: unknown[] = [];
  sparse.length = 3;
  return [
    undefined,
    null,
    true,
    false,
    1n,
    10n ** 80n,
    -1n,
    Symbol('odd'),
    () => 1,
    async () => 1,
    new Date(0),
    new Date(NaN),
    new Map([['message', 'hi']]),
    new Set([1]),
    new Uint8Array(3),
    new ArrayBuffer(4),
    Object.create(null),
    sparse,
    [undefined],
    new String('hi'),
    new Number(1),
    new Boolean(true),
    new Error('odd'),
    /regex/,
    Promise.resolve(1),
    // A thenable that never settles: a provider that awaited its arguments would hang on it.
    { then() {} },
    // A thenable that settles with a valid-looking argument.
    {
      then(resolve: (v: unknown) => void) {
        resolve({ message: 'hi' });
      },
    },
    Object.freeze({ message: 'frozen' }),
    new (class Custom {
      message = 'hi';
    })(),
    { toString: () => 'hi', valueOf: () => 1 },
    { toJSON: () => ({ message: 'hi' }) },
  ];
}

export const oddNumber = fc.constantFrom(...ODD_NUMBERS);
export const nonCanonicalString = fc.constantFrom(...NON_CANONICAL_NUMBER_STRINGS);
export const exoticValue = fc.nat({ max: exoticValues().length - 1 }).map((i) => exoticValues()[i]);

/** About 100 kB (and one > 4 MiB, beyond the provider's JSON text limit), built by repetition so generation is cheap. */
export const HUGE = 100_000;
export const hugeString = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom('a', '9', '{', '[', ' ', 'é', '\u0000', '"', '\\', '😀', '\ud800', 'B62').map((c) => c.repeat(HUGE)),
  },
  { weight: 2, arbitrary: fc.constant(`{"message":"${'a'.repeat(HUGE)}"}`) },
  { weight: 2, arbitrary: fc.constant(`[${'1,'.repeat(HUGE / 2)}1]`) },
  { weight: 1, arbitrary: fc.constant(`{"a":"${'x'.repeat(4 * 1024 * 1024)}"}`) },
);

export type DeepShape = 'array' | 'object' | 'mixed' | 'pollution';

/** A value nested `depth` levels, built iteratively. */
export function deepValue(depth: number, shape: DeepShape, leaf: unknown = 1): unknown {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i++) {
    if (shape === 'array' || (shape === 'mixed' && i % 2 === 0)) value = [value];
    else if (shape === 'pollution') {
      // Nested under an own "__proto__" key (data, not the prototype), next to constructor.prototype.
      const outer = JSON.parse('{"constructor": {"prototype": {"polluted": "yes"}}}') as object;
      defineOwn(outer, '__proto__', value);
      value = outer;
    } else value = { a: value };
  }
  return value;
}

/**
 * A directed acyclic graph: `depth` levels of `{ a: v, b: v }` sharing one child — 2·depth objects in memory, 2^depth
 * paths for anything that walks it as a tree (as JSON.stringify does). No cycle, so it is a legal argument, and a
 * structured clone (postMessage) keeps the sharing.
 */
export function dagValue(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value, b: value };
  return value;
}

/** Shared-subtree values small enough that even a tree walk takes milliseconds (2^16 paths at most). */
export const dagArb = fc.constantFrom(8, 12, 16).map(dagValue);

/** Deep JSON text, e.g. `[[[[…]]]]`, without building the value. */
export function deepJsonText(depth: number, shape: 'array' | 'object'): string {
  return shape === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

export const deepArb = (depths: readonly number[] = [64, 65, 1000, 2000]) =>
  fc
    .record({ depth: fc.constantFrom(...depths), shape: fc.constantFrom<DeepShape>('array', 'object', 'mixed', 'pollution') })
    .map(({ depth, shape }) => deepValue(depth, shape));

export const deepTextArb = fc
  .record({ depth: fc.constantFrom(1000, 5000, 100_000), shape: fc.constantFrom<'array' | 'object'>('array', 'object') })
  .map(({ depth, shape }) => deepJsonText(depth, shape));

/** JSON texts whose parse gives own `__proto__` / `constructor` / `prototype` keys. */
export const POLLUTION_TEXTS: readonly string[] = [
  '{"__proto__": {"polluted": "yes"}}',
  '{"constructor": {"prototype": {"polluted": "yes"}}}',
  '{"prototype": {"polluted": "yes"}}',
  '{"__proto__": {"message": "hi"}}',
  '{"__proto__": {"message": ["1", "2"]}}',
  '{"__proto__": {"transaction": {}, "onlySign": true}}',
  '{"__proto__": {"credential": {}}}',
  '{"__proto__": {"presentation": {"presentationRequest": {}}}}',
  '{"__proto__": {"polluted": "yes"}, "message": "hi"}',
  '{"__proto__": {"polluted": "yes"}, "message": ["1", "2"]}',
  '{"constructor": {"prototype": {"polluted": "yes"}}, "message": "hi"}',
  '{"__proto__": null}',
  '{"__proto__": []}',
  '{"__proto__": {}}',
  '{"a": {"__proto__": {"polluted": "yes"}}}',
  '[{"__proto__": {"polluted": "yes"}}]',
];
export const pollutionArb = fc.constantFrom(...POLLUTION_TEXTS).map((text) => JSON.parse(text) as unknown);

/** Anything a dapp (or an attacker) might pass where an argument object belongs. */
export const garbageArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: exoticValue },
  { weight: 2, arbitrary: oddNumber },
  { weight: 2, arbitrary: nonCanonicalString },
  {
    weight: 3,
    arbitrary: fc.anything({
      maxDepth: 3,
      maxKeys: 4,
      withBigInt: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withTypedArray: true,
      withNullPrototype: true,
      withSparseArray: true,
      withBoxedValues: true,
    }),
  },
  { weight: 1, arbitrary: hugeString },
  { weight: 1, arbitrary: deepArb() },
  { weight: 1, arbitrary: deepTextArb },
  { weight: 1, arbitrary: dagArb },
  { weight: 2, arbitrary: pollutionArb },
);

/** Own property names of the built-in prototypes, to prove nothing was added to them. */
export function prototypeSnapshot(): Record<string, string[]> {
  return {
    Object: Object.getOwnPropertyNames(Object.prototype).sort(),
    Array: Object.getOwnPropertyNames(Array.prototype).sort(),
    Function: Object.getOwnPropertyNames(Function.prototype).sort(),
    String: Object.getOwnPropertyNames(String.prototype).sort(),
  };
}
