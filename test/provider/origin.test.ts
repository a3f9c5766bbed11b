/**
 * The origin a provider serves (src/provider/origin.ts): in a browser page it is `location.origin`, full stop; a
 * bridge (an extension's background, a local server) names the origin of every call it relays. Browser pages are
 * simulated by defining `globalThis.location`, as the rest of the suite does. Insecure origins are refused at
 * creation (https, or http on a loopback host), and a call from another origin (23001) never reaches the device,
 * whatever the method.
 */
import { describe, expect, it } from 'vitest';
import { createLedgerProvider, type LedgerProvider } from '../../src/index.js';
import { creationFailure, providerFailure as failure } from '../support/provider-failure.js';
import { ORIGIN, quietLedger, storeProvider, storeRig, tempDirs } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';
import { berkeleyCommand } from '../support/zkapp.js';

const ACCOUNT0 = addressOf(0);
const tempDir = tempDirs('origin');

/** Runs `body` as if in a browser page at `origin` (`globalThis.location`). */
async function inPage<T>(origin: string, body: () => T | Promise<T>): Promise<T> {
  const saved = Object.getOwnPropertyDescriptor(globalThis, 'location');
  Object.defineProperty(globalThis, 'location', { value: { origin }, configurable: true });
  try {
    return await body();
  } finally {
    if (saved) Object.defineProperty(globalThis, 'location', saved);
    else delete (globalThis as { location?: unknown }).location;
  }
}

describe('in a browser page the origin is location.origin, full stop', () => {
  it('a page cannot bind a provider to another origin, nor use an opaque origin', async () => {
    const ledger = quietLedger();
    await inPage('https://phish.example', () => {
      expect(
        creationFailure(() => createLedgerProvider({ transport: ledger, network: 'devnet', origin: 'https://bank.example' })),
      ).toMatchObject({
        code: 20003,
        data: { field: 'origin' },
      });
      // Its own origin, spelled out or not, is fine.
      expect(createLedgerProvider({ transport: ledger, network: 'devnet', origin: 'https://phish.example' }).origin).toBe(
        'https://phish.example',
      );
      expect(createLedgerProvider({ transport: ledger, network: 'devnet' }).origin).toBe('https://phish.example');
      // A page cannot declare itself a bridge either.
      expect(
        creationFailure(() => createLedgerProvider({ transport: ledger, network: 'devnet', origin: 'https://bank.example', bridge: true })),
      ).toMatchObject({
        code: 20003,
        data: { field: 'bridge' },
      });
    });
    await inPage('null', () => {
      for (const origin of [undefined, 'https://bank.example']) {
        expect(creationFailure(() => createLedgerProvider({ transport: ledger, network: 'devnet', origin }))).toMatchObject({
          code: 20003,
          data: { field: 'origin', reason: expect.stringMatching(/opaque/) },
        });
      }
    });
  });

  it('a page cannot claim another origin per call (context.origin), and an origin turned opaque is refused; nothing reaches the device', async () => {
    await inPage(ORIGIN, async () => {
      const { chain, ledger } = storeRig(tempDir(), { origin: undefined });
      await chain.requestAccounts();
      const before = ledger.exchanges.length;
      for (const origin of ['https://bank.example', 'null', '']) {
        expect(await failure(chain.request({ method: 'chain_signMessage', params: { message: 'hi' } }, { origin }))).toMatchObject({
          code: 23001,
        });
        expect(await failure(chain.signMessage({ message: 'hi' }, { origin }))).toMatchObject({ code: 23001 });
      }
      expect(ledger.exchanges.length).toBe(before);
      // Its own origin, given or not, works.
      await chain.signMessage({ message: 'hi' }, { origin: ORIGIN });
      await chain.signMessage({ message: 'hi' });
      // The same provider, reached from an opaque context (a sandboxed frame of the page): refused.
      await inPage('null', async () => {
        expect(await failure(chain.signMessage({ message: 'hi' }))).toMatchObject({ code: 23001 });
        expect(await failure(chain.signMessage({ message: 'hi' }, { origin: ORIGIN }))).toMatchObject({ code: 23001 });
      });
    });
  });
});

describe('bridges', () => {
  it('bridge mode: the messaging layer must give the origin of every call; without one → 23001, nothing reaches the device', async () => {
    const { chain, ledger } = storeRig(tempDir(), { bridge: true });
    expect(await failure(chain.requestAccounts())).toMatchObject({ code: 23001, data: { reason: expect.stringMatching(/bridge/) } });
    await chain.requestAccounts({ origin: ORIGIN });
    const before = ledger.exchanges.length;
    expect(await failure(chain.request({ method: 'chain_signMessage', params: { message: 'hi' } }))).toMatchObject({ code: 23001 });
    expect(await failure(chain.signMessage({ message: 'hi' }))).toMatchObject({ code: 23001 });
    expect(await failure(chain.signMessage({ message: 'hi' }, { origin: 'https://evil.example' }))).toMatchObject({ code: 23001 });
    expect(ledger.exchanges.length).toBe(before);
    expect((await chain.signMessage({ message: 'hi' }, { origin: ORIGIN })).publicKey).toBe(ACCOUNT0);
    // An extension's own pages (chrome-extension:) are bridges, not web pages: they may name the origin they serve.
    await inPage('chrome-extension://abcdefghijklmnop', () => {
      const ext = createLedgerProvider({ transport: ledger, network: 'devnet', origin: ORIGIN, bridge: true });
      expect(ext.origin).toBe(ORIGIN);
    });
  });
});

