/**
 * A fake Mina daemon GraphQL endpoint for tests: a real `node:http` server on 127.0.0.1 (port 0) serving
 * `POST /graphql`.
 *
 * Every request is checked against the daemon's real schema (test/fixtures/mina-graphql-schema.json, the
 * introspection JSON of the daemon's `graphql_schema.json`): the document must parse and validate, and the
 * variables must coerce to the operation's variable definitions (`getVariableValues`), so a zkApp command whose
 * JSON does not fit `ZkappCommandInput` (a missing `callDepth`, an unknown field, a string where an `Int` goes) is
 * refused. Custom scalars (PublicKey, Fee, UInt32, Field, …) come from introspection without their parsers, so
 * graphql-js accepts any non-null value for them: only the shape and the built-in scalars (Int, Boolean, String,
 * ID) are checked.
 *
 * An invalid request is answered the way a GraphQL server does (HTTP 200, `{ errors: [{ message }] }`) and is
 * recorded with `valid: false`, so a test can assert that every request the client sent was valid. A valid one is
 * answered by the handler for its operation name. Tests only.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  buildClientSchema,
  getOperationAST,
  getVariableValues,
  parse,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import { afterEach } from 'vitest';

let cachedSchema: GraphQLSchema | undefined;

/** The Mina daemon's schema, built once from the fixture. */
export function minaSchema(): GraphQLSchema {
  if (cachedSchema === undefined) {
    const json = JSON.parse(readFileSync(new URL('../fixtures/mina-graphql-schema.json', import.meta.url), 'utf8')) as {
      data: IntrospectionQuery;
    };
    cachedSchema = buildClientSchema(json.data);
  }
  return cachedSchema;
}

export interface OperationCheck {
  /** Empty when the operation and its variables are valid. */
  errors: string[];
  /** The name of the operation that would run, when one could be selected. */
  operationName: string | undefined;
}

/** Parses, validates and coerces the variables of one operation, as a GraphQL server does before executing it. */
export function checkOperation(query: string, variables: unknown = {}, operationName?: string): OperationCheck {
  const schema = minaSchema();
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch (error) {
    return { errors: [(error as Error).message], operationName: undefined };
  }
  const validationErrors = validate(schema, document);
  if (validationErrors.length > 0) return { errors: validationErrors.map((e) => e.message), operationName: undefined };
  const operation = getOperationAST(document, operationName);
  if (operation === null || operation === undefined) {
    return {
      errors: [operationName ? `Unknown operation named "${operationName}".` : 'Must provide operation name.'],
      operationName: undefined,
    };
  }
  const name = operation.name?.value;
  if (typeof variables !== 'object' || variables === null || Array.isArray(variables)) {
    return { errors: ['Variables must be provided as an object.'], operationName: name };
  }
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables as Record<string, unknown>);
  return { errors: coerced.errors ? coerced.errors.map((e) => e.message) : [], operationName: name };
}

export interface FakeMinaRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body text. */
  body: string;
  query: string | undefined;
  /** The variables as sent (not coerced). */
  variables: Record<string, unknown>;
  operationName: string | undefined;
  /** Whether the request was a well-formed POST /graphql whose operation and variables fit the schema. */
  valid: boolean;
  /** Why not, when `valid` is false. */
  errors: string[];
}

/**
 * `{ data }` / `{ errors }` are sent as a 200 JSON GraphQL response; `{ status, body }` as a raw HTTP answer (with a
 * content-length, unless `headers` sets `transfer-encoding`).
 */
export type FakeMinaReply = { data?: unknown; errors?: unknown[] } | { status: number; body: string; headers?: Record<string, string> };

/** Answers a valid request; never settling means never answering (to test timeouts and aborts). */
export type FakeMinaHandler = (request: FakeMinaRequest) => FakeMinaReply | Promise<FakeMinaReply>;

export interface FakeMinaNode {
  /** `http://127.0.0.1:<port>/graphql` */
  url: string;
  /** Every request received, in order. */
  requests: FakeMinaRequest[];
  /** Closes the server and drops any connection still open (including ones a handler never answered). */
  close(): Promise<void>;
}

