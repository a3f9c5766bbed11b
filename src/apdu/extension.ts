/**
 * The chain-ledger protocol extension of the Mina app (spec: docs/apdu-extensions.md): multi-field signing,
 * nullifiers, zkApp commands and presentations in clear, long messages, and the credential store's key with the site
 * asking, which no Mina app version has. Same CLA 0xE0; instructions 0xA0–0xA6, far from the app's 0x01–0x06 and
 * its obvious next ones, and outside ISO 7816's invalid INS ranges (0x6X, 0x9X). An app without the extension
 * answers 0x6D00 to GET_CAPABILITIES: that is how the host detects it, with no user interaction.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { ByteReader, bytesToUintBE, concatBytes, encodeText, toHex, uintToBytesBE, uintToBytesLE } from './bytes.js';
import { checkAccountIndex, checkFieldElement, replyError, type ApduRequest } from './codec.js';
import { MAX_APDU_DATA, PALLAS_P, PALLAS_Q } from './constants.js';
import { displayTextProblem } from './display-text.js';
import { LedgerInputError, LedgerReplyError } from './errors.js';

export const INS_GET_CAPABILITIES = 0xa0;
export const INS_SIGN_FIELDS = 0xa1;
export const INS_CREATE_NULLIFIER = 0xa2;
// 0xA3 SIGN_ZKAPP: sign-zkapp.ts.
export const INS_SIGN_PRESENTATION = 0xa4;
/** SIGN_TEXT (version 1.2): messages of up to 1024 bytes (1.4: 16 KiB), signed as mina-signer's `signMessage` (codec: sign-text.ts). */
export const INS_SIGN_TEXT = 0xa5;
/**
 * STORE_KEY (version 1.3): the credential store's key (INS 05's signature of the store-key text), shown with the site
 * asking (codec: store-key.ts).
 */
export const INS_STORE_KEY = 0xa6;

/** Chunking: P1 says whether this is the first chunk, P2 whether more follow (hw-app-str's convention). */
export const P1_FIRST = 0x00;
export const P1_MORE = 0x80;
export const P2_LAST = 0x00;
export const P2_MORE = 0x80;

/** Fields per SIGN_FIELDS / CREATE_NULLIFIER request. */
export const MAX_FIELDS = 64;
/** SIGN_FIELDS needs at least two fields: a one-field message is what INS 06 signs for transactions. */
export const MIN_SIGN_FIELDS = 2;

/** Signature domains of SIGN_FIELDS: the prefix the Schnorr hash starts with. */
export const DOMAIN_TESTNET = 0x00; // "CodaSignature*******": o1js Signature, mina-attestations, on every network
export const DOMAIN_MAINNET = 0x01; // "MinaSignatureMainnet"
export type SignatureDomain = 'testnet' | 'mainnet';

/** Capability bits in the GET_CAPABILITIES reply. */
export const CAP_SIGN_FIELDS = 0x01;
export const CAP_CREATE_NULLIFIER = 0x02;
/** Version 1.1: zkApp commands in clear (SIGN_ZKAPP, INS 0xA3). */
export const CAP_SIGN_ZKAPP = 0x04;
/** Version 1.1: presentations in clear (SIGN_PRESENTATION, INS 0xA4). */
export const CAP_SIGN_PRESENTATION = 0x08;
/** Version 1.2: messages of up to 1024 bytes of UTF-8 (SIGN_TEXT, INS 0xA5). */
export const CAP_SIGN_TEXT = 0x10;
/** Version 1.3: the credential store's key with the site asking on screen (STORE_KEY, INS 0xA6). */
export const CAP_STORE_KEY = 0x20;
const KNOWN_CAPABILITIES = CAP_SIGN_FIELDS | CAP_CREATE_NULLIFIER | CAP_SIGN_ZKAPP | CAP_SIGN_PRESENTATION | CAP_SIGN_TEXT | CAP_STORE_KEY;

