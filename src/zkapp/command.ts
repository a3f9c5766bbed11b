/**
 * The zkApp command a dapp hands over (o1js `tx.toJSON()` shape): era detection, validation, and the values a
 * Ledger account must sign.
 */
import { decodeAddress, decodeAddressBytes } from '../apdu/address.js';
import { utf8 } from '../apdu/bytes.js';
import { displayTextProblem } from '../apdu/display-text.js';
import { memoText } from '../apdu/sign-zkapp.js';
import { MAX_SYMBOL_BYTES, MAX_URI_BYTES } from '../apdu/zkapp-body.js';
import { invalidParams } from '../errors/provider-error.js';
import type { Era, Layout, MinaSignerInternals, SignerNetwork } from '../upstream/mina-signer-modules.js';

/** The public key of the all-zero secret: dapps put it in `feePayer.body.publicKey` to mean "the wallet pays". */
export const EMPTY_PUBLIC_KEY = 'B62qiTKpEPjGTSHZrtM8uXiKgn8So916pLmNJKDhKeyBQL9TDb3nvBG';

/**
 * The most account updates a node accepts in one zkApp command: the daemon's cost limit (o1js TransactionCost, as
 * `verifyTransactionLimits` checks it) is 10.26·proofs + 10.08·signed pairs + 9.14·signed singles < 69.45, counting
 * the fee payer; the cheapest layout (everything in signed pairs) fits 12 parties, the fee payer and 11 updates.
 * Refusing more before any hashing bounds the host's work (28 ms of blocking hashing per update; 1,024 took 45 s).
 */
export const MAX_ACCOUNT_UPDATES = 11;

/**
 * Event and action field elements per command: o1js 2.15 `TransactionLimits.MAX_EVENT_ELEMENTS` and
 * `MAX_ACTION_ELEMENTS` (lib/mina/v1/constants.js, checked by `verifyTransactionLimits`), the daemon's genesis
 * constants `max_event_elements` and `max_action_elements`: 100 each. An event or action without fields counts as one
 * (it is hashed all the same).
 */
export const MAX_EVENT_FIELDS = 100;
export const MAX_ACTION_FIELDS = 100;
/**
 * The longest zkApp URI: the extension's 255 bytes (SIGN_ZKAPP carries it with one length byte, so a longer one
 * could not be shown on a device). The token symbol's limit is the protocol's 6 bytes (mina-signer `TokenSymbol`).
 */
export const MAX_ZKAPP_URI_BYTES = MAX_URI_BYTES;
export const MAX_TOKEN_SYMBOL_BYTES = MAX_SYMBOL_BYTES;
/** A base58 memo is 53 or 54 characters (39 bytes: version, 34 memo bytes, checksum); longer text is no memo. */
const MAX_MEMO_CHARS = 64;
/** A field in decimal has at most 77 digits (p < 10^77), a u64 20: longer text is refused before BigInt reads it. */
const MAX_DECIMAL_CHARS = 78;
/** A public key or token id in base58 is at most 55 characters; base58 decoding is quadratic in the length. */
const MAX_BASE58_CHARS = 64;

const APP_STATE_LENGTH: Record<Era, number> = { berkeley: 8, mesa: 32 };

export interface ZkappCommandJson {
  feePayer: { body: { publicKey: string; fee: string; validUntil: string | null; nonce: string }; authorization: string };
  accountUpdates: AccountUpdateJson[];
  memo: string;
}

export interface AccountUpdateJson {
  body: {
    publicKey: string;
    useFullCommitment: boolean;
    authorizationKind: { isSigned: boolean; isProved: boolean; verificationKeyHash: string };
    update: { appState: unknown[] };
    preconditions: { account: { state: unknown[] } };
    [key: string]: unknown;
  };
  authorization: { proof?: string | null; signature?: string | null; [key: string]: unknown };
}

/**
 * The protocol era from the command's shape: every app-state array (update and precondition of every account
 * update) has 8 entries (Berkeley) or 32 (Mesa). Mixed or other lengths are refused. A command without account
 * updates has no shape; `fallback` decides.
 */
