/**
 * wrapProvider: what the Ledger cannot do is refused or delegated, and nothing else is ever delegated; the origin and
 * the connection are checked before a delegation, and the checked origin is passed on.
 */
import { describe, expect, it } from 'vitest';

import { createLedgerProvider, LedgerProvider, wrapProvider, type ChainProvider, type ProviderError } from '../../src/index.js';
import { berkeleyCommand } from '../support/zkapp.js';
import { addressOf } from '../support/vectors.js';
import { ORIGIN, quietLedger } from '../support/rig.js';
import { providerFailure as failure } from '../support/provider-failure.js';

/** A stand-in for an existing window.chain that records what it is asked. */
function originalProvider() {
  const calls: { via: string; args: unknown }[] = [];
  const original: ChainProvider = {
    createNullifier: async (args) => (calls.push({ via: 'createNullifier', args }), { from: 'original', args }),
    requestPresentation: async (args) => (calls.push({ via: 'requestPresentation', args }), { presentation: 'from original' }),
    request: async (args) => (calls.push({ via: 'request', args }), { from: 'original request', args }),
  };
  return { original, calls };
}

function setup(whenUnsupported: 'refuse' | 'delegate', approve = true) {
  // The real app 1.6.0: no extension instructions, so nullifiers and presentations are beyond the device.
  const ledger = quietLedger({ approve: () => approve, extensions: false });
  const { original, calls } = originalProvider();
  const chain = wrapProvider(original, {
    transport: ledger,
    network: 'devnet',
    origin: ORIGIN,
    whenUnsupported,
    allowUnconfirmedSwitchChain: true,
  });
  return { chain, calls, ledger };
}

const reject = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe("whenUnsupported: 'delegate'", () => {
  it('delegates exactly the methods the device cannot do, with the arguments as given', async () => {
    const { chain, calls } = setup('delegate');
    expect(await chain.requestAccounts()).toEqual([addressOf(0)]);
    expect(await chain.createNullifier({ message: ['1', '2'] })).toEqual({ from: 'original', args: { message: ['1', '2'] } });
    expect(await chain.requestPresentation({ presentation: { presentationRequest: { type: 'https' } } })).toEqual({
      presentation: 'from original',
    });
    // Through request(): the wallet-side name goes to the original's request().
    await chain.request({ method: 'chain_createNullifier', params: [{ message: ['5'] }] });
    // The device can sign messages: that stays on the Ledger.
    const signed = (await chain.request({ method: 'chain_signMessage', params: { message: 'hi' } })) as { publicKey: string };
    expect(signed.publicKey).toBe(addressOf(0));
    // An unknown method is something the Ledger cannot do either (Pallad's mina_getState: no Ledger method).
    await chain.request({ method: 'mina_getState', params: [] } as never);
    expect(calls.map((c) => c.via)).toEqual(['createNullifier', 'requestPresentation', 'request', 'request']);
    expect(calls[2]!.args).toEqual({ method: 'chain_createNullifier', params: [{ message: ['5'] }] });
  });

  it('never delegates invalid parameters, a wrong origin, a rejection on the device, or a missing connection', async () => {
    const notConnected = setup('delegate');
    expect(await reject(notConnected.chain.createNullifier({ message: ['1'] }))).toMatchObject({ code: 1001 });

    const { chain, calls, ledger } = setup('delegate');
    await chain.requestAccounts();
    expect(await reject(chain.createNullifier({ message: ['x'] }))).toMatchObject({ code: 20003, data: { field: 'message[0]' } });
    expect(
      await reject(chain.request({ method: 'chain_createNullifier', params: { message: ['1'] } }, { origin: 'https://evil.example' })),
    ).toMatchObject({
      code: 23001,
    });
    ledger.approve = () => false;
    expect(await reject(chain.request({ method: 'chain_signMessage', params: { message: 'hi' } }))).toMatchObject({ code: 1002 });
    expect(calls).toEqual([]);
  });
});

describe("whenUnsupported: 'refuse'", () => {
  it('refuses with 20006 and a reason, and never calls the original', async () => {
    const { chain, calls } = setup('refuse');
    await chain.requestAccounts();
    expect(await reject(chain.createNullifier({ message: ['1'] }))).toMatchObject({
      code: 20006,
      data: { reason: expect.stringMatching(/no nullifier instruction/) },
    });
    expect(
      await reject(chain.request({ method: 'chain_requestPresentation', params: { presentation: { presentationRequest: {} } } })),
    ).toMatchObject({
      code: 20006,
    });
    expect(calls).toEqual([]);
  });

  it('requires a valid whenUnsupported', () => {
    const ledger = quietLedger({ extensions: true });
    expect(() => wrapProvider({}, { transport: ledger, network: 'devnet', origin: ORIGIN, whenUnsupported: 'maybe' as 'refuse' })).toThrow(
      expect.objectContaining({ code: 20003, data: expect.objectContaining({ field: 'whenUnsupported' }) }),
    );
  });
});

