import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse, validate } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ACCOUNT_NONCE_QUERY,
  fetchAccountNonce,
  graphqlRequest,
  isMinaNodeError,
  MinaNodeError,
  SEND_ZKAPP_MUTATION,
  sendZkapp,
  TRANSACTION_STATUS_QUERY,
} from '../../src/zkapp/graphql.js';
import { within } from '../support/rig.js';
import { checkOperation, fakeMinaNodes, minaSchema, never, type FakeMinaNode, type FakeMinaHandler } from '../support/mina-node.js';

const PUBLIC_KEY = 'B62qiy32p8kAKnny8ZFwoMhYpBppM1DWVCqAPBYNcXnsAHhnfAAuXgg';
const HASH = '5JuSRViCY1GbnnpExLhoYLkD96vwnCyzCNhgs6Wu5BQ5FLeaEkxC';
const ID = 'ZkappCommand-id-from-the-node';

/** Starts a fake node that is closed after the test. */
const start = fakeMinaNodes();

/** Runs `fn` and returns what it rejected with (fails if it resolved). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await within(promise, 'request');
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

async function minaNodeError(promise: Promise<unknown>): Promise<MinaNodeError> {
  const error = await rejection(promise);
  expect(isMinaNodeError(error), String(error)).toBe(true);
  expect(error).toBeInstanceOf(MinaNodeError);
  return error as MinaNodeError;
}

const allValid = (n: FakeMinaNode) => n.requests.every((r) => r.valid);

describe('operation texts against the Mina daemon schema', () => {
  it.each([
    ['ACCOUNT_NONCE_QUERY', ACCOUNT_NONCE_QUERY],
    ['SEND_ZKAPP_MUTATION', SEND_ZKAPP_MUTATION],
    ['TRANSACTION_STATUS_QUERY', TRANSACTION_STATUS_QUERY],
  ])('%s is valid', (_, text) => {
    expect(validate(minaSchema(), parse(text)).map((e) => e.message)).toEqual([]);
  });

  it('rejects an unknown field, an unknown argument and undeclared variables (the validator works)', () => {
    const schema = minaSchema();
    const unknownField = validate(schema, parse('query { account(publicKey: "B62q") { nonce bogusField } }'));
    expect(unknownField.map((e) => e.message).join('\n')).toMatch(/bogusField/);
    expect(validate(schema, parse('query { transactionStatus(nope: 1) }')).length).toBeGreaterThan(0);
    // mina-js Klesia's form: variables used without being declared.
    expect(validate(schema, parse('query { account(publicKey: $publicKey) { nonce } }')).length).toBeGreaterThan(0);
  });

  it('checks variables against their definitions, built-in scalars included; custom scalars take any value', () => {
    expect(checkOperation(ACCOUNT_NONCE_QUERY, { publicKey: PUBLIC_KEY }).errors).toEqual([]);
    expect(checkOperation(ACCOUNT_NONCE_QUERY, {}).errors.join()).toMatch(/publicKey/);
    expect(checkOperation(ACCOUNT_NONCE_QUERY, { publicKey: null }).errors.length).toBe(1);
    // PublicKey has no parser in an introspected schema: a number passes.
    expect(checkOperation(ACCOUNT_NONCE_QUERY, { publicKey: 42 }).errors).toEqual([]);
    expect(checkOperation(TRANSACTION_STATUS_QUERY, { id: { not: 'an id' } }).errors.join()).toMatch(/ID/);
  });
});

describe('fetchAccountNonce', () => {
  it('returns nonce and inferredNonce (stringified uint32) and sends { publicKey }', async () => {
    const n = await start({ accountNonce: () => ({ data: { account: { nonce: '3', inferredNonce: '5' } } }) });
    await expect(fetchAccountNonce(n.url, PUBLIC_KEY)).resolves.toEqual({ nonce: 3, inferredNonce: 5 });
    expect(n.requests).toHaveLength(1);
    const [request] = n.requests;
    expect(request?.valid, request?.errors.join()).toBe(true);
    expect(request?.operationName).toBe('accountNonce');
    expect(request?.query).toBe(ACCOUNT_NONCE_QUERY);
    expect(request?.variables).toEqual({ publicKey: PUBLIC_KEY });
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers.accept).toBe('application/json');
  });

  it('accepts numbers and the uint32 bounds', async () => {
    const n = await start({ accountNonce: () => ({ data: { account: { nonce: 0, inferredNonce: '4294967295' } } }) });
    await expect(fetchAccountNonce(n.url, PUBLIC_KEY)).resolves.toEqual({ nonce: 0, inferredNonce: 4294967295 });
  });

  it('returns undefined for an account that does not exist', async () => {
    const n = await start({ accountNonce: () => ({ data: { account: null } }) });
    await expect(fetchAccountNonce(n.url, PUBLIC_KEY)).resolves.toBeUndefined();
    expect(allValid(n)).toBe(true);
  });

  it.each([['abc'], ['-1'], ['4294967296'], ['01'], [' 1'], ['1e3'], [1.5], [-1], [null], [true]])(
    'refuses nonce %j as a response error',
    async (bad) => {
      const n = await start({ accountNonce: () => ({ data: { account: { nonce: bad, inferredNonce: '1' } } }) });
      const error = await minaNodeError(fetchAccountNonce(n.url, PUBLIC_KEY));
      expect(error.kind).toBe('response');
      expect(error.message).toMatch(/account\.nonce/);
    },
  );

  it('refuses an answer without `account`', async () => {
    const n = await start({ accountNonce: () => ({ data: {} }) });
    expect((await minaNodeError(fetchAccountNonce(n.url, PUBLIC_KEY))).kind).toBe('response');
  });
});

describe('sendZkapp', () => {
  let command: Record<string, unknown>;

  beforeAll(async () => {
    // A real signed zkApp command (a MINA transfer to a new account: 3 account updates), as o1js serialises it.
    const { Mina, AccountUpdate, PrivateKey } = await import('o1js');
    const local = await Mina.LocalBlockchain({ proofsEnabled: false });
    Mina.setActiveInstance(local);
    const sender = local.testAccounts[0]!;
    const to = PrivateKey.random().toPublicKey();
    const tx = await Mina.transaction({ sender, fee: 100_000_000 }, async () => {
      AccountUpdate.fundNewAccount(sender);
      AccountUpdate.createSigned(sender).send({ to, amount: 1_000_000_000 });
    });
    tx.sign([sender.key]);
    command = JSON.parse(tx.toJSON()) as Record<string, unknown>;
  }, 60_000);

  const clone = () =>
    structuredClone(command) as {
      feePayer: { body: Record<string, unknown> };
      accountUpdates: { body: Record<string, unknown> }[];
      memo: string;
    };

  it('the o1js command JSON fits ZkappCommandInput; returns { hash, id }', async () => {
    const c = clone();
    expect(c.feePayer.body).toMatchObject({ validUntil: null, fee: '100000000' });
    expect(c.accountUpdates.length).toBe(3);
    expect(c.accountUpdates[0]?.body).toHaveProperty('callDepth');
    expect(typeof c.memo).toBe('string');

    const n = await start({ sendZkapp: () => ({ data: { sendZkapp: { zkapp: { hash: HASH, id: ID } } } }) });
    await expect(sendZkapp(n.url, command)).resolves.toEqual({ hash: HASH, id: ID });
    expect(n.requests).toHaveLength(1);
    expect(n.requests[0]?.errors).toEqual([]);
    expect(n.requests[0]?.valid).toBe(true);
    expect(n.requests[0]?.operationName).toBe('sendZkapp');
    expect(n.requests[0]?.variables).toEqual({ zkappCommandInput: command });
  });

  it.each<[string, (c: ReturnType<typeof clone>) => void, RegExp]>([
    ['a body without callDepth', (c) => void delete c.accountUpdates[0]!.body.callDepth, /callDepth/],
    ['an unknown field', (c) => void (c.accountUpdates[1]!.body.bogus = 1), /bogus/],
    ['a string callDepth', (c) => void (c.accountUpdates[0]!.body.callDepth = '0'), /Int/],
    ['a null fee payer nonce', (c) => void (c.feePayer.body.nonce = null), /nonce/],
  ])('the node refuses %s: a graphql error with its message', async (_, spoil, pattern) => {
    const c = clone();
    spoil(c);
    const handled: unknown[] = [];
    const n = await start({ sendZkapp: (r) => (handled.push(r), { data: { sendZkapp: { zkapp: { hash: HASH, id: ID } } } }) });
    const error = await minaNodeError(sendZkapp(n.url, c));
    expect(error.kind).toBe('graphql');
    expect(error.message).toMatch(pattern);
    expect(error.message).toContain(`Mina node at ${n.url}: `);
    expect(error.graphqlErrors?.length).toBeGreaterThan(0);
    expect(n.requests[0]?.valid).toBe(false);
    expect(handled).toEqual([]);
  });

  it.each([
    ['no zkapp', { sendZkapp: {} }],
    ['a numeric hash', { sendZkapp: { zkapp: { hash: 1, id: ID } } }],
    ['no id', { sendZkapp: { zkapp: { hash: HASH } } }],
    ['null sendZkapp', { sendZkapp: null }],
  ])('refuses an answer with %s', async (_, data) => {
    const n = await start({ sendZkapp: () => ({ data }) });
    expect((await minaNodeError(sendZkapp(n.url, command))).kind).toBe('response');
  });
});

describe('graphqlRequest failures', () => {
  const nonceOk: FakeMinaHandler = () => ({ data: { account: null } });

  it('connection refused → network', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const url = `http://127.0.0.1:${port}/graphql`;
    const error = await minaNodeError(fetchAccountNonce(url, PUBLIC_KEY));
    expect(error.kind).toBe('network');
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect(error.cause).toBeDefined();
  });

  it('HTTP 500 → http, with the status and the body text', async () => {
    const n = await start({ accountNonce: () => ({ status: 500, body: 'daemon exploded: out of memory' }) });
    const error = await minaNodeError(fetchAccountNonce(n.url, PUBLIC_KEY));
    expect(error.kind).toBe('http');
    expect(error.status).toBe(500);
    expect(error.message).toMatch(/HTTP 500/);
    expect(error.message).toContain('daemon exploded: out of memory');
  });

  it('a long error page is cut to 300 characters', async () => {
    const n = await start({ accountNonce: () => ({ status: 502, body: 'x'.repeat(5_000) }) });
    const error = await minaNodeError(fetchAccountNonce(n.url, PUBLIC_KEY));
    expect(error.kind).toBe('http');
    expect(error.message).toContain('x'.repeat(300));
    expect(error.message).not.toContain('x'.repeat(301));
  });

  it('a body that is not JSON → response', async () => {
    const n = await start({ accountNonce: () => ({ status: 200, body: '<html>proxy login</html>' }) });
    const error = await minaNodeError(fetchAccountNonce(n.url, PUBLIC_KEY));
    expect(error.kind).toBe('response');
    expect(error.message).toMatch(/not JSON/);
  });

  it('JSON without data → response', async () => {
    const n = await start({ accountNonce: () => ({ status: 200, body: '{"hello":"world"}' }) });
    expect((await minaNodeError(fetchAccountNonce(n.url, PUBLIC_KEY))).kind).toBe('response');
  });

  it('GraphQL errors → graphql, with all the node messages', async () => {
    const n = await start({
      accountNonce: () => ({ data: null, errors: [{ message: 'Invalid public key' }, { message: 'second problem' }] }),
    });
    const error = await minaNodeError(fetchAccountNonce(n.url, PUBLIC_KEY));
    expect(error.kind).toBe('graphql');
    expect(error.message).toBe(`Mina node at ${n.url}: Invalid public key; second problem`);
    expect(error.graphqlErrors).toEqual(['Invalid public key', 'second problem']);
  });

  it.each([
    ['with content-length', {}],
    ['chunked, read as a stream', { 'transfer-encoding': 'chunked' }],
  ])('a body over 10 MB (%s) → response', async (_, headers: Record<string, string>) => {
    const big = JSON.stringify({ data: { account: null }, padding: 'x'.repeat(11 * 1024 * 1024) });
    const n = await start({ accountNonce: () => ({ status: 200, body: big, headers }) });
    const error = await minaNodeError(fetchAccountNonce(n.url, PUBLIC_KEY));
    expect(error.kind).toBe('response');
    expect(error.message).toMatch(/larger than/);
  });

  it('a node that never answers + timeoutMs → network, timed out', async () => {
    const n = await start({ accountNonce: never });
    const started = Date.now();
    const error = await minaNodeError(fetchAccountNonce(n.url, PUBLIC_KEY, { timeoutMs: 200 }));
    expect(error.kind).toBe('network');
    expect(error.message).toMatch(/timed out/);
    expect(error.message).toMatch(/200 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('an abort mid-request rejects with the signal reason, unchanged', async () => {
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    const n = await start({
      accountNonce: () => {
        arrived();
        return new Promise<never>(() => {});
      },
    });
    const controller = new AbortController();
    const pending = fetchAccountNonce(n.url, PUBLIC_KEY, { signal: controller.signal });
    await within(arrival, 'request arrival', 5_000);
    controller.abort();
    const error = await rejection(pending);
    expect(error).toBe(controller.signal.reason);
    expect((error as Error).name).toBe('AbortError');
  });

  it('a custom abort reason passes through, and an already-aborted signal sends nothing', async () => {
    const n = await start({ accountNonce: nonceOk });
    const reason = new Error('user closed the popup');
    const error = await rejection(fetchAccountNonce(n.url, PUBLIC_KEY, { signal: AbortSignal.abort(reason) }));
    expect(error).toBe(reason);
    expect(n.requests).toHaveLength(0);
  });

  it('uses options.fetch when given', async () => {
    const n = await start({ accountNonce: nonceOk });
    const calls: string[] = [];
    const spy: typeof fetch = (input, init) => {
      calls.push(String(input));
      return fetch(input, init);
    };
    await expect(fetchAccountNonce(n.url, PUBLIC_KEY, { fetch: spy })).resolves.toBeUndefined();
    expect(calls).toEqual([n.url]);
  });

  it('transactionStatus round trip through graphqlRequest', async () => {
    const n = await start({
      transactionStatus: (r) => ({ data: { transactionStatus: r.variables.id === ID ? 'PENDING' : 'UNKNOWN' } }),
    });
    await expect(graphqlRequest(n.url, TRANSACTION_STATUS_QUERY, { id: ID })).resolves.toEqual({ transactionStatus: 'PENDING' });
    expect(allValid(n)).toBe(true);
  });

  it('the fake node answers an invalid operation like a GraphQL server and records it', async () => {
    const n = await start({});
    const error = await minaNodeError(graphqlRequest(n.url, 'query { account(publicKey: "B62q") { bogusField } }', {}));
    expect(error.kind).toBe('graphql');
    expect(error.message).toMatch(/bogusField/);
    expect(n.requests.map((r) => r.valid)).toEqual([false]);
  });
});
