/**
 * Encryption at rest for the credential stores. No primitive is written here: HKDF, HMAC and SHA-256 come from
 * @noble/hashes, AES-256-GCM from WebCrypto (`globalThis.crypto.subtle`, in Node 20 and every browser, taken when
 * this module loads).
 *
 * From the 32-byte store secret (which the provider derives from a deterministic Ledger signature), HKDF-SHA256
 * derives independent keys, one per info string. Every store has its own random 32-byte salt, kept in its header
 * (format 2), so that a store can be re-keyed (a new salt: new encryption, check and list keys) without the device:
 *
 * - encryption (salted): AES-256-GCM, a fresh random 96-bit IV per encryption, additional data binding the ciphertext
 *   to the account, the entry id and the date, so an entry cannot be moved to another account or id or redated. The
 *   plaintext is padded with NUL bytes (never part of JSON text) to a multiple of `PADDING_BYTES`, so a copied
 *   store does not reveal the exact length of a credential (hence of its private strings);
 * - check (salted): HMAC-SHA256 of a constant and the account, stored in the header, so a wrong secret is recognised
 *   before any entry is decrypted;
 * - entry list (salted): HMAC-SHA256 of the salt and every entry's id, IV and date, stored in the header, so a
 *   dropped, added or duplicated entry is detected (a whole older copy of the store is not: see docs/credentials.md);
 * - id (not salted, so ids stay the same when a store is re-keyed): HMAC-SHA256 of the canonical credential, the
 *   entry id (duplicates are recognised, ids reveal nothing).
 *
 * Stores of format 1 (no salt, no list MAC, no padding) are still read, with HKDF's default salt, and re-keyed under
 * a fresh salt on their next write.
 */
import { hkdf } from '@noble/hashes/hkdf.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base64 } from '@scure/base';
import { toHex, utf8 } from '../apdu/bytes.js';
import { CredentialStoreError, canonicalCredential, checkAccountAddress, checkSecret, isEntryId } from './store.js';

const DOMAIN = 'chain-ledger credential store v1';
export const STORE_KDF_INFO = {
  encryption: `${DOMAIN}: encryption`,
  id: `${DOMAIN}: id`,
  check: `${DOMAIN}: check`,
  entryList: `${DOMAIN}: entry list`,
} as const;
/**
 * WebCrypto as it was when this module loaded, bound to its object: a script of the same page that wraps
 * `SubtleCrypto.prototype.decrypt` or `importKey` (or `crypto.getRandomValues`) afterwards sees none of the store's
 * plaintexts or keys. A script that ran before this module is not stopped, and a page's
 * scripts share much else (docs/security.md, "In-page mode"): the wallet page keeps the store out of the dapp's realm.
 */
const WEB_CRYPTO = captureWebCrypto();