describe('creation', () => {
  it.each([
    [undefined, /required outside browsers/],
    ['http://dapp.example', /insecure origin/],
    ['http://192.168.1.10:8080', /insecure origin/],
    ['http://128.0.0.1', /insecure origin/],
    ['http://127.0.0.1.example', /insecure origin/],
    ['http://localhost.example', /insecure origin/],
    ['http://localhost.evil.example', /insecure origin/],
    ['ws://localhost', /insecure origin/],
    ['file:///etc/passwd', /./],
    ['https://dapp.example/path', /bare origin/],
    ['https://dapp.example:443', /bare origin/], // the URL's origin drops the default port
    ['https://dapp.example/', /bare origin/],
    ['HTTPS://DAPP.EXAMPLE', /bare origin/],
    ['not a url', /not an origin/],
  ])('refuses origin %s (20003, field origin)', (origin, reason) => {
    const ledger = quietLedger({ extensions: true });
    const error = creationFailure(() =>
      createLedgerProvider({ transport: ledger, network: 'devnet', ...(origin === undefined ? {} : { origin }) }),
    );
    expect(error).toMatchObject({ name: 'ProviderError', code: 20003, data: { field: 'origin', reason: expect.stringMatching(reason) } });
  });

  // Every loopback host a browser treats as a secure context: distinct ones are distinct sites (a wallet and its dapps).
  it.each([
    'https://dapp.example',
    'https://dapp.example:8443',
    'http://localhost',
    'http://localhost:5173',
    'http://127.0.0.1:8080',
    'http://127.0.0.2',
    'http://127.0.0.3:9000',
    'http://wallet.localhost:5174',
    'http://[::1]:3000',
  ])('accepts %s', (origin) => {
    const ledger = quietLedger({ extensions: true });
    expect(createLedgerProvider({ transport: ledger, network: 'devnet', origin }).origin).toBe(origin);
  });
});

describe('origins', () => {
  const calls: [string, (c: LedgerProvider, origin: string) => Promise<unknown>][] = [
    ['chain_requestAccounts', (c, origin) => c.request({ method: 'chain_requestAccounts' }, { origin })],
    ['chain_signMessage', (c, origin) => c.request({ method: 'chain_signMessage', params: { message: 'hi' } }, { origin })],
    ['chain_createNullifier', (c, origin) => c.request({ method: 'chain_createNullifier', params: { message: ['1'] } }, { origin })],
    [
      'chain_sendTransaction',
      (c, origin) => c.request({ method: 'chain_sendTransaction', params: { transaction: berkeleyCommand(), onlySign: true } }, { origin }),
    ],
    [
      'chain_storePrivateCredential',
      (c, origin) => c.request({ method: 'chain_storePrivateCredential', params: { credential: {} } }, { origin }),
    ],
    [
      'chain_requestPresentation',
      (c, origin) => c.request({ method: 'chain_requestPresentation', params: { presentation: { presentationRequest: {} } } }, { origin }),
    ],
    ['chain_switchChain', (c, origin) => c.request({ method: 'chain_switchChain', params: { networkID: 'mina:mainnet' } }, { origin })],
    ['signMessage with { origin }', (c, origin) => c.signMessage({ message: 'hi' }, { origin })],
  ];
  const origins = ['https://evil.example', 'http://dapp.example', 'https://dapp.example:8443', 'https://sub.dapp.example', 'null'];

  it.each(calls.flatMap(([name, call]) => origins.map((origin) => [name, origin, call] as const)))(
    '%s from %s → 23001, nothing reaches the device',
    async (_name, origin, call) => {
      const ledger = quietLedger({ extensions: true, blindSigning: true });
      const chain = storeProvider(ledger, tempDir());
      await chain.requestAccounts();
      const before = ledger.exchanges.length;
      expect(await failure(call(chain, origin))).toMatchObject({ code: 23001, message: 'Origin dismatch.' });
      expect(ledger.exchanges.length).toBe(before);
      expect(chain.network).toBe('devnet'); // switchChain from another origin changed nothing
    },
  );

  it('in a browser page on an insecure origin, a provider without an explicit origin is refused', async () => {
    await inPage('http://dapp.example', () => {
      const ledger = quietLedger({ extensions: true });
      expect(() => createLedgerProvider({ transport: ledger, network: 'devnet' })).toThrow(
        expect.objectContaining({
          code: 20003,
          data: expect.objectContaining({ field: 'origin', reason: expect.stringMatching(/insecure/) }),
        }),
      );
    });
  });
});
