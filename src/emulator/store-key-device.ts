/**
 * The device half of STORE_KEY (extension INS 0xA6, version 1.3, docs/apdu-extensions.md), as the software Ledger
 * runs it: read the account and the site asking, show "Unlock / credentials" with that site (escaped by the
 * extension's text rule), and sign exactly what INS 05 signs for the store-key text on this app version (network id 1:
 * the mainnet domain), so the key is the same whichever instruction asked for it.
 */
import { ByteReader } from '../apdu/bytes.js';
import { SW_INVALID_DATA } from '../apdu/constants.js';
import { decodeDisplayText, escapeForDisplay } from '../apdu/display-text.js';
import { INS_STORE_KEY } from '../apdu/extension.js';
import { storeKeySignedText, type StoreKeyRequest } from '../apdu/store-key.js';
import { rawSignature, type Device } from './app-instructions.js';
import { fail, invalidData } from './device-errors.js';
import { valueScreens } from './display.js';
import { APPROVE, REJECT, pb, pnn, screen, type Review } from './review.js';
import { signLegacyMessage } from './signer.js';

/**
 * account u32 ‖ origin (u8 length 1–255 ‖ UTF-8). Anything else is 0x6802: an empty origin, one that is not UTF-8 or
 * holds a control character, missing or extra bytes.
 */
export function readStoreKeyRequest(payload: Uint8Array): StoreKeyRequest {
  const reader = new ByteReader(payload, invalidData);
  const account = reader.u32be();
  const length = reader.u8();
  if (length === 0) fail(SW_INVALID_DATA);
  const origin = decodeDisplayText(reader.bytes(length)) ?? fail(SW_INVALID_DATA);
  reader.end();
  return { account, origin };
}

/** "Unlock / credentials", the site asking (escaped), what approving does, then Approve / Reject. */
export function storeKeyReview({ origin }: StoreKeyRequest): Review {
  return {
    ins: INS_STORE_KEY,
    kind: 'store-key',
    approvable: true,
    screens: [
      pnn('eye', 'Unlock', 'credentials'),
      ...valueScreens('Requested by', escapeForDisplay(origin)).map(screen),
      ...valueScreens('Approving lets', 'the wallet read your stored credentials').map(screen),
      pb('validate', APPROVE),
      pb('crossmark', REJECT),
    ],
  };
}

/** STORE_KEY: read, show the site, then sign the store-key text as INS 05 does on this version (network id 1). */
export async function storeKey(device: Device, payload: Uint8Array): Promise<Uint8Array> {
  const request = readStoreKeyRequest(payload);
  await device.review(storeKeyReview(request));
  return rawSignature(signLegacyMessage(storeKeySignedText(device.version), device.key(request.account).privateKeyBase58, 1));
}
