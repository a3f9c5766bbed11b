/**
 * A call's arguments, read once: a plain-data copy taken at the boundary, before any check, so that every check and
 * all the work that follows see one and the same value. A page's object may answer each read differently (a getter,
 * a Proxy): an `accountUpdates` getter could answer one update to the bound and 300 to the signer, a presentation
 * request's `spec` getter a small circuit to the cost bound and a large one to the compiler.
 *
 * The copy keeps what JSON-like arguments are made of: plain objects (own enumerable string keys, each read once, an
 * own `__proto__` key kept as an own key), arrays (their length read once, then each index), and primitives. Any
 * other object (a class instance, a typed array, a function) is kept as it is, for the schemas to refuse: no
 * argument of any method accepts one. The walk is iterative and bounded: it reads at most `SNAPSHOT_VALUES` values
 * (a graph that reuses sub-objects counts as the tree it stands for) and `SNAPSHOT_DEPTH` levels, beyond which the
 * rest is kept as it is. Both bounds are above every method's own (a zkApp command: 200,000 values and 32 levels; a
 * presentation request: 48 levels), so what lies beyond them is refused by the method's schema, or dropped unread
 * when it is under a key no schema reads: the copy changes no outcome but a getter's.
 */
import { invalidParams } from '../errors/provider-error.js';

/** Most values read: above every method's own bound (a zkApp command: 200,000), so the schemas still name theirs. */
export const SNAPSHOT_VALUES = 250_000;
/** Deepest nesting read: above every method's own bound (a presentation request: 48 levels). */
export const SNAPSHOT_DEPTH = 64;

const isPlainObject = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/** `value` as plain data, each property read once (see above). 20003 when reading it throws (a getter, a proxy). */
export function snapshotArguments(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  let read = 0;
  let root: unknown;
  // [source, where its copy goes, its depth]
  const stack: [unknown, (copy: unknown) => void, number][] = [[value, (copy) => (root = copy), 1]];
  try {
    while (stack.length > 0) {
      const [source, place, depth] = stack.pop()!;
      const copyable = typeof source === 'object' && source !== null && (Array.isArray(source) || isPlainObject(source));
      if (!copyable || ++read > SNAPSHOT_VALUES || depth > SNAPSHOT_DEPTH) {
        place(source); // a primitive; or beyond the bounds: kept as it is, for the schema to refuse or drop
        continue;
      }
      if (Array.isArray(source)) {
        const length = source.length;
        const copy: unknown[] = new Array(length);
        place(copy);
        for (let i = length - 1; i >= 0; i--) stack.push([source[i], (v) => (copy[i] = v), depth + 1]);
      } else {
        const copy: Record<string, unknown> = Object.getPrototypeOf(source) === null ? Object.create(null) : {};
        place(copy);
        const keys = Object.keys(source);
        for (let i = keys.length - 1; i >= 0; i--) {
          const key = keys[i]!;
          const inner = (source as Record<string, unknown>)[key];
          // defineProperty: an own "__proto__" key stays an own key (an assignment would set the prototype).
          const define = (v: unknown) =>
            Object.defineProperty(copy, key, { value: v, enumerable: true, writable: true, configurable: true });
          stack.push([inner, define, depth + 1]);
        }
      }
    }
  } catch {
    throw invalidParams('params', 'could not be read: a getter or proxy of the page threw');
  }
  return root;
}
