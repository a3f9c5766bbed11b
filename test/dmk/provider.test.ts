/**
 * `createLedgerProvider` over a Device Management Kit session (`DmkTransport`): DMK's own Speculos transport kit,
 * unchanged, against chain-ledger's Speculos-compatible server in front of the software Ledger. The provider's
 * methods end to end, each result checked by an independent verifier; the Mina app opened for the user from the
 * dashboard by the device action.
 */
import Client from 'mina-signer';
import { Field, Nullifier, PublicKey } from 'o1js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../src/credentials-node.js';
import { DmkTransport } from '../../src/dmk.js';
import type { Review, SoftwareLedgerOptions } from '../../src/emulator.js';
import { createLedgerProvider, type DeviceAction, type LedgerProviderOptions } from '../../src/index.js';
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
  for (const session of sessions.splice(0)) await session.close();
});

/** A provider on a DMK session to a software Ledger (devnet, `ORIGIN`); reviews and device actions recorded. */
async function overDmk(device: SoftwareLedgerOptions = {}, provider: Partial<LedgerProviderOptions> = {}, watchServer = false) {
  const reviews: Review[] = [];
  const actions: DeviceAction[] = [];
  const stages: string[] = [];
  const ledger = quietLedger({ approve: (r) => (reviews.push(r), true), ...device });
  const session = await dmkSession(ledger, { watchServer });
  sessions.push(session);
  const chain = createLedgerProvider({
    transport: new DmkTransport({ dmk: session.dmk, sessionId: session.sessionId }),
    network: 'devnet',
    origin: ORIGIN,
    onDeviceAction: (a) => actions.push(a),
    onProgress: (event) => stages.push(event.stage),
    ...provider,
  });
  return { ledger, session, chain, reviews, actions, stages };
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
    const { chain, session } = await overDmk({}, {}, true);
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

  describe('credentials', () => {
    let issuer: Issuer;
    beforeAll(async () => {
      issuer = await credentialIssuer();
    }, 60_000);
    afterAll(() => runner.closeIdlePresentationWorker());

    it('storePrivateCredential and requestPresentation: the presentation verifies for the origin', async () => {
      const { chain, reviews } = await overDmk(
        { extensions: true },
        { credentialStore: new FileCredentialStore(tempDir()), confirmPresentation: () => true },
      );
      await chain.requestAccounts();
      await chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0) });
      const { req, json } = issuer.presentationRequest();
      const { presentation } = await chain.requestPresentation({ presentation: { presentationRequest: json } });
      expect(await verifiedOutput(issuer.A, req, presentation, ORIGIN)).toBe(issuerHash(issuer.A, issuer.key));
      expect(reviews.map((r) => r.kind)).toContain('presentation');
    }, 180_000);
  });
});
