/**
 * zod schemas for every argument at the boundary, with the field names dapps already send (Auro's object form).
 * Unknown extra keys are tolerated and dropped, as existing wallets tolerate them at the top level; deeper shapes
 * (the zkApp command, credentials, presentation requests) are validated by the method that owns them.
 */
import { z } from 'zod';
import { PALLAS_P } from '../apdu/constants.js';
import { utf8 } from '../apdu/bytes.js';
import { invalidParams } from './errors.js';

/**
 * Bounds on untrusted JSON arguments, checked before any library sees them. mina-attestations' schemas (zod 3 with
 * `z.lazy` unions) spend 1–4 ms on every value that fails deep inside a type description, and far more memory:
 * a 49 kB request of 8 000 values took 25 s and 2 GB, so credentials and requests are bounded by their number of
 * values, not only by their size. `Credential.validate` is quadratic in string length; deep nesting can exhaust the
 * stack. Real arguments stay far below: a request for three 12-field credentials with ten assertions is 284 values,
 * 7 levels and 4.2 kB; a 12-field credential is 61 values; a zkApp command with proofs is below 4 MiB.
 */
export const LIMITS = {
  transaction: { chars: 4 * 1024 * 1024, depth: 32, values: 200_000 },
  credential: { chars: 32 * 1024, depth: 24, values: 2_000 },
  presentationRequest: { chars: 64 * 1024, depth: 48, values: 2_000 },
} as const;
/** Fields in one nullifier message (the extension's limit, docs/apdu-extensions.md). */
export const MAX_NULLIFIER_FIELDS = 64;

/**
 * Why a value is not plain JSON within `depth` levels and `values` values (undefined when it is): only strings,
 * finite numbers, booleans, null, arrays and plain objects; walked iteratively (recursion could overflow the stack)
 * and counted as a tree, so an object graph that reuses sub-objects counts as large as the JSON it stands for.
 */
export function jsonProblem(value: unknown, depth: number, values: number): string | undefined {
  let visited = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, level] = stack.pop()!;
    if (++visited > values) return `more than ${values} values`;
    if (node === null || typeof node === 'string' || typeof node === 'boolean') continue;
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) return 'numbers must be finite';
      continue;
    }
    if (typeof node !== 'object') return `${typeof node} is not a JSON value`;
    if (level > depth) return `nested deeper than ${depth} levels`;
    const proto = Object.getPrototypeOf(node);
    if (!Array.isArray(node) && proto !== Object.prototype && proto !== null) return 'only plain objects and arrays';
    for (const child of Object.values(node)) stack.push([child, level + 1]);
  }
  return undefined;
}

const jsonObject = (what: keyof typeof LIMITS) => {
  const { chars, depth, values } = LIMITS[what];
  // z.custom keeps the caller's object as it is: a copy by assignment would turn an own "__proto__" key into a
  // prototype and hide it from the checks that follow.
  const plainObject = z.custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), {
    message: `${what} must be a JSON object or JSON text of one`,
  });
  return z.union([z.string(), plainObject]).transform((value, ctx) => {
    const issue = (message: string) => {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    };
    if (typeof value === 'string' && value.length > chars) return issue(`at most ${chars} characters of JSON`);
    let parsed: unknown = value;
    if (typeof value === 'string') {
      try {
        parsed = JSON.parse(value);
      } catch {
        return issue(`${what} must be a JSON object or JSON text of one`);
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return issue(`${what} must be a JSON object or JSON text of one`);
    }
    const problem = jsonProblem(parsed, depth, values);
    if (problem) return issue(problem);
    if (typeof value !== 'string' && JSON.stringify(value).length > chars) return issue(`at most ${chars} characters of JSON`);
    return parsed as Record<string, unknown>;
  });
};

/** A MINA amount: a positive number or decimal string with at most 9 decimals, converted exactly to nanomina. */
export const minaAmount = z.union([z.number(), z.string().max(64)]).transform((value, ctx) => {
  const nanomina = parseMina(value);
  if (nanomina === undefined || nanomina <= 0n) {
    ctx.addIssue({ code: 'custom', message: 'must be a positive amount of MINA with at most 9 decimals' });
    return z.NEVER;
  }
  return nanomina;
});

/** Exact decimal → nanomina (never through floating point arithmetic); undefined if not a plain decimal. */
export function parseMina(value: number | string): bigint | undefined {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    // Number#toString is the shortest exact round-trip form; exponent forms are expanded digit by digit.
    text = /e/i.test(String(value)) ? value.toFixed(20).replace(/0+$/, '').replace(/\.$/, '') : String(value);
  } else text = value.trim();
  const m = /^(\d+)(?:\.(\d{1,9}))?$/.exec(text);
  if (!m) return undefined;
  return BigInt(m[1]!) * 1_000_000_000n + BigInt((m[2] ?? '').padEnd(9, '0'));
}

const nonce = z.union([
  z.number().int().min(0).max(0xffffffff),
  z
    .string()
    .regex(/^\d{1,10}$/, 'must be a decimal integer')
    .transform((s) => Number(s))
    .pipe(z.number().max(0xffffffff)),
]);

const memo = z.string().refine((m) => utf8.encode(m).length <= 32, 'must be at most 32 UTF-8 bytes');

export const sendTransactionParams = z.object({
  transaction: jsonObject('transaction'),
  onlySign: z.boolean().optional(),
  nonce: nonce.optional(),
  feePayer: z.object({ fee: minaAmount.optional(), memo: memo.optional() }).optional(),
});

/** A field element given as a decimal string or a safe integer: canonical, 0 ≤ x < p. */
export const fieldElement = z.union([z.string().max(80), z.number()]).transform((value, ctx) => {
  const text = typeof value === 'number' ? (Number.isSafeInteger(value) ? String(value) : '') : value;
  if (!/^(0|[1-9]\d*)$/.test(text) || BigInt(text) >= PALLAS_P) {
    ctx.addIssue({ code: 'custom', message: 'must be a field element: an integer 0 ≤ x < p, as a decimal string or a safe integer' });
    return z.NEVER;
  }
  return BigInt(text);
});

export const createNullifierParams = z.object({
  message: z.array(fieldElement).min(1).max(MAX_NULLIFIER_FIELDS),
});

export const storePrivateCredentialParams = z.object({ credential: jsonObject('credential') });

export const requestPresentationParams = z.object({
  presentation: z.object({
    presentationRequest: jsonObject('presentationRequest'),
    zkAppAccount: z.record(z.string(), z.unknown()).optional(),
  }),
});

export const signMessageParams = z.object({ message: z.string() });

export const emptyParams = z.object({});

export const deleteCredentialParams = z.object({ id: z.string().regex(/^[0-9a-f]{64}$/, 'must be a credential id (64 hex digits)') });

/** Parses with a schema, or throws 20003 naming the first invalid field (`feePayer.fee`, `message[3]`). */
export function parseParams<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.reduce<string>(
    (path, key) => (typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${String(key)}` : String(key)),
    '',
  );
  throw invalidParams(field || 'params', issue.message);
}
