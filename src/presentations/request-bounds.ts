/**
 * A presentation request's circuit is chosen by the verifier (the page), and compiling it is the host's most
 * expensive work: a 17 kB request inside every JSON bound (80 Poseidon hashes of a 1,000-character string,
 * 198,328 rows) ran 13 minutes and reached 8.5 GB before any device prompt. So the circuit is measured from the
 * spec, cheaply (a walk over its JSON, no o1js), and refused before anything is compiled when it is too large.
 *
 * The measure, in "bytes of circuit input", follows what the rows are made of (measured with `analyzeMethods`):
 * every input's data is hashed once (a native credential's signature covers its data), and an operation reads its
 * operands again; hashing a dynamic string costs about 3–5 rows per byte.
 *
 *   cost = D + N × S
 *
 * D: the bytes of every input's data (fixed-size values count 32; DynamicString / DynamicBytes / arrays their
 * maximum length, times the inner size); N: the operation nodes of `assert` and `outputClaim`; S: the largest single
 * input value (bytes). Measured (test/security/hardening.test.ts): a real request (three 12-field credentials, ten
 * assertions) costs 2,848; a 1,000-character string hashed once 12,064 (10,967 rows); ten times 48,064 (32,315
 * rows, refused); the attack 328,064 (198,355 rows, refused).
 */
import { invalidParams } from '../errors/provider-error.js';

/** Largest accepted cost (above: refused with 20003 before any compile). */
export const MAX_PRESENTATION_COST = 16_384;
/** Most credential inputs in one request. */
export const MAX_CREDENTIAL_INPUTS = 4;
const FIXED_BYTES = 32;

export interface PresentationCost {
  cost: number;
  dataBytes: number;
  nodes: number;
  largestValue: number;
  credentialInputs: number;
}

/** Measures a request's spec (the JSON `spec` of a PresentationRequest, already schema-checked). */
export function measurePresentationSpec(spec: unknown): PresentationCost {
  const {
    inputs = {},
    assert,
    outputClaim,
  } = (spec ?? {}) as { inputs?: Record<string, unknown>; assert?: unknown; outputClaim?: unknown };
  let dataBytes = 0;
  let largestValue = 0;
  let credentialInputs = 0;
  for (const input of Object.values(inputs)) {
    const i = input as { type?: unknown; data?: unknown };
    if (i?.type === 'credential') credentialInputs++;
    for (const value of topLevelValues(i?.data)) {
      const bytes = typeBytes(value, 0);
      dataBytes += bytes;
      largestValue = Math.max(largestValue, bytes);
    }
  }
  const nodes = countNodes(assert) + countNodes(outputClaim);
  return { cost: dataBytes + nodes * largestValue, dataBytes, nodes, largestValue, credentialInputs };
}

/** 20003 naming `field` when the request's circuit is beyond the bounds; nothing is compiled before this. */
export function checkPresentationSpec(spec: unknown, field: string): PresentationCost {
  const measured = measurePresentationSpec(spec);
  if (measured.credentialInputs > MAX_CREDENTIAL_INPUTS) {
    throw invalidParams(field, `asks for ${measured.credentialInputs} credentials; at most ${MAX_CREDENTIAL_INPUTS} are presented at once`);
  }
  if (measured.cost > MAX_PRESENTATION_COST) {
    throw invalidParams(
      field,
      `the request's circuit is too large to prove here (cost ${measured.cost} > ${MAX_PRESENTATION_COST}: ` +
        `${measured.dataBytes} bytes of inputs, ${measured.nodes} operations over values up to ${measured.largestValue} bytes)`,
    );
  }
  return measured;
}

/** The values of a credential's or claim's `data`: a type description, or a record of them. */
function topLevelValues(data: unknown): unknown[] {
  if (isType(data)) return [data];
  if (typeof data === 'object' && data !== null) return Object.values(data);
  return [];
}

const isType = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { _type?: unknown })._type === 'string';

/** Bytes of circuit input a serialised type description stands for (bounded recursion: the JSON depth is bounded). */
function typeBytes(type: unknown, depth: number): number {
  if (depth > 64) return Number.POSITIVE_INFINITY;
  if (!isType(type)) {
    // A record of types (a Struct's properties, a nested object).
    if (typeof type === 'object' && type !== null) {
      return Object.values(type).reduce<number>((sum, v) => sum + typeBytes(v, depth + 1), 0);
    }
    return FIXED_BYTES;
  }
  const length = (key: string) => {
    const n = type[key];
    return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : 0;
  };
  const inner = (key: string) => (type[key] === undefined ? FIXED_BYTES : typeBytes(type[key], depth + 1));
  switch (type._type) {
    case 'DynamicString':
    case 'DynamicBytes':
      return Math.max(FIXED_BYTES, length('maxLength'));
    case 'DynamicArray':
    case 'DynamicRecord':
      return Math.max(1, length('maxLength') || length('maxEntries')) * inner('innerType');
    case 'Bytes':
      return Math.max(FIXED_BYTES, length('size'));
    case 'Array':
      return Math.max(1, length('size')) * inner('inner');
    case 'Struct':
      return typeBytes(type.properties ?? {}, depth + 1);
    default:
      return FIXED_BYTES;
  }
}

/** Operation nodes of a spec tree (`{ type, … }` objects), iteratively. */
function countNodes(root: unknown): number {
  let count = 0;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      stack.push(...node);
    } else if (typeof node === 'object' && node !== null) {
      if (typeof (node as { type?: unknown }).type === 'string') count++;
      for (const [key, value] of Object.entries(node)) if (key !== 'data' || !isType(value)) stack.push(value);
    }
  }
  return count;
}
