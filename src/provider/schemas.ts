/**
 * zod schemas for every argument at the boundary, with the field names dapps already send (Auro's object form).
 * Unknown extra keys are tolerated and dropped, as existing wallets tolerate them at the top level; deeper shapes
 * (the zkApp command, credentials, presentation requests) are validated by the method that owns them.
 */
import { z } from 'zod';
import { PALLAS_P } from '../apdu/constants.js';
import { decodeAddress } from '../apdu/address.js';
import { utf8 } from '../apdu/bytes.js';
import { displayTextProblem } from '../apdu/display-text.js';
import { invalidParams } from '../errors/provider-error.js';
import { MAX_SIGN_FIELDS } from '../messages/sign-fields.js';
import { MAX_VERIFIED_MESSAGE_CHARS } from '../messages/sign-message.js';
import { checkEndpointUrl } from './networks.js';

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

/**
 * Declares the input type of a schema that parses `unknown` (for the types dapps see: `z.input`); what it accepts at
 * run time is the schema's own business, unchanged.
 */
const accepting =
  <In>() =>
  <S extends z.ZodType>(schema: S) =>
    schema as unknown as z.ZodType<z.output<S>, In>;

/**
 * `schema`, reading a missing argument (`undefined` or `null`) as `{}`: a call without one is refused naming the first
 * field it lacks (`networkID`), as Auro's network methods read it, not `params`.
 */
const absentAsEmpty = <S extends z.ZodType>(schema: S) => accepting<z.input<S>>()(z.preprocess((value) => value ?? {}, schema));

export const jsonObject = (what: keyof typeof LIMITS) => {
  const { chars, depth, values } = LIMITS[what];
  // z.custom keeps the caller's object as it is: a copy by assignment would turn an own "__proto__" key into a
  // prototype and hide it from the checks that follow.
  const plainObject = z.custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), {
    message: `${what} must be a JSON object or JSON text of one`,
  });
  // Typed as what dapps hand over (o1js's `tx.toJSON()` is an object type without an index signature).
  return accepting<string | object>()(
    z.union([z.string(), plainObject]).transform((value, ctx) => {
      const issue = (message: string) => {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      };
      let text = value;
      if (typeof value !== 'string') {
        // An object is read once more, as JSON text, after its walk is bounded: the text is then the only thing
        // read, so a getter of the page's cannot answer one way to the checks and another way later (the result is
        // a plain copy; JSON text keeps an own "__proto__" key an own key).
        const problem = jsonProblem(value, depth, values);
        if (problem) return issue(problem);
        try {
          text = JSON.stringify(value);
        } catch {
          return issue(`${what} must be a JSON object or JSON text of one`);
        }
      }
      if (typeof text !== 'string' || text.length > chars) return issue(`at most ${chars} characters of JSON`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return issue(`${what} must be a JSON object or JSON text of one`);
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        return issue(`${what} must be a JSON object or JSON text of one`);
      const problem = jsonProblem(parsed, depth, values);
      if (problem) return issue(problem);
      return parsed as Record<string, unknown>;
    }),
  );
};

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

/**
 * A memo: at most 32 bytes of UTF-8, without control characters (a NUL would end it on the Ledger's screen, which
 * draws it as a C string, and the others draw nothing: the text rule, src/apdu/display-text.ts).
 */
const memo = z
  .string()
  .refine((m) => utf8.encode(m).length <= 32, 'must be at most 32 UTF-8 bytes')
  .superRefine((m, ctx) => {
    const problem = displayTextProblem(m);
    if (problem) ctx.addIssue({ code: 'custom', message: `must be text the Ledger can show: it ${problem}` });
  });

/**
 * What dapps send for an optional value they leave empty: Auro's documentation passes `fee: ''`, its test dapp
 * `parseFloat('')` / `parseInt('')` (NaN) from empty inputs, others `null`. Auro reads all of them as "not given".
 */
export function isEmptyOptional(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (typeof value === 'number' && Number.isNaN(value));
}