describe('what wrapProvider checks before delegating, and passes on', () => {
  /** A wrapper over an original that records the context each call reaches it with. */
  function contextRecording() {
    const calls: { method: string; context: unknown }[] = [];
    const original: ChainProvider = {
      request: async (args, context) => (calls.push({ method: args.method, context }), 'from original'),
      createNullifier: async (_args, context) => (calls.push({ method: 'createNullifier', context }), 'from original'),
    };
    const ledger = quietLedger({ extensions: false });
    const chain = wrapProvider(original, { transport: ledger, network: 'devnet', origin: ORIGIN, whenUnsupported: 'delegate' });
    return { chain, calls, ledger };
  }

  it('an unknown method from a wrong origin, or before connect, is never delegated', async () => {
    const { chain, calls, ledger } = contextRecording();
    expect(await failure(chain.request({ method: 'mina_getState', params: [] } as never))).toMatchObject({ code: 1001 });
    expect(await failure(chain.createNullifier({ message: ['1'] }))).toMatchObject({ code: 1001 });
    await chain.requestAccounts();
    const before = ledger.exchanges.length;
    expect(
      await failure(chain.request({ method: 'mina_getState', params: [] } as never, { origin: 'https://evil.example' })),
    ).toMatchObject({
      code: 23001,
    });
    expect(await failure(chain.createNullifier({ message: ['1'] }, { origin: 'https://evil.example' }))).toMatchObject({ code: 23001 });
    expect(calls).toEqual([]);
    expect(ledger.exchanges.length).toBe(before);
  });

  it('a delegated call carries the checked origin', async () => {
    const { chain, calls } = contextRecording();
    await chain.requestAccounts();
    expect(await chain.request({ method: 'mina_getState', params: [] } as never, { origin: ORIGIN })).toBe('from original');
    expect(await chain.createNullifier({ message: ['1'] })).toBe('from original');
    expect(calls).toEqual([
      { method: 'mina_getState', context: { origin: ORIGIN } },
      { method: 'createNullifier', context: { origin: ORIGIN } },
    ]);
  });

  it('wrapProvider passes rejectPending() through to its Ledger provider', async () => {
    const ledger = quietLedger();
    const chain = wrapProvider({}, { transport: ledger, network: 'devnet', origin: ORIGIN, whenUnsupported: 'refuse' });
    await chain.requestAccounts();
    let prompts = 0;
    let release: (approved: boolean) => void = () => {};
    ledger.approve = () => (prompts++, new Promise<boolean>((resolve) => (release = resolve)));
    const code = (e: ProviderError) => e.code;
    const onDevice = chain.request({ method: 'chain_signMessage', params: { message: 'one' } }).then(() => 'ok', code);
    const waiting = chain.signJsonMessage({ message: [{ label: 'a', value: 'b' }] }).then(() => 'ok', code);
    while (prompts === 0) await new Promise((r) => setTimeout(r, 5));
    expect(chain.rejectPending()).toBe(2);
    expect(await Promise.all([onDevice, waiting])).toEqual([1002, 1002]);
    expect(prompts).toBe(1);
    release(false);
  });
});

describe('the rest of the window.mina surface through wrapProvider', () => {
  it('several-field signFields (no SIGN_FIELDS on the real app) is delegated through request; requestNetwork and events stay on the Ledger provider; on() chains on the wrapper', async () => {
    const { chain, calls } = setup('delegate');
    await chain.requestAccounts();
    expect(await chain.signFields({ message: ['1', '2'] })).toEqual({
      from: 'original request',
      args: { method: 'chain_signFields', params: { message: ['1', '2'] } },
    });
    expect(await chain.requestNetwork()).toEqual({ networkID: 'mina:devnet' });
    const events: unknown[] = [];
    expect(chain.on('chainChanged', (c) => events.push(c))).toBe(chain);
    await chain.request({ method: 'chain_switchChain', params: { networkID: 'mina:mainnet' } });
    expect(events).toEqual([{ networkID: 'mina:mainnet' }]);
    expect(calls.map((c) => c.via)).toEqual(['request']);
  });
});

