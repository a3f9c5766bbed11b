/**
 * Message signing: Auro's `signMessage` and `signJsonMessage` on the Ledger, and `verifyMessage` /
 * `verifyJsonMessage` on the host.
 *
 * A device with the extension's SIGN_TEXT (1.2) signs 1–1024 bytes of UTF-8 exactly as mina-signer's `signMessage`
 * does, so `data` is the dapp's own text; the released app's INS 05 signs 1–65 printable ASCII bytes as
 * `"Message : " + text` (≥ 1.4.5), and `data` is then that signed text. What the device cannot sign is refused with
 * the reason (`messageRefusal`) before the device is even waited for. Every device signature is verified here with
 * mina-signer before it is returned; the verify methods never touch the device. mina-signer is imported on first use
 * only (src/upstream/mina-signers.ts).
 */
import type { MinaLedgerApp } from '../device/client.js';
import type { Capabilities } from '../device/capabilities.js';
import { accountMessageVerifier, minaSigners } from '../upstream/mina-signers.js';
import { isPrintableMessageByte, MESSAGE_MAX_BYTES, type NetworkId } from '../apdu/codec.js';
import { utf8 } from '../apdu/bytes.js';
import {
  MAX_LONG_TEXT_MESSAGE_BYTES,
  MAX_TEXT_MESSAGE_BYTES,
  isUnicodeText,
  maxTextMessageBytes,
  textHash,
  textMessageProblem,
  textShownAsHash,
} from '../apdu/message-text.js';
import { isReservedMessage } from '../apdu/store-key.js';
import { ErrorCode, ProviderError, invalidParams } from '../errors/provider-error.js';
import type { TextToSign } from '../apdu/sign-text.js';
import type { ReportProgress } from '../util/progress.js';

/** What `signMessage` (and `signJsonMessage`) returns; `data` is the text the device signed. */
export interface SignedMessage {
  publicKey: string;
  /** The text the device signed (verify with mina-signer `verifyMessage` on the provider's network). */
  data: string;
  signature: { field: string; scalar: string };
}

/** One line of a JSON message; Auro's own example passes a number (`new Date().getTime()`) as a value. */
export interface JsonMessageEntry {
  label: string;
  value: string | number | boolean;
}

/** What `verifyMessage` checks: a signature of `data` by `publicKey` (mina-signer's shape). */
export interface MessageToVerify {
  publicKey: string;
  data: string;
  signature: { field: string; scalar: string };
}

/**
 * Why the Mina app cannot sign `message` with INS 05, or undefined when it can: it signs 1–65 bytes of printable
 * ASCII (0x20–0x7E, CR, LF) on every version. `what` names the text in the reason ("this message").
 */