function captureWebCrypto() {
  const crypto = globalThis.crypto;
  const subtle = crypto?.subtle;
  if (!subtle) return undefined;
  return {
    importKey: subtle.importKey.bind(subtle) as SubtleCrypto['importKey'],
    encrypt: subtle.encrypt.bind(subtle) as SubtleCrypto['encrypt'],
    decrypt: subtle.decrypt.bind(subtle) as SubtleCrypto['decrypt'],
    getRandomValues: crypto.getRandomValues.bind(crypto) as Crypto['getRandomValues'],
  };
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Length of a store's salt, in bytes. */
export const SALT_BYTES = 32;
/** Plaintexts are padded to a multiple of this many bytes. */
export const PADDING_BYTES = 1024;

/** One encrypted entry as both stores keep it: bytes in base64, the date in clear (it is authenticated). */
export interface SealedEntry {
  id: string;
  /** base64 of the 12-byte AES-GCM IV. */
  iv: string;
  /** base64 of the AES-GCM ciphertext and tag of the credential's JSON text. */
  data: string;
  storedAt: string;
}

/** The keys of one account's store, derived from its secret and the store's salt. */
export class StoreKeys {
  readonly account: string;
  /** base64 of the store's salt; undefined for a format-1 store (no salt). */
  readonly salt: string | undefined;
  /** Hex HMAC-SHA256(check key, constant ‖ account): equal iff the secret is the one the store was written with. */
  readonly check: string;
  readonly #encryption: CryptoKey;
  readonly #idKey: Uint8Array;
  readonly #listKey: Uint8Array;

  private constructor(
    account: string,
    salt: string | undefined,
    check: string,
    encryption: CryptoKey,
    idKey: Uint8Array,
    listKey: Uint8Array,
  ) {
    this.account = account;
    this.salt = salt;
    this.check = check;
    this.#encryption = encryption;
    this.#idKey = idKey;
    this.#listKey = listKey;
  }

  /** A fresh random salt (base64) for a new or re-keyed store. */
  static newSalt(): string {
    return base64.encode(webCrypto().getRandomValues(new Uint8Array(SALT_BYTES)));
  }

  /**
   * Validates `account` and `secret` (`invalid`) and derives the keys for the store with `salt` (base64 from its
   * header; undefined for a format-1 store).
   */
  static async derive(account: string, secret: Uint8Array, salt?: string): Promise<StoreKeys> {
    checkAccountAddress(account);
    checkSecret(secret);
    const saltBytes = salt === undefined ? undefined : decodeSalt(salt);
    const derive = (info: string, salted = true) => hkdf(sha256, secret, salted ? saltBytes : undefined, utf8.encode(info), 32);
    const encryptionBytes = derive(STORE_KDF_INFO.encryption);
    const checkKey = derive(STORE_KDF_INFO.check);
    const check = toHex(hmac(sha256, checkKey, utf8.encode(`${DOMAIN}: key check\u0000${account}`)));
    checkKey.fill(0);
    const raw = Uint8Array.from(encryptionBytes);
    let encryption: CryptoKey;
    try {
      encryption = await webCrypto().importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']);
    } finally {
      raw.fill(0);
      encryptionBytes.fill(0);
    }
    return new StoreKeys(account, salt, check, encryption, derive(STORE_KDF_INFO.id, false), derive(STORE_KDF_INFO.entryList));
  }

  /** Hex HMAC of the salt and every entry's id, IV and date, in order (the header's `mac`). */
  entriesMac(entries: readonly Pick<SealedEntry, 'id' | 'iv' | 'storedAt'>[]): string {
    const list = JSON.stringify([DOMAIN, this.account, this.salt ?? null, entries.map((e) => [e.id, e.iv, e.storedAt])]);
    return toHex(hmac(sha256, this.#listKey, utf8.encode(list)));
  }

  /** `corrupt` unless `mac` authenticates exactly these entries (none dropped, added or duplicated). */
  verifyEntries(entries: readonly Pick<SealedEntry, 'id' | 'iv' | 'storedAt'>[], mac: string): void {
    if (!equalStrings(mac, this.entriesMac(entries))) {
      throw new CredentialStoreError('corrupt', `the entry list of ${this.account} was changed (an entry dropped, added or replaced)`);
    }
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
    const iv = webCrypto().getRandomValues(new Uint8Array(IV_BYTES));
    const data = await webCrypto().encrypt(
      { name: 'AES-GCM', iv, additionalData: this.#aad(id, storedAt), tagLength: TAG_BYTES * 8 },
      this.#encryption,
      pad(utf8.encode(credential)),
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
      plaintext = await webCrypto().decrypt(
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
      credential = utf8.decode(unpad(new Uint8Array(plaintext)));
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

/** Pads with NUL bytes (which JSON text never contains) to a multiple of PADDING_BYTES (at least one block). */
function pad(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const padded = new Uint8Array(Math.max(1, Math.ceil(bytes.length / PADDING_BYTES)) * PADDING_BYTES);
  padded.set(bytes);
  return padded;
}

function unpad(bytes: Uint8Array): Uint8Array {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  return bytes.subarray(0, end);
}

function decodeSalt(salt: string): Uint8Array {
  if (!isSalt(salt)) throw new CredentialStoreError('corrupt', `the store's salt is not ${SALT_BYTES} bytes of base64`);
  return base64.decode(salt);
}

/** True if `value` is a well-formed salt (base64 of SALT_BYTES bytes). */
export function isSalt(value: unknown): value is string {
  return decodedLength(value) === SALT_BYTES;
}

/** Compares two strings in time independent of where they differ. */
function equalStrings(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

function webCrypto(): NonNullable<typeof WEB_CRYPTO> {
  if (!WEB_CRYPTO) {
    throw new CredentialStoreError(
      'io',
      'WebCrypto (crypto.subtle) is not available: a browser page must be a secure context (https or localhost)',
    );
  }
  return WEB_CRYPTO;
}
