/**
 * Error classes of the device layer. Each has a fixed `name`, so callers match on `error.name` (or `statusCode`),
 * never with `instanceof`: a bundle can hold several copies of this module, as it can of `@ledgerhq/hw-transport`.
 */
import {
  INS_SIGN_FIELD_ELEMENT,
  SW_APP_NOT_OPEN,
  SW_APP_NOT_OPEN_ALT,
  SW_CANCELLED,
  SW_CLA_NOT_SUPPORTED,
  SW_INS_NOT_SUPPORTED,
  SW_LOCKED,
  SW_REJECTED,
  SW_UNKNOWN_APDU,
  SW_USER_REFUSED_OS,
} from './constants.js';

export interface LedgerErrorContext {
  /** The status word the device answered, when the error comes from one. */
  statusCode?: number;
  /** The instruction that was sent, when known. */
  ins?: number;
  cause?: unknown;
}

abstract class LedgerErrorBase extends Error {
  abstract override readonly name: string;
  readonly statusCode?: number;
  readonly ins?: number;

  constructor(message: string, context: LedgerErrorContext = {}) {
    super(message, context.cause === undefined ? undefined : { cause: context.cause });
    if (context.statusCode !== undefined) this.statusCode = context.statusCode;
    if (context.ins !== undefined) this.ins = context.ins;
  }
}

/** The user pressed "Reject" (0x6985, 0x6986, OS-level 0x5501). On INS 06 it may also mean blind signing is off. */
export class LedgerUserRejectedError extends LedgerErrorBase {
  override readonly name = 'LedgerUserRejectedError';
}

/** The app refused the request's data (0x6802 and other 0x68xx). */
export class LedgerInvalidDataError extends LedgerErrorBase {
  override readonly name = 'LedgerInvalidDataError';
}

/** The open app does not know the instruction (0x6D00): an older Mina app, or an instruction it never had. */
export class LedgerUnsupportedInstructionError extends LedgerErrorBase {
  override readonly name = 'LedgerUnsupportedInstructionError';
}

/** The Mina app is not open (dashboard or another app answered: 0x6E00, 0x6E01, 0x6511, 0x6D02). */
export class LedgerAppNotOpenError extends LedgerErrorBase {
  override readonly name = 'LedgerAppNotOpenError';
}

/** The device is locked (0x5515): the user must enter the PIN. */
export class LedgerDeviceLockedError extends LedgerErrorBase {
  override readonly name = 'LedgerDeviceLockedError';
}

/** Any other status word. */
export class LedgerStatusError extends LedgerErrorBase {
  override readonly name = 'LedgerStatusError';
}

/** The host refused an argument before anything was sent. `field` names it. */
export class LedgerInputError extends LedgerErrorBase {
  override readonly name = 'LedgerInputError';
  readonly field: string;
  constructor(field: string, reason: string) {
    super(`Invalid ${field}: ${reason}`);
    this.field = field;
  }
}

/** The device answered 0x9000 with a reply that does not have the expected shape: never used as a result. */
export class LedgerReplyError extends LedgerErrorBase {
  override readonly name = 'LedgerReplyError';
}

/** The connected app is too old for the feature; nothing was sent for it. */
export class LedgerAppVersionError extends LedgerErrorBase {
  override readonly name = 'LedgerAppVersionError';
  readonly feature: string;
  readonly required: string;
  readonly actual: string;
  constructor(feature: string, required: string, actual: string) {
    super(`${feature} needs Mina app ${required} or newer; the device runs ${actual}`);
    this.feature = feature;
    this.required = required;
    this.actual = actual;
  }
}

/** The device went away (unplugged, transport closed) before or during the exchange. */
export class LedgerDisconnectedError extends LedgerErrorBase {
  override readonly name = 'LedgerDisconnectedError';
}

/** No device could be found or opened. */
export class LedgerNotFoundError extends LedgerErrorBase {
  override readonly name = 'LedgerNotFoundError';
}

/** Names of every error class above, for `isLedgerError`. */
export const LEDGER_ERROR_NAMES = [
  'LedgerUserRejectedError',
  'LedgerInvalidDataError',
  'LedgerUnsupportedInstructionError',
  'LedgerAppNotOpenError',
  'LedgerDeviceLockedError',
  'LedgerStatusError',
  'LedgerInputError',
  'LedgerReplyError',
  'LedgerAppVersionError',
  'LedgerDisconnectedError',
  'LedgerNotFoundError',
] as const;
export type LedgerErrorName = (typeof LEDGER_ERROR_NAMES)[number];

