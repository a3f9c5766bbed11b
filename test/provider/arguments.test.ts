/**
 * A call's arguments are read once, as plain data, before any check (src/provider/snapshot.ts): a page's getter or
 * Proxy cannot answer one thing to a check and another to the work after it (an `accountUpdates` getter that answers
 * 1 update to the 11-update bound, then 300 to the signing). What JSON cannot hold (a BigInt) is refused with 20003,
 * and an object of shared sub-objects is read within a bound, never as the exponential tree it stands for.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../src/credentials-node.js';
import { DECLINED } from '../../src/presentations/context.js';
import type { createLedgerProvider } from '../../src/index.js';
import { SNAPSHOT_VALUES, snapshotArguments } from '../../src/provider/snapshot.js';
import { credentialIssuer, type Issuer } from '../support/credentials.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { connectedProvider, outcome, tempDirs } from '../support/rig.js';
import { dagValue } from '../support/odd-values.js';
import { berkeleyCommand, manyUpdates } from '../support/zkapp.js';

const tempDir = tempDirs('arguments');
let issuer: Issuer;
beforeAll(async () => {
  issuer = await credentialIssuer();
}, 60_000);

/** `object` with `key` turned into a getter that answers `answers[n]` on its n-th read (the last one after that). */
function changing<T extends object>(object: T, key: string, answers: unknown[]): { value: T; reads: () => number } {
  let reads = 0;
  Object.defineProperty(object, key, { enumerable: true, get: () => answers[Math.min(reads++, answers.length - 1)] });
  return { value: object, reads: () => reads };
}

describe('arguments read once', () => {
  it('a zkApp command whose accountUpdates getter answers 300 updates, then 1: read once, and its one answer refused (20003)', async () => {
    const { chain, ledger } = await connectedProvider({ blindSigning: true }, { allowUnreviewedBlindSigning: true });
    const exchanges = ledger.exchanges.length;
    const command = berkeleyCommand();
    const many = manyUpdates(berkeleyCommand(), 300).accountUpdates;
    const { value: transaction, reads } = changing(command, 'accountUpdates', [many, command.accountUpdates.slice(0, 1)]);
    const error = await failure(chain.sendTransaction({ transaction, onlySign: true }));
    expect(error).toMatchObject({ code: 20003, data: { field: 'transaction.accountUpdates' } });
    expect(reads()).toBe(1);
    expect(ledger.exchanges.length).toBe(exchanges);
  });

  it('a presentation request whose spec getter answers differently each time is read once, through request() too', async () => {
    const { chain } = await connectedProvider({ extensions: true }, { credentialStore: new FileCredentialStore(tempDir()) });
    const { json } = issuer.presentationRequest();
    for (const call of [
      (presentationRequest: object) => chain.requestPresentation({ presentation: { presentationRequest } }),
      (presentationRequest: object) => chain.request({ method: 'chain_requestPresentation', params: [{ presentationRequest }] }),
    ]) {
      const { value, reads } = changing({ ...json }, 'spec', [json.spec, { ...json.spec, outputClaim: { type: 'owner' } }]);
      // The empty store fits nothing: the request got that far (the holder's approval, then the choice) on its one reading.
      expect(await failure(call(value))).toMatchObject({ code: 1002, data: { reason: DECLINED } });
      expect(reads()).toBe(1);
    }
  });

  it('the copy is plain data: an own __proto__ key stays an own key, shared sub-objects are copied as the tree they stand for', () => {
    const shared = { a: 1 };
    const source = JSON.parse('{"__proto__": {"polluted": true}, "x": [1, "two", null, true]}') as Record<string, unknown>;
    source.left = shared;
    source.right = shared;
    const copy = snapshotArguments(source) as Record<string, unknown>;
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(copy).toEqual(source);
    expect(copy.left).not.toBe(shared);
    expect(copy.left).not.toBe(copy.right);
  });

  it('bounded: a graph of shared sub-objects standing for 2^40 values is read at most SNAPSHOT_VALUES times; a throwing getter → 20003', () => {
    let reads = 0;
    let graph: unknown = 1;
    for (let i = 0; i < 40; i++) {
      const inner = graph;
      graph = new Proxy([inner, inner], { get: (target, key, receiver) => (reads++, Reflect.get(target, key, receiver)) });
    }
    snapshotArguments({ message: graph });
    expect(reads).toBeLessThan(3 * SNAPSHOT_VALUES); // length and two indexes per array read
    const throwing = Object.defineProperty({}, 'message', {
      enumerable: true,
      get() {
        throw new Error('no');
      },
    });
    expect(() => snapshotArguments(throwing)).toThrow(
      expect.objectContaining({ code: 20003, data: expect.objectContaining({ field: 'params' }) }),
    );
  });
});

