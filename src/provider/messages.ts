/**
 * Auro's field and message methods besides `signMessage`: `signFields`, `verifyFields`, `verifyMessage`,
 * `signJsonMessage`, `verifyJsonMessage`.
 *
 * - `signFields` signs with mina-signer's scheme (kimchi Schnorr over Poseidon of the fields, testnet domain on every
 *   network, as mina-signer and o1js `Signature.verify` do): one field with INS 06 (app ≥ 1.6.0, blind signing, the
 *   device shows the value), several with the extension's SIGN_FIELDS. Every device signature is verified here with
 *   mina-signer `verifyFields` before it is returned.
 * - The verify methods run on the host with mina-signer; they never touch the device.
 *
 * mina-signer is imported on first use only (src/crypto/mina-signers.ts).
 */
import { z } from 'zod';
import type { MinaLedgerApp } from '../device/client.js';
import { signatureToBase58 } from '../apdu/signature.js';
import { accountMessageVerifier, minaSigners } from '../crypto/mina-signers.js';
import { MAX_FIELDS } from '../apdu/extension.js';
import { isPrintableMessageByte, MESSAGE_MAX_BYTES, type NetworkId } from '../apdu/codec.js';
import { utf8 } from '../apdu/bytes.js';
import { isReservedMessage } from '../apdu/store-key.js';
import type { Capabilities } from './capabilities.js';
import { ErrorCode, ProviderError, invalidParams } from './errors.js';
import { messageField } from './schemas.js';

/** What `signMessage` (and `signJsonMessage`) returns; `data` is the text the device signed. */
export interface SignedMessage {
  publicKey: string;
  /** The text the device signed (verify with mina-signer `verifyMessage` on the provider's network). */
  data: string;
  signature: { field: string; scalar: string };
}

/** Fields one `signFields` call may sign: what SIGN_FIELDS takes in one request (more → 20006). */
export const MAX_SIGN_FIELDS = MAX_FIELDS;

export interface SignedFields {
  /** The message as given. */
  data: (string | number)[];
  publicKey: string;
  /** Base58, as mina-signer `signFields` and Auro return it. */
  signature: string;
}

/** One line of a JSON message; Auro's own example passes a number (`new Date().getTime()`) as a value. */
export interface JsonMessageEntry {
  label: string;
  value: string | number | boolean;
}

const address = z.string().regex(/^B62[1-9A-HJ-NP-Za-km-z]{52}$/, 'must be a Mina address (B62…)');
const decimal = z.string().regex(/^\d{1,80}$/, 'must be a decimal string');

/** Any number of well-formed fields (≥ 1); more than the device signs at once is 20006, in `signFieldsOnLedger`. */
export const signFieldsParams = z.object({ message: z.array(messageField).min(1) });
export const verifyFieldsParams = z.object({
  publicKey: address,
  data: z.array(messageField).min(1).max(MAX_SIGN_FIELDS),
  signature: z.string().min(1).max(200),
});
export const verifyMessageParams = z.object({
  publicKey: address,
  data: z.string(),
  signature: z.object({ field: decimal, scalar: decimal }),
});
/** Auro's `signJsonMessage` argument: `{ message: [{ label, value }, …] }`, signed as its JSON text. */
export const signJsonMessageParams = z.object({
  message: z.array(z.object({ label: z.string(), value: z.union([z.string(), z.number().finite(), z.boolean()]) })).min(1),
});

/**
 * Why the Mina app cannot sign `message` with INS 05, or undefined when it can: it signs 1–65 bytes of printable
 * ASCII (0x20–0x7E, CR, LF) on every version. `what` names the text in the reason ("this message").
 */
