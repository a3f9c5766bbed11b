/**
 * The chain-ledger protocol extension in the software Ledger (docs/apdu-extensions.md): GET_CAPABILITIES (0xA0) and
 * the chunked SIGN_FIELDS, CREATE_NULLIFIER, SIGN_ZKAPP, SIGN_PRESENTATION, SIGN_TEXT and STORE_KEY (0xA1-0xA6). The
 * released app has none of them (0x6D00); `extensions: '1.0'` answers only 0xA0-0xA2, `'1.1'` only 0xA0-0xA4, `'1.2'`
 * only 0xA0-0xA5; `'1.4'` signs texts of up to 16 KiB (SIGN_TEXT).
 */
import { ByteReader, concatBytes, uintToBytesBE, utf8 } from '../apdu/bytes.js';
import { displayTextProblem } from '../apdu/display-text.js';
import type { NetworkId } from '../apdu/codec.js';
import { SW_INS_NOT_SUPPORTED, SW_INVALID_DATA, SW_REJECTED } from '../apdu/constants.js';
import {
  CAP_CREATE_NULLIFIER,
  CAP_SIGN_FIELDS,
  CAP_SIGN_PRESENTATION,
  CAP_SIGN_TEXT,
  CAP_SIGN_ZKAPP,
  CAP_STORE_KEY,
  DOMAIN_MAINNET,
  DOMAIN_TESTNET,
  INS_CREATE_NULLIFIER,
  INS_GET_CAPABILITIES,
  INS_SIGN_FIELDS,
  INS_SIGN_PRESENTATION,
  INS_SIGN_TEXT,
  INS_STORE_KEY,
  MAX_FIELDS,
  MAX_TEXT_BYTES,
  MIN_SIGN_FIELDS,
  P1_FIRST,
  P1_MORE,
  P2_LAST,
  P2_MORE,
  fieldsDigest,
} from '../apdu/extension.js';
import { MAX_SIGN_LONG_TEXT_PAYLOAD, MAX_SIGN_TEXT_PAYLOAD } from '../apdu/sign-text.js';
import { INS_SIGN_ZKAPP, MAX_SIGN_ZKAPP_PAYLOAD, encodeZkappSignaturesReply, memoText } from '../apdu/sign-zkapp.js';
import { ZkappBodyError } from '../apdu/zkapp-body.js';
import { minaSignerInternals } from '#upstream/mina-signer-internals';
import { rawSignature, readAddress, type Device } from './app-instructions.js';
import { fail, invalidData } from './device-errors.js';
import { parsePresentationRequest } from './presentation-device.js';
import { nullifierReview, presentationReview, signFieldsBlindDisabledNotice, signFieldsReview, zkappReview } from './review.js';
import { createNullifier, signFieldElement, signFields as signFieldsWithKey } from './signer.js';
import { storeKey } from './store-key-device.js';
import { signText } from './text-device.js';
import type { ExtensionVersion } from './extension-version.js';
import { describeUpdates, parseZkappRequest, valuesToSign } from './zkapp-device.js';

export type { ExtensionVersion } from './extension-version.js';

const V1_1 = CAP_SIGN_FIELDS | CAP_CREATE_NULLIFIER | CAP_SIGN_ZKAPP | CAP_SIGN_PRESENTATION;
/**
 * GET_CAPABILITIES per extension version, and the instructions each has: 1.1 adds SIGN_ZKAPP, SIGN_PRESENTATION and
 * the nullifier's origin; 1.2 adds SIGN_TEXT; 1.3 adds STORE_KEY; 1.4 long texts in SIGN_TEXT.
 */
const EXTENSION_VERSIONS = {
  '1.0': { version: [1, 0], capabilities: CAP_SIGN_FIELDS | CAP_CREATE_NULLIFIER, lastInstruction: 0xa2 },
  '1.1': { version: [1, 1], capabilities: V1_1, lastInstruction: 0xa4 },
  '1.2': { version: [1, 2], capabilities: V1_1 | CAP_SIGN_TEXT, lastInstruction: 0xa5 },
  '1.3': { version: [1, 3], capabilities: V1_1 | CAP_SIGN_TEXT | CAP_STORE_KEY, lastInstruction: 0xa6 },
  // 1.4: SIGN_TEXT takes texts of up to 16 KiB (the same instruction and bits; the minor version says it).
  '1.4': { version: [1, 4], capabilities: V1_1 | CAP_SIGN_TEXT | CAP_STORE_KEY, lastInstruction: 0xa6 },
} as const;
/** The largest payload of each chunked instruction (docs/apdu-extensions.md). */
const MAX_EXTENSION_PAYLOAD: Record<number, number> = {
  [INS_SIGN_FIELDS]: 6 + 32 * MAX_FIELDS,
  [INS_CREATE_NULLIFIER]: 5 + 32 * MAX_FIELDS + 1 + MAX_TEXT_BYTES,
  [INS_SIGN_ZKAPP]: MAX_SIGN_ZKAPP_PAYLOAD,
  [INS_SIGN_PRESENTATION]: 4096,
  [INS_SIGN_TEXT]: MAX_SIGN_TEXT_PAYLOAD,
  [INS_STORE_KEY]: 4 + 1 + MAX_TEXT_BYTES,
};