/** An optional value: empty (see `isEmptyOptional`) → undefined, else `schema`. */
const emptyMeansAbsent = <T extends z.ZodType>(schema: T) =>
  z.unknown().transform((value, ctx): z.output<T> | undefined => {
    if (isEmptyOptional(value)) return undefined;
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    for (const issue of result.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    return z.NEVER;
  });

/**
 * MINA → nanomina, rounded to 9 decimals (half up) as Auro rounds: `0.1 + 0.2` is 0.3 MINA. Numbers are read
 * through `toFixed(9)` (exact decimal rounding of the binary value); text must be a plain non-negative decimal.
 * Undefined when the value is no such amount.
 */
export function roundMina(value: number | string): bigint | undefined {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0 || value >= 1e21) return undefined;
    text = value.toFixed(9);
  } else text = value.trim();
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) return undefined;
  const decimals = m[2] ?? '';
  let nanomina = BigInt(m[1]!) * 1_000_000_000n + BigInt(decimals.slice(0, 9).padEnd(9, '0'));
  if (decimals.length > 9 && decimals[9]! >= '5') nanomina += 1n;
  return nanomina;
}

/**
 * An optional fee in MINA (number or decimal text): empty, or zero after rounding to 9 decimals (0, '0', 1e-10),
 * means "not given" (the wallet picks it, as Auro does); negative or non-numeric is 20003. The cap is checked on
 * the fee chosen.
 */
export const optionalFee = accepting<number | string | null | undefined>()(
  z.unknown().transform((value, ctx): bigint | undefined => {
    if (isEmptyOptional(value)) return undefined;
    const nanomina = typeof value === 'number' || (typeof value === 'string' && value.length <= 64) ? roundMina(value) : undefined;
    if (nanomina === undefined) {
      ctx.addIssue({ code: 'custom', message: 'must be an amount of MINA: a non-negative number or decimal text' });
      return z.NEVER;
    }
    // 0 nanomina (0, '0.0', or 1e-10 rounded to 9 decimals as Auro rounds it) is "not given", as Auro reads a zero fee.
    return nanomina === 0n ? undefined : nanomina;
  }),
).optional();

/**
 * `sendTransaction`'s `feePayer.fee`, read as `optionalFee` but not refused here: Auro reads it only when the
 * command's own fee payer fee is 0, and ignores it otherwise. A bad value becomes `{ invalid: reason }`, which the
 * fee choice (src/zkapp/send-transaction.ts) refuses with 20003 naming `feePayer.fee` only when it uses it.
 */
const feeReadWhenUsed = accepting<number | string | null | undefined>()(
  z.unknown().transform((value): bigint | { invalid: string } | undefined => {
    const result = optionalFee.safeParse(value);
    return result.success ? result.data : { invalid: result.error.issues[0]!.message };
  }),
).optional();

/** An amount to send in MINA (number or decimal text, rounded to 9 decimals); 0 is a valid payment amount. */
export const minaAmountRounded = z.union([z.number(), z.string().max(64)]).transform((value, ctx) => {
  const nanomina = roundMina(value);
  if (nanomina === undefined) {
    ctx.addIssue({ code: 'custom', message: 'must be an amount of MINA: a non-negative number or decimal text' });
    return z.NEVER;
  }
  return nanomina;
});

export const optionalNonce = accepting<number | string | null | undefined>()(emptyMeansAbsent(nonce)).optional();
/** Null and '' mean "not given": the command's own memo is kept (a deliberate difference from Auro, docs/provider.md). */
export const optionalMemo = accepting<string | null | undefined>()(emptyMeansAbsent(memo)).optional();

export const sendTransactionParams = z.object({
  transaction: jsonObject('transaction'),
  onlySign: z.boolean().optional(),
  nonce: optionalNonce,
  feePayer: z
    .object({ fee: feeReadWhenUsed, memo: optionalMemo })
    .nullish()
    .transform((fp) => fp ?? undefined),
});

/** Longest text accepted for one message field: p in binary with its `0b` prefix is 257 characters. */
export const MAX_FIELD_TEXT = 1024;

/** `BigInt(text)`, or undefined where it throws (`'1e3'`, `'1.5'`, `'0x'`, `'-0x1'`). */
function bigIntOf(text: string): bigint | undefined {
  try {
    return BigInt(text);
  } catch {
    return undefined;
  }
}