export function messageLimitProblem(message: string, what = 'this message'): string | undefined {
  const bytes = utf8.encode(message);
  const limit = `the Ledger's Mina app signs messages of 1 to ${MESSAGE_MAX_BYTES} printable ASCII bytes (INS 05)`;
  if (bytes.length === 0) return `${limit}; ${what} is empty`;
  const bad = [...message].find((c) => !utf8.encode(c).every(isPrintableMessageByte));
  if (bad !== undefined) {
    const code = `U+${bad.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    return `${limit}; ${what} has ${code}, which is not printable ASCII`;
  }
  if (bytes.length > MESSAGE_MAX_BYTES) return `${limit}; ${what} is ${bytes.length} bytes`;
  return undefined;
}

/** 20006 with the reason when the device cannot sign `message` (see `messageLimitProblem`). */
export function assertDeviceSignsMessage(message: string, what?: string): void {
  const reason = messageLimitProblem(message, what);
  if (reason !== undefined) throw new ProviderError(ErrorCode.MethodNotSupported, { reason });
}

/**
 * Signs a message on the Ledger (INS 05) and verifies the signature with mina-signer on network `networkId` before
 * returning it. The store-key text is refused (20003) in any form the device would sign; a text the device cannot
 * sign (empty, over 65 bytes, not printable ASCII) is 20006 with the reason, before the device is asked.
 */
export async function signMessageOnLedger(
  app: MinaLedgerApp,
  accountIndex: number,
  address: string,
  capabilities: Capabilities,
  networkId: NetworkId,
  message: string,
  options: { signal?: AbortSignal; onConfirm?: (prompt: string) => void },
): Promise<SignedMessage> {
  // The text the device will sign on this app version, not just the message: 1.4.0/1.4.1/1.4.4 sign it raw.
  if (isReservedMessage(capabilities.appVersion, message)) {
    throw invalidParams('message', 'reserved: this text keys the credential store and is never signed for a page');
  }
  assertDeviceSignsMessage(message);
  options.onConfirm?.('Review the message on your Ledger and approve');
  const signed = await app.signMessage(accountIndex, message, networkId, { signal: options.signal });
  if (!(await accountMessageVerifier(address, networkId))(signed)) {
    throw new ProviderError(ErrorCode.Internal, {
      reason: 'the Ledger returned a message signature that does not verify for this account',
    });
  }
  return { publicKey: address, data: signed.signedMessage, signature: { field: signed.field, scalar: signed.scalar } };
}

/**
 * Signs fields on the Ledger. One field: INS 06 with network id 0 (the testnet domain mina-signer's `signFields`
 * uses on every network); several: extension SIGN_FIELDS, testnet domain. 20006 with the reason when the app lacks
 * the instruction or the message has more fields than the device signs at once (64, or fewer if it says so).
 */
export async function signFieldsOnLedger(
  app: MinaLedgerApp,
  accountIndex: number,
  address: string,
  capabilities: Capabilities,
  fields: bigint[],
  given: (string | number)[],
  options: { signal?: AbortSignal; onConfirm?: (prompt: string) => void },
): Promise<SignedFields> {
  let signature: { field: string; scalar: string };
  if (fields.length > MAX_SIGN_FIELDS) {
    throw new ProviderError(ErrorCode.MethodNotSupported, {
      reason: `the Ledger signs at most ${MAX_SIGN_FIELDS} fields in one request (SIGN_FIELDS of the chain-ledger protocol extension); this message has ${fields.length}`,
    });
  }
  if (fields.length === 1) {
    if (!capabilities.signFieldElement) {
      throw new ProviderError(ErrorCode.MethodNotSupported, {
        reason: `Mina app ${capabilities.appVersion.version} cannot sign a field element: update it to 1.6.0 or newer (INS 06)`,
      });
    }
    options.onConfirm?.('Blind-sign the field element on your Ledger (it shows the value as 64 hex digits)');
    signature = await app.signFieldElement(accountIndex, fields[0]!, 0, { signal: options.signal });
  } else {
    const extension = capabilities.extension;
    if (!extension?.signFields) {
      throw new ProviderError(ErrorCode.MethodNotSupported, {
        reason: `Mina app ${capabilities.appVersion.version} signs one field element at most (INS 06): ${fields.length} fields need SIGN_FIELDS of the chain-ledger protocol extension`,
      });
    }
    if (fields.length > extension.maxFields) {
      throw new ProviderError(ErrorCode.MethodNotSupported, {
        reason: `the Ledger signs at most ${extension.maxFields} fields in one request (SIGN_FIELDS); this message has ${fields.length}`,
      });
    }
    options.onConfirm?.('Review the fields on your Ledger and approve');
    signature = await app.signFields(accountIndex, fields, 'testnet', { signal: options.signal });
  }
  const result: SignedFields = { data: [...given], publicKey: address, signature: signatureToBase58(signature) };
  const signers = await minaSigners();
  if (!signers.testnet.verifyFields({ data: fields, publicKey: address, signature: result.signature })) {
    throw new ProviderError(ErrorCode.Internal, { reason: 'the Ledger returned a fields signature that does not verify for this account' });
  }
  return result;
}

/** mina-signer `verifyFields` (testnet domain, as `signFields`); false for a signature that is not base58 or does not verify. */
export async function verifyFields(args: z.output<typeof verifyFieldsParams>): Promise<boolean> {
  const signers = await minaSigners();
  try {
    return signers.testnet.verifyFields({ data: args.data, publicKey: args.publicKey, signature: args.signature });
  } catch {
    return false;
  }
}

/** mina-signer `verifyMessage` on the provider's network; false when it does not verify. */
export async function verifyMessage(args: z.output<typeof verifyMessageParams>, mainnet: boolean): Promise<boolean> {
  const signers = await minaSigners();
  try {
    return (mainnet ? signers.mainnet : signers.testnet).verifyMessage(args);
  } catch {
    return false;
  }
}

/** The text `signJsonMessage` signs: the JSON of the entries, as Auro signs it (values keep their JSON type). */
export function jsonMessageText(message: JsonMessageEntry[]): string {
  return JSON.stringify(message.map(({ label, value }) => ({ label, value })));
}
