/**
 * `createLedgerProvider` over a Device Management Kit session (`DmkTransport`): DMK's own Speculos transport kit,
 * unchanged, against chain-ledger's Speculos-compatible server in front of the software Ledger. The provider's
 * methods end to end, each result checked by an independent verifier; the Mina app opened for the user from the
 * dashboard by the device action.
 */
import { inspect } from 'node:util';
import { ConsoleLogger, LogLevel, type LoggerSubscriberService } from '@ledgerhq/device-management-kit';
import Client from 'mina-signer';
import { Field, Nullifier, PublicKey } from 'o1js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MinaLedgerApp } from '../../src/apdu.js';
import { toHex, utf8 } from '../../src/apdu/bytes.js';
import { encodeSignMessage } from '../../src/apdu/codec.js';
import { STORE_KEY_MESSAGE } from '../../src/apdu/store-key.js';
import { FileCredentialStore } from '../../src/credentials-node.js';
import { DmkTransport } from '../../src/dmk.js';
import type { Review, SoftwareLedgerOptions } from '../../src/emulator.js';
import { createLedgerProvider, credentialManager, type DeviceAction, type LedgerProviderOptions } from '../../src/index.js';
import * as runner from '../../src/presentations/runner.js';
import { credentialIssuer, issuerHash, verifiedOutput, type Issuer } from '../support/credentials.js';
import { dmkSession, type DmkSession } from '../support/dmk.js';
import { fakeMinaNodes } from '../support/mina-node.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { ORIGIN, quietLedger, tempDirs } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';
import { berkeleyCommand, verifySigned } from '../support/zkapp.js';

const ACCOUNT0 = addressOf(0);
const sessions: DmkSession[] = [];
const tempDir = tempDirs('dmk-provider');
const startNode = fakeMinaNodes();

afterEach(async () => {
  vi.restoreAllMocks();
  for (const session of sessions.splice(0)) await session.close();
});

interface OnDmk {
  /** The kit polls the server (see test/support/dmk.ts). */
  watchServer?: boolean;
  loggers?: LoggerSubscriberService[];
  noDebugLogger?: boolean;
}

/** A provider on a DMK session to a software Ledger (devnet, `ORIGIN`); reviews and device actions recorded. */
async function overDmk(device: SoftwareLedgerOptions = {}, provider: Partial<LedgerProviderOptions> = {}, on: OnDmk = {}) {
  const reviews: Review[] = [];
  const actions: DeviceAction[] = [];
  const stages: string[] = [];
  const ledger = quietLedger({ approve: (r) => (reviews.push(r), true), ...device });
  const session = await dmkSession(ledger, { watchServer: on.watchServer, loggers: on.loggers });
  sessions.push(session);
  const transport = new DmkTransport({ dmk: session.dmk, sessionId: session.sessionId, noDebugLogger: on.noDebugLogger });
  const chain = createLedgerProvider({
    transport,
    network: 'devnet',
    origin: ORIGIN,
    onDeviceAction: (a) => actions.push(a),
    onProgress: (event) => stages.push(event.stage),
    ...provider,
  });
  return { ledger, session, transport, chain, reviews, actions, stages };
}

/** Everything written to the console (where DMK's `ConsoleLogger` writes) until the test ends. */
function consoleText(): () => string {
  const lines: string[] = [];
  const capture = (...args: unknown[]) =>
    void lines.push(args.map((a) => (typeof a === 'string' ? a : inspect(a, { depth: 8 }))).join(' '));
  for (const level of ['debug', 'info', 'log', 'warn', 'error'] as const) vi.spyOn(console, level).mockImplementation(capture);
  return () => lines.join('\n').toLowerCase();
}

/** What the device answers to INS 05 over `message` (account 0) — r ‖ s, the signature — asked of a twin of the test device. */
async function signatureHexOf(message: string, networkId: 0 | 1): Promise<string> {
  const { ins, p1, p2, data } = encodeSignMessage(0, message, networkId);
  const reply = await quietLedger().exchange(Uint8Array.of(0xe0, ins, p1, p2, data.length, ...data));
  return toHex(reply.subarray(0, 64));
}