describe('the wrapped object is a whole LedgerProvider', () => {
  /**
   * One call per member of `LedgerProvider.prototype`, in the order they run (connect first, disconnect last). A
   * member without a sample fails the test, so a method added to the provider is checked here too.
   */
  const samples: Record<string, unknown[]> = {
    requestAccounts: [],
    isConnected: [],
    getAccounts: [],
    requestNetwork: [],
    assertCaller: [],
    rejectPending: [],
    signMessage: [{ message: 'hello' }],
    signJsonMessage: [{ message: [{ label: 'action', value: 'login' }] }],
    verifyMessage: [{ publicKey: addressOf(0), data: 'hello', signature: { field: '1', scalar: '2' } }],
    verifyJsonMessage: [{ publicKey: addressOf(0), data: '[]', signature: { field: '1', scalar: '2' } }],
    signFields: [{ message: ['7'] }],
    verifyFields: [{ publicKey: addressOf(0), data: ['7'], signature: 'not base58' }],
    createNullifier: [{ message: ['1'] }],
    requestPresentation: [{ presentation: { presentationRequest: {} } }],
    storePrivateCredential: [{ credential: 'not JSON' }],
    sendTransaction: [{ transaction: berkeleyCommand(), onlySign: true, nonce: 3 }],
    sendPayment: [{ to: addressOf(1), amount: 1, fee: 0.01, nonce: 3 }],
    sendStakeDelegation: [{ to: addressOf(1), fee: 0.01, nonce: 3 }],
    signTransaction: [{ transaction: { from: addressOf(0), to: addressOf(1), fee: '10000000', amount: '1', nonce: '3' } }],
    sendSignedTransaction: [{ signedTransaction: { input: {}, signature: { field: '1', scalar: '2' } }, transactionType: 'payment' }],
    getBalance: [],
    localChain: [],
    request: [{ method: 'mina_requestNetwork' }],
    on: ['chainChanged', () => {}],
    once: ['chainChanged', () => {}],
    off: ['chainChanged', () => {}],
    removeListener: ['chainChanged', () => {}],
    removeAllListeners: [],
    switchChain: [{ networkID: 'mina:mainnet' }],
    addChain: [{ url: encodeURIComponent('https://testnet.zeko.io/graphql'), name: 'Zeko' }],
    getNetworkId: [],
    getWalletInfo: [],
    revokePermissions: [],
    disconnect: [],
  };

  /** What a call did: its value (`'self'` for the object itself, as `on` returns) or its error. */
  async function outcome(target: object, name: string, args: unknown[]) {
    try {
      const value = await (target as Record<string, (...a: unknown[]) => unknown>)[name]!.apply(target, args);
      return { value: value === target ? 'self' : value };
    } catch (e) {
      const { code, message, data } = e as ProviderError;
      return { error: { code, message, data } };
    }
  }

  const members = (prototype: object) => Object.getOwnPropertyNames(prototype).filter((name) => name !== 'constructor');
  const isGetter = (name: string) => typeof Object.getOwnPropertyDescriptor(LedgerProvider.prototype, name)?.get === 'function';

  it('has every method and getter of LedgerProvider, and each does what it does on a LedgerProvider over the same device', async () => {
    const options = { network: 'devnet', origin: ORIGIN, allowUnconfirmedSwitchChain: true } as const;
    // Twin devices (same keys, deterministic signatures): what each one was sent must be the same.
    const plainLedger = quietLedger({ extensions: false });
    const wrappedLedger = quietLedger({ extensions: false });
    const plain = createLedgerProvider({ transport: plainLedger, ...options });
    const wrapped = wrapProvider({}, { transport: wrappedLedger, ...options, whenUnsupported: 'refuse' });

    const methods = members(LedgerProvider.prototype).filter((name) => !isGetter(name));
    expect(methods.sort()).toEqual(Object.keys(samples).sort());
    for (const name of Object.keys(plain)) expect(wrapped, `field ${name}`).toHaveProperty(name, plain[name as keyof typeof plain]);
    for (const name of Object.keys(samples)) {
      expect(typeof (wrapped as unknown as Record<string, unknown>)[name], name).toBe('function');
      expect(await outcome(wrapped, name, samples[name]!), name).toEqual(await outcome(plain, name, samples[name]!));
      for (const getter of members(LedgerProvider.prototype).filter(isGetter)) {
        expect((wrapped as unknown as Record<string, unknown>)[getter], `${getter} after ${name}`).toEqual(
          plain[getter as keyof typeof plain],
        );
      }
    }
    expect(wrappedLedger.exchanges.map((e) => e.request)).toEqual(plainLedger.exchanges.map((e) => e.request));
    expect(plainLedger.exchanges.length).toBeGreaterThan(4);
  });
});
