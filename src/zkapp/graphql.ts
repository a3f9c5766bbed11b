/**
 * A tiny client for a Mina daemon's GraphQL endpoint (`http://host:3085/graphql`): the nonce lookup and the zkApp
 * broadcast that `chain_sendTransaction` needs, nothing more.
 *
 * Every operation text below is validated in the tests against the daemon's real schema (introspection JSON), and
 * every variable declares its type, as a strict GraphQL server requires.
 *
 * Failures are `MinaNodeError`s with a `kind` (network, http, graphql, response); an abort by the caller rejects
 * with the caller's `signal.reason`, unchanged, as `fetch` does. A default timeout keeps a dead node from hanging a
 * call forever.
 */

/** Nonce lookup. `inferredNonce` counts the sender's transactions still in the mempool; `account` is null when the
 * account does not exist yet. */
export const ACCOUNT_NONCE_QUERY = 'query accountNonce($publicKey: PublicKey!) { account(publicKey: $publicKey) { nonce inferredNonce } }';

/** zkApp broadcast; the variable is the signed zkApp command as JSON (o1js `tx.toJSON()`). */
export const SEND_ZKAPP_MUTATION =
  'mutation sendZkapp($zkappCommandInput: ZkappCommandInput!) { sendZkapp(input: { zkappCommand: $zkappCommandInput }) { zkapp { hash id } } }';

/** Status of a broadcast zkApp command, by the `id` `sendZkapp` returned: `INCLUDED`, `PENDING` or `UNKNOWN`. */
export const TRANSACTION_STATUS_QUERY = 'query transactionStatus($id: ID!) { transactionStatus(zkappTransaction: $id) }';

/** Default time limit of one request, body included. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Largest response body read; beyond it the request fails with kind `response`. */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

const HTTP_BODY_EXCERPT = 300;
const GRAPHQL_MESSAGE_EXCERPT = 1_000;

export type MinaNodeErrorKind = 'network' | 'http' | 'graphql' | 'response';

export interface MinaNodeErrorContext {
  /** HTTP status, for kind `http`. */
  status?: number;
  /** The node's own error messages, in full, for kind `graphql`. */
  graphqlErrors?: string[];
  cause?: unknown;
}

/**
 * The node could not be reached (`network`, also a timeout), answered a non-2xx status (`http`), answered GraphQL
 * errors (`graphql`), or answered something that is not the expected response (`response`). Match on `name`,
 * not `instanceof` (see src/apdu/errors.ts).
 */
export class MinaNodeError extends Error {
  override readonly name = 'MinaNodeError';
  readonly kind: MinaNodeErrorKind;
  /** The endpoint that was called. */
  readonly url: string;
  readonly status?: number;
  readonly graphqlErrors?: string[];

  constructor(kind: MinaNodeErrorKind, url: string, detail: string, context: MinaNodeErrorContext = {}) {
    super(`Mina node at ${redactUrl(url)}: ${detail}`, context.cause === undefined ? undefined : { cause: context.cause });
    this.kind = kind;
    this.url = redactUrl(url);
    if (context.status !== undefined) this.status = context.status;
    if (context.graphqlErrors !== undefined) this.graphqlErrors = context.graphqlErrors;
  }
}

export function isMinaNodeError(value: unknown, kind?: MinaNodeErrorKind): value is MinaNodeError {
  if (typeof value !== 'object' || value === null) return false;
  const e = value as { name?: unknown; kind?: unknown };
  return e.name === 'MinaNodeError' && (kind === undefined || e.kind === kind);
}

export interface GraphqlRequestOptions {
  /** Aborting it rejects the call with `signal.reason`, unchanged. */
  signal?: AbortSignal;
  /** Replaces the global `fetch` (tests, custom agents). */
  fetch?: typeof fetch;
  /** Time limit of the whole request, body included; default 30 s. Exceeding it is a `network` error. */
  timeoutMs?: number;
  /** Extra request headers, e.g. `authorization` for a node behind a proxy (never put credentials in the URL). */
  headers?: Record<string, string>;
}