/**
 * A message field as Auro accepts it (it calls `BigInt(value)`): text as `BigInt` reads it (decimal with leading
 * zeros or a `+`, `0x` / `0o` / `0b` prefixes, surrounding whitespace; `''` is 0 as `BigInt('')` is 0n), or an
 * integral number. It must be within the field (0 ≤ x < p): negative values and values ≥ p are refused, where Auro
 * would reduce them silently to another value.
 */
export const messageField = z.union([z.string().max(MAX_FIELD_TEXT), z.number()]).transform((value, ctx) => {
  let field: bigint | undefined;
  if (typeof value === 'number') field = Number.isInteger(value) ? BigInt(value) : undefined;
  else field = bigIntOf(value);
  if (field === undefined || field < 0n || field >= PALLAS_P) {
    ctx.addIssue({
      code: 'custom',
      message:
        'must be a field element 0 ≤ x < p: an integral number, or text that BigInt() reads as one (decimal, 0x/0o/0b, surrounding spaces)',
    });
    return z.NEVER;
  }
  return field;
});

/** Field elements as parsed, and the message as the caller spelled it (results echo it back as `data`, as Auro's). */
export interface SpelledFields {
  fields: bigint[];
  given: (string | number)[];
}

/**
 * A message of field elements (`fields`: each `messageField`, the array within `fields`' bounds) that keeps the
 * caller's spelling beside the values, so a result can return the message as given. Checked exactly as `fields`
 * checks it: the same issues, at the same paths (`message[3]`).
 */