export interface ExtensionCapabilities {
  /** Extension protocol version, "major.minor". */
  version: string;
  signFields: boolean;
  createNullifier: boolean;
  /** SIGN_ZKAPP: the device parses, shows and hashes zkApp commands itself (version ≥ 1.1). */
  signZkapp: boolean;
  /** SIGN_PRESENTATION: the device shows the verifier and computes the presentation context (version ≥ 1.1). */
  signPresentation: boolean;
  /**
   * SIGN_TEXT: messages of up to 1024 bytes of UTF-8, signed without a prefix (version ≥ 1.2); up to 16 KiB from
   * version 1.4, which the minor version says (`maxTextMessageBytes`).
   */
  signText: boolean;
  /**
   * STORE_KEY: the credential store's key, the same signature as INS 05 gives over the store-key text, with the site
   * asking shown on the device (version ≥ 1.3).
   */
  storeKey: boolean;
  /** CREATE_NULLIFIER takes the requesting origin, and shows it (version ≥ 1.1). */
  nullifierOrigin: boolean;
  maxFields: number;
}

export interface DeviceNullifier {
  /** The nullifier point sk·H(message, pk). */
  nullifier: { x: bigint; y: bigint };
  c: bigint;
  s: bigint;
}

export function encodeGetCapabilities(): ApduRequest {
  return { ins: INS_GET_CAPABILITIES, p1: 0, p2: 0, data: new Uint8Array(0) };
}

/** major ‖ minor ‖ capability bits ‖ max fields. */
export function decodeCapabilities(reply: Uint8Array): ExtensionCapabilities {
  if (reply.length !== 4) throw new LedgerReplyError(`capabilities reply must be 4 bytes, got ${reply.length}`);
  const reader = new ByteReader(reply, replyError);
  const [major, minor, bits, maxFields] = [reader.u8(), reader.u8(), reader.u8(), reader.u8()];
  if (maxFields === 0) throw new LedgerReplyError('capabilities reply announces no fields');
  // A device's claims only gate features, but values outside the spec are a faulty or lying device: refused.
  if (maxFields > MAX_FIELDS)
    throw new LedgerReplyError(`capabilities reply announces ${maxFields} fields; the spec allows at most ${MAX_FIELDS}`);
  if (major !== 1)
    throw new LedgerReplyError(`capabilities reply announces extension version ${major}.${minor}; this host knows version 1`);
  if ((bits & ~KNOWN_CAPABILITIES) !== 0) {
    throw new LedgerReplyError(`capabilities reply sets unknown capability bits 0x${bits.toString(16).padStart(2, '0')}`);
  }
  return {
    version: `${major}.${minor}`,
    signFields: (bits & CAP_SIGN_FIELDS) !== 0,
    createNullifier: (bits & CAP_CREATE_NULLIFIER) !== 0,
    signZkapp: (bits & CAP_SIGN_ZKAPP) !== 0,
    signPresentation: (bits & CAP_SIGN_PRESENTATION) !== 0,
    signText: (bits & CAP_SIGN_TEXT) !== 0,
    storeKey: (bits & CAP_STORE_KEY) !== 0,
    nullifierOrigin: minor >= 1 && (bits & CAP_CREATE_NULLIFIER) !== 0,
    maxFields,
  };
}

function checkFields(fields: unknown, min: number, max: number): bigint[] {
  if (!Array.isArray(fields) || fields.length < min || fields.length > max) {
    throw new LedgerInputError('fields', `must be an array of ${min} to ${max} field elements`);
  }
  return fields.map((f, i) => checkFieldElement(f, `fields[${i}]`));
}

const fieldBytes = (fields: bigint[]) => concatBytes(...fields.map((f) => uintToBytesLE(f, 32)));

/**
 * What the device shows for a list of fields it cannot display one by one: the first 8 bytes of SHA-256 over the
 * fields' 32-byte little-endian encodings, as hex. A page can show the same digest for the user to compare.
 */
export function fieldsDigest(fields: bigint[]): string {
  return toHex(sha256(fieldBytes(fields)).subarray(0, 8));
}