/**
 * A URL fit for messages and logs: no user name or password, no query string or fragment (where API keys live);
 * scheme, host, port and path are kept. Text that is not a URL is replaced entirely.
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    const hidden = u.username !== '' || u.password !== '' || u.search !== '' || u.hash !== '';
    return `${u.protocol}//${u.host}${u.pathname}${hidden ? ' (credentials and query redacted)' : ''}`;
  } catch {
    return '(an invalid URL)';
  }
}

const excerpt = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/**
 * POSTs one GraphQL operation and returns its `data`. Any `errors` in the answer fail the call, even with partial
 * data: the operations here are single-field, so partial data is no data.
 */
export async function graphqlRequest<T>(url: string, query: string, variables: object, options: GraphqlRequestOptions = {}): Promise<T> {
  const callerSignal = options.signal;
  callerSignal?.throwIfAborted();
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const timeoutSignal = AbortSignal.timeout(timeoutMs);
  const signal = callerSignal === undefined ? timeoutSignal : AbortSignal.any([callerSignal, timeoutSignal]);
  const doFetch = options.fetch ?? globalThis.fetch;
  const body = JSON.stringify({ query, variables });

  // Which failure an abort is: the caller's (rethrow its reason) or our timeout (a network error).
  const abortFailure = (error: unknown): unknown => {
    if (callerSignal?.aborted) return callerSignal.reason;
    if (timeoutSignal.aborted) {
      return new MinaNodeError('network', url, `no answer within ${timeoutMs} ms (timed out)`, { cause: error });
    }
    return undefined;
  };

  let response: Response;
  try {
    response = await doFetch(url, {
      method: 'POST',
      headers: { ...options.headers, 'content-type': 'application/json', accept: 'application/json' },
      body,
      signal,
    });
  } catch (error) {
    throw abortFailure(error) ?? new MinaNodeError('network', url, `unreachable (${describeNetworkError(error)})`, { cause: error });
  }

  let text: string;
  try {
    text = await readBody(response, url, MAX_RESPONSE_BYTES);
  } catch (error) {
    const aborted = abortFailure(error);
    if (aborted !== undefined) throw aborted;
    if (isMinaNodeError(error)) {
      // An error status matters more than an oversized error page.
      if (!response.ok) throw httpError(url, response, '', error);
      throw error;
    }
    throw new MinaNodeError('network', url, `the connection failed while reading the answer (${describeNetworkError(error)})`, {
      cause: error,
    });
  }

  if (!response.ok) throw httpError(url, response, text);

  return graphqlData<T>(url, text);
}

/** The `data` of a GraphQL answer's text; its `errors`, or anything that is no GraphQL response, as a MinaNodeError. */
function graphqlData<T>(url: string, text: string): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new MinaNodeError('response', url, `the answer is not JSON: ${JSON.stringify(excerpt(text, 100))}`, { cause: error });
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new MinaNodeError('response', url, 'the answer is not a GraphQL response object');
  }
  const { data, errors } = json as { data?: unknown; errors?: unknown };
  if (errors !== undefined && errors !== null) {
    if (!Array.isArray(errors)) throw new MinaNodeError('response', url, 'the answer has an `errors` that is not a list');
    if (errors.length > 0) {
      const messages = errors.map(graphqlErrorMessage);
      throw new MinaNodeError('graphql', url, messages.map((m) => excerpt(m, GRAPHQL_MESSAGE_EXCERPT)).join('; '), {
        graphqlErrors: messages,
      });
    }
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new MinaNodeError('response', url, 'the answer has no `data`');
  }
  return data as T;
}

function httpError(url: string, response: Response, text: string, cause?: unknown): MinaNodeError {
  const statusText = response.statusText ? ` ${response.statusText}` : '';
  const bodyPart = text.trim() === '' ? '' : `: ${excerpt(text.trim(), HTTP_BODY_EXCERPT)}`;
  return new MinaNodeError('http', url, `HTTP ${response.status}${statusText}${bodyPart}`, {
    status: response.status,
    cause,
  });
}

