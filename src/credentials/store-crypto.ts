/**
 * Encryption at rest for the credential stores. No primitive is written here: HKDF, HMAC and SHA-256 come from
 * @noble/hashes, AES-256-GCM from WebCrypto (`globalThis.crypto.subtle`, in Node 20 and every browser).
 *
 * From the 32-byte store secret (which the provider derives from a deterministic Ledger signature), HKDF-SHA256
 * derives three independent keys, one per info string:
 *
 * - encryption: AES-256-GCM, a fresh random 96-bit IV per encryption, additional data binding the ciphertext to the
 *   account, the entry id and the date, so an entry cannot be moved to another account or id or redated;
 * - id: HMAC-SHA256 of the canonical credential, the entry id (duplicates are recognised, ids reveal nothing);
 * - check: HMAC-SHA256 of a constant and the account, stored in the header, so a wrong secret is recognised before
 *   any entry is decrypted.
 */
import { hkdf } from '@noble/hashes/hkdf.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base64 } from '@scure/base';
import { toHex, utf8 } from '../apdu/bytes.js';
import { CredentialStoreError, canonicalCredential, checkAccount, checkSecret, isEntryId } from './store.js';

const DOMAIN = 'chain-ledger credential store v1';
export const STORE_KDF_INFO = {
  encryption: `${DOMAIN}: encryption`,
  id: `${DOMAIN}: id`,
  check: `${DOMAIN}: check`,
} as const;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** One encrypted entry as both stores keep it: bytes in base64, the date in clear (it is authenticated). */
export interface SealedEntry {
  id: string;
  /** base64 of the 12-byte AES-GCM IV. */
  iv: string;
  /** base64 of the AES-GCM ciphertext and tag of the credential's JSON text. */
  data: string;
  storedAt: string;
}

/** The keys of one account's store, derived from its secret. */
export class StoreKeys {
  readonly account: string;
  /** Hex HMAC-SHA256(check key, constant ‖ account): equal iff the secret is the one the store was written with. */
  readonly check: string;
  readonly #encryption: CryptoKey;
  readonly #idKey: Uint8Array;

  private constructor(account: string, check: string, encryption: CryptoKey, idKey: Uint8Array) {
    this.account = account;
    this.check = check;
    this.#encryption = encryption;
    this.#idKey = idKey;
  }

  /** Validates `account` and `secret` (`invalid`) and derives the keys. */
  static async derive(account: string, secret: Uint8Array): Promise<StoreKeys> {
    checkAccount(account);
    checkSecret(secret);
    const derive = (info: string) => hkdf(sha256, secret, undefined, utf8.encode(info), 32);
    const encryptionBytes = derive(STORE_KDF_INFO.encryption);
    const checkKey = derive(STORE_KDF_INFO.check);
    const check = toHex(hmac(sha256, checkKey, utf8.encode(`${DOMAIN}: key check\u0000${account}`)));
    checkKey.fill(0);
    const raw = Uint8Array.from(encryptionBytes);
    let encryption: CryptoKey;
    try {
      encryption = await subtle().importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']);
    } finally {
      raw.fill(0);
      encryptionBytes.fill(0);
    }
    return new StoreKeys(account, check, encryption, derive(STORE_KDF_INFO.id));
  }

  /** `wrong-key` unless `check` (from a stored header) is this secret's check value. */
  verifyCheck(check: string): void {
    if (!equalStrings(check, this.check)) {
      throw new CredentialStoreError(
        'wrong-key',
        `the credential store of ${this.account} was written with another key: use the Ledger (and account) that stored it`,
      );
    }
  }

  /** The entry id of a credential: hex HMAC-SHA256(id key, canonical form). Validates it (`invalid`). */
  idOf(credential: string): string {
    const canonical = canonicalCredential(credential);
    return toHex(hmac(sha256, this.#idKey, utf8.encode(canonical)));
  }

  async seal(id: string, credential: string, storedAt: string): Promise<SealedEntry> {
    const iv = globalThis.crypto.getRandomValues(new Uint8Array(IV_BYTES));
    const data = await subtle().encrypt(
      { name: 'AES-GCM', iv, additionalData: this.#aad(id, storedAt), tagLength: TAG_BYTES * 8 },
      this.#encryption,
      utf8.encode(credential),
    );
    return { id, iv: base64.encode(iv), data: base64.encode(new Uint8Array(data)), storedAt };
  }

  /**
   * Decrypts and authenticates an entry; `corrupt` if it fails (damaged bytes, another account's or id's entry) or
   * if the id is not the credential's.
   */
  async open(entry: SealedEntry): Promise<string> {
    const where = `entry ${entry.id} of ${this.account}`;
    let plaintext: ArrayBuffer;
    try {
      plaintext = await subtle().decrypt(
        {
          name: 'AES-GCM',
          iv: Uint8Array.from(base64.decode(entry.iv)),
          additionalData: this.#aad(entry.id, entry.storedAt),
          tagLength: TAG_BYTES * 8,
        },
        this.#encryption,
        Uint8Array.from(base64.decode(entry.data)),
      );
    } catch (cause) {
      throw new CredentialStoreError('corrupt', `${where} fails authentication: it was damaged or tampered with`, { cause });
    }
    let credential: string;
    try {
      credential = utf8.decode(new Uint8Array(plaintext));
      if (this.idOf(credential) === entry.id) return credential;
    } catch (cause) {
      throw new CredentialStoreError('corrupt', `${where} does not hold a valid credential`, { cause });
    }
    throw new CredentialStoreError('corrupt', `${where} holds a credential with another id`);
  }

  #aad(id: string, storedAt: string): Uint8Array<ArrayBuffer> {
    return utf8.encode(JSON.stringify([DOMAIN, this.account, id, storedAt]));
  }
}

/**
 * Checks the shape of a stored entry (`corrupt` otherwise, naming `where`): a hex id, a 12-byte IV, at least a tag
 * of ciphertext, an ISO date. Unknown keys are refused: a store is never rewritten with data it does not understand.
 */
export function parseSealedEntry(value: unknown, where: string): SealedEntry {
  const bad = (what: string) => new CredentialStoreError('corrupt', `${where}: ${what}`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('not an object');
  const { id, iv, data, storedAt, ...extra } = value as Record<string, unknown>;
  const unknownKeys = Object.keys(extra);
  if (unknownKeys.length > 0) throw bad(`unknown field "${unknownKeys[0]}"`);
  if (!isEntryId(id)) throw bad('id is not 64 hex digits');
  if (decodedLength(iv) !== IV_BYTES) throw bad(`iv is not ${IV_BYTES} bytes of base64`);
  const dataBytes = decodedLength(data);
  if (dataBytes === undefined || dataBytes < TAG_BYTES) throw bad('data is not base64 ciphertext');
  if (typeof storedAt !== 'string' || !isIsoDate(storedAt)) throw bad('storedAt is not an ISO date');
  return { id, iv: iv as string, data: data as string, storedAt };
}

export function isIsoDate(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(text) && !Number.isNaN(Date.parse(text));
}

function decodedLength(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    return base64.decode(value).length;
  } catch {
    return undefined;
  }
}

/** Compares two strings in time independent of where they differ. */
function equalStrings(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

function subtle(): SubtleCrypto {
  const s = globalThis.crypto?.subtle;
  if (!s) {
    throw new CredentialStoreError(
      'io',
      'WebCrypto (crypto.subtle) is not available: a browser page must be a secure context (https or localhost)',
    );
  }
  return s;
}
