/**
 * The credential store of `chain_storePrivateCredential`: the interface both stores implement (a file per account in
 * Node, IndexedDB in browsers), its error, and the input checks they share. Encryption is in `store-crypto.ts`; the
 * format, the crypto and what a copied store reveals are described in docs/credentials.md.
 */
import { decodeAddress } from '../apdu/address.js';
import { utf8 } from '../apdu/bytes.js';

export interface CredentialEntry {
  /** Hex HMAC-SHA256 of the canonical credential under the account's id key (see `credentialId`). */
  id: string;
  /** The JSON text exactly as it was first stored. */
  credential: string;
  /** ISO 8601 date of the first `add`. */
  storedAt: string;
}

export interface CredentialStore {
  /** All entries of `account` (a B62… address), decrypted with the account's store secret, oldest first. */
  list(account: string, secret: Uint8Array): Promise<CredentialEntry[]>;
  /** Adds a credential; returns its id and whether it was already stored (then nothing is written). */
  add(account: string, secret: Uint8Array, credential: string): Promise<{ id: string; duplicate: boolean }>;
  /** Removes by id; false if absent. */
  remove(account: string, secret: Uint8Array, id: string): Promise<boolean>;
  /**
   * Re-keys the account's store under a fresh random salt (every entry re-encrypted, ids and dates kept); false if
   * the account has no store. Both built-in stores have it; a store without it cannot be re-keyed (the credential
   * manager's `rekey()` then answers 20006). It protects against leaked derived keys, not a leaked store-key
   * signature (docs/credentials.md).
   */
  rekey?(account: string, secret: Uint8Array): Promise<boolean>;
}

/**
 * - `invalid`: an argument is wrong (not an address, a secret that is not 32 bytes, not JSON object text, too large);
 * - `wrong-key`: the store of this account was written with another secret (checked before any entry is decrypted);
 * - `corrupt`: the stored data is damaged or was tampered with (bad format, an entry failing authentication, an
 *   entry moved from another account or id);
 * - `io`: the storage itself failed (permissions, disk, IndexedDB unavailable, a lock held too long).
 */
export type CredentialStoreErrorKind = 'wrong-key' | 'corrupt' | 'io' | 'invalid';

export class CredentialStoreError extends Error {
  override readonly name = 'CredentialStoreError';
  readonly kind: CredentialStoreErrorKind;

  constructor(kind: CredentialStoreErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
  }
}

/** A store error of kind `io`: what failed, and why (a Node error's or a DOMException's message). */
export function ioError(what: string, cause: unknown): CredentialStoreError {
  const reason =
    cause instanceof Error || (typeof DOMException !== 'undefined' && cause instanceof DOMException) ? cause.message : String(cause);
  return new CredentialStoreError('io', `${what}: ${reason}`, { cause });
}

export function isCredentialStoreError(value: unknown): value is CredentialStoreError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { name?: unknown }).name === 'CredentialStoreError' &&
    typeof (value as { kind?: unknown }).kind === 'string'
  );
}

/** Largest credential accepted, in UTF-8 bytes of its JSON text (credentials are about 1 kB). */
export const MAX_CREDENTIAL_BYTES = 64 * 1024;
/** Deepest nesting accepted in a credential (mina-attestations credentials nest a handful of levels). */
export const MAX_CREDENTIAL_DEPTH = 64;
/** Length of the store secret the provider derives from the device, in bytes. */
export const STORE_SECRET_BYTES = 32;

const ID_PATTERN = /^[0-9a-f]{64}$/;

/** The store's `account` (a store keeps one record set per account address): a Mina address, else 'invalid'. */
export function checkAccountAddress(account: unknown): string {
  const decoded = decodeAddress(account as string);
  if (typeof decoded === 'string') throw new CredentialStoreError('invalid', `account: not a Mina address (${decoded})`);
  return account as string;
}

export function checkSecret(secret: unknown): Uint8Array {
  // Also a Uint8Array of another realm (an iframe), as @noble/hashes accepts.
  const bytes = secret instanceof Uint8Array || (ArrayBuffer.isView(secret) && secret.constructor.name === 'Uint8Array');
  if (!bytes || (secret as Uint8Array).length !== STORE_SECRET_BYTES) {
    const got = bytes ? `${(secret as Uint8Array).length} bytes` : typeof secret;
    throw new CredentialStoreError('invalid', `secret: must be ${STORE_SECRET_BYTES} bytes (a Uint8Array), got ${got}`);
  }
  return secret as Uint8Array;
}

export function checkId(id: unknown): string {
  if (typeof id !== 'string' || !ID_PATTERN.test(id)) {
    throw new CredentialStoreError('invalid', 'id: must be 64 lowercase hex digits, as returned by add or list');
  }
  return id;
}

export const isEntryId = (value: unknown): value is string => typeof value === 'string' && ID_PATTERN.test(value);

/**
 * Checks a credential's JSON text and returns its canonical form: the parsed object without its top-level
 * `metadata`, keys sorted recursively (arrays keep their order), serialised again. Two texts of the same credential
 * that differ only in metadata, key order or whitespace have the same canonical form, hence the same id.
 */
export function canonicalCredential(credential: unknown): string {
  if (typeof credential !== 'string') throw new CredentialStoreError('invalid', 'credential: must be JSON text');
  const bytes = utf8.encode(credential).length;
  if (bytes > MAX_CREDENTIAL_BYTES) {
    throw new CredentialStoreError('invalid', `credential: ${bytes} bytes, at most ${MAX_CREDENTIAL_BYTES} accepted`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(credential);
  } catch (cause) {
    throw new CredentialStoreError('invalid', 'credential: not valid JSON', { cause });
  }
  if (!isPlainObject(parsed)) throw new CredentialStoreError('invalid', 'credential: must be the JSON text of an object');
  const { metadata: _metadata, ...rest } = parsed;
  return JSON.stringify(sortKeys(rest, 0));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sortKeys(value: unknown, depth: number): unknown {
  if (depth > MAX_CREDENTIAL_DEPTH) {
    throw new CredentialStoreError('invalid', `credential: nested deeper than ${MAX_CREDENTIAL_DEPTH} levels`);
  }
  if (Array.isArray(value)) return value.map((v) => sortKeys(v, depth + 1));
  if (!isPlainObject(value)) return value;
  // Object.fromEntries defines own properties, so a "__proto__" key stays data and never becomes a prototype.
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys(value[k], depth + 1)]),
  );
}
