/**
 * The credential store's key is the device's deterministic signature over a fixed text (src/credentials/store-key.ts,
 * src/apdu/store-key.ts): its reply is never kept (the software Ledger's `exchanges` hold only its status word) and
 * never reaches an `@ledgerhq/logs` listener, whatever transport the provider is given; a transport whose log it
 * cannot keep the reply from gets no store-key request at all. (The openers' transports: test/transport/webhid.test.ts,
 * node-openers.test.ts and speculos.test.ts.)
 */
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { signatureToRawHex } from '../../src/apdu/signature.js';
import { STORE_KEY_MESSAGE } from '../../src/apdu/store-key.js';
import { MinaLedgerApp } from '../../src/device/client.js';
import { startSpeculosServer } from '../../src/emulator.js';
import { credentialManager } from '../../src/index.js';
import { credentialIssuer, type Issuer } from '../support/credentials.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { quietLedger, storeProvider, storeRig, tempDirs, within } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

const ACCOUNT0 = addressOf(0);
const tempDir = tempDirs('store-key');
// The CommonJS builds: the transports and the @ledgerhq/logs they publish on.
const require = createRequire(import.meta.url);

let issuer: Issuer;
beforeAll(async () => {
  issuer = await credentialIssuer();
}, 120_000);

/** The store-key signature (r ‖ s, hex) of the vectors' device, made on a twin of it (deterministic). */
async function storeKeyHex(): Promise<string> {
  return signatureToRawHex(await new MinaLedgerApp(quietLedger()).signMessage(0, STORE_KEY_MESSAGE, 1));
}

describe('the store-key reply is never kept', () => {
  it("the software Ledger's exchanges never hold the store-key signature", async () => {
    // The key signature, made on a second instance of the same device (deterministic).
    const twin = quietLedger();
    const keyHex = signatureToRawHex(await new MinaLedgerApp(twin).signMessage(0, STORE_KEY_MESSAGE, 1));
    const { chain, ledger } = storeRig(tempDir());
    await chain.requestAccounts();
    await chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0) });
    const redacted = ledger.exchanges.filter((e) => e.redacted);
    expect(redacted).toHaveLength(1);
    expect(redacted[0]!.reply).toBe('9000');
    for (const device of [ledger, twin]) {
      for (const e of device.exchanges) expect(e.reply.includes(keyHex.slice(0, 64))).toBe(false);
    }
  }, 120_000);
});

describe('the store-key reply stays off @ledgerhq/logs whatever transport the provider is given', () => {
  it('a raw @ledgerhq/hw-transport-node-speculos-http transport (not through openSpeculos): the key never reaches a log listener', async () => {
    const SpeculosHttpTransport = require('@ledgerhq/hw-transport-node-speculos-http').default as {
      open(options: { baseURL: string; apiPort: string }): Promise<{ close(): Promise<void> }>;
    };
    const { listen } = require('@ledgerhq/logs') as typeof import('@ledgerhq/logs');
    const keyHex = await storeKeyHex();
    const server = await startSpeculosServer(quietLedger({ extensions: true, approve: () => true }), { port: 0, buttons: false });
    const raw = await within(SpeculosHttpTransport.open({ baseURL: 'http://127.0.0.1', apiPort: String(server.port) }), 'open');
    const logged: string[] = [];
    const stop = listen((entry) => logged.push(`${entry.type} ${entry.message ?? ''}`));
    try {
      const chain = storeProvider(raw as never, tempDir());
      await within(chain.requestAccounts(), 'requestAccounts');
      await within(chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0) }), 'storePrivateCredential', 60_000);
      expect(await within(credentialManager(chain).list(), 'list')).toHaveLength(1);
      expect(logged.filter((line) => line.startsWith('apdu <= ')).length).toBeGreaterThan(2); // other replies are logged
      for (const line of logged) expect(line).not.toContain(keyHex.slice(0, 64));
    } finally {
      stop();
      await raw.close();
      await server.close();
    }
  }, 120_000);

  it('an @ledgerhq Transport of unknown shape: credential calls → 20006 before any prompt; the store-key request is refused, never logged', async () => {
    const Transport = require('@ledgerhq/hw-transport').default as new () => object;
    const { log, listen } = require('@ledgerhq/logs') as typeof import('@ledgerhq/logs');
    const ledger = quietLedger({ extensions: true });
    // A transport the library does not know (a BLE or WebUSB one, say): it logs every reply, as @ledgerhq ones do.
    class LoggingTransport extends Transport {
      async exchange(apdu: Buffer): Promise<Buffer> {
        log('apdu', `=> ${apdu.toString('hex')}`);
        const reply = Buffer.from(await ledger.exchange(apdu));
        log('apdu', `<= ${reply.toString('hex')}`);
        return reply;
      }
    }
    const raw = new LoggingTransport();
    const keyHex = await storeKeyHex();
    const logged: string[] = [];
    const stop = listen((entry) => logged.push(`${entry.type} ${entry.message ?? ''}`));
    try {
      const chain = storeProvider(raw as never, tempDir());
      await chain.requestAccounts();
      expect((await chain.signMessage({ message: 'still works' })).publicKey).toBe(ACCOUNT0);
      const before = ledger.exchanges.length;
      for (const call of [chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0) }), credentialManager(chain).list()]) {
        expect(await failure(call)).toMatchObject({ code: 20006, data: { reason: expect.stringMatching(/log the credential store key/) } });
      }
      expect(ledger.exchanges.length).toBe(before); // nothing was asked
      // Not through the provider either: the request never reaches the device.
      await expect(new MinaLedgerApp(raw as never).signMessage(0, STORE_KEY_MESSAGE, 1)).rejects.toBeDefined();
      expect(ledger.exchanges.slice(before).map((e) => e.request.slice(0, 4))).toEqual(['e001']); // its version read only
      for (const line of logged) expect(line).not.toContain(keyHex.slice(0, 64));
    } finally {
      stop();
    }
  }, 120_000);
});