describe('the provider over a DMK session (Speculos transport kit → chain-ledger Speculos server)', () => {
  it('requestAccounts with the Mina app closed: the device action opens it (confirm-open-app), then the address is approved', async () => {
    const { chain, reviews, actions, session, ledger, stages } = await overDmk({ appOpen: false });
    expect(await chain.requestAccounts()).toEqual([ACCOUNT0]);
    expect(stages).toEqual(['open-app', 'confirm-on-device', 'done']);
    expect(ledger.appOpen).toBe(true);
    expect(reviews.map((r) => r.kind)).toEqual(['open-app', 'address']);
    expect(actions.filter((a) => a.status === 'confirm').map((a) => a.prompt)[0]).toBe('Open the Mina app: confirm on your Ledger');
    // On the wire: B0 01 (BOLOS), GetOsVersion, OpenApp "Mina", B0 01 (Mina), then the provider's own requests.
    expect(session.requests.slice(0, 4)).toEqual(['b001000000', 'e001000000', 'e0d80000044d696e61', 'b001000000']);
    expect(session.requests.slice(4).every((r) => r.startsWith('e0'))).toBe(true);
  });

  it('opening refused on the device → 1002, and nothing of the call reached the app', async () => {
    const { chain, session } = await overDmk({ appOpen: false, approve: (r) => r.kind !== 'open-app' });
    expect(await failure(chain.requestAccounts())).toMatchObject({ code: 1002, data: { statusWord: '0x5501' } });
    expect(session.requests.filter((r) => r.startsWith('e002'))).toEqual([]);
  });

  it('the Mina app not installed → 1001 saying so, without asking the user', async () => {
    const { chain, reviews } = await overDmk({ appOpen: false, appInstalled: false });
    expect(await failure(chain.requestAccounts())).toMatchObject({
      code: 1001,
      data: { reason: 'the Mina app is not installed on the Ledger: install it with Ledger Live', statusWord: '0x6807' },
    });
    expect(reviews).toEqual([]);
  });

  it('a locked device: "Unlock your Ledger" is told, and the call goes on once it is unlocked', async () => {
    const { chain, actions, ledger, stages } = await overDmk({ locked: true });
    const accounts = chain.requestAccounts();
    await expect.poll(() => actions.map((a) => a.prompt), { timeout: 10_000 }).toContain('Unlock your Ledger with your PIN');
    ledger.unlock();
    expect(await accounts).toEqual([ACCOUNT0]);
    expect(stages[0]).toBe('unlock-device');
  });

  it('the device gone (the server closed): the provider emits disconnect (1001), and the next call fails with 1001', async () => {
    const { chain, session } = await overDmk({}, {}, { watchServer: true });
    await chain.requestAccounts();
    const events: number[] = [];
    chain.on('disconnect', (error) => events.push(error.code));
    await session.server.close();
    await expect.poll(() => events, { timeout: 15_000 }).toEqual([1001]);
    expect(await failure(chain.requestAccounts())).toMatchObject({ code: 1001, data: { reason: /disconnected/ } });
  });

  it('sendPayment: INS 03 shown in clear; the node receives a payment mina-signer verifies', async () => {
    const received: { input: Record<string, string>; signature: { field: string; scalar: string } }[] = [];
    const node = await startNode({
      accountNonce: () => ({ data: { account: { nonce: '3', inferredNonce: '4' } } }),
      sendPayment: (r) => (received.push(r.variables as never), { data: { sendPayment: { payment: { hash: 'h', id: 'p1' } } } }),
    });
    const { chain, reviews } = await overDmk({}, { graphqlUrl: node.url });
    await chain.requestAccounts();
    expect(await chain.sendPayment({ to: addressOf(1), amount: 1.5, fee: 0.02, memo: 'over DMK' })).toEqual({ hash: 'h' });
    const { input, signature } = received[0]!;
    expect(input).toMatchObject({ from: ACCOUNT0, to: addressOf(1), amount: '1500000000', fee: '20000000', memo: 'over DMK' });
    expect(new Client({ network: 'testnet' }).verifyPayment({ data: input as never, signature, publicKey: ACCOUNT0 })).toBe(true);
    expect(reviews.map((r) => r.kind)).toContain('transaction');
  });

  it('sendTransaction blind (the released app, Blind signing on): INS 06, and the signed command verifies', async () => {
    // The released app signs blind only after the host's review (confirmZkapp), which this integrator gives.
    const { chain, session } = await overDmk({ blindSigning: true }, { confirmZkapp: () => true });
    await chain.requestAccounts();
    const { signedData } = (await chain.sendTransaction({ transaction: berkeleyCommand(), onlySign: true })) as { signedData: string };
    expect(verifySigned('berkeley', 'devnet', signedData, ACCOUNT0)).toBe(true);
    expect(session.requests.some((r) => r.startsWith('e006'))).toBe(true);
  });

  it('sendTransaction in clear (extension 1.1): SIGN_ZKAPP in chunks, and the signed command verifies', async () => {
    const { chain, session, reviews } = await overDmk({ extensions: true });
    await chain.requestAccounts();
    const { signedData } = (await chain.sendTransaction({ transaction: berkeleyCommand(), onlySign: true })) as { signedData: string };
    expect(verifySigned('berkeley', 'devnet', signedData, ACCOUNT0)).toBe(true);
    expect(session.requests.filter((r) => r.startsWith('e0a3')).length).toBeGreaterThan(1);
    expect(reviews.map((r) => r.kind)).toContain('zkapp');
  });

  it('createNullifier (extension): the nullifier verifies with o1js Nullifier.verify', async () => {
    const { chain } = await overDmk({ extensions: true });
    await chain.requestAccounts();
    const message = ['12345', '67890'];
    const result = await chain.createNullifier({ message });
    const nullifier = Nullifier.fromJSON(result as never);
    expect(() => nullifier.verify(message.map((m) => Field(BigInt(m))))).not.toThrow();
    expect(PublicKey.fromGroup(nullifier.publicKey).toBase58()).toBe(ACCOUNT0);
  });

  describe("the credential store's key and DMK's debug log", () => {
    const storeKeyRequest = toHex(utf8.encode(STORE_KEY_MESSAGE));

    it('with a debug logger (ConsoleLogger’s default) and no noDebugLogger statement: credential calls answer 20006 naming the option, and the store-key request reaches neither the device nor the log', async () => {
      const logged = consoleText();
      const { chain, session, transport } = await overDmk(
        {},
        { credentialStore: new FileCredentialStore(tempDir()) },
        { loggers: [new ConsoleLogger()] },
      );
      await chain.requestAccounts();
      await chain.signMessage({ message: 'replies are logged' });
      expect(logged()).toContain(await signatureHexOf('replies are logged', 0)); // the log holds each reply's signature
      const before = session.requests.length;
      expect(await failure(credentialManager(chain).list())).toMatchObject({
        code: 20006,
        data: { reason: expect.stringContaining('noDebugLogger: true') },
      });
      expect(session.requests.slice(before)).toEqual([]); // nothing was asked
      // Not through MinaLedgerApp on the same session either: refused before it is sent.
      await expect(new MinaLedgerApp(transport).signMessage(0, STORE_KEY_MESSAGE, 1)).rejects.toMatchObject({
        name: 'LedgerInputError',
        message: expect.stringContaining('noDebugLogger'),
      });
      expect(session.requests.filter((r) => r.includes(storeKeyRequest))).toEqual([]);
      expect(logged()).not.toContain(await signatureHexOf(STORE_KEY_MESSAGE, 1));
    });

    it('with noDebugLogger: true (a ConsoleLogger at LogLevel.Info): the store key is derived over DMK, and nothing logged holds it', async () => {
      const logged = consoleText();
      const { chain, session } = await overDmk(
        {},
        { credentialStore: new FileCredentialStore(tempDir()) },
        { loggers: [new ConsoleLogger(LogLevel.Info)], noDebugLogger: true },
      );
      await chain.requestAccounts();
      expect(await credentialManager(chain).list()).toEqual([]);
      expect(session.requests.filter((r) => r.startsWith('e005') && r.includes(storeKeyRequest))).toHaveLength(1);
      expect(logged()).not.toContain(await signatureHexOf(STORE_KEY_MESSAGE, 1));
    });
  });

  describe('credentials', () => {
    let issuer: Issuer;
    beforeAll(async () => {
      issuer = await credentialIssuer();
    }, 60_000);
    afterAll(() => runner.closeIdlePresentationWorker());

    it('storePrivateCredential and requestPresentation: the presentation verifies for the origin', async () => {
      // The kit has no logger here: the integrator says so, and the store key goes over the session.
      const store = { credentialStore: new FileCredentialStore(tempDir()), confirmPresentation: () => true };
      const { chain, reviews } = await overDmk({ extensions: true }, store, { noDebugLogger: true });
      await chain.requestAccounts();
      await chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0) });
      const { req, json } = issuer.presentationRequest();
      const { presentation } = await chain.requestPresentation({ presentation: { presentationRequest: json } });
      expect(await verifiedOutput(issuer.A, req, presentation, ORIGIN)).toBe(issuerHash(issuer.A, issuer.key));
      expect(reviews.map((r) => r.kind)).toContain('presentation');
    }, 180_000);
  });
});