function graphqlErrorMessage(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const message = (error as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  }
  if (typeof error === 'string') return error;
  return JSON.stringify(error) ?? String(error);
}

/** `fetch failed` hides the reason in `cause` (undici): show the errno code (ECONNREFUSED, ENOTFOUND, …). */
function describeNetworkError(error: unknown): string {
  const e = error as { message?: unknown; cause?: { code?: unknown; message?: unknown } } | undefined;
  const code = e?.cause?.code;
  const message = typeof e?.message === 'string' ? e.message : String(error);
  if (typeof code === 'string') return `${code}: ${message}`;
  if (typeof e?.cause?.message === 'string') return `${message}: ${e.cause.message}`;
  return message;
}

/** Reads the body as UTF-8 text, at most `maxBytes`; more is a `response` error and the rest is not read. */
async function readBody(response: Response, url: string, maxBytes: number): Promise<string> {
  const tooLarge = () => new MinaNodeError('response', url, `the answer is larger than ${maxBytes} bytes`);
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

const UINT32_MAX = 0xffff_ffff;

/** A UInt32 as the daemon sends it (a decimal string), or as a plain number. */
function parseUInt32(value: unknown, url: string, field: string): number {
  let n: number | undefined;
  if (typeof value === 'number' && Number.isInteger(value)) n = value;
  else if (typeof value === 'string' && /^(0|[1-9][0-9]{0,9})$/.test(value)) n = Number(value);
  if (n === undefined || n < 0 || n > UINT32_MAX) {
    throw new MinaNodeError('response', url, `${field} is not a uint32: ${JSON.stringify(value) ?? String(value)}`);
  }
  return n;
}

export interface AccountNonce {
  /** The nonce of the account in the best tip's ledger. */
  nonce: number;
  /** The nonce the next transaction should use, counting the sender's transactions still in the mempool. */
  inferredNonce: number;
}

/** The account's nonces, or `undefined` when the account does not exist (yet). */
export async function fetchAccountNonce(
  url: string,
  publicKey: string,
  options?: GraphqlRequestOptions,
): Promise<AccountNonce | undefined> {
  const data = await graphqlRequest<{ account?: unknown }>(url, ACCOUNT_NONCE_QUERY, { publicKey }, options);
  const account = data.account;
  if (account === null) return undefined;
  if (typeof account !== 'object' || Array.isArray(account)) {
    throw new MinaNodeError('response', url, 'the answer has no `account`');
  }
  const { nonce, inferredNonce } = account as { nonce?: unknown; inferredNonce?: unknown };
  return {
    nonce: parseUInt32(nonce, url, 'account.nonce'),
    inferredNonce: parseUInt32(inferredNonce, url, 'account.inferredNonce'),
  };
}

export interface SentZkapp {
  /** The transaction hash (base58, `5J…`), for explorers. */
  hash: string;
  /** The node's id of the command, for `transactionStatus(zkappTransaction:)`. */
  id: string;
}

/** Broadcasts a signed zkApp command (the JSON of o1js `tx.toJSON()`); the node's refusal is a `graphql` error. */
export async function sendZkapp(url: string, zkappCommand: object, options?: GraphqlRequestOptions): Promise<SentZkapp> {
  const data = await graphqlRequest<{ sendZkapp?: { zkapp?: { hash?: unknown; id?: unknown } | null } | null }>(
    url,
    SEND_ZKAPP_MUTATION,
    { zkappCommandInput: zkappCommand },
    options,
  );
  const zkapp = data.sendZkapp?.zkapp;
  const hash = zkapp?.hash;
  const id = zkapp?.id;
  if (typeof hash !== 'string' || hash === '' || typeof id !== 'string' || id === '') {
    throw new MinaNodeError('response', url, 'the answer has no `sendZkapp.zkapp { hash id }` strings');
  }
  return { hash, id };
}
