/**
 * The messages between a dapp's connector (chain-ledger/connect) and the wallet window (src/wallet), sent with
 * `window.postMessage`. Plain objects (structured clone), each tagged with `protocol` so that neither side mistakes
 * another library's messages for its own. Both sides read what they receive with the functions below, which accept
 * exactly these shapes and nothing else (no zod: the connector must stay a few kB).
 *
 *   wallet → opener  ready                          the wallet page has loaded (sent to any origin: it says nothing)
 *   dapp   → wallet  hello { name }                 the wallet binds the origin the browser reports for this message,
 *                                                   if `name` is its own window's name (the one the connector gave it)
 *   wallet → dapp    welcome { networkID, accounts }
 *   dapp   → wallet  request { id, method, params } · cancel { id } · disconnect · rejectPending · ping { id }
 *   wallet → dapp    result { id, result } · error { id, error } · event { event, args } · progress { progress }
 *                    · pong { id } (answering a ping) · bye { name } (the wallet page in window `name` goes: `pagehide`)
 *
 * Trust is the browser's: the wallet takes the dapp's origin from `MessageEvent.origin` of its `hello` (never from a
 * message's content) and from then on acts only on messages of that origin from its opener; the connector acts only
 * on messages from the window it opened, at the wallet's origin (./wallet-window.ts).
 */

import { ERROR_MESSAGES, ErrorCode, ProviderError, type ProviderErrorData } from '../errors/provider-error.js';
import type { DiscoveryWindow } from '../provider/discovery.js';
import type { ProviderEventMap } from '../provider/events.js';
import type { ProgressEvent } from '../provider/options.js';

type ProgressStage = ProgressEvent['stage'];

/** Version 2: `hello` names the window, and `ping`/`pong`/`bye` say whether the wallet window is still the wallet. */
export const CONNECT_PROTOCOL = 'chain-ledger/connect@2';

/** The events the wallet forwards, with their arguments as the provider emits them. */
export type ConnectEventName = 'accountsChanged' | 'chainChanged' | 'disconnect';

/** The wallet window as the dapp holds it: the browser's WindowProxy of another origin. */
export interface WalletWindow {
  readonly closed: boolean;
  postMessage(message: unknown, targetOrigin: string): void;
  /** Closes it (a window this page opened): what the connector does to a window that is no longer the wallet. */
  close?(): void;
}

/** What the connector uses of the dapp's `window` (the global one unless `window` is given). */
export interface ConnectorWindow extends DiscoveryWindow {
  /** The page's origin (`self.origin`: `'null'` in a sandboxed frame, whatever `location` says). */
  readonly origin?: string;
  readonly location: { readonly origin: string };
  open(url: string, target: string, features: string): WalletWindow | null;
  /**
   * The page's `MessageEvent`: the connector reads each message event through its own getters, so that an object a
   * script of the page made up, or a real event whose properties a script redefined, is not read as the browser's.
   */
  readonly MessageEvent?: { readonly prototype: MessageEvent; new (type: string): MessageEvent };
}

/**
 * The connector's events: the provider's (`accountsChanged`, `chainChanged`, `disconnect`), and `progress`: each
 * stage of this site's calls in the wallet window, as the wallet's provider reports it (`onProgress`).
 */
export interface ConnectorEventMap extends ProviderEventMap {
  progress: [progress: ProgressEvent];
}
export type ConnectorEventName = keyof ConnectorEventMap;
export type ConnectorListener<E extends ConnectorEventName> = (...args: ConnectorEventMap[E]) => void;

/** Every stage a progress message may carry: the provider's `ProgressStage`s (a Record, so none can be left out). */
const PROGRESS_STAGES: Record<ProgressStage, true> = {
  'loading-prover': true,
  'awaiting-approval': true,
  compiling: true,
  'waiting-for-prover-window': true,
  'unlock-device': true,
  'open-app': true,
  'confirm-on-device': true,
  proving: true,
  broadcasting: true,
  done: true,
  failed: true,
};

/** A `ProviderError` as it crosses windows: a plain object. */
export interface WireError {
  code: number;
  message: string;
  data?: { reason: string; field?: string; statusWord?: string };
}

export type DappMessage =
  | { protocol: typeof CONNECT_PROTOCOL; type: 'hello'; name: string }
  | { protocol: typeof CONNECT_PROTOCOL; type: 'ping'; id: number }
  | { protocol: typeof CONNECT_PROTOCOL; type: 'request'; id: number; method: string; params?: unknown }
  | { protocol: typeof CONNECT_PROTOCOL; type: 'cancel'; id: number }
  | { protocol: typeof CONNECT_PROTOCOL; type: 'disconnect' }
  | { protocol: typeof CONNECT_PROTOCOL; type: 'rejectPending' };