export function detectEra(command: ZkappCommandJson, fallback: Era): Era {
  const lengths = new Set<number>();
  command.accountUpdates.forEach((au, i) => {
    const update = au?.body?.update?.appState;
    const precondition = au?.body?.preconditions?.account?.state;
    if (!Array.isArray(update)) throw invalidParams(`transaction.accountUpdates[${i}].body.update.appState`, 'must be an array');
    if (!Array.isArray(precondition)) {
      throw invalidParams(`transaction.accountUpdates[${i}].body.preconditions.account.state`, 'must be an array');
    }
    lengths.add(update.length).add(precondition.length);
  });
  if (lengths.size === 0) return fallback;
  const [only] = lengths;
  if (lengths.size === 1 && only === APP_STATE_LENGTH.berkeley) return 'berkeley';
  if (lengths.size === 1 && only === APP_STATE_LENGTH.mesa) return 'mesa';
  throw invalidParams(
    'transaction',
    `unsupported zkApp state layout: app-state arrays of length ${[...lengths].join(', ')} (8 = Berkeley, 32 = Mesa, never mixed)`,
  );
}

/**
 * Structural checks that name the field; run before the era is known, and before any library parses or hashes the
 * command: what the host will hash is bounded here (account updates, URI and token-symbol bytes, event and action
 * fields, the memo's length), and every text is one a device can show as signed (display-text.ts).
 */
export function checkShape(value: Record<string, unknown>): ZkappCommandJson {
  const command = value as unknown as ZkappCommandJson;
  const body = command.feePayer?.body;
  if (typeof body !== 'object' || body === null) throw invalidParams('transaction.feePayer.body', 'missing');
  // The empty key is no curve point, but it is the documented placeholder for "the wallet pays" (replaced before use).
  const feePayerKey = body.publicKey === EMPTY_PUBLIC_KEY ? decodeAddressBytes(body.publicKey) : decodeAddress(body.publicKey);
  if (typeof feePayerKey === 'string') throw invalidParams('transaction.feePayer.body.publicKey', `not a Mina address (${feePayerKey})`);
  if (!Array.isArray(command.accountUpdates)) throw invalidParams('transaction.accountUpdates', 'must be an array');
  if (command.accountUpdates.length > MAX_ACCOUNT_UPDATES) {
    throw invalidParams('transaction.accountUpdates', `at most ${MAX_ACCOUNT_UPDATES} account updates`);
  }
  const emitted = { events: 0, actions: 0 };
  command.accountUpdates.forEach((au, i) => {
    const path = `transaction.accountUpdates[${i}].body`;
    const key = typeof au?.body?.publicKey === 'string' ? decodeAddress(au.body.publicKey) : 'missing';
    if (typeof key === 'string') throw invalidParams(`${path}.publicKey`, `not a Mina address (${key})`);
    const kind = au.body.authorizationKind;
    if (kind?.isSigned === true && kind?.isProved === true) {
      throw invalidParams(`${path}.authorizationKind`, 'cannot be both signed and proved');
    }
    const update = au.body.update as { zkappUri?: unknown; tokenSymbol?: unknown } | undefined;
    checkText(update?.zkappUri, `${path}.update.zkappUri`, MAX_ZKAPP_URI_BYTES);
    checkText(update?.tokenSymbol, `${path}.update.tokenSymbol`, MAX_TOKEN_SYMBOL_BYTES, { ascii: true });
    for (const [what, max] of [
      ['events', MAX_EVENT_FIELDS],
      ['actions', MAX_ACTION_FIELDS],
    ] as const) {
      emitted[what] += fieldCount(au.body[what]);
      if (emitted[what] > max) {
        throw invalidParams(
          `${path}.${what}`,
          `the command's ${what} hold more than ${max} field elements (o1js and the daemon accept at most ${max} per command)`,
        );
      }
    }
  });
  if (typeof command.memo !== 'string' || command.memo.length > MAX_MEMO_CHARS) {
    throw invalidParams('transaction.memo', 'must be a base58 memo string');
  }
  return command;
}

/**
 * An optional text of the command (null: not set): at most `max` bytes of UTF-8, and one a device can show as signed
 * (`ascii`: printable ASCII only, as a token symbol).
 */
