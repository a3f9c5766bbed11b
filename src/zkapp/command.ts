/**
 * The zkApp command a dapp hands over (o1js `tx.toJSON()` shape): era detection, validation, and the values a
 * Ledger account must sign.
 */
import { decodeAddress } from '../apdu/address.js';
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

/** Structural checks that name the field; run before the era is known. */
export function checkShape(value: Record<string, unknown>): ZkappCommandJson {
  const command = value as unknown as ZkappCommandJson;
  const body = command.feePayer?.body;
  if (typeof body !== 'object' || body === null) throw invalidParams('transaction.feePayer.body', 'missing');
  const feePayerKey = decodeAddress(body.publicKey);
  if (typeof feePayerKey === 'string') throw invalidParams('transaction.feePayer.body.publicKey', `not a Mina address (${feePayerKey})`);
  if (!Array.isArray(command.accountUpdates)) throw invalidParams('transaction.accountUpdates', 'must be an array');
  if (command.accountUpdates.length > MAX_ACCOUNT_UPDATES) {
    throw invalidParams('transaction.accountUpdates', `at most ${MAX_ACCOUNT_UPDATES} account updates`);
  }
  command.accountUpdates.forEach((au, i) => {
    const key = typeof au?.body?.publicKey === 'string' ? decodeAddress(au.body.publicKey) : 'missing';
    if (typeof key === 'string') throw invalidParams(`transaction.accountUpdates[${i}].body.publicKey`, `not a Mina address (${key})`);
    const kind = au.body.authorizationKind;
    if (kind?.isSigned === true && kind?.isProved === true) {
      throw invalidParams(`transaction.accountUpdates[${i}].body.authorizationKind`, 'cannot be both signed and proved');
    }
  });
  if (typeof command.memo !== 'string') throw invalidParams('transaction.memo', 'must be a base58 memo string');
  return command;
}

/**
 * The era library has the final word. First the command must fit the era's generated JSON layout exactly: the same
 * keys (an unknown or missing one is named), booleans where the layout has Bool, integers for callDepth, decimal
 * strings for numbers, 8 or 32 app-state entries. (The library's own parser is lenient: it passes a missing
 * callDepth, a `0` for a Bool or an own `__proto__` key straight through, and the commitment would then be computed
 * from whatever JavaScript makes of them.) Then the parser must accept it (valid keys and ranges).
 */
export function checkWithLibrary(command: ZkappCommandJson, internals: MinaSignerInternals): void {
  checkLayout(command, internals.zkappCommandLayout, 'transaction');
  try {
    internals.Memo.fromBase58(command.memo);
  } catch {
    throw invalidParams('transaction.memo', 'not a base58 Mina memo');
  }
  try {
    internals.ZkappCommand.fromJSON(command);
  } catch (error) {
    throw invalidParams('transaction', `malformed zkApp command: ${(error as Error).message}`);
  }
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
      if (typeof value !== 'string' || !DECIMAL.test(value)) throw fail('must be a decimal string');
      return;
    case 'Sign':
      if (value !== 'Positive' && value !== 'Negative') throw fail('must be "Positive" or "Negative"');
      return;
    case 'AuthRequired':
      if (typeof value !== 'string' || !AUTH_REQUIRED.has(value)) throw fail('must be None, Proof, Signature, Either or Impossible');
      return;
    default:
      // PublicKey, TokenId, string: text the library parses (and refuses) itself.
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
export function commitmentsOf(command: ZkappCommandJson, internals: MinaSignerInternals, network: SignerNetwork) {
  try {
    return internals.transactionCommitments(internals.ZkappCommand.fromJSON(command), network);
  } catch (error) {
    throw invalidParams('transaction', `malformed zkApp command: ${(error as Error).message}`);
  }
}