export type LedgerError =
  | LedgerUserRejectedError
  | LedgerInvalidDataError
  | LedgerUnsupportedInstructionError
  | LedgerAppNotOpenError
  | LedgerDeviceLockedError
  | LedgerStatusError
  | LedgerInputError
  | LedgerReplyError
  | LedgerAppVersionError
  | LedgerDisconnectedError
  | LedgerNotFoundError;

/** Structural check by name, safe across bundle copies. */
export function isLedgerError(error: unknown, name?: LedgerErrorName): error is LedgerError {
  if (typeof error !== 'object' || error === null) return false;
  const actual = (error as { name?: unknown }).name;
  return name === undefined ? (LEDGER_ERROR_NAMES as readonly unknown[]).includes(actual) : actual === name;
}

/** A status word as the library writes it everywhere: "0x" and four lower-case hex digits ("0x6985"). */
export const formatStatusWord = (statusCode: number): string => `0x${statusCode.toString(16).padStart(4, '0')}`;

/** Maps a status word (≠ 0x9000) to its error, in one place. */
export function statusToError(statusCode: number, ins?: number, cause?: unknown): LedgerError {
  const context: LedgerErrorContext = { statusCode, ins, cause };
  const sw = formatStatusWord(statusCode);
  switch (statusCode) {
    case SW_REJECTED:
    case SW_CANCELLED:
    case SW_USER_REFUSED_OS:
      return new LedgerUserRejectedError(
        ins === INS_SIGN_FIELD_ELEMENT
          ? `Rejected on the device (${sw}); if you did not reject, enable "Blind signing" in the Mina app settings`
          : `Rejected on the device (${sw})`,
        context,
      );
    case SW_LOCKED:
      return new LedgerDeviceLockedError(`The device is locked (${sw}): unlock it with your PIN`, context);
    case SW_INS_NOT_SUPPORTED:
      return new LedgerUnsupportedInstructionError(`The open app does not support this instruction (${sw}): update the Mina app`, context);
    case SW_CLA_NOT_SUPPORTED:
    case SW_APP_NOT_OPEN:
    case SW_APP_NOT_OPEN_ALT:
    case SW_UNKNOWN_APDU:
      return new LedgerAppNotOpenError(`The Mina app is not open (${sw}): open it on the device`, context);
    default:
      if ((statusCode & 0xff00) === 0x6800) {
        return new LedgerInvalidDataError(`The device refused the request data (${sw})`, context);
      }
      return new LedgerStatusError(`The device answered status ${sw}`, context);
  }
}

/** Error names that transports use for a lost device (@ledgerhq/errors, node errno codes from HTTP transports). */
const DISCONNECT_NAMES = new Set(['DisconnectedDevice', 'DisconnectedDeviceDuringOperation', 'LedgerDisconnectedError']);
const DISCONNECT_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ECONNABORTED', 'ERR_SOCKET_CLOSED']);

/**
 * Normalises anything a transport throws into a device-layer error. Matches by `name`, `statusCode` and `code`
 * only, so errors from any copy of `@ledgerhq/hw-transport` (or a structural transport) are recognised.
 * Abort reasons pass through unchanged, as `fetch` does.
 */
export function toLedgerError(error: unknown, ins?: number): unknown {
  if (typeof error !== 'object' || error === null) return error;
  const e = error as { name?: unknown; statusCode?: unknown; code?: unknown; message?: unknown };
  if (isLedgerError(error) || e.name === 'AbortError' || e.name === 'TimeoutError') return error;
  if (e.name === 'LockedDeviceError') return statusToError(SW_LOCKED, ins, error);
  if (typeof e.statusCode === 'number' && e.name !== 'AxiosError') return statusToError(e.statusCode, ins, error);
  if (typeof e.name === 'string' && DISCONNECT_NAMES.has(e.name)) {
    return new LedgerDisconnectedError('The device was disconnected', { ins, cause: error });
  }
  if (typeof e.code === 'string' && DISCONNECT_CODES.has(e.code)) {
    return new LedgerDisconnectedError(`The device connection was lost (${e.code})`, { ins, cause: error });
  }
  return error;
}
