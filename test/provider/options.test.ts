/**
 * createLedgerProvider's option checks (src/provider/options.ts): each bad option → 20003 naming it, with the
 * message a host developer reads; null means "not given" where the option has a default.
 */
import { describe, expect, it } from 'vitest';
import { createLedgerProvider, type LedgerProviderOptions } from '../../src/index.js';
import { ORIGIN, quietLedger } from '../support/rig.js';

const ledger = quietLedger();
const base = { transport: ledger, network: 'devnet', origin: ORIGIN } as const;

function creationError(options: unknown): unknown {
  try {
    createLedgerProvider(options as LedgerProviderOptions);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('createLedgerProvider options', () => {
  it.each([
    [null, 'options', 'must be an object'],
    ['devnet', 'options', 'must be an object'],
    [{ ...base, transport: {} }, 'transport', 'must have a send() method'],
    [{ ...base, transport: null }, 'transport', 'must have a send() method'],
    [{ ...base, network: 'zeko' }, 'network', 'must be "mainnet", "devnet" or "local"'],
    [{ ...base, accountIndex: -1 }, 'accountIndex', 'must be an integer from 0 to 2^31 - 1'],
    [{ ...base, accountIndex: 1.5 }, 'accountIndex', 'must be an integer from 0 to 2^31 - 1'],
    [{ ...base, bridge: 'yes' }, 'bridge', 'must be true or false'],
    [{ ...base, confirmAddress: 'no' }, 'confirmAddress', 'must be true or false'],
    [{ ...base, maxPendingCalls: 0 }, 'maxPendingCalls', 'must be a positive integer'],
    [{ ...base, feeCap: 0 }, 'feeCap', 'must be a positive amount of MINA'],
    [{ ...base, feeCap: 'ten' }, 'feeCap', 'must be a positive amount of MINA'],
    [{ ...base, era: 'shanghai' }, 'era', 'must be "berkeley" or "mesa"'],
    [{ ...base, graphqlUrl: 'ftp://node.example' }, 'graphqlUrl', 'must be an http(s) URL'],
    [
      { ...base, graphqlUrl: 'https://u:p@node.example' },
      'graphqlUrl',
      'must not hold credentials (user:password@): pass them in graphqlHeaders',
    ],
    [{ ...base, graphqlHeaders: { 'x-a': 1 } }, 'graphqlHeaders', 'must be an object of header names to string values'],
    [{ ...base, graphqlHeaders: { 'x-a': 'line\nbreak' } }, 'graphqlHeaders', 'must be an object of header names to string values'],
    [{ ...base, onProgress: 'log' }, 'onProgress', 'must be a function'],
  ])('%j → 20003 naming %s', (options, field, reason) => {
    expect(creationError(options)).toMatchObject({ name: 'ProviderError', code: 20003, data: { field, reason } });
  });

  it('the first bad option in the documented order is the one named', () => {
    expect(creationError({ ...base, network: 'zeko', feeCap: 0 })).toMatchObject({ data: { field: 'network' } });
    expect(creationError({ ...base, accountIndex: -1, era: 'x' })).toMatchObject({ data: { field: 'accountIndex' } });
  });

  it('refuses an unknown network and a bad account index', () => {
    const ledger = quietLedger({ extensions: true });
    expect(() => createLedgerProvider({ transport: ledger, network: 'zeko' as 'devnet', origin: ORIGIN })).toThrow(
      expect.objectContaining({ code: 20003, data: expect.objectContaining({ field: 'network' }) }),
    );
    expect(() => createLedgerProvider({ transport: ledger, network: 'devnet', origin: ORIGIN, accountIndex: 2 ** 31 })).toThrow(
      expect.objectContaining({ code: 20003, data: expect.objectContaining({ field: 'accountIndex' }) }),
    );
  });

  it('applies the defaults, and null means "not given" for the options that have one', () => {
    const chain = createLedgerProvider({
      ...base,
      accountIndex: null,
      maxPendingCalls: null,
      feeCap: null,
    } as unknown as LedgerProviderOptions);
    expect(chain.accountIndex).toBe(0);
    expect(chain.network).toBe('devnet');
    expect(
      createLedgerProvider({ ...base, accountIndex: 3, feeCap: '0.5', graphqlUrl: 'http://127.0.0.1:3085/graphql' }).accountIndex,
    ).toBe(3);
    // Unknown extra keys are tolerated, as before.
    expect(createLedgerProvider({ ...base, somethingElse: 1 } as unknown as LedgerProviderOptions).origin).toBe(ORIGIN);
  });
});
