/**
 * The zkApp command a dapp hands over (o1js `tx.toJSON()` shape): era detection, validation, and the values a
 * Ledger account must sign.
 */
import { decodeAddress } from '../apdu/address.js';
import { invalidParams } from '../provider/errors.js';
import type { Era, MinaSignerInternals, SignerNetwork } from '../crypto/mina-signer-internals.js';

/** The public key of the all-zero secret: dapps put it in `feePayer.body.publicKey` to mean "the wallet pays". */
export const EMPTY_PUBLIC_KEY = 'B62qiTKpEPjGTSHZrtM8uXiKgn8So916pLmNJKDhKeyBQL9TDb3nvBG';

/** More account updates than this is no transaction a node would take; refusing early bounds the work. */
export const MAX_ACCOUNT_UPDATES = 1024;

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
    // callDepth is the layout's only plain-number field: the parser passes a missing one through, so check it here.
    const depth = au.body.callDepth;
    if (typeof depth !== 'number' || !Number.isInteger(depth) || depth < 0 || depth > MAX_ACCOUNT_UPDATES) {
      throw invalidParams(`transaction.accountUpdates[${i}].body.callDepth`, 'must be a non-negative integer');
    }
  });
  if (typeof command.memo !== 'string') throw invalidParams('transaction.memo', 'must be a base58 memo string');
  return command;
}

/**
 * The era library's parser has the final word: the command must parse, and serialise back to exactly what was
 * given. The round trip catches what the lenient parser lets through (a missing `callDepth`, an unknown key, a
 * number where a string belongs) and names the first field that differs.
 */
export function checkWithLibrary(command: ZkappCommandJson, internals: MinaSignerInternals): void {
  try {
    internals.Memo.fromBase58(command.memo);
  } catch {
    throw invalidParams('transaction.memo', 'not a base58 Mina memo');
  }
  let canonical: unknown;
  try {
    canonical = internals.ZkappCommand.toJSON(internals.ZkappCommand.fromJSON(command));
  } catch (error) {
    throw invalidParams('transaction', `malformed zkApp command: ${(error as Error).message}`);
  }
  const path = firstDifference(command, canonical);
  if (path !== undefined) throw invalidParams(`transaction${path}`, 'missing, unknown or malformed field in the zkApp command');
}

/** The path of the first place where two JSON values differ, or undefined when they are equal. */
function firstDifference(given: unknown, canonical: unknown, path = ''): string | undefined {
  if (Array.isArray(given) || Array.isArray(canonical)) {
    if (!Array.isArray(given) || !Array.isArray(canonical) || given.length !== canonical.length) return path;
    for (let i = 0; i < given.length; i++) {
      const inner = firstDifference(given[i], canonical[i], `${path}[${i}]`);
      if (inner !== undefined) return inner;
    }
    return undefined;
  }
  if (typeof given === 'object' && given !== null && typeof canonical === 'object' && canonical !== null) {
    const keys = new Set([...Object.keys(given), ...Object.keys(canonical)]);
    for (const key of keys) {
      const inner = firstDifference((given as Record<string, unknown>)[key], (canonical as Record<string, unknown>)[key], `${path}.${key}`);
      if (inner !== undefined) return inner;
    }
    return undefined;
  }
  return given === canonical ? undefined : path;
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

export function commitmentsOf(command: ZkappCommandJson, internals: MinaSignerInternals, network: SignerNetwork) {
  return internals.transactionCommitments(internals.ZkappCommand.fromJSON(command), network);
}