export type WalletMessage =
  | { protocol: typeof CONNECT_PROTOCOL; type: 'ready' }
  | { protocol: typeof CONNECT_PROTOCOL; type: 'welcome'; networkID: string; accounts: string[] }
  | { protocol: typeof CONNECT_PROTOCOL; type: 'result'; id: number; result: unknown }
  | { protocol: typeof CONNECT_PROTOCOL; type: 'error'; id: number; error: WireError }
  | { protocol: typeof CONNECT_PROTOCOL; type: 'event'; event: ConnectEventName; args: unknown[] }
  | { protocol: typeof CONNECT_PROTOCOL; type: 'progress'; progress: ProgressEvent }
  | { protocol: typeof CONNECT_PROTOCOL; type: 'pong'; id: number }
  | { protocol: typeof CONNECT_PROTOCOL; type: 'bye'; name: string };

/** Longest method name accepted (the longest real one, `chain_storePrivateCredential`, has 28 characters). */
/** No wallet method's name is longer; a request naming a longer one is not read (the connector refuses it first). */
const MAX_METHOD_LENGTH = 64;

/**
 * Why the connector refuses `request({ method })` before sending it, or undefined: no method name (20003), or one the
 * wallet would not read, empty or longer than any wallet method's (20006, as the wallet answers an unknown method).
 */
export function methodRefusal(method: unknown): ProviderError | undefined {
  if (typeof method !== 'string')
    return new ProviderError(ErrorCode.InvalidParams, { field: 'method', reason: 'request needs { method, params }' });
  if (method.length === 0 || method.length > MAX_METHOD_LENGTH)
    return new ProviderError(ErrorCode.MethodNotSupported, { reason: 'unknown method' });
  return undefined;
}
/** A window name as the connector makes them (./wallet-window.ts `randomWindowName`): URL-safe, bounded. */
const WINDOW_NAME = /^[A-Za-z0-9_-]{1,100}$/;
/**
 * 23001 when a call claims another origin than the page's own (`claimed`, from its `RequestContext`), as the
 * provider refuses it in a page; undefined when it claims none or the page's.
 */
export function originRefusal(claimed: unknown, pageOrigin: string): ProviderError | undefined {
  if (claimed === undefined || claimed === pageOrigin) return undefined;
  const shown = typeof claimed === 'string' ? JSON.stringify(claimed.slice(0, 100)) : typeof claimed;
  return new ProviderError(ErrorCode.OriginMismatch, {
    reason: `request from ${shown}, but this page is ${pageOrigin}: a page cannot claim another origin`,
  });
}
/** Longest device prompt a progress message carries (the provider's are one short sentence). */
const MAX_PROMPT_LENGTH = 500;

type Fields = Record<string, unknown>;

/** `data` if it is an object of this protocol whose keys are exactly `keys` (plus `protocol` and `type`). */
function tagged(data: unknown, keys: readonly string[]): Fields | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const fields = data as Fields;
  if (fields.protocol !== CONNECT_PROTOCOL || typeof fields.type !== 'string') return undefined;
  const allowed = new Set(['protocol', 'type', ...keys]);
  return Object.keys(fields).every((k) => allowed.has(k)) ? fields : undefined;
}

const isId = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
const isWindowName = (value: unknown): value is string => typeof value === 'string' && WINDOW_NAME.test(value);
const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');

/** A message of the dapp as the wallet reads it, or undefined for anything else (ignored). */
export function readDappMessage(data: unknown): DappMessage | undefined {
  const m = tagged(data, ['id', 'method', 'params', 'name']);
  if (m === undefined) return undefined;
  switch (m.type) {
    case 'hello':
      return tagged(m, ['name']) && isWindowName(m.name) ? { protocol: CONNECT_PROTOCOL, type: 'hello', name: m.name } : undefined;
    case 'ping':
      return tagged(m, ['id']) && isId(m.id) ? { protocol: CONNECT_PROTOCOL, type: 'ping', id: m.id } : undefined;
    case 'disconnect':
    case 'rejectPending':
      return tagged(m, []) && { protocol: CONNECT_PROTOCOL, type: m.type };
    case 'cancel':
      return tagged(m, ['id']) && isId(m.id) ? { protocol: CONNECT_PROTOCOL, type: 'cancel', id: m.id } : undefined;
    case 'request':
      if (!isId(m.id) || typeof m.method !== 'string' || m.method.length === 0 || m.method.length > MAX_METHOD_LENGTH) return undefined;
      return { protocol: CONNECT_PROTOCOL, type: 'request', id: m.id, method: m.method, params: m.params };
    default:
      return undefined;
  }
}