/** A handler that never answers. */
export const never: FakeMinaHandler = () => new Promise<never>(() => {});

const MAX_REQUEST_BYTES = 20 * 1024 * 1024;

export async function startFakeMinaNode(handlers: Record<string, FakeMinaHandler> = {}): Promise<FakeMinaNode> {
  const requests: FakeMinaRequest[] = [];

  const sendJson = (res: ServerResponse, status: number, value: unknown) => {
    if (res.destroyed || res.headersSent) return;
    const text = JSON.stringify(value);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        res.writeHead(413).end();
        return;
      }
      chunks.push(chunk);
    }
    const body = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const record: FakeMinaRequest = {
      method: req.method ?? '',
      path,
      headers: req.headers,
      body,
      query: undefined,
      variables: {},
      operationName: undefined,
      valid: false,
      errors: [],
    };
    requests.push(record);

    if (req.method !== 'POST' || path !== '/graphql') {
      record.errors = [`${req.method} ${path}: not found`];
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      return;
    }
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) {
      record.errors = [`content-type is ${JSON.stringify(req.headers['content-type'])}, not application/json`];
      sendJson(res, 400, { errors: [{ message: record.errors[0] }] });
      return;
    }
    let payload: { query?: unknown; variables?: unknown; operationName?: unknown };
    try {
      payload = JSON.parse(body) as typeof payload;
    } catch (error) {
      record.errors = [`body is not JSON: ${(error as Error).message}`];
      sendJson(res, 400, { errors: [{ message: record.errors[0] }] });
      return;
    }
    if (typeof payload !== 'object' || payload === null || typeof payload.query !== 'string') {
      record.errors = ['Must provide query string.'];
      sendJson(res, 400, { errors: [{ message: record.errors[0] }] });
      return;
    }
    record.query = payload.query;
    if (payload.variables !== undefined && payload.variables !== null) {
      record.variables = payload.variables as Record<string, unknown>;
    }
    const requestedName = typeof payload.operationName === 'string' ? payload.operationName : undefined;
    const check = checkOperation(payload.query, payload.variables ?? {}, requestedName);
    record.operationName = check.operationName;
    if (check.errors.length > 0) {
      record.errors = check.errors;
      sendJson(res, 200, { errors: check.errors.map((message) => ({ message })) });
      return;
    }
    record.valid = true;

    const handler = check.operationName === undefined ? undefined : handlers[check.operationName];
    if (handler === undefined) {
      sendJson(res, 200, { errors: [{ message: `fake Mina node: no handler for operation ${String(check.operationName)}` }] });
      return;
    }
    let reply: FakeMinaReply;
    try {
      reply = await handler(record);
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`fake Mina node: handler threw: ${String(error)}`);
      return;
    }
    if (res.destroyed) return;
    if ('status' in reply) {
      const chunked = Object.keys(reply.headers ?? {}).some((h) => h.toLowerCase() === 'transfer-encoding');
      const length = chunked ? {} : { 'content-length': String(Buffer.byteLength(reply.body)) };
      res.writeHead(reply.status, { 'content-type': 'text/plain', ...length, ...reply.headers }).end(reply.body);
    } else {
      sendJson(res, 200, reply);
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent && !res.destroyed) res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    requests,
    // Once: a test may close its node early (an unreachable node), and the file's afterEach closes it again.
    close: () =>
      (closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      })),
  };
}

/**
 * For a file or describe block: a `start(handlers)` that starts a fake node, and an afterEach that closes every node
 * the test started.
 */
export function fakeMinaNodes(): (handlers?: Record<string, FakeMinaHandler>) => Promise<FakeMinaNode> {
  const started: FakeMinaNode[] = [];
  afterEach(async () => {
    for (const node of started.splice(0)) await node.close();
  });
  return async (handlers) => {
    const node = await startFakeMinaNode(handlers);
    started.push(node);
    return node;
  };
}
