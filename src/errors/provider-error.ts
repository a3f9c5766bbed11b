/**
 * `ProviderError`: what every `window.chain` promise rejects with. Codes and messages are those existing Mina
 * wallets use (Auro's `dappError.ts`), so dapps that branch on `.code` work unchanged; `data` says why, in words a
 * developer can act on.
 *
 * A leaf module at the bottom of the library (it imports nothing), so the domain modules below the provider can
 * throw it without importing the provider; `toProviderError` (src/provider/errors.ts) maps every other failure to it
 * in one place.
 *
 * It is a plain class, not an `Error` subclass, on purpose: `structuredClone` (postMessage between a page and a
 * wallet frame or extension) keeps only `name`, `message` and `stack` of an `Error`, and would drop `code` and `data`.
 */
export const ErrorCode = {
  NotConnected: 1001,
  UserRejected: 1002,
  InvalidParams: 20003,
  /** A network the wallet does not know or cannot sign for (Auro's `notSupportChain`). */
  UnsupportedChain: 20004,
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
  20004: 'Not support chain.',
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

/**
 * What every `window.chain` promise rejects with: `code` (1001 not connected, 1002 rejected by the user, 20003 invalid
 * params, 20004 a network it does not know or cannot sign for, 20006 not supported, 21001 the node refused it, 22001 internal, 23001 wrong origin), the wallets' fixed
 * `message` for that code, and `data.reason` saying why (`data.field` names a bad argument, `data.statusWord` the
 * device's answer). Branch on `code`, or test a value with `isProviderError`; it is a plain object, not an `Error`,
 * so it survives `postMessage` and `structuredClone` whole.
 *
 * @example
 * ```ts
 * try {
 *   await chain.signMessage({ message });
 * } catch (error) {
 *   if (isProviderError(error) && error.code === 1002) showRejected();
 * }
 * ```
 */
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

/** 20006 for a method that needs `instruction` of the chain-ledger protocol extension, which Mina app `version` lacks. */
export const needsExtension = (version: string, what: string, instruction: string) =>
  new ProviderError(ErrorCode.MethodNotSupported, {
    reason: `Mina app ${version} has no ${what} instruction: it needs ${instruction} of the chain-ledger protocol extension`,
  });

/** Details kept from pages: the host's log gets them (`onHostLog`), the page only the error's generic reason. */
const hostDetails = new WeakMap<ProviderError, string>();

/**
 * `error`, a page-facing error with a generic reason, carrying `detail` for the host's log only: text of the prover,
 * the compiler or a library (o1js prints the private wire values of an unsatisfied constraint), which must never
 * reach a page. The detail is not a property of the error (a page receives the error object itself).
 */
export function withHostDetail(error: ProviderError, detail: string): ProviderError {
  hostDetails.set(error, detail);
  return error;
}

/** The detail `withHostDetail` attached to `error`, if any. */
export function hostDetailOf(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? hostDetails.get(error as ProviderError) : undefined;
}

/** `hostDetailOf`, once: the provider logs a detail once, however many layers the error passes. */
export function takeHostDetail(error: unknown): string | undefined {
  const detail = hostDetailOf(error);
  if (detail !== undefined) hostDetails.delete(error as ProviderError);
  return detail;
}

/** A thrown value's text, for the host's log. */
export function detailOf(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}

/**
 * Asks an integrator's confirmation hook (`confirmSwitchChain`, `confirmZkapp`): goes on only when it answers exactly
 * `true`; a throw or any other answer is the user's refusal (1002 with `reason`). A hook that never answers does not
 * hold the call (nor the device it may hold): when `signal` aborts (the caller's, `rejectPending()`, a disconnect), the
 * wait ends with the signal's reason, as a cancelled call ends, and the hook's late answer is ignored.
 */
export async function requireApproval(ask: () => unknown, reason: string, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  let approved = false;
  try {
    approved = (await untilAborted(ask, signal)) === true;
  } catch {
    if (signal?.aborted) throw signal.reason;
    approved = false;
  }
  if (!approved) throw new ProviderError(ErrorCode.UserRejected, { reason });
}

/** `ask()`'s answer, or a rejection with `signal`'s reason as soon as it aborts. */
function untilAborted(ask: () => unknown, signal: AbortSignal | undefined): Promise<unknown> {
  const answer = new Promise<unknown>((resolve) => resolve(ask()));
  if (!signal) return answer;
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    answer.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
