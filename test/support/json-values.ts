/**
 * JSON-like values in the property tests: described briefly for failure messages, walked path by path, written with
 * own keys (an own `__proto__` stays data), compared with sorted keys, and measured against bounds. Paths and
 * bounds are walked in loops, so a deep value never overflows the TEST's stack.
 */
import fc from 'fast-check';

export type Key = string | number;

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

/** A plain object (not null, not an array). */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

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