/** A message of the wallet as the connector reads it, or undefined for anything else (ignored). */
export function readWalletMessage(data: unknown): WalletMessage | undefined {
  const m = tagged(data, ['id', 'result', 'error', 'event', 'args', 'networkID', 'accounts', 'progress', 'name']);
  if (m === undefined) return undefined;
  switch (m.type) {
    case 'ready':
      return tagged(m, []) && { protocol: CONNECT_PROTOCOL, type: 'ready' };
    case 'bye':
      return tagged(m, ['name']) && isWindowName(m.name) ? { protocol: CONNECT_PROTOCOL, type: 'bye', name: m.name } : undefined;
    case 'pong':
      return tagged(m, ['id']) && isId(m.id) ? { protocol: CONNECT_PROTOCOL, type: 'pong', id: m.id } : undefined;
    case 'welcome':
      if (!tagged(m, ['networkID', 'accounts']) || typeof m.networkID !== 'string' || !isStrings(m.accounts)) return undefined;
      return { protocol: CONNECT_PROTOCOL, type: 'welcome', networkID: m.networkID, accounts: m.accounts };
    case 'result':
      return tagged(m, ['id', 'result']) && isId(m.id)
        ? { protocol: CONNECT_PROTOCOL, type: 'result', id: m.id, result: m.result }
        : undefined;
    case 'error':
      return tagged(m, ['id', 'error']) && isId(m.id) && typeof m.error === 'object' && m.error !== null
        ? { protocol: CONNECT_PROTOCOL, type: 'error', id: m.id, error: m.error as WireError }
        : undefined;
    case 'event':
      if (!tagged(m, ['event', 'args']) || !Array.isArray(m.args)) return undefined;
      if (m.event !== 'accountsChanged' && m.event !== 'chainChanged' && m.event !== 'disconnect') return undefined;
      return { protocol: CONNECT_PROTOCOL, type: 'event', event: m.event, args: m.args };
    case 'progress': {
      const progress = tagged(m, ['progress']) && readProgress(m.progress);
      return progress ? { protocol: CONNECT_PROTOCOL, type: 'progress', progress } : undefined;
    }
    default:
      return undefined;
  }
}

/** A progress event as the provider reports it (`onProgress`), rebuilt from its documented fields only. */
function readProgress(value: unknown): ProgressEvent | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { method, stage, elapsedMs, prompt, retry, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return undefined;
  if (typeof method !== 'string' || method.length === 0 || method.length > MAX_METHOD_LENGTH) return undefined;
  if (typeof stage !== 'string' || !Object.hasOwn(PROGRESS_STAGES, stage)) return undefined;
  if (typeof elapsedMs !== 'number' || !Number.isFinite(elapsedMs) || elapsedMs < 0) return undefined;
  if (prompt !== undefined && (typeof prompt !== 'string' || prompt.length > MAX_PROMPT_LENGTH)) return undefined;
  if (retry !== undefined && typeof retry !== 'boolean') return undefined;
  return {
    method,
    stage: stage as ProgressStage,
    elapsedMs,
    ...(prompt === undefined ? {} : { prompt }),
    ...(retry === undefined ? {} : { retry }),
  };
}

/** The `data` of a ProviderError, keeping only its documented fields of the right types (undefined without a reason). */
function errorData(raw: Partial<ProviderErrorData> | undefined): ProviderErrorData | undefined {
  if (typeof raw?.reason !== 'string') return undefined;
  return {
    reason: raw.reason,
    ...(typeof raw.field === 'string' ? { field: raw.field } : {}),
    ...(typeof raw.statusWord === 'string' ? { statusWord: raw.statusWord } : {}),
  };
}

/** A `ProviderError` (or anything shaped like one) as a plain object for `postMessage`. */
export function toWireError(error: { code: number; message: string; data?: Partial<ProviderErrorData> }): WireError {
  const data = errorData(error.data);
  return { code: error.code, message: error.message, ...(data ? { data } : {}) };
}

/** A ProviderError rebuilt from its plain form; 22001 for anything that is not one. */
export function fromWireError(error: WireError): ProviderError {
  const code = error?.code;
  if (typeof code !== 'number' || !Object.hasOwn(ERROR_MESSAGES, code)) {
    return new ProviderError(ErrorCode.Internal, { reason: 'the wallet sent an error the connector cannot read' });
  }
  return new ProviderError(code as ErrorCode, errorData(error.data));
}

/** The rejection of a call its caller's `AbortSignal` cancelled (1002, with the signal's reason). */
export function cancelled(signal: AbortSignal): ProviderError {
  const why = (signal.reason as { message?: unknown } | undefined)?.message;
  return new ProviderError(ErrorCode.UserRejected, { reason: `cancelled by the caller (${typeof why === 'string' ? why : 'aborted'})` });
}
