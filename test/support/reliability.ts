/**
 * Shared pieces of the reliability property tests: odd values, deep and huge inputs, prototype-pollution objects,
 * a mutation engine for valid arguments, and a helper that runs one call with a time bound.
 *
 * Nothing here builds a value recursively: deep values are built in loops, so the TEST never overflows its stack,
 * whatever the code under test does with them.
 */
import fc from 'fast-check';
import { PALLAS_P } from '../../src/apdu/constants.js';

// ---- running one call ----

export interface Settled {
  ok: boolean;
  value?: unknown;
  error?: unknown;
  /** Device exchanges during the call. */
  exchanges: number;
  ms: number;
}

export class DidNotSettle extends Error {
  override readonly name = 'DidNotSettle';
}

/**
 * Runs `call`, bounded by `timeoutMs`: a call that neither resolves nor rejects in time is a failure (thrown as
 * `DidNotSettle`). `exchanges()` is read before and after, to count what reached the device.
 */
export async function settle(call: () => Promise<unknown>, exchanges: () => number, timeoutMs: number): Promise<Settled> {
  const before = exchanges();
  const start = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  const outcome = Promise.resolve()
    .then(call)
    .then(
      (value) => ({ ok: true, value }),
      (error: unknown) => ({ ok: false, error }),
    );
  try {
    const first = await Promise.race([outcome, timeout]);
    if (first === 'timeout') throw new DidNotSettle(`the call did not settle within ${timeoutMs} ms`);
    return { ...first, exchanges: exchanges() - before, ms: performance.now() - start };
  } finally {
    clearTimeout(timer);
  }
}

