/**
 * A presentation request's circuit is chosen by the verifier (the page), and compiling it is the host's most
 * expensive work: a 17 kB request inside every JSON bound (80 Poseidon hashes of a 1,000-character string,
 * 198,328 rows) ran 13 minutes and reached 8.5 GB before any device prompt. So the circuit is measured from the
 * spec, cheaply (a walk over its JSON, no o1js), and refused before anything is compiled when it is too large.
 *
 * The measure, in "bytes of circuit input", follows what the rows are made of (measured with `analyzeMethods`):
 * every input's data is hashed once (a native credential's signature covers its data), and each operation reads its
 * operands again; hashing a dynamic string costs about 3–5 rows per byte, one hash of a 256-field credential 3,300.
 *
 *   cost = D + Σ over the operation nodes of max(S, R(node)) + V(outputClaim)
 *
 * D: the bytes of every input's data (fixed-size values count 32; DynamicString / DynamicBytes / arrays their
 * maximum length, times the inner size); S: the largest single input value (bytes), the least any node is charged;
 * R(node): the bytes its operands really read, each operand at the size of its value V: a whole credential, `root`
 * or a record at its full size (every value of it is read: `hash(credential)` reads the whole credential), a
 * property at its own type's size, a constant at its type's; V(outputClaim): the public output. Measured
 * (test/presentations/request-bounds.test.ts): the tests' request 542; a real
 * request (three 12-field credentials, ten assertions) 5,472; a 1,000-character string hashed once 12,128
 * (10,967 rows); ten times 48,704 (32,315 rows, refused); the review's 13-minute request 334,744 (198,355 rows,
 * refused); 126 hashes of a whole 256-field credential (≈ 423,000 rows, which the earlier measure, charging every
 * node S, let through at 16,320) 1,052,512 (refused), one such hash 16,512 (refused: ≈ 7,300 rows, the measure
 * errs on the safe side for credentials of many fields).
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
  const inputBytes = new Map<string, number>();
  for (const [key, input] of Object.entries(inputs)) {
    const i = input as { type?: unknown; data?: unknown };
    if (i?.type === 'credential') credentialInputs++;
    let bytes = 0;
    for (const value of topLevelValues(i?.data)) {
      const valueBytes = typeBytes(value, 0);
      bytes += valueBytes;
      largestValue = Math.max(largestValue, valueBytes);
    }
    inputBytes.set(key, bytes);
    dataBytes += bytes;
  }
  const values = new ValueSizes(inputs, inputBytes, dataBytes);
  let operationBytes = 0;
  let nodes = 0;
  for (const node of operationNodes([assert, outputClaim])) {
    nodes++;
    operationBytes += Math.max(largestValue, values.read(node));
  }
  const outputBytes = outputClaim === undefined ? 0 : values.size(outputClaim);
  return { cost: dataBytes + operationBytes + outputBytes, dataBytes, nodes, largestValue, credentialInputs };
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

type SpecNode = { type: string } & Record<string, unknown>;

const isNode = (value: unknown): value is SpecNode =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { type?: unknown }).type === 'string';

/** A node's operands: the nodes directly under it (a constant's `data` is a value, not an operand). */
function operands(node: SpecNode): SpecNode[] {
  const found: SpecNode[] = [];
  const stack: unknown[] = Object.entries(node)
    .filter(([key]) => !(key === 'data' && node.type === 'constant'))
    .map(([, value]) => value);
  while (stack.length > 0) {
    const value = stack.pop();
    if (isNode(value)) found.push(value);
    else if (Array.isArray(value)) stack.push(...value);
    else if (typeof value === 'object' && value !== null && !isType(value)) stack.push(...Object.values(value)); // a record's `data`
  }
  return found;
}

/** Every operation node of the spec trees (`{ type, … }` objects), iteratively. */
function operationNodes(roots: unknown[]): SpecNode[] {
  const nodes: SpecNode[] = [];
  const stack: unknown[] = [...roots];
  while (stack.length > 0) {
    const value = stack.pop();
    if (isNode(value)) {
      nodes.push(value);
      stack.push(...operands(value));
    } else if (Array.isArray(value)) stack.push(...value);
  }
  return nodes;
}

/** Nodes whose value is a fixed-size element (a hash, a boolean, a field, a key's hash). */
const FIXED_RESULTS = new Set([
  'hash',
  'equals',
  'equalsOneOf',
  'lessThan',
  'lessThanEq',
  'and',
  'or',
  'not',
  'owner',
  'issuer',
  'issuerPublicKey',
  'verificationKeyHash',
]);

/** The size of each node's value and what each node reads, from the inputs' types (bounded recursion, memoised). */
class ValueSizes {
  readonly #sizes = new Map<SpecNode, number>();

  constructor(
    private readonly inputs: Record<string, unknown>,
    private readonly inputBytes: Map<string, number>,
    private readonly rootBytes: number,
  ) {}

  /** The bytes `node` reads: its operands' values (a property: the value it extracts). */
  read(node: SpecNode): number {
    if (node.type === 'property') return this.size(node);
    return operands(node).reduce((sum, operand) => sum + this.size(operand), 0);
  }

  /** The bytes of `node`'s value. */
  size(node: unknown, depth = 0): number {
    if (!isNode(node)) return 0;
    if (depth > 64) return Number.POSITIVE_INFINITY;
    const known = this.#sizes.get(node);
    if (known !== undefined) return known;
    const size = this.#size(node, depth);
    this.#sizes.set(node, size);
    return size;
  }

  #size(node: SpecNode, depth: number): number {
    if (FIXED_RESULTS.has(node.type)) return FIXED_BYTES;
    switch (node.type) {
      case 'constant':
        return typeBytes(node.data, 0);
      case 'root':
        return this.rootBytes;
      case 'credential':
        return this.inputBytes.get(String(node.credentialKey)) ?? this.rootBytes;
      case 'property': {
        const type = this.#typeOf(node, 0);
        return type === undefined ? this.size(node.inner, depth + 1) : typeBytes(type, 0);
      }
      case 'record':
        return operands(node).reduce((sum, operand) => sum + this.size(operand, depth + 1), 0);
      default:
        // Arithmetic, ifThenElse and what this measure does not know: as large as its largest operand.
        return operands(node).reduce((largest, operand) => Math.max(largest, this.size(operand, depth + 1)), FIXED_BYTES);
    }
  }

  /** The type description of a property's value, where the inputs' types tell it; undefined otherwise. */
  #typeOf(node: SpecNode, depth: number): unknown {
    if (depth > 64) return undefined;
    const key = String(node.key);
    const inner = node.inner as SpecNode | undefined;
    if (inner?.type === 'root') return (this.inputs[key] as { data?: unknown } | undefined)?.data;
    if (inner?.type === 'credential')
      return fieldOf((this.inputs[String(inner.credentialKey)] as { data?: unknown } | undefined)?.data, key);
    if (inner?.type === 'property') return fieldOf(this.#typeOf(inner, depth + 1), key);
    return undefined;
  }
}

/** The type of field `key` of a record of types or a Struct; undefined where that is not known. */
function fieldOf(type: unknown, key: string): unknown {
  if (typeof type !== 'object' || type === null) return undefined;
  const fields = isType(type) ? (type._type === 'Struct' ? type.properties : undefined) : type;
  if (typeof fields !== 'object' || fields === null || !Object.hasOwn(fields, key)) return undefined;
  return (fields as Record<string, unknown>)[key];
}
