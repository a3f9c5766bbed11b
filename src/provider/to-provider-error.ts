/**
 * `toProviderError`: any failure → the `ProviderError` a page receives, in one place. The error class itself is the
 * leaf module src/errors/provider-error.ts (re-exported here), so that the domain modules below the provider can
 * throw it without importing the provider.
 */
import { formatStatusWord, isLedgerError, type LedgerError } from '../apdu/errors.js';
import { SW_APP_NOT_INSTALLED } from '../apdu/os.js';
import { isCredentialStoreError } from '../credentials/store.js';
import { ErrorCode, ProviderError, isProviderError, takeHostDetail } from '../errors/provider-error.js';
import { isMinaNodeError } from '../zkapp/graphql.js';

export {
  ErrorCode,
  ERROR_MESSAGES,
  ProviderError,
  invalidParams,
  isProviderError,
  requireApproval,
  type ProviderErrorData,
} from '../errors/provider-error.js';

/**
 * Absolute local paths inside a message: POSIX (`/home/<user>/…`, at least one directory), `file:` URLs and Windows
 * drive paths. Not URLs' paths (`https://host/a/b`, `127.0.0.1:8080/graphql`): a slash right after a word character,
 * a colon, a dot or another slash does not start one.
 */
const LOCAL_PATH = /file:\/\/[^\s'"`)]*|(?<![\w.:/\\])\/(?:[\w.@+~-]+\/)+[\w.@+~-]*|\b[A-Za-z]:\\[^\s'"`)]*/;

/** True if `text` names an absolute local path (which gives the OS user name and the host's layout away). */
function namesLocalPath(text: string): boolean {
  return LOCAL_PATH.test(text);
}

/**
 * A page-facing reason without local paths: unchanged when it names none; else the library's own context before the
 * first ": " (when that part names no path), and a pointer to the host's log, which gets the whole text.
 */
function withoutLocalPaths(reason: string): string {
  if (!namesLocalPath(reason)) return reason;
  const colon = reason.indexOf(': ');
  const context = colon > 0 && !namesLocalPath(reason.slice(0, colon)) ? reason.slice(0, colon) : 'the host failed';
  return `${context} (the detail names local files: the host's log has it)`;
}

/**
 * What the host's log should get for a failure whose page-facing reason is generic (a detail kept from the page with
 * `withHostDetail`, logged once: prover, compiler or library text; credential-store I/O or damage; a message naming local paths:
 * o1js, the presentation worker, file errors): the full detail; undefined for every other failure.
 */
export function hostDetail(error: unknown): string | undefined {
  const withheld = takeHostDetail(error);
  if (withheld !== undefined) return `withheld from the page: ${withheld}`;
  if (isCredentialStoreError(error) && (error.kind === 'io' || error.kind === 'corrupt')) return `credential store: ${error.message}`;
  const reason = mapError(error).data?.reason;
  if (reason !== undefined && namesLocalPath(reason)) return `withheld from the page (it names local files): ${reason}`;
  return undefined;
}

const statusWord = (e: LedgerError) => (e.statusCode === undefined ? {} : { statusWord: formatStatusWord(e.statusCode) });

/**
 * Any failure → `ProviderError`, in one place. Device errors are matched by name (see src/apdu/errors.ts); the
 * node's and the local chain's refusals are 21001; an abort by the caller becomes 1002 with the reason "cancelled";
 * anything unexpected becomes 22001, never a raw throw. A reason that would name local paths (raw o1js, worker or
 * file-system text) reaches pages without them; `hostDetail` gives the host's log the whole text.
 */
export function toProviderError(error: unknown): ProviderError {
  const mapped = mapError(error);
  const reason = mapped.data?.reason;
  if (reason === undefined || !namesLocalPath(reason)) return mapped;
  // Raw o1js / worker / file-system text inside a reason: pages get the context, the host's log the detail.
  return new ProviderError(mapped.code, { ...mapped.data!, reason: withoutLocalPaths(reason) });
}

/** `toProviderError` before local paths are taken out of the reason. */
function mapError(error: unknown): ProviderError {
  if (isProviderError(error)) return error;
  if (isLedgerError(error)) return fromLedgerError(error);
  const e = error as { name?: unknown; message?: unknown } | undefined;
  if (isMinaNodeError(error) || e?.name === 'LocalChainRejection') {
    return new ProviderError(ErrorCode.TransactionError, { reason: String(e?.message) });
  }
  if (isCredentialStoreError(error)) {
    // Pages get a generic reason: the detail names local paths (with the OS user name); the host logs it.
    const reason = {
      'wrong-key': 'the credential store was written with another Ledger or account',
      io: "the credential store could not be read or written (the host's log has the details)",
      corrupt: "the credential store is damaged or was tampered with (the host's log has the details)",
      invalid: error.message,
    }[error.kind];
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
      return new ProviderError(ErrorCode.NotConnected, {
        reason:
          error.statusCode === SW_APP_NOT_INSTALLED
            ? 'the Mina app is not installed on the Ledger: install it with Ledger Live'
            : 'open the Mina app on the Ledger',
        ...sw,
      });
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
