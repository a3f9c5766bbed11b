/**
 * Message signing: Auro's `signMessage` and `signJsonMessage` on the Ledger (INS 05), and `verifyMessage` /
 * `verifyJsonMessage` on the host.
 *
 * Every device signature is verified here with mina-signer before it is returned; the verify methods run on the host
 * with mina-signer and never touch the device. mina-signer is imported on first use only (src/upstream/mina-signers.ts).
 */
import type { MinaLedgerApp } from '../device/client.js';
import type { Capabilities } from '../device/capabilities.js';
import { accountMessageVerifier, minaSigners } from '../upstream/mina-signers.js';
import { isPrintableMessageByte, MESSAGE_MAX_BYTES, type NetworkId } from '../apdu/codec.js';
import { utf8 } from '../apdu/bytes.js';
import { isReservedMessage } from '../apdu/store-key.js';
import { ErrorCode, ProviderError, invalidParams } from '../errors/provider-error.js';
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

/** What signing a message or fields needs from the provider (its per-call session satisfies it). */
export interface MessageContext {
  app: MinaLedgerApp;
  accountIndex: number;
  address: string;
  capabilities: Capabilities;
  networkId: NetworkId;
  signal?: AbortSignal;
  /** Called before the device request with what the user is asked to check on the device. */
  onConfirm?: (prompt: string) => void;
  progress?: ReportProgress;
}

/**
 * Signs a message on the Ledger (INS 05) and verifies the signature with mina-signer on network `ctx.networkId`
 * before returning it. The store-key text is refused (20003) in any form the device would sign; a text the device
 * cannot sign (empty, over 65 bytes, not printable ASCII) is 20006 with the reason, naming the text as `what`, before
 * the device is asked.
 */
export async function signMessageOnLedger(ctx: MessageContext, message: string, what?: string): Promise<SignedMessage> {
  // The text the device will sign on this app version, not just the message: 1.4.0/1.4.1/1.4.4 sign it raw.
  if (isReservedMessage(ctx.capabilities.appVersion, message)) {
    throw invalidParams('message', 'reserved: this text keys the credential store and is never signed for a page');
  }
  assertDeviceSignsMessage(message, what);
  ctx.onConfirm?.('Review the message on your Ledger and approve');
  const signed = await ctx.app.signMessage(ctx.accountIndex, message, ctx.networkId, { signal: ctx.signal });
  if (!(await accountMessageVerifier(ctx.address, ctx.networkId))(signed)) {
    throw new ProviderError(ErrorCode.Internal, {
      reason: 'the Ledger returned a message signature that does not verify for this account',
    });
  }
  return { publicKey: ctx.address, data: signed.signedMessage, signature: { field: signed.field, scalar: signed.scalar } };
}

/** mina-signer `verifyMessage` on the provider's network; false when it does not verify. */
export async function verifyMessage(args: MessageToVerify, mainnet: boolean): Promise<boolean> {
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