/** SIGN_FIELDS payload: account u32 BE ‖ domain u8 ‖ N u8 ‖ N × 32-byte field LE, then split into chunks. */
export function encodeSignFields(account: number, fields: bigint[], domain: SignatureDomain): ApduRequest[] {
  checkAccountIndex(account);
  if (domain !== 'testnet' && domain !== 'mainnet') throw new LedgerInputError('domain', 'must be "testnet" or "mainnet"');
  const checked = checkFields(fields, MIN_SIGN_FIELDS, MAX_FIELDS);
  const payload = concatBytes(
    uintToBytesBE(account, 4),
    Uint8Array.of(domain === 'testnet' ? DOMAIN_TESTNET : DOMAIN_MAINNET, checked.length),
    fieldBytes(checked),
  );
  return chunk(INS_SIGN_FIELDS, payload);
}

/** The longest text of a SIGN_PRESENTATION or CREATE_NULLIFIER request (one length byte). */
export const MAX_TEXT_BYTES = 255;

/** u8 length ‖ UTF-8 bytes, of a text the device can show as it is signed (display-text.ts). */
function text(value: unknown, field: string): Uint8Array {
  if (typeof value !== 'string') throw new LedgerInputError(field, 'must be a string');
  const problem = displayTextProblem(value);
  if (problem) throw new LedgerInputError(field, problem);
  const bytes = encodeText(value, MAX_TEXT_BYTES);
  if (bytes === undefined) throw new LedgerInputError(field, `must be at most ${MAX_TEXT_BYTES} bytes of UTF-8`);
  return bytes;
}

/**
 * CREATE_NULLIFIER payload: account u32 BE ‖ N u8 ‖ N × 32-byte field LE [‖ origin: u8 length ‖ UTF-8], then split
 * into chunks. The origin (version 1.1) is what the host says asked for the nullifier: the device shows it.
 */
export function encodeCreateNullifier(account: number, fields: bigint[], origin?: string): ApduRequest[] {
  checkAccountIndex(account);
  const checked = checkFields(fields, 0, MAX_FIELDS);
  const payload = concatBytes(uintToBytesBE(account, 4), Uint8Array.of(checked.length), fieldBytes(checked));
  return chunk(INS_CREATE_NULLIFIER, origin === undefined ? payload : concatBytes(payload, text(origin, 'origin')));
}

/** The verifier a presentation is bound to, as SIGN_PRESENTATION carries it. */
export type PresentationVerifier =
  | { type: 'https'; origin: string }
  | { type: 'zk-app'; network: 'mainnet' | 'devnet'; publicKey: { x: bigint; isOdd: boolean }; tokenId: bigint }
  | { type: 'no-context' };

/** What SIGN_PRESENTATION sends: the parts of mina-attestations' context, the credentials and what is revealed. */
export interface PresentationToSign {
  account: number;
  verifier: PresentationVerifier;
  /** The presentation circuit's verification-key hash, the request's claims hash, the verifier's and the wallet's nonces. */
  vkHash: bigint;
  claimsHash: bigint;
  serverNonce: bigint;
  clientNonce: bigint;
  action: string;
  /** Per credential: its hash and its issuer (mina-attestations' `messageFields` after the context). */
  credentials: { hash: bigint; issuer: bigint }[];
  /** The host's description of the output claim (shown as the host's claim). */
  reveals: string;
}

export const PRESENTATION_TYPES = { 'no-context': 0x00, https: 0x01, 'zk-app': 0x02 } as const;
export const ZKAPP_NETWORKS = { mainnet: 0x00, devnet: 0x01 } as const;
/** Credentials per presentation. */
export const MAX_PRESENTATION_CREDENTIALS = 16;

/**
 * SIGN_PRESENTATION payload: account u32 BE ‖ type u8 ‖ [vkHash ‖ claimsHash ‖ serverNonce ‖ clientNonce (fields) ‖
 * action (text) ‖ verifier: https origin (text) | zk-app network u8 ‖ x ‖ isOdd u8 ‖ tokenId] (absent for
 * no-context) ‖ N u8 ‖ N × (credential hash ‖ issuer) ‖ reveals (text).
 */
