/**
 * Errors between chain-ledger and Ledger's Device Management Kit, both ways. DMK errors are plain objects with a
 * `_tag` (`DmkError`); chain-ledger's are `Error`s with a fixed `name` (src/apdu/errors.ts). A failure of the Mina
 * app or of the host's checks reaches DMK as a `MinaAppError` that carries the chain-ledger error; the promise
 * helpers and the provider get chain-ledger errors back (`toLedgerErrorFromDmk`), so code written against
 * `MinaLedgerApp` matches the same names.
 */
import type { DmkError } from '@ledgerhq/device-management-kit';
import {
  LedgerAppNotOpenError,
  LedgerDeviceLockedError,
  LedgerDisconnectedError,
  LedgerStatusError,
  LedgerUserRejectedError,
  formatStatusWord,
  isLedgerError,
  statusToError,
  toLedgerError,
} from '../apdu/errors.js';
import { SW_LOCKED, SW_USER_REFUSED_OS } from '../apdu/constants.js';
import { SW_APP_NOT_INSTALLED } from '../apdu/os.js';

/** A status word as DMK writes it: four lower-case hex digits, without the "0x" ("6985"). */
export const errorCodeOf = (statusCode: number): string => formatStatusWord(statusCode).slice(2);

/**
 * What the Mina signer's commands and device actions fail with: the chain-ledger error (`originalError`, matched by
 * its `name`) as a DMK error. `_tag` is that name (`LedgerUserRejectedError`, `LedgerInputError`, …); `errorCode`
 * the status word in DMK's spelling when the device answered one.
 */
export class MinaAppError extends Error implements DmkError {
  override readonly name = 'MinaAppError';
  readonly _tag: string;
  readonly errorCode: string | undefined;
  readonly originalError: unknown;

  /**
   * @param error - The chain-ledger error (anything else is normalised with `toLedgerError`).
   * @param statusCode - The status word the device answered, when `error` carries none (a malformed 0x9000 reply).
   */
  constructor(error: unknown, statusCode?: number) {
    const ledgerError = toLedgerError(error);
    const e = ledgerError as { name?: unknown; message?: unknown; statusCode?: unknown };
    super(typeof e?.message === 'string' ? e.message : String(error), { cause: ledgerError });
    this._tag = typeof e?.name === 'string' ? e.name : 'Error';
    const code = typeof e?.statusCode === 'number' ? e.statusCode : statusCode;
    this.errorCode = code === undefined ? undefined : errorCodeOf(code);
    this.originalError = ledgerError;
  }
}

/** DMK's tags for a device that went away or a session that is gone. */
const DISCONNECT_TAGS = new Set([
  'DeviceSessionNotFound',
  'DeviceDisconnectedBeforeSendingApdu',
  'DeviceDisconnectedWhileSendingError',
  'DisconnectError',
  'ReconnectionFailedError',
]);

/**
 * A DMK error (from a device action, `sendApdu` or a transport) as the chain-ledger error a `MinaLedgerApp` caller
 * expects: a `MinaAppError` gives back what it carries; the OS's refusals of "open the Mina app" become
 * `LedgerUserRejectedError` (0x5501), `LedgerAppNotOpenError` (0x6807: not installed), `LedgerDeviceLockedError`.
 */
export function toLedgerErrorFromDmk(error: unknown): unknown {
  if (error instanceof MinaAppError || (error as { name?: unknown } | null)?.name === 'MinaAppError') {
    return (error as MinaAppError).originalError;
  }
  if (isLedgerError(error) || typeof error !== 'object' || error === null || !('_tag' in error)) return error;
  const { _tag: tag, message, errorCode } = error as DmkError & { errorCode?: unknown };
  const detail = typeof message === 'string' && message !== '' ? `${tag}: ${message}` : String(tag);
  const statusCode = typeof errorCode === 'string' && /^[0-9a-f]{4}$/i.test(errorCode) ? Number.parseInt(errorCode, 16) : undefined;
  const context = { cause: error, ...(statusCode === undefined ? {} : { statusCode }) };
  if (DISCONNECT_TAGS.has(String(tag))) return new LedgerDisconnectedError(`The device was disconnected (${detail})`, context);
  if (tag === 'DeviceLockedError' || statusCode === SW_LOCKED) {
    return new LedgerDeviceLockedError('The device is locked: unlock it with your PIN', context);
  }
  if (statusCode === SW_APP_NOT_INSTALLED) {
    return new LedgerAppNotOpenError('The Mina app is not installed on this Ledger (0x6807): install it with Ledger Live', context);
  }
  if (statusCode === SW_USER_REFUSED_OS)
    return new LedgerUserRejectedError('Opening the Mina app was refused on the device (0x5501)', context);
  if (tag === 'DeviceNotOnboardedError') return new LedgerStatusError('The Ledger is not set up yet: set it up first', context);
  if (statusCode !== undefined) return statusToError(statusCode, undefined, error);
  return new LedgerStatusError(`Ledger Device Management Kit: ${detail}`, context);
}
