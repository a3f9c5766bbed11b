/**
 * Extension SIGN_TEXT (INS 0xA5, version 1.2, docs/apdu-extensions.md): a message of up to 1024 bytes of UTF-8 (16 KiB
 * from version 1.4, the same layout)
 * (sign-in texts with newlines, JSON), shown on the device in pages with the origin asking, and signed exactly as
 * mina-signer's `signMessage` signs it (the legacy string signature over the text itself, no "Message : " prefix),
 * so `verifyMessage({ data: text, … })` accepts it.
 *
 * Payload (chunked as every extension request):
 *
 *   account u32 BE ‖ network u8 (0x00 testnet, 0x01 mainnet) ‖ origin (u8 length 1–255 ‖ UTF-8)
 *     ‖ message length u16 BE (1–1024; 1–16384 from 1.4) ‖ message (UTF-8, no NUL)
 *
 * Reply: r ‖ s, 32 bytes big-endian each (as INS 03/05/06 and SIGN_FIELDS).
 */
import { concatBytes, uintToBytesBE, utf8 } from './bytes.js';
import { checkAccountIndex, checkNetworkId, type ApduRequest, type NetworkId } from './codec.js';
import { LedgerInputError } from './errors.js';
import { INS_SIGN_TEXT, chunk } from './extension.js';
import { displayTextProblem } from './display-text.js';
import { MAX_LONG_TEXT_MESSAGE_BYTES, MAX_TEXT_MESSAGE_BYTES, isUnicodeText } from './message-text.js';
import { containsReservedText } from './store-key.js';

/** The longest origin the request carries (one length byte). */
export const MAX_ORIGIN_BYTES = 255;
/** account, network, origin (length and bytes), message length and bytes. */
export const MAX_SIGN_TEXT_PAYLOAD = 4 + 1 + 1 + MAX_ORIGIN_BYTES + 2 + MAX_TEXT_MESSAGE_BYTES;
/** The same with a long text (extension 1.4): 16,647 bytes, 66 APDUs. */
export const MAX_SIGN_LONG_TEXT_PAYLOAD = 4 + 1 + 1 + MAX_ORIGIN_BYTES + 2 + MAX_LONG_TEXT_MESSAGE_BYTES;

/** What SIGN_TEXT signs: the account's key, the network's signature domain, the origin it shows, the text. */
export interface TextToSign {
  account: number;
  networkId: NetworkId;
  /** The page asking, as the host knows it: shown, not signed. */
  origin: string;
  /** The message, signed as it is (its UTF-8 bytes). */
  message: string;
}

/**
 * The SIGN_TEXT requests for `text`, chunked. Refused here (nothing is sent): a message that is empty, over 1024
 * bytes of UTF-8, holds NUL or a lone surrogate, or holds the credential store's reserved text (its signature would
 * be the store key, docs/credentials.md); an origin that is empty, over 255 bytes or holds a control character.
 *
 * @throws `LedgerInputError` naming `account`, `networkId`, `origin` or `message`.
 */
export function encodeSignText(text: TextToSign): ApduRequest[] {
  return encodeText(text, MAX_TEXT_MESSAGE_BYTES);
}

/**
 * The SIGN_TEXT requests for a text of up to 16 KiB (extension 1.4; the same layout, the same INS: a text of at most
 * 1024 bytes gives the very APDUs `encodeSignText` gives). Refused here as `encodeSignText` refuses, with 16384 for
 * the bound. A device before 1.4 answers a longer text 0x6802: ask it only of a 1.4 device (`maxTextMessageBytes`).
 *
 * @throws `LedgerInputError` naming `account`, `networkId`, `origin` or `message`.
 */
export function encodeSignLongText(text: TextToSign): ApduRequest[] {
  return encodeText(text, MAX_LONG_TEXT_MESSAGE_BYTES);
}

function encodeText({ account, networkId, origin, message }: TextToSign, max: number): ApduRequest[] {
  checkAccountIndex(account);
  checkNetworkId(networkId);
  // The origin follows the text rule of every extension text (refused with a control character, shown escaped).
  const originProblem = typeof origin !== 'string' || origin.length === 0 ? 'is empty' : displayTextProblem(origin);
  if (originProblem !== undefined) throw new LedgerInputError('origin', `must be a text a device can show: it ${originProblem}`);
  const originBytes = utf8.encode(origin);
  if (originBytes.length > MAX_ORIGIN_BYTES) throw new LedgerInputError('origin', `must be at most ${MAX_ORIGIN_BYTES} bytes of UTF-8`);
  if (typeof message !== 'string' || !isUnicodeText(message)) throw new LedgerInputError('message', 'must be Unicode text');
  const bytes = utf8.encode(message);
  if (bytes.length === 0 || bytes.length > max) {
    throw new LedgerInputError('message', `must be 1 to ${max} bytes of UTF-8, got ${bytes.length}`);
  }
  if (bytes.includes(0)) throw new LedgerInputError('message', 'must not contain NUL');
  if (containsReservedText(message)) {
    throw new LedgerInputError('message', 'reserved: this text keys the credential store and is signed only as INS 05 for the store key');
  }
  const payload = concatBytes(
    uintToBytesBE(account, 4),
    Uint8Array.of(networkId, originBytes.length),
    originBytes,
    uintToBytesBE(bytes.length, 2),
    bytes,
  );
  return chunk(INS_SIGN_TEXT, payload);
}