function checkText(value: unknown, field: string, max: number, rule: { ascii?: boolean } = {}): void {
  if (value === null || value === undefined) return;
  if (typeof value !== 'string') throw invalidParams(field, 'must be a string or null');
  // Every UTF-16 code unit takes at least one UTF-8 byte: a long string is refused before it is encoded.
  if (value.length > max || utf8.encode(value).length > max) throw invalidParams(field, `must be at most ${max} bytes of UTF-8`);
  const problem = displayTextProblem(value, rule);
  if (problem) throw invalidParams(field, problem);
}

/** Field elements of events or actions (`[[f, …], …]`), an entry without fields counting as one; 0 when not that shape. */
function fieldCount(list: unknown): number {
  if (!Array.isArray(list)) return 0;
  return list.reduce<number>((n, entry) => n + (Array.isArray(entry) ? Math.max(1, entry.length) : 1), 0);
}

/**
 * The era library has the final word. First the command must fit the era's generated JSON layout exactly: the same
 * keys (an unknown or missing one is named), booleans where the layout has Bool, integers for callDepth, decimal
 * strings for numbers, 8 or 32 app-state entries. (The library's own parser is lenient: it passes a missing
 * callDepth, a `0` for a Bool or an own `__proto__` key straight through, and the commitment would then be computed
 * from whatever JavaScript makes of them.) Then the parser must accept it (valid keys and ranges).
 */
export function checkWithLibrary(command: ZkappCommandJson, internals: MinaSignerInternals): ParsedZkappCommand {
  checkLayout(command, internals.zkappCommandLayout, 'transaction');
  checkMemo(command.memo, internals);
  try {
    return internals.ZkappCommand.fromJSON(command) as ParsedZkappCommand;
  } catch (error) {
    throw invalidParams('transaction', `malformed zkApp command: ${(error as Error).message}`);
  }
}

/** A base58 memo whose text a device can show as signed: UTF-8 without control characters (display-text.ts). */
function checkMemo(memo: string, internals: MinaSignerInternals): void {
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(internals.Memo.toBytes(internals.Memo.fromBase58(memo)));
  } catch {
    throw invalidParams('transaction.memo', 'not a base58 Mina memo');
  }
  if (memoText(bytes) === undefined) {
    throw invalidParams(
      'transaction.memo',
      'must be UTF-8 text without control characters: a NUL would cut it on the Ledger, others draw nothing',
    );
  }
}

/** mina-signer's bigint zkApp command (`ZkappCommand.fromJSON`), as far as the host reads it. */
export interface ParsedZkappCommand {
  feePayer: { body: { publicKey: { x: bigint; isOdd: boolean }; fee: bigint; nonce: bigint; validUntil?: bigint } };
  accountUpdates: { body: { callDepth: number } & Record<string, unknown> }[];
  /** Base58. */
  memo: string;
}

/**
 * The parsed command with the fee payer and memo of `command` (filled in after the first parse): only they are parsed
 * again, so the account updates (their URIs, events and actions) are parsed and hashed once.
 */
export function withFeePayer(parsed: ParsedZkappCommand, command: ZkappCommandJson, internals: MinaSignerInternals): ParsedZkappCommand {
  let head: ParsedZkappCommand;
  try {
    head = internals.ZkappCommand.fromJSON({ ...command, accountUpdates: [] }) as ParsedZkappCommand;
  } catch (error) {
    throw invalidParams('transaction.feePayer', `malformed fee payer: ${(error as Error).message}`);
  }
  return { ...head, accountUpdates: parsed.accountUpdates };
}

const DECIMAL = /^(0|[1-9]\d*)$/;
const AUTH_REQUIRED = new Set(['None', 'Proof', 'Signature', 'Either', 'Impossible']);

