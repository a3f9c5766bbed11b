/**
 * The released Mina app's instructions in the software Ledger (INS 01-06 and BOLOS app info): validation order,
 * status words and reply layouts as the app's C code has them (Zondax/ledger-mina src/main.c, parse_tx.c, sign_msg.c,
 * get_address.c). Each handler answers the instruction's data or throws the status word (device-errors.ts).
 */
import { ByteReader, base58check, bytesToUintLE, concatBytes, fromHex, utf8 } from '../apdu/bytes.js';
import { readSignTxBody, isPrintableMessageByte, type NetworkId } from '../apdu/codec.js';
import { MAX_U64, SIGNED_TEXT_MAX_BYTES, SW_INVALID_DATA, SW_REJECTED, TX_TAG_DELEGATION, TX_TAG_PAYMENT } from '../apdu/constants.js';
import { signatureToRawHex, type MinaSignature } from '../apdu/signature.js';
import { atLeast, parseVersion, signedMessageText, supports } from '../apdu/version.js';
import { fail, invalidData } from './device-errors.js';
import { cString } from './display.js';
import { derivationPath, type AccountKey } from './keys.js';
import { addressReview, blindSigningDisabledNotice, fieldElementReview, messageReview, transactionReview, type Review } from './review.js';
import { signFieldElement, signLegacyMessage, signUserCommand, type DecodedPublicKey } from './signer.js';

/** What an instruction needs of the device: the app's version and setting, its keys, and the user. */
export interface Device {
  readonly version: string;
  readonly blindSigning: boolean;
  key(account: number): AccountKey;
  /** Shows a review and goes on once the user approves; otherwise the instruction ends with 0x6985. */
  review(review: Review): Promise<void>;
}

/** INS 01: major, minor, patch. */
export function getVersion(device: Pick<Device, 'version'>): Uint8Array {
  const v = parseVersion(device.version);
  return Uint8Array.of(v.major, v.minor, v.patch);
}

export async function getAddress(device: Device, p1: number, data: Uint8Array): Promise<Uint8Array> {
  if (data.length !== 4) fail(SW_INVALID_DATA);
  const silentKnown = supports(device.version, 'silentAddress');
  if (silentKnown && p1 > 1) fail(SW_INVALID_DATA);
  const account = new ByteReader(data, invalidData).u32be();
  const { address } = device.key(account);
  // Before 1.4.1 the app ignored P1 and always asked.
  if (p1 === 0 || !silentKnown) await device.review(addressReview(derivationPath(account), address));
  return concatBytes(utf8.encode(address), Uint8Array.of(0));
}

export async function signTx(device: Device, data: Uint8Array): Promise<Uint8Array> {
  // Exactly SIGN_TX_BODY_LENGTH bytes: anything shorter or longer is 0x6802 (readSignTxBody's overrun).
  const body = readSignTxBody(data, invalidData);
  const { account, amount, fee, nonce, validUntil, tag, networkId } = body;
  const source = readAddress(body.from);
  const receiver = readAddress(body.to);
  if (tag !== TX_TAG_PAYMENT && tag !== TX_TAG_DELEGATION) fail(SW_INVALID_DATA);
  if (networkId !== 0 && networkId !== 1) fail(SW_INVALID_DATA);
  if (amount + fee > MAX_U64) fail(SW_INVALID_DATA);
  const memo = Uint8Array.from(cString(body.memo));
  const txType = tag === TX_TAG_PAYMENT ? 'payment' : 'delegation';
  const from = latin1(body.from);
  const shown = { txType, from, to: latin1(body.to), amount, fee, nonce, validUntil, memo, networkId } as const;
  await device.review(transactionReview(shown, device.version));
  const key = device.key(account);
  if (key.address !== from) fail(SW_INVALID_DATA);
  const command = { txType, source, receiver, amount, fee, nonce, validUntil, memo } as const;
  return rawSignature(await signUserCommand(command, key.secret, networkId as NetworkId));
}

export async function signMessage(device: Device, data: Uint8Array): Promise<Uint8Array> {
  if (data.length <= 5) fail(SW_INVALID_DATA);
  // account u32 ‖ network id u8 ‖ message
  const reader = new ByteReader(data, invalidData);
  const account = reader.u32be();
  const networkId = reader.u8();
  if (networkId !== 0 && networkId !== 1) fail(SW_INVALID_DATA);
  const messageBytes = Uint8Array.from(reader.rest());
  const message = latin1(messageBytes);
  const signedText = signedMessageText(device.version, message);
  // The bytes of the signed text (`message` is their Latin-1 reading, so each character is one byte).
  const signedBytes = Uint8Array.from(signedText, (c) => c.charCodeAt(0));
  // 1.4.2 and 1.4.3 also displayed the prefix; later versions show the message only. The app draws bytes.
  const shown = atLeast(device.version, '1.4.5') ? messageBytes : signedBytes;
  await device.review(messageReview(shown, networkId));
  if (signedBytes.length > SIGNED_TEXT_MAX_BYTES || !signedBytes.every(isPrintableMessageByte)) fail(SW_INVALID_DATA);
  const key = device.key(account);
  const signature = rawSignature(signLegacyMessage(signedText, key.privateKeyBase58, networkId as NetworkId));
  if (!supports(device.version, 'echoedMessage')) return signature;
  return concatBytes(signature, Uint8Array.of(signedBytes.length), signedBytes);
}

export async function signField(device: Device, data: Uint8Array): Promise<Uint8Array> {
  if (data.length !== 37) fail(SW_INVALID_DATA);
  // account u32 ‖ network id u8 ‖ field (32 bytes little-endian)
  const reader = new ByteReader(data, invalidData);
  const account = reader.u32be();
  const networkId = reader.u8();
  if (networkId !== 0 && networkId !== 1) fail(SW_INVALID_DATA);
  const fieldBytes = reader.bytes(32);
  // The app does no range check and signs the raw 256-bit value (recorded: p and 2^255 - 1 are not reduced).
  const field = bytesToUintLE(fieldBytes);
  if (!device.blindSigning) {
    await device.review(blindSigningDisabledNotice());
    return fail(SW_REJECTED);
  }
  await device.review(fieldElementReview(field, networkId));
  const key = device.key(account);
  const signature = await signFieldElement(field, key.secret, networkId as NetworkId);
  return concatBytes(rawSignature(signature), Uint8Array.of(0x20), fieldBytes);
}
/** Address payload: version byte 0xCB, two binable version bytes, x (32 bytes little-endian), parity byte. */
const ADDRESS_PAYLOAD_LENGTH = 36;

/**
 * The app checks an address by its base58check checksum only (src/parse_tx.c): whatever the version bytes, x and
 * the parity byte are, it signs them as decoded (recorded: x altered and parity byte 2 both signed). A checksum
 * that fails, or a payload that is not 36 bytes, is 0x6802.
 */
export function readAddress(bytes: Uint8Array): DecodedPublicKey {
  let payload: Uint8Array;
  try {
    payload = base58check.decode(latin1(bytes));
  } catch {
    return fail(SW_INVALID_DATA);
  }
  if (payload.length !== ADDRESS_PAYLOAD_LENGTH) fail(SW_INVALID_DATA);
  return { x: bytesToUintLE(payload.subarray(3, 35)), isOdd: payload[35] !== 0 };
}

/** Bytes as one character each (the app's C strings are bytes, not UTF-8). */
export function latin1(bytes: Uint8Array): string {
  return String.fromCharCode(...bytes);
}

export function rawSignature(signature: MinaSignature): Uint8Array {
  return fromHex(signatureToRawHex(signature));
}