export function encodeSignPresentation(p: PresentationToSign): ApduRequest[] {
  checkAccountIndex(p.account);
  const type = PRESENTATION_TYPES[p.verifier.type];
  if (type === undefined) throw new LedgerInputError('verifier.type', 'must be "https", "zk-app" or "no-context"');
  const field = (v: unknown, name: string) => uintToBytesLE(checkFieldElement(v, name), 32);
  const parts: Uint8Array[] = [uintToBytesBE(p.account, 4), Uint8Array.of(type)];
  if (p.verifier.type !== 'no-context') {
    parts.push(
      field(p.vkHash, 'vkHash'),
      field(p.claimsHash, 'claimsHash'),
      field(p.serverNonce, 'serverNonce'),
      field(p.clientNonce, 'clientNonce'),
      text(p.action, 'action'),
    );
    if (p.verifier.type === 'https') parts.push(text(p.verifier.origin, 'verifier.origin'));
    else {
      const network = ZKAPP_NETWORKS[p.verifier.network];
      if (network === undefined) throw new LedgerInputError('verifier.network', 'must be "mainnet" or "devnet"');
      parts.push(
        Uint8Array.of(network),
        field(p.verifier.publicKey.x, 'verifier.publicKey'),
        Uint8Array.of(p.verifier.publicKey.isOdd ? 1 : 0),
        field(p.verifier.tokenId, 'verifier.tokenId'),
      );
    }
  }
  if (!Array.isArray(p.credentials) || p.credentials.length < 1 || p.credentials.length > MAX_PRESENTATION_CREDENTIALS) {
    throw new LedgerInputError('credentials', `must hold 1 to ${MAX_PRESENTATION_CREDENTIALS} credentials`);
  }
  parts.push(Uint8Array.of(p.credentials.length));
  for (const [i, c] of p.credentials.entries())
    parts.push(field(c.hash, `credentials[${i}].hash`), field(c.issuer, `credentials[${i}].issuer`));
  parts.push(text(p.reveals, 'reveals'));
  return chunk(INS_SIGN_PRESENTATION, concatBytes(...parts));
}

/** SIGN_PRESENTATION reply: the context the device computed ‖ r ‖ s (32 bytes BE each). */
export function decodePresentationReply(reply: Uint8Array): { context: bigint; r: bigint; s: bigint } {
  if (reply.length !== 96) throw new LedgerReplyError(`presentation reply must be 96 bytes, got ${reply.length}`);
  const reader = new ByteReader(reply, replyError);
  const [context, r, s] = [0, 1, 2].map(() => bytesToUintBE(reader.bytes(32))) as [bigint, bigint, bigint];
  if (context >= PALLAS_P || r >= PALLAS_P || s >= PALLAS_Q)
    throw new LedgerReplyError('the device returned values outside the Pallas fields');
  return { context, r, s };
}

/** Splits a payload into ≤ 255-byte APDUs: P1 0x00 on the first, 0x80 after; P2 0x80 while more follow, 0x00 on the last. */
export function chunk(ins: number, payload: Uint8Array): ApduRequest[] {
  const requests: ApduRequest[] = [];
  for (let offset = 0; offset < payload.length; offset += MAX_APDU_DATA) {
    const end = Math.min(offset + MAX_APDU_DATA, payload.length);
    requests.push({
      ins,
      p1: offset === 0 ? P1_FIRST : P1_MORE,
      p2: end < payload.length ? P2_MORE : P2_LAST,
      data: payload.subarray(offset, end),
    });
  }
  return requests;
}

/** x ‖ y ‖ c ‖ s, 32 bytes big-endian each: x, y, c < p and s < q are checked here; the curve by the caller. */
export function decodeNullifierReply(reply: Uint8Array): DeviceNullifier {
  if (reply.length !== 128) throw new LedgerReplyError(`nullifier reply must be 128 bytes, got ${reply.length}`);
  const reader = new ByteReader(reply, replyError);
  const [x, y, c, s] = [0, 1, 2, 3].map(() => bytesToUintBE(reader.bytes(32))) as [bigint, bigint, bigint, bigint];
  if (x >= PALLAS_P || y >= PALLAS_P || c >= PALLAS_P || s >= PALLAS_Q) {
    throw new LedgerReplyError('the device returned nullifier values outside the Pallas fields');
  }
  return { nullifier: { x, y }, c, s };
}
