/**
 * Byte helpers shared by the codec and the software Ledger. Base58check comes from @scure/base; nothing here
 * reimplements a hash or an encoding a library already provides.
 */
import { createBase58check, hex } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { PALLAS_P } from './constants.js';

/** Mina's base58check: payload ‖ first 4 bytes of sha256(sha256(payload)). */
export const base58check = createBase58check(sha256);

export function toHex(bytes: Uint8Array): string {
  return hex.encode(bytes);
}

export function fromHex(text: string): Uint8Array {
  return hex.decode(text.toLowerCase());
}

/** Unsigned big-endian integer of `length` bytes. */
export function uintToBytesBE(value: bigint | number, length: number): Uint8Array {
  let v = BigInt(value);
  const out = new Uint8Array(length);
  for (let i = length - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

export function bytesToUintBE(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

export function uintToBytesLE(value: bigint, length: number): Uint8Array {
  return uintToBytesBE(value, length).reverse();
}

export function bytesToUintLE(bytes: Uint8Array): bigint {
  return bytesToUintBE(Uint8Array.from(bytes).reverse());
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export const utf8 = {
  encode: (text: string) => new TextEncoder().encode(text),
  /** Strict: invalid UTF-8 throws rather than turning into U+FFFD. */
  decode: (bytes: Uint8Array) => new TextDecoder('utf-8', { fatal: true }).decode(bytes),
};

/** The longest text a u8 length can announce. */
const MAX_U8_TEXT_BYTES = 255;

/**
 * Text as the protocol carries it: u8 length ‖ UTF-8 bytes. Undefined when the UTF-8 is over `max` bytes (at most
 * 255: one length byte); the caller says what that means.
 */
export function encodeText(text: string, max = MAX_U8_TEXT_BYTES): Uint8Array | undefined {
  const bytes = utf8.encode(text);
  if (bytes.length > Math.min(max, MAX_U8_TEXT_BYTES)) return undefined;
  return concatBytes(Uint8Array.of(bytes.length), bytes);
}

/** The key of a byte table whose value is `value` (the table read backwards), or undefined. */
export function keyOf<K extends string>(table: Readonly<Record<K, number>>, value: number): K | undefined {
  return (Object.keys(table) as K[]).find((key) => table[key] === value);
}

/** ASCII only: each byte must be < 0x80. */
export function asciiDecode(bytes: Uint8Array): string | undefined {
  if (bytes.some((b) => b >= 0x80)) return undefined;
  return String.fromCharCode(...bytes);
}

/**
 * A cursor over a reply or a request: each read takes the next bytes, and a read past the end throws (the
 * `overrun` error, a RangeError by default) rather than returning short or undefined bytes. Parsers built on it
 * contain no literal offsets, and `end()` makes "nothing may follow" explicit.
 */
export class ByteReader {
  #offset = 0;

  constructor(
    private readonly data: Uint8Array,
    private readonly overrun: (message: string) => unknown = (message) => new RangeError(message),
  ) {}

  /** Bytes not read yet. */
  get remaining(): number {
    return this.data.length - this.#offset;
  }

  /** The next `n` bytes (a view, not a copy). */
  bytes(n: number): Uint8Array {
    if (!Number.isInteger(n) || n < 0 || n > this.remaining) {
      throw this.overrun(`read of ${n} bytes at offset ${this.#offset} overruns ${this.data.length} bytes`);
    }
    const out = this.data.subarray(this.#offset, this.#offset + n);
    this.#offset += n;
    return out;
  }

  u8(): number {
    return this.bytes(1)[0]!;
  }

  u32be(): number {
    return Number(bytesToUintBE(this.bytes(4)));
  }

  u64be(): bigint {
    return bytesToUintBE(this.bytes(8));
  }

  /**
   * A field element: 32 bytes little-endian, below the Pallas base field's p. One that is not throws `invalid()`
   * (default: the overrun error, "field element ≥ p").
   */
  fieldLE(invalid: () => unknown = () => this.overrun('field element ≥ p')): bigint {
    const value = bytesToUintLE(this.bytes(32));
    if (value >= PALLAS_P) throw invalid();
    return value;
  }

  /**
   * Text: u8 length ‖ that many bytes of UTF-8, decoded strictly. A length over `max` (checked before its bytes are
   * read) throws `invalid('too long')`, bytes that are not UTF-8 `invalid('not UTF-8')` (default: the overrun
   * error, "text over `max` bytes" / "text that is not UTF-8").
   */
  text(
    max = MAX_U8_TEXT_BYTES,
    invalid: (why: 'too long' | 'not UTF-8') => unknown = (why) =>
      this.overrun(why === 'too long' ? `text over ${max} bytes` : 'text that is not UTF-8'),
  ): string {
    const length = this.u8();
    if (length > max) throw invalid('too long');
    const bytes = this.bytes(length);
    try {
      return utf8.decode(bytes);
    } catch {
      throw invalid('not UTF-8');
    }
  }

  /** Everything not read yet. */
  rest(): Uint8Array {
    return this.bytes(this.remaining);
  }

  /** Throws unless every byte was read. */
  end(): void {
    if (this.remaining !== 0) throw this.overrun(`${this.remaining} unexpected bytes after offset ${this.#offset}`);
  }
}
