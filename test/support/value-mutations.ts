/**
 * The mutation engine of the property tests: one mutation of a valid argument (replace, delete, add a key, tweak,
 * wrap in an array, stringify) at a path it picks, described for the failure message, and the arbitraries that
 * draw the mutation, the replacement value and the added key.
 */
import fc from 'fast-check';
import { type Key, defineOwn, describeValue, getAt, isObject, pathsOf } from './json-values.js';
import { dagArb, deepArb, exoticValue, hugeString, nonCanonicalString, oddNumber } from './odd-values.js';

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