const spelledFields = <S extends z.ZodType<bigint[]>>(fields: S) =>
  accepting<z.input<S>>()(
    z.unknown().transform((given, ctx): SpelledFields => {
      const result = fields.safeParse(given);
      if (result.success) return { fields: result.data, given: [...(given as (string | number)[])] };
      for (const issue of result.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
      return z.NEVER;
    }),
  );

/** `message: []` is a valid nullifier message (a voting dapp sends it): H = hashToGroup(pk). */
export const createNullifierParams = z.object({
  message: spelledFields(z.array(messageField).max(MAX_NULLIFIER_FIELDS)),
});

export const storePrivateCredentialParams = z.object({ credential: jsonObject('credential') });

export const requestPresentationParams = z.object({
  presentation: z.object({
    presentationRequest: jsonObject('presentationRequest'),
    zkAppAccount: z.record(z.string(), z.unknown()).optional(),
  }),
});

export const signMessageParams = z.object({ message: z.string() });

// The field and message methods besides signMessage (their bodies are in src/messages/).
const plainAddress = z.string().regex(/^B62[1-9A-HJ-NP-Za-km-z]{52}$/, 'must be a Mina address (B62…)');
const decimal = z.string().regex(/^\d{1,80}$/, 'must be a decimal string');

/** Any number of well-formed fields (≥ 1); more than the device signs at once is 20006, in `signFieldsOnLedger`. */
export const signFieldsParams = z.object({ message: spelledFields(z.array(messageField).min(1)) });
export const verifyFieldsParams = z.object({
  publicKey: plainAddress,
  data: z.array(messageField).min(1).max(MAX_SIGN_FIELDS),
  signature: z.string().min(1).max(200),
});
const messageSignature = z.object({ field: decimal, scalar: decimal });
/**
 * `{ field, scalar }`, or its JSON text: Auro's test dapp keeps the signature in a text box as
 * `JSON.stringify(signature)` and sends that text back, and Auro parses it (`JSON.parse` when it is a string).
 */
const messageSignatureOrJson = accepting<{ field: string; scalar: string } | string>()(
  z.unknown().transform((value, ctx): z.output<typeof messageSignature> => {
    let parsed = value;
    if (typeof value === 'string') {
      try {
        parsed = value.length <= 1024 ? JSON.parse(value) : undefined;
      } catch {
        parsed = undefined;
      }
    }
    const result = messageSignature.safeParse(parsed);
    if (result.success) return result.data;
    const issue = result.error.issues[0]!;
    ctx.addIssue({
      code: 'custom',
      path: typeof value === 'string' ? [] : issue.path,
      message: typeof value === 'string' ? 'must be { field, scalar } or its JSON text' : issue.message,
    });
    return z.NEVER;
  }),
);
export const verifyMessageParams = z.object({
  publicKey: plainAddress,
  // Bounded before mina-signer hashes it (in time quadratic in its length): ../messages/sign-message.ts.
  data: z
    .string()
    .max(
      MAX_VERIFIED_MESSAGE_CHARS,
      `at most ${MAX_VERIFIED_MESSAGE_CHARS} characters: the host's hash of a message takes time quadratic in its length`,
    ),
  signature: messageSignatureOrJson,
});
/** Auro's `signJsonMessage` argument: `{ message: [{ label, value }, …] }`, signed as its JSON text. */
export const signJsonMessageParams = z.object({
  message: z.array(z.object({ label: z.string(), value: z.union([z.string(), z.number().finite(), z.boolean()]) })).min(1),
});

/**
 * `switchChain({ networkID })`: a network id as text. Whether the provider knows it (20004 otherwise, as Auro answers)
 * is the network list's business (./networks.ts).
 */
export const switchChainParams = absentAsEmpty(z.object({ networkID: z.string().max(64) }));

/**
 * Auro's `addChain({ url, name })`: `url` is a GraphQL endpoint, percent-decoded as Auro decodes it (its test dapp
 * sends `encodeURIComponent(url)`, vimina the plain URL; decoding a plain URL leaves it as it is); `name` names it.
 */
export const addChainParams = absentAsEmpty(
  z.object({
    url: z
      .string()
      .max(2048)
      .transform((value, ctx) => {
        let decoded: string;
        try {
          decoded = decodeURIComponent(value);
        } catch {
          ctx.addIssue({ code: 'custom', message: 'must be a URL, plain or percent-encoded (encodeURIComponent)' });
          return z.NEVER;
        }
        const checked = checkEndpointUrl(decoded);
        if ('problem' in checked) {
          ctx.addIssue({ code: 'custom', message: checked.problem });
          return z.NEVER;
        }
        return checked.href;
      }),
    name: z.string().trim().min(1, 'must name the network').max(64),
  }),
);

/**
 * `revokePermissions()` / `wallet_revokePermissions`: what it revokes is read as every permission of the page, as Auro
 * does; wagmina sends `[{ mina_accounts: {} }]` (EIP-2255's form), which is accepted and changes nothing.
 */
export const revokePermissionsParams = accepting<{ mina_accounts?: object } | undefined>()(z.unknown().transform(() => ({})));

export const deleteCredentialParams = z.object({ id: z.string().regex(/^[0-9a-f]{64}$/, 'must be a credential id (64 hex digits)') });

/** Parses with a schema, or throws 20003 naming the first invalid field (`feePayer.fee`, `message[3]`). */
export function parseParams<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  let result: z.ZodSafeParseResult<z.output<T>>;
  try {
    result = schema.safeParse(value);
  } catch (error) {
    // A Promise where a value belongs (a page that forgot an `await`) reaches a preprocess or transform that hands it
    // on, and zod then throws instead of answering: it is the caller's mistake, 20003, not our bug (22001).
    if (error instanceof z.core.$ZodAsyncError) throw invalidParams('params', 'must hold values, not a Promise (await it first)');
    throw error;
  }
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.reduce<string>(
    (path, key) => (typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${String(key)}` : String(key)),
    '',
  );
  throw invalidParams(field || 'params', issue.message);
}

/** A Mina address, checked the way the device would check it (base58check, version, curve point). */
export const minaAddress = z
  .string()
  .max(64)
  .superRefine((value, ctx) => {
    const decoded = decodeAddress(value);
    if (typeof decoded === 'string') ctx.addIssue({ code: 'custom', message: `not a Mina address (${decoded})` });
  });

/** Auro's `sendPayment` arguments: amount and fee in MINA; empty fee, memo or nonce mean "not given". */
export const sendPaymentParams = z.object({
  to: minaAddress,
  amount: minaAmountRounded,
  fee: optionalFee,
  memo: optionalMemo,
  nonce: optionalNonce,
});

/** Auro's `sendStakeDelegation` arguments: `to` is the block producer to delegate to. */
export const sendStakeDelegationParams = z.object({
  to: minaAddress,
  fee: optionalFee,
  memo: optionalMemo,
  nonce: optionalNonce,
});