/** A short, safe description of any value for failure messages (no recursion, bounded length). */
export function describeValue(value: unknown, max = 300): string {
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : fc.stringify(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

// ---- odd values ----

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

// ---- mutations of valid arguments ----

export type Key = string | number;
export type MutationOp = 'replace' | 'delete' | 'addKey' | 'tweak' | 'wrap' | 'stringify';

export interface Mutation {
  pick: number;
  op: MutationOp;
  value: unknown;
  key: string;
  tweak: number;
}

export interface Mutated {
  value: unknown;
  path: Key[];
  op: MutationOp;
  /** Set when a key the value did not have was added to an object (the path is the object's). */
  addedKey?: string;
  description: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every path of a JSON-like value (root first), iteratively, bounded. */
export function pathsOf(root: unknown, limit = 5000): Key[][] {
  const out: Key[][] = [];
  const stack: { value: unknown; path: Key[] }[] = [{ value: root, path: [] }];
  while (stack.length > 0 && out.length < limit) {
    const { value, path } = stack.pop()!;
    out.push(path);
    if (Array.isArray(value)) value.forEach((v, i) => stack.push({ value: v, path: [...path, i] }));
    else if (isObject(value)) for (const k of Object.keys(value)) stack.push({ value: value[k], path: [...path, k] });
  }
  return out;
}

export function getAt(root: unknown, path: readonly Key[]): unknown {
  let v: unknown = root;
  for (const k of path) v = (v as Record<Key, unknown>)[k];
  return v;
}

/** Defines an own data property, so `__proto__` stays a key and never becomes a prototype. */
export function defineOwn(target: object, key: Key, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function setAt(root: unknown, path: readonly Key[], value: unknown): unknown {
  if (path.length === 0) return value;
  const parent = getAt(root, path.slice(0, -1)) as object;
  defineOwn(parent, path[path.length - 1]!, value);
  return root;
}

const STRING_TWEAKS: ((s: string) => string)[] = [
  (s) => `${s}0`,
  (s) => s.slice(0, -1),
  (s) => ` ${s}`,
  (s) => `${s} `,
  (s) => s.toUpperCase(),
  (s) => s.toLowerCase(),
  (s) => `0${s}`,
  (s) => `-${s}`,
  (s) => s + s,
  (s) => `x${s.slice(1)}`,
  (s) => s.slice(0, -1) + (s.at(-1) === '1' ? '2' : '1'),
  (s) => `${s}\u0000`,
  (_s) => '',
  (s) => `${s}é`,
  (s) => s.split('').reverse().join(''),
];
const NUMBER_TWEAKS: ((n: number) => unknown)[] = [
  (n) => n + 1,
  (n) => n - 1,
  (n) => -n,
  (n) => n * 10,
  (n) => n / 2,
  (n) => String(n),
  (n) => n + 0.5,
  (_n) => NaN,
  (n) => 2 ** 53 + n,
];

/** Applies one mutation to a copy of `base` (a JSON value), at a path `accept` accepts (default: any). */
export function mutate(base: unknown, m: Mutation, accept?: (path: Key[], value: unknown) => boolean): Mutated {
  const root: unknown = structuredClone(base);
  const all = pathsOf(root);
  const paths = accept ? all.filter((p) => accept(p, getAt(root, p))) : all;
  if (paths.length === 0) throw new Error('no path to mutate');
  const path = paths[m.pick % paths.length]!;
  const current = getAt(root, path);
  const where = path.length === 0 ? '(root)' : path.join('.');
  switch (m.op) {
    case 'replace':
      return { value: setAt(root, path, m.value), path, op: m.op, description: `replace ${where} with ${describeValue(m.value, 80)}` };
    case 'delete': {
      if (path.length === 0) return { value: undefined, path, op: m.op, description: 'delete (root)' };
      const parent = getAt(root, path.slice(0, -1));
      const key = path[path.length - 1]!;
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete (parent as Record<Key, unknown>)[key];
      return { value: root, path, op: m.op, description: `delete ${where}` };
    }
    case 'addKey': {
      if (Array.isArray(current)) {
        current.push(m.value);
        return { value: root, path, op: m.op, description: `push ${describeValue(m.value, 80)} onto ${where}` };
      }
      if (isObject(current)) {
        const added = Object.hasOwn(current, m.key) ? undefined : m.key;
        defineOwn(current, m.key, m.value);
        return {
          value: root,
          path,
          op: m.op,
          addedKey: added,
          description: `add key ${JSON.stringify(m.key)} = ${describeValue(m.value, 80)} to ${where}`,
        };
      }
      return { value: setAt(root, path, m.value), path, op: 'replace', description: `replace ${where} with ${describeValue(m.value, 80)}` };
    }
    case 'tweak': {
      let next: unknown;
      if (typeof current === 'string') next = STRING_TWEAKS[m.tweak % STRING_TWEAKS.length]!(current);
      else if (typeof current === 'number') next = NUMBER_TWEAKS[m.tweak % NUMBER_TWEAKS.length]!(current);
      else if (typeof current === 'boolean') next = m.tweak % 2 === 0 ? !current : String(current);
      else if (current === null) next = [0, '', 'null', false, {}, []][m.tweak % 6];
      else next = m.value;
      return {
        value: setAt(root, path, next),
        path,
        op: m.op,
        description: `tweak ${where}: ${describeValue(current, 60)} → ${describeValue(next, 60)}`,
      };
    }
    case 'wrap':
      return { value: setAt(root, path, [current]), path, op: m.op, description: `wrap ${where} in an array` };
    case 'stringify':
      return { value: setAt(root, path, JSON.stringify(current) ?? 'undefined'), path, op: m.op, description: `stringify ${where}` };
  }
}

/** Keys added by mutations: prototype-pollution names first, then ordinary and odd ones. */
export const keyArb = (extra: readonly string[] = []) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype') },
    { weight: 2, arbitrary: fc.constantFrom('toString', 'hasOwnProperty', 'valueOf', 'then', 'length', '0', '', ' ', 'extra', ...extra) },
    { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  );

/** Replacement values: odd ones, other JSON, huge strings, and a few deep values. */
export const replacementArb = (extra: fc.Arbitrary<unknown>[] = [], deepDepths: readonly number[] = [64, 1000]) =>
  fc.oneof(
    { weight: 4, arbitrary: exoticValue },
    { weight: 3, arbitrary: oddNumber },
    { weight: 3, arbitrary: nonCanonicalString },
    { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    { weight: 2, arbitrary: fc.constantFrom<unknown>({}, [], null, '', 0, true) },
    { weight: 1, arbitrary: hugeString },
    { weight: 1, arbitrary: deepArb(deepDepths) },
    { weight: 1, arbitrary: dagArb },
    ...extra.map((arbitrary) => ({ weight: 3, arbitrary })),
  );

export const mutationArb = (options: { ops?: MutationOp[]; values?: fc.Arbitrary<unknown>; keys?: fc.Arbitrary<string> } = {}) =>
  fc.record({
    pick: fc.nat(),
    op: fc.constantFrom<MutationOp>(
      ...(options.ops ?? ['replace', 'replace', 'delete', 'addKey', 'addKey', 'tweak', 'tweak', 'tweak', 'wrap', 'stringify']),
    ),
    value: options.values ?? replacementArb(),
    key: options.keys ?? keyArb(),
    tweak: fc.nat(),
  });

/** Deterministic JSON-like text with sorted keys; own `__proto__` keys are kept as keys. No recursion limit issues for JSON-sized values. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => stableStringify(v === undefined ? null : v)).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableStringify(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Whether a value is within JSON bounds: at most `values` values counted as a tree (shared sub-objects count every
 * time), `depth` levels, and `chars` characters of JSON. Iterative and capped, so it is cheap on any value.
 */
export function withinBounds(value: unknown, bounds: { chars: number; depth: number; values: number }): boolean {
  let count = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, level] = stack.pop()!;
    if (++count > bounds.values) return false;
    if (typeof node !== 'object' || node === null) continue;
    if (level > bounds.depth) return false;
    for (const child of Object.values(node)) stack.push([child, level + 1]);
  }
  try {
    return (JSON.stringify(value) ?? '').length <= bounds.chars;
  } catch {
    return false;
  }
}

/** Own property names of the built-in prototypes, to prove nothing was added to them. */
export function prototypeSnapshot(): Record<string, string[]> {
  return {
    Object: Object.getOwnPropertyNames(Object.prototype).sort(),
    Array: Object.getOwnPropertyNames(Array.prototype).sort(),
    Function: Object.getOwnPropertyNames(Function.prototype).sort(),
    String: Object.getOwnPropertyNames(String.prototype).sort(),
  };
}