describe('object arguments a page can build but JSON cannot hold', () => {
  /** A connected provider on a device with the extension and Blind signing on: an argument that got through would reach it. */
  const connected = () =>
    connectedProvider({ extensions: true, blindSigning: true }, { credentialStore: new FileCredentialStore(tempDir()) });

  it.each<[string, (chain: ReturnType<typeof createLedgerProvider>) => Promise<unknown>]>([
    ['sendTransaction({ transaction: { a: 1n } })', (chain) => chain.sendTransaction({ transaction: { a: 1n }, onlySign: true })],
    ['storePrivateCredential({ credential: { a: 1n } })', (chain) => chain.storePrivateCredential({ credential: { a: 1n } })],
    [
      'requestPresentation({ presentation: { presentationRequest: { a: 1n } } })',
      (chain) => chain.requestPresentation({ presentation: { presentationRequest: { a: 1n } } }),
    ],
  ])('a BigInt anywhere in an object argument, %s → 20003, not an internal error; nothing reaches the device', async (_name, call) => {
    const { ledger, chain } = await connected();
    const r = await outcome(ledger, () => call(chain));
    expect(r.error).toMatchObject({ name: 'ProviderError', code: 20003 });
    expect(r.sent).toEqual([]);
  });

  // A page that forgot an `await` (found by the bad-input property at seed -130124688: addChain given a Promise was
  // 22001 "This is a bug", zod throwing on the Promise its preprocess handed on).
  it.each<[string, (chain: ReturnType<typeof createLedgerProvider>) => Promise<unknown>]>([
    ['addChain(a Promise)', (chain) => chain.addChain(Promise.resolve({ url: 'https://a.example/graphql', name: 'A' }) as never)],
    ['switchChain(a Promise)', (chain) => chain.switchChain(Promise.resolve({ networkID: 'mina:devnet' }) as never)],
    ['sendTransaction({ transaction: a Promise })', (chain) => chain.sendTransaction({ transaction: Promise.resolve({}), onlySign: true })],
    [
      'request({ method: chain_addChain, params: a Promise })',
      (chain) => chain.request({ method: 'chain_addChain', params: Promise.resolve({}) as never }),
    ],
  ])(
    'a Promise where a value belongs, %s → 20003 saying to await it, not an internal error; nothing reaches the device',
    async (_name, call) => {
      const { ledger, chain } = await connected();
      const r = await outcome(ledger, () => call(chain));
      expect(r.error).toMatchObject({ name: 'ProviderError', code: 20003 });
      expect(r.sent).toEqual([]);
    },
  );

  // `dagValue(24)`: 48 objects, no cycle, standing for 2^24 paths (a structured clone through postMessage keeps the
  // sharing); read as a tree it would cost seconds, doubling with each level.
  it.each<[string, (chain: ReturnType<typeof createLedgerProvider>) => Promise<unknown>]>([
    ['sendTransaction', (chain) => chain.sendTransaction({ transaction: dagValue(24) as object, onlySign: true })],
    ['requestPresentation', (chain) => chain.requestPresentation({ presentation: { presentationRequest: dagValue(24) as object } })],
  ])(
    '%s with a 24-level shared-subtree object is refused with 20003; nothing reaches the device',
    async (_name, call) => {
      const { ledger, chain } = await connected();
      const r = await outcome(ledger, () => call(chain));
      expect(r.error).toMatchObject({ name: 'ProviderError', code: 20003 });
      expect(r.sent).toEqual([]);
    },
    30_000,
  );
});

describe('a null where the context goes', () => {
  it.each(['requestAccounts', 'getAccounts', 'requestNetwork', 'getNetworkId', 'getWalletInfo'] as const)(
    '%s(null), as a page may call it, is a call without a context: its result, never a TypeError',
    async (method) => {
      const { chain } = await connectedProvider();
      const call = chain[method] as (context: unknown) => Promise<unknown>;
      expect(await call.call(chain, null)).toEqual(await call.call(chain, undefined));
    },
  );
});
