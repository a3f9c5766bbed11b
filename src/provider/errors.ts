/**
 * `ProviderError`: what every `window.chain` promise rejects with. Codes and messages are those existing Mina
 * wallets use (Auro's `dappError.ts`), so dapps that branch on `.code` work unchanged; `data` says why, in words a
 * developer can act on.
 *
 * It is a plain class, not an `Error` subclass, on purpose: `structuredClone` (postMessage between a page and a
 * wallet frame or extension) keeps only `name`, `message` and `stack` of an `Error`, and would drop `code` and `data`.
 */
import { isLedgerError, type LedgerError } from '../apdu/errors.js';
import { isCredentialStoreError } from '../credentials/store.js';

export const ErrorCode = {
  NotConnected: 1001,
  UserRejected: 1002,
  InvalidParams: 20003,
  MethodNotSupported: 20006,
  /** The node or the local chain refused a broadcast (Auro's code for transaction failures). */
  TransactionError: 21001,
  Internal: 22001,
  OriginMismatch: 23001,
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Exact messages: dapps and tests compare them. */
export const ERROR_MESSAGES: Record<ErrorCode, string> = {
  1001: 'User disconnect, please connect first.',
  1002: 'User rejected the request.',
  20003: 'Invalid method parameter(s).',
  20006: 'Method not supported.',
  21001: 'Transaction error.',
  22001: 'Unspecified error message. This is a bug, please report it.',
  23001: 'Origin dismatch.',
};

export interface ProviderErrorData {
  /** Why, for a developer. */
  reason: string;
  /** The invalid argument, as a path (`feePayer.fee`, `message[3]`). */
  field?: string;
  /** The device's status word, as 0x-hex, when the device answered one. */
  statusWord?: string;
}

export class ProviderError {
  readonly name = 'ProviderError';
  readonly code: ErrorCode;
  readonly message: string;
  readonly data?: ProviderErrorData;

  constructor(code: ErrorCode, data?: ProviderErrorData) {
    this.code = code;
    this.message = ERROR_MESSAGES[code];
    if (data !== undefined) this.data = data;
  }

  toString(): string {
    return `ProviderError ${this.code}: ${this.message}${this.data ? ` (${this.data.reason})` : ''}`;
  }
}

export function isProviderError(value: unknown): value is ProviderError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { name?: unknown }).name === 'ProviderError' &&
    typeof (value as { code?: unknown }).code === 'number'
  );
}

export const invalidParams = (field: string, reason: string) => new ProviderError(ErrorCode.InvalidParams, { field, reason });

const statusWord = (e: LedgerError) =>
  e.statusCode === undefined ? {} : { statusWord: `0x${e.statusCode.toString(16).padStart(4, '0')}` };

/**
 * Any failure → `ProviderError`, in one place. Device errors are matched by name (see src/apdu/errors.ts); an
 * abort by the caller becomes 1002 with the reason "cancelled"; anything unexpected becomes 22001, never a raw throw.
 */
export function toProviderError(error: unknown): ProviderError {
  if (isProviderError(error)) return error;
  if (isLedgerError(error)) return fromLedgerError(error);
  const e = error as { name?: unknown; message?: unknown } | undefined;
  if (isCredentialStoreError(error)) {
    const reason =
      error.kind === 'wrong-key' ? `the credential store was written with another Ledger or account: ${error.message}` : error.message;
    return new ProviderError(error.kind === 'invalid' ? ErrorCode.InvalidParams : ErrorCode.Internal, { reason });
  }
  if (e?.name === 'AbortError' || e?.name === 'TimeoutError') {
    return new ProviderError(ErrorCode.UserRejected, { reason: `cancelled by the caller (${String(e.message ?? e.name)})` });
  }
  const message = typeof e?.message === 'string' ? e.message : String(error);
  return new ProviderError(ErrorCode.Internal, { reason: message });
}

function fromLedgerError(error: LedgerError): ProviderError {
  const sw = statusWord(error);
  switch (error.name) {
    case 'LedgerUserRejectedError':
      return new ProviderError(ErrorCode.UserRejected, {
        reason:
          error.ins === 0x06
            ? 'rejected on the Ledger; if you did not reject, enable "Blind signing" in the Mina app settings'
            : 'rejected on the Ledger',
        ...sw,
      });
    case 'LedgerDeviceLockedError':
      return new ProviderError(ErrorCode.NotConnected, { reason: 'device locked: unlock the Ledger with your PIN', ...sw });
    case 'LedgerAppNotOpenError':
      return new ProviderError(ErrorCode.NotConnected, { reason: 'open the Mina app on the Ledger', ...sw });
    case 'LedgerDisconnectedError':
      return new ProviderError(ErrorCode.NotConnected, { reason: 'the Ledger was disconnected: plug it in and connect again' });
    case 'LedgerNotFoundError':
      return new ProviderError(ErrorCode.NotConnected, { reason: `no Ledger: ${error.message}` });
    case 'LedgerUnsupportedInstructionError':
    case 'LedgerAppVersionError':
      return new ProviderError(ErrorCode.MethodNotSupported, { reason: error.message, ...sw });
    case 'LedgerInputError':
      return new ProviderError(ErrorCode.InvalidParams, { field: error.field, reason: error.message });
    case 'LedgerInvalidDataError':
      return new ProviderError(ErrorCode.InvalidParams, { reason: `the Ledger refused the request data: ${error.message}`, ...sw });
    default:
      return new ProviderError(ErrorCode.Internal, { reason: `${error.name}: ${error.message}`, ...sw });
  }
}