export function messageLimitProblem(message: string, what = 'this message'): string | undefined {
  const limit = `the Ledger's Mina app signs messages of 1 to ${MESSAGE_MAX_BYTES} printable ASCII bytes (INS 05)`;
  if (message.length === 0) return `${limit}; ${what} is empty`;
  const bad = [...message].find((c) => !utf8.encode(c).every(isPrintableMessageByte));
  if (bad !== undefined) {
    const code = `U+${bad.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    return `${limit}; ${what} has ${code}, which is not printable ASCII`;
  }
  if (message.length > MESSAGE_MAX_BYTES) return `${limit}; ${what} is ${message.length} bytes`;
  return undefined;
}

/** What a device that has SIGN_TEXT would sign, said after INS 05's limit so the reason tells how to get there. */
const WITH_SIGN_TEXT = `; a Ledger with the chain-ledger protocol extension 1.2 (SIGN_TEXT) signs 1 to ${MAX_TEXT_MESSAGE_BYTES} bytes of UTF-8 text, 1.4 up to ${MAX_LONG_TEXT_MESSAGE_BYTES}`;
/** Said after 1.2's limit: what a newer device would sign. */
const WITH_LONG_TEXT = `; a Ledger with the chain-ledger protocol extension 1.4 signs up to ${MAX_LONG_TEXT_MESSAGE_BYTES} bytes`;

/**
 * Why the connected device cannot sign `message`, as the error to refuse it with before the device is asked, or
 * undefined: 20003 for a text that is no Unicode text (a lone surrogate) or holds the credential store's reserved
 * text; 20006 with the reason for a text the device cannot sign (SIGN_TEXT: empty, over 1024 bytes (16 KiB on
 * extension 1.4), NUL; INS 05: empty, over 65 bytes, not printable ASCII). `what` names the text in the reason
 * ("this JSON text").
 */
export function messageRefusal(capabilities: Capabilities, message: string, what = 'this message'): ProviderError | undefined {
  if (!isUnicodeText(message)) return invalidParams('message', 'must be Unicode text (it has a lone surrogate, which UTF-8 cannot encode)');
  // The text the device will sign on this app version, not just the message: 1.4.0/1.4.1/1.4.4 sign it raw, and
  // SIGN_TEXT signs it as it is.
  if (isReservedMessage(capabilities.appVersion, message)) {
    return invalidParams('message', 'reserved: this text keys the credential store and is never signed for a page');
  }
  const max = maxTextMessageBytes(capabilities.extension);
  if (max > 0) {
    const reason = textMessageProblem(message, what, max);
    if (reason === undefined) return undefined;
    // Over 1.2's bound on a 1.2/1.3 device (but within 1.4's): say which version would sign it.
    const newer = max < MAX_LONG_TEXT_MESSAGE_BYTES && textMessageProblem(message, what, MAX_LONG_TEXT_MESSAGE_BYTES) === undefined;
    return new ProviderError(ErrorCode.MethodNotSupported, { reason: newer ? reason + WITH_LONG_TEXT : reason });
  }
  const reason = messageLimitProblem(message, what);
  return reason === undefined ? undefined : new ProviderError(ErrorCode.MethodNotSupported, { reason: reason + WITH_SIGN_TEXT });
}

/** What signing a message or fields needs from the provider (its call context satisfies it). */
export interface MessageContext {
  app: MinaLedgerApp;
  accountIndex: number;
  address: string;
  capabilities: Capabilities;
  networkId: NetworkId;
  /** The origin asking: SIGN_TEXT shows it on the device. */
  origin: string;
  signal?: AbortSignal;
  /** Called before the device request with what the user is asked to check on the device. */
  onConfirm?: (prompt: string) => void;
  progress?: ReportProgress;
}

/**
 * What the holder is asked before the device review: for a text the device shows as its hash (`textShownAsHash`),
 * that hash, to compare with the device's screen against the text the host shows (the wallet's request view).
 */
function confirmPrompt(message: string): string {
  if (!textShownAsHash(message)) return 'Review the message on your Ledger and approve';
  return `This text is too long to page through on the Ledger: it shows the text's SHA-256 ${textHash(message)} (needs Blind signing enabled in the Mina app). Read the text here, check the hash on your Ledger, and approve`;
}

/**
 * A long text on a 1.4 device. A rejection of one it shows as its hash may be the device's own (Blind signing off):
 * the reason says how to enable it, as for INS 06.
 */
async function signLong(ctx: MessageContext, text: TextToSign, options: { signal?: AbortSignal }) {
  try {
    return await ctx.app.signLongText(text, options);
  } catch (error) {
    if (!textShownAsHash(text.message) || (error as { name?: string }).name !== 'LedgerUserRejectedError') throw error;
    throw new ProviderError(ErrorCode.UserRejected, {
      reason:
        'rejected on the Ledger; if you did not reject, enable "Blind signing" in the Mina app settings (a text this long is shown as its hash)',
    });
  }
}

/**
 * Signs a message on the Ledger and verifies the signature with mina-signer on network `ctx.networkId` before
 * returning it: with SIGN_TEXT when the device has it (`data` is the message itself), else with INS 05 (`data` is the
 * text the app signed, `"Message : " + message` on ≥ 1.4.5). What the device cannot sign is refused first
 * (`messageRefusal`; the provider checks it before it waits for the device).
 */
export async function signMessageOnLedger(ctx: MessageContext, message: string, what?: string): Promise<SignedMessage> {
  const refusal = messageRefusal(ctx.capabilities, message, what);
  if (refusal) throw refusal;
  ctx.onConfirm?.(confirmPrompt(message));
  const options = { signal: ctx.signal };
  const text = { account: ctx.accountIndex, networkId: ctx.networkId, origin: ctx.origin, message };
  const long = utf8.encode(message).length > MAX_TEXT_MESSAGE_BYTES; // messageRefusal let it through: a 1.4 device
  const signed = ctx.capabilities.extension?.signText
    ? { ...(await (long ? signLong(ctx, text, options) : ctx.app.signText(text, options))), signedMessage: message }
    : await ctx.app.signMessage(ctx.accountIndex, message, ctx.networkId, options);
  if (!(await accountMessageVerifier(ctx.address, ctx.networkId))(signed)) {
    throw new ProviderError(ErrorCode.Internal, {
      reason: 'the Ledger returned a message signature that does not verify for this account',
    });
  }
  return { publicKey: ctx.address, data: signed.signedMessage, signature: { field: signed.field, scalar: signed.scalar } };
}

/**
 * The longest `data` `verifyMessage` and `verifyJsonMessage` take, in UTF-16 code units (so at most 48 KiB of
 * UTF-8): mina-signer's legacy string hash takes time quadratic in the text (16,384 characters 0.15 s, 100,000 3 s,
 * 400,000 40 s of a blocked event loop, measured on 2 cores), and no Ledger signs more than 16,384 bytes (SIGN_TEXT
 * 1.4), so every text a Ledger signed can be verified here.
 */
export const MAX_VERIFIED_MESSAGE_CHARS = MAX_LONG_TEXT_MESSAGE_BYTES;

/**
 * mina-signer `verifyMessage` on the provider's network; false when it does not verify, and for `data` holding NUL:
 * the legacy string hash packs the text's bits into fields and ignores trailing zero bits, so the signature of "X"
 * verifies for "X\u0000" too; no signing path signs a NUL (SIGN_TEXT and INS 05 refuse it), so none is accepted here.
 */
export async function verifyMessage(args: MessageToVerify, mainnet: boolean): Promise<boolean> {
  if (args.data.includes('\u0000')) return false;
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
