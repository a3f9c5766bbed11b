/**
 * The origin a provider serves (src/provider/origin.ts): in a browser page it is `location.origin`, full stop; a
 * bridge (an extension's background, a local server) names the origin of every call it relays. Browser pages are
 * simulated by defining `globalThis.location`, as the rest of the suite does.
 */
import { describe, expect, it } from 'vitest';
import { createLedgerProvider } from '../../src/index.js';
import { creationFailure, providerFailure as failure } from '../support/provider-failure.js';
import { ORIGIN, quietLedger, storeRig, tempDirs } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

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