/** Checks a JSON value against a layout node; throws 20003 naming the first path that does not fit. */
function checkLayout(value: unknown, layout: Layout, path: string): void {
  const fail = (reason: string) => invalidParams(path, reason);
  switch (layout.type) {
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw fail('must be an object');
      const keys = layout.keys ?? [];
      // Own keys only: JSON.parse makes "__proto__" an own key, which must count as unknown like any other.
      for (const key of Object.keys(value)) if (!keys.includes(key)) throw invalidParams(`${path}.${key}`, 'unknown field');
      for (const key of keys) {
        const entry = layout.entries![key]!;
        // Every key must be there, as o1js writes it (an absent value is null), so what is signed is what was read.
        if (!Object.hasOwn(value, key)) throw invalidParams(`${path}.${key}`, 'missing (use null for no value)');
        checkLayout((value as Record<string, unknown>)[key], entry, `${path}.${key}`);
      }
      return;
    }
    case 'array':
      if (!Array.isArray(value)) throw fail('must be an array');
      if (typeof layout.staticLength === 'number' && value.length !== layout.staticLength) {
        throw fail(`must have ${layout.staticLength} entries, has ${value.length}`);
      }
      for (const [i, item] of value.entries()) checkLayout(item, layout.inner!, `${path}[${i}]`);
      return;
    case 'option':
      if (value !== null && value !== undefined) checkLayout(value, layout.inner!, path);
      return;
    case 'Bool':
      if (typeof value !== 'boolean') throw fail('must be true or false');
      return;
    case 'number':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_ACCOUNT_UPDATES)
        throw fail('must be a small non-negative integer');
      return;
    case 'UInt64':
    case 'UInt32':
    case 'Field':
      if (typeof value !== 'string' || value.length > MAX_DECIMAL_CHARS || !DECIMAL.test(value)) throw fail('must be a decimal string');
      return;
    case 'Sign':
      if (value !== 'Positive' && value !== 'Negative') throw fail('must be "Positive" or "Negative"');
      return;
    case 'AuthRequired':
      if (typeof value !== 'string' || !AUTH_REQUIRED.has(value)) throw fail('must be None, Proof, Signature, Either or Impossible');
      return;
    case 'PublicKey': {
      // Every key of the command (account, delegate, preconditions) is a curve point: none that no key can sign for.
      const decoded = typeof value === 'string' && value.length <= MAX_BASE58_CHARS ? decodeAddress(value) : 'not a base58 string';
      if (typeof decoded === 'string') throw fail(`not a Mina address (${decoded})`);
      return;
    }
    case 'TokenId':
      // Base58 the library decodes (and refuses) itself, in time quadratic in the length: bounded first.
      if (typeof value !== 'string' || value.length > MAX_BASE58_CHARS)
        throw fail(`must be a base58 string (at most ${MAX_BASE58_CHARS} characters)`);
      return;
    default:
      // string (URI, token symbol: bounded by checkShape; proofs, keys, signatures: kept as text, not parsed).
      if (typeof value !== 'string') throw fail('must be a string');
  }
}

/** A value the account must sign, and where each signature goes. */
export interface SigningSlot {
  /** 'feePayer' or the index of an account update. */
  target: 'feePayer' | number;
  value: bigint;
}

/**
 * Every signature `address` owes: the fee payer's (fullCommitment) when it pays, and each account update of that
 * key with `authorizationKind.isSigned` (fullCommitment or commitment per `useFullCommitment`).
 */
export function signingSlots(
  command: ZkappCommandJson,
  address: string,
  commitments: { commitment: bigint; fullCommitment: bigint },
): SigningSlot[] {
  const slots: SigningSlot[] = [];
  if (command.feePayer.body.publicKey === address) slots.push({ target: 'feePayer', value: commitments.fullCommitment });
  command.accountUpdates.forEach((au, i) => {
    if (au.body.authorizationKind?.isSigned !== true || au.body.publicKey !== address) return;
    slots.push({ target: i, value: au.body.useFullCommitment ? commitments.fullCommitment : commitments.commitment });
  });
  return slots;
}

/** The library refuses some combinations only while hashing (e.g. an authorization kind it cannot hash): still bad input. */
export function commitmentsOf(command: ParsedZkappCommand, internals: MinaSignerInternals, network: SignerNetwork) {
  try {
    return internals.transactionCommitments(command, network);
  } catch (error) {
    throw invalidParams('transaction', `malformed zkApp command: ${(error as Error).message}`);
  }
}