/** The instructions of the extension, whichever version. */
export const EXTENSION_INSTRUCTIONS = new Set([
  INS_GET_CAPABILITIES,
  INS_SIGN_FIELDS,
  INS_CREATE_NULLIFIER,
  INS_SIGN_ZKAPP,
  INS_SIGN_PRESENTATION,
  INS_SIGN_TEXT,
  INS_STORE_KEY,
]);

/** What the extension needs of the device, beyond the app's instructions. */
export interface ExtensionDevice extends Device {
  readonly extensions: ExtensionVersion;
}

/** A chunked request being received: every chunk until the last (P2 = last), or any other instruction, ends it. */
export class ChunkReceiver {
  #pending: { ins: number; parts: Uint8Array[]; size: number } | undefined;

  /** Any other instruction abandons a chunked request in progress. */
  interrupt(ins: number): void {
    if (this.#pending && this.#pending.ins !== ins) this.#pending = undefined;
  }

  /** Collects one chunk; returns the whole payload on the last chunk, undefined before it; over `max` bytes: 0x6802. */
  receive(ins: number, p1: number, p2: number, data: Uint8Array, max = MAX_EXTENSION_PAYLOAD[ins] ?? 0): Uint8Array | undefined {
    if ((p1 !== P1_FIRST && p1 !== P1_MORE) || (p2 !== P2_MORE && p2 !== P2_LAST)) {
      this.#pending = undefined;
      return fail(SW_INVALID_DATA);
    }
    if (p1 === P1_FIRST) this.#pending = { ins, parts: [], size: 0 };
    const pending = this.#pending;
    if (!pending) return fail(SW_INVALID_DATA); // a continuation without a first chunk
    pending.parts.push(Uint8Array.from(data));
    pending.size += data.length;
    if (pending.size > max) {
      this.#pending = undefined;
      return fail(SW_INVALID_DATA);
    }
    if (p2 === P2_MORE) return undefined;
    this.#pending = undefined;
    return concatBytes(...pending.parts);
  }
}

/** One instruction of the extension (0xA0-0xA6): 0x6D00 on a device without it, or of a version without it. */
export async function extensionInstruction(
  device: ExtensionDevice,
  chunks: ChunkReceiver,
  [ins, p1, p2]: [number, number, number],
  data: Uint8Array,
): Promise<Uint8Array> {
  const version = device.extensions;
  if (!version) return fail(SW_INS_NOT_SUPPORTED);
  if (ins === INS_GET_CAPABILITIES) {
    const {
      version: [major, minor],
      capabilities,
    } = EXTENSION_VERSIONS[version];
    return Uint8Array.of(major, minor, capabilities, MAX_FIELDS);
  }
  if (ins > EXTENSION_VERSIONS[version].lastInstruction) return fail(SW_INS_NOT_SUPPORTED);
  // A 1.4 device takes a long text; an earlier one refuses a stream past 1.2's bound at the chunk that crosses it.
  const longText = ins === INS_SIGN_TEXT && version === '1.4';
  const payload = chunks.receive(ins, p1, p2, data, longText ? MAX_SIGN_LONG_TEXT_PAYLOAD : undefined);
  if (!payload) return new Uint8Array(0);
  if (ins === INS_SIGN_FIELDS) return signFields(device, payload);
  if (ins === INS_CREATE_NULLIFIER) return nullifier(device, payload);
  if (ins === INS_SIGN_TEXT) return signText(device, payload);
  if (ins === INS_STORE_KEY) return storeKey(device, payload);
  // A malformed or inconsistent stream is 0x6802, and leaves nothing behind (the request is over).
  try {
    return await (ins === INS_SIGN_ZKAPP ? signZkapp(device, payload) : signPresentation(device, payload));
  } catch (error) {
    if (error instanceof ZkappBodyError) return fail(SW_INVALID_DATA);
    throw error;
  }
}

/** N u8 ‖ N field elements, each 32 bytes little-endian and < p; anything else is 0x6802 (`reader`'s overrun). */
function readFields(reader: ByteReader, min: number): bigint[] {
  const count = reader.u8();
  if (count < min || count > MAX_FIELDS) fail(SW_INVALID_DATA);
  return Array.from({ length: count }, () => reader.fieldLE());
}

async function signFields(device: ExtensionDevice, payload: Uint8Array): Promise<Uint8Array> {
  // account u32 ‖ domain u8 ‖ N u8 ‖ N × field (docs/apdu-extensions.md)
  const reader = new ByteReader(payload, invalidData);
  const account = reader.u32be();
  const domainByte = reader.u8();
  if (domainByte !== DOMAIN_TESTNET && domainByte !== DOMAIN_MAINNET) fail(SW_INVALID_DATA);
  // N ≥ 2: a one-field kimchi signature is exactly what authorises a zkApp transaction (INS 06).
  const fields = readFields(reader, MIN_SIGN_FIELDS);
  reader.end();
  const domain = domainByte === DOMAIN_MAINNET ? 'mainnet' : 'testnet';
  // Blind signing (zkApps act on such signatures; the device cannot tell what they mean): behind the setting, as INS 06.
  if (!device.blindSigning) {
    await device.review(signFieldsBlindDisabledNotice());
    return fail(SW_REJECTED);
  }
  await device.review(signFieldsReview(fields.length, fieldsDigest(fields), domain));
  const key = device.key(account);
  return rawSignature(await signFieldsWithKey(fields, key.secret, key.privateKeyBase58, domain));
}

async function nullifier(device: ExtensionDevice, payload: Uint8Array): Promise<Uint8Array> {
  // account u32 ‖ N u8 ‖ N × field (docs/apdu-extensions.md)
  const reader = new ByteReader(payload, invalidData);
  const account = reader.u32be();
  const fields = readFields(reader, 0); // N = 0 is valid: H = hashToGroup(pk)
  // Version 1.1: the origin the host says asked for it (u8 length ‖ UTF-8), shown, not signed.
  let origin: string | undefined;
  if (reader.remaining > 0) {
    if (device.extensions === '1.0') fail(SW_INVALID_DATA);
    origin = reader.text(); // a short text, one that is not UTF-8 or bytes after it: 0x6802
    if (displayTextProblem(origin)) fail(SW_INVALID_DATA); // shown: a control character could not be shown as signed
  }
  reader.end();
  await device.review(nullifierReview(fields, origin));
  const { x, y, c, s } = createNullifier(fields, device.key(account).privateKeyBase58);
  return concatBytes(...[x, y, c, s].map((v) => uintToBytesBE(v, 32)));
}

/** SIGN_ZKAPP: rebuild, hash, show, then sign each value this account owes (docs/apdu-extensions.md). */
async function signZkapp(device: ExtensionDevice, payload: Uint8Array): Promise<Uint8Array> {
  const key = device.key(new ByteReader(payload, invalidData).u32be());
  const mine = readAddress(utf8.encode(key.address));
  const zkapp = await parseZkappRequest(payload, mine);
  const values = valuesToSign(zkapp);
  if (values.length === 0) fail(SW_INVALID_DATA); // nothing in this command for this account to sign
  const updates = await describeUpdates(zkapp);
  const { stream } = zkapp;
  const feePayer = (await minaSignerInternals(stream.era)).PublicKey.toBase58(stream.feePayer.publicKey);
  await device.review(
    zkappReview({
      network: stream.network,
      feePayer,
      feePayerIsMine: zkapp.signs.feePayer,
      fee: stream.feePayer.fee,
      nonce: stream.feePayer.nonce,
      validUntil: stream.feePayer.validUntil,
      memo: memoText(stream.memo)!, // decodeZkappStream refused a memo that is not such text
      updates,
      signs: zkapp.signs,
    }),
  );
  const networkId: NetworkId = stream.network === 'mainnet' ? 1 : 0;
  const signatures = [];
  for (const { kind, value } of values) {
    const { field, scalar } = await signFieldElement(value, key.secret, networkId);
    signatures.push({ kind, r: BigInt(field), s: BigInt(scalar) });
  }
  return encodeZkappSignaturesReply({ commitment: zkapp.commitment, fullCommitment: zkapp.fullCommitment, signatures });
}

/** SIGN_PRESENTATION: show the verifier, compute the context, sign [context, credential hashes and issuers]. */
async function signPresentation(device: ExtensionDevice, payload: Uint8Array): Promise<Uint8Array> {
  const presentation = await parsePresentationRequest(payload);
  await device.review(presentationReview(presentation.view));
  const key = device.key(presentation.account);
  const { field, scalar } = await signFieldsWithKey(presentation.fields, key.secret, key.privateKeyBase58, 'testnet');
  return concatBytes(...[presentation.context, BigInt(field), BigInt(scalar)].map((v) => uintToBytesBE(v, 32)));
}
