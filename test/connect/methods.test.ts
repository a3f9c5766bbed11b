/**
 * The wallet methods as the method table (src/provider/methods.ts) makes them everywhere: the connector's generated
 * list (src/connect/methods.ts, `npm run methods:generate`), the connector's direct methods and the provider's.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { WalletConnector } from '../../src/connect.js';
import { WALLET_METHODS as CONNECTOR_METHODS } from '../../src/connect/methods.js';
import { LedgerProvider } from '../../src/index.js';
import { WALLET_METHODS } from '../../src/provider/methods.js';
import { CONNECT_METHODS_FILE, connectMethodsSource } from '../../tools/connect-methods.js';

/** A prototype's own methods, by name (the class's own ones, not the table's, left out by the caller). */
const ownMethods = (prototype: object) =>
  Object.getOwnPropertyNames(prototype).filter((name) => typeof Object.getOwnPropertyDescriptor(prototype, name)?.value === 'function');

describe("the connector's list of wallet methods", () => {
  it('is the file the method table makes (npm run methods:generate writes it)', () => {
    expect(readFileSync(CONNECT_METHODS_FILE, 'utf8')).toBe(connectMethodsSource());
  });

  it("names each row's direct method, and whether it takes params (its row has a schema)", () => {
    const fromTable = Object.fromEntries(
      Object.entries(WALLET_METHODS).map(([name, row]) => [name, { method: row.method, params: row.params !== undefined }]),
    );
    expect(CONNECTOR_METHODS).toEqual(fromTable);
    // The renderer reads the table it is given (the check above is not the file compared with itself).
    expect(connectMethodsSource({ chain_ping: { method: 'ping' }, chain_echo: { method: 'echo', params: z.object({}) } })).toContain(
      "  chain_ping: { method: 'ping', params: false },\n  chain_echo: { method: 'echo', params: true },\n}",
    );
  });
});

describe("the table's methods on the connector and on the provider", () => {
  const direct = Object.values(WALLET_METHODS).map((row) => row.method);

  it('the connector has exactly the direct method of each row, besides its own (request, events, connection state)', () => {
    const own = [
      'constructor',
      'isConnected',
      'request',
      'disconnect',
      'rejectPending',
      'on',
      'once',
      'off',
      'removeListener',
      'removeAllListeners',
    ];
    expect(
      ownMethods(WalletConnector.prototype)
        .filter((name) => !own.includes(name))
        .sort(),
    ).toEqual([...direct].sort());
  });

  it('the provider has exactly the direct method of each row, besides its own, each named as the row names it', () => {
    const own = ['constructor', 'isConnected', 'disconnect', 'rejectPending', 'on', 'once', 'off', 'removeListener', 'removeAllListeners'];
    const methods = ownMethods(LedgerProvider.prototype).filter(
      (name) => !['localChain', 'request', 'assertCaller', ...own].includes(name),
    );
    expect(methods.sort()).toEqual([...direct].sort());
    for (const method of direct)
      expect((LedgerProvider.prototype as unknown as Record<string, { name: string }>)[method]!.name).toBe(method);
  });
});
