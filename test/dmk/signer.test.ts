/**
 * The Mina signer kit (`SignerMinaBuilder`) and the Mina commands on a Device Management Kit session: DMK's Speculos
 * transport kit, unchanged, against chain-ledger's Speculos-compatible server, reviews answered with its buttons.
 */
import Client from 'mina-signer';
import { afterEach, describe, expect, it } from 'vitest';
import { MinaLedgerApp, signatureToBase58 } from '../../src/apdu.js';
import { COMMANDS } from '../../src/device/commands.js';
import {
  GetAddressCommand,
  GetAppVersionCommand,
  GetCapabilitiesCommand,
  MinaAppError,
  SignerMinaBuilder,
  SignFieldElementCommand,
  SignTransactionCommand,
  minaSignerSteps,
  toPromise,
  type MinaActionState,
} from '../../src/dmk.js';
import { minaSignerInternals } from '../../src/upstream/mina-signer-internals.js';
import type { Review, SoftwareLedgerOptions } from '../../src/emulator.js';
import { dmkSession, press, type DmkSession } from '../support/dmk.js';
import { quietLedger, within } from '../support/rig.js';
import { addressOf, vectors } from '../support/vectors.js';

const ACCOUNT0 = addressOf(0);
/** A payment from account 0 on the testnet domain, as SignTransactionCommand takes it. */
const PAYMENT = {
  txType: 'payment' as const,
  account: 0,
  from: ACCOUNT0,
  to: addressOf(1),
  amount: 5n,
  fee: 10_000_000n,
  nonce: 3,
  networkId: 0 as const,
};
const sessions: DmkSession[] = [];
afterEach(async () => {
  for (const session of sessions.splice(0)) await session.close();
});

async function signerOn(device: SoftwareLedgerOptions = {}, buttons = false) {
  const reviews: Review[] = [];
  const ledger = quietLedger({ approve: (r) => (reviews.push(r), true), ...device });
  const session = await dmkSession(ledger, { buttons });
  sessions.push(session);
  return { ledger, session, reviews, signer: new SignerMinaBuilder({ dmk: session.dmk, sessionId: session.sessionId }).build() };
}

/** Every state of an action until it ends, in order. */
function statesOf<T>(action: { observable: { subscribe(o: object): unknown } }): Promise<MinaActionState<T>[]> {
  const states: MinaActionState<T>[] = [];
  return within(
    new Promise((resolve) => {
      action.observable.subscribe({
        next: (s: MinaActionState<T>) => states.push(s),
        complete: () => resolve(states),
        error: () => resolve(states),
      });
    }),
    'the device action',
  );
}

/** Presses right until the screen titled `title` shows (as a person reading the device would), then both. */
async function pressRightUntilThenBoth(session: DmkSession, title: string): Promise<void> {
  for (let i = 0; i < 20 && session.server.currentScreen?.title !== title; i++) await press(session.server, 'right');
  expect(session.server.currentScreen?.title).toBe(title);
  await press(session.server, 'both');
}

const interactions = (states: MinaActionState<unknown>[]) =>
  states
    .flatMap((s) => (s.status === 'pending' ? [s.intermediateValue.requiredUserInteraction] : []))
    .filter((v, i, all) => v !== all[i - 1]);

describe('SignerMina: device actions with their states', () => {
  it('getAddress from the dashboard: confirm-open-app (Open application / Mina, approved with the buttons), then verify-address, then the address', async () => {
    const { signer, session, ledger } = await signerOn({ appOpen: false }, true);
    const action = signer.getAddress(0, { checkOnDevice: true });
    const done = statesOf<string>(action);
    // The dashboard's confirmation, then the app's two-stage address review, answered as a person would.
    await expect.poll(() => session.server.currentScreen?.lines).toEqual(['Open application', 'Mina']);
    await pressRightUntilThenBoth(session, 'Approve');
    await expect.poll(() => session.server.currentScreen?.title).toBe('Get');
    await pressRightUntilThenBoth(session, 'Generate');
    await pressRightUntilThenBoth(session, 'Approve');
    const states = await done;
    expect(interactions(states)).toEqual(['none', 'confirm-open-app', 'none', 'verify-address']);
    expect(states.at(-1)).toMatchObject({ status: 'completed', output: { address: ACCOUNT0 } });
    expect(ledger.appOpen).toBe(true);
  });

  it('opening refused on the device: the action ends with DMK’s ActionRefusedError (5501); toPromise rejects LedgerUserRejectedError', async () => {
    const { signer } = await signerOn({ appOpen: false, approve: () => false });
    const states = await statesOf(signer.getAppConfiguration());
    expect(states.at(-1)).toMatchObject({ status: 'error', error: { _tag: 'ActionRefusedError', errorCode: '5501' } });
    await expect(toPromise(signer.getAppConfiguration())).rejects.toMatchObject({ name: 'LedgerUserRejectedError', statusCode: 0x5501 });
  });

  it('the Mina app not installed: OpenAppCommandError 6807; toPromise rejects LedgerAppNotOpenError saying so', async () => {
    const { signer, reviews } = await signerOn({ appOpen: false, appInstalled: false });
    const states = await statesOf(signer.getAddress(0));
    expect(states.at(-1)).toMatchObject({ status: 'error', error: { _tag: 'OpenAppCommandError', errorCode: '6807' } });
    await expect(toPromise(signer.getAddress(0))).rejects.toMatchObject({ name: 'LedgerAppNotOpenError', message: /not installed/ });
    expect(reviews).toEqual([]);
  });

  it('a bad argument ends the action with a MinaAppError carrying the LedgerInputError; nothing reaches the device', async () => {
    const { signer, session } = await signerOn({ appOpen: false });
    const states = await statesOf(signer.signFieldElement(0, -1n, 0));
    const last = states.at(-1)!;
    expect(last.status).toBe('error');
    const error = (last as { error: MinaAppError }).error;
    expect(error).toBeInstanceOf(MinaAppError);
    expect(error).toMatchObject({ _tag: 'LedgerInputError', originalError: { name: 'LedgerInputError', field: 'field' } });
    await expect(toPromise(signer.getAddress(2 ** 31))).rejects.toMatchObject({ name: 'LedgerInputError', field: 'account' });
    expect(session.requests).toEqual([]);
  });

  it('getAppConfiguration: the app version and the extension it speaks (null on the released app); no blindSigningEnabled, which no Mina app reports', async () => {
    const released = await signerOn();
    expect(await toPromise(released.signer.getAppConfiguration())).toStrictEqual({ version: '1.6.0', extension: null });
    const extended = await signerOn({ extensions: true });
    expect(await toPromise(extended.signer.getAppConfiguration())).toMatchObject({
      version: '1.6.0',
      extension: { version: '1.4', signZkapp: true, signText: true, storeKey: true },
    });
  });

  it('INS 03 / 05 / 06 and SIGN_FIELDS through the signer: each signature verifies with mina-signer', async () => {
    const { signer } = await signerOn({ extensions: true, blindSigning: true });
    const client = new Client({ network: 'testnet' });
    const payment = await toPromise(signer.signTransaction(PAYMENT));
    const data = { from: ACCOUNT0, to: addressOf(1), amount: '5', fee: '10000000', nonce: '3', memo: '', validUntil: '4294967295' };
    expect(client.verifyPayment({ data, signature: payment, publicKey: ACCOUNT0 })).toBe(true);
    const message = await toPromise(signer.signMessage(0, 'Hello Mina!', 0));
    expect(client.verifyMessage({ data: message.signedMessage, signature: message, publicKey: ACCOUNT0 })).toBe(true);
    const field = await toPromise(signer.signFieldElement(0, 42n, 0));
    expect(client.verifyFields({ data: [42n], signature: signatureToBase58(field), publicKey: ACCOUNT0 })).toBe(true);
    const fields = await toPromise(signer.signFields(0, [1n, 2n, 3n]));
    expect(client.verifyFields({ data: [1n, 2n, 3n], signature: signatureToBase58(fields), publicKey: ACCOUNT0 })).toBe(true);
  });

  it('cancel() while the device shows the review: the observable says "stopped"; toPromise rejects with the signal’s reason', async () => {
    const { signer, session } = await signerOn({}, true);
    const action = signer.getAddress(0, { checkOnDevice: true });
    const done = statesOf(action);
    await expect.poll(() => session.server.currentScreen?.title).toBe('Get');
    action.cancel();
    expect((await done).at(-1)).toEqual({ status: 'stopped' });
    const controller = new AbortController();
    const pending = toPromise(signer.getAppConfiguration(), { signal: controller.signal });
    controller.abort(new Error('the page closed the dialog'));
    await expect(pending).rejects.toThrow('the page closed the dialog');
    await press(session.server, 'right'); // the device still shows the first review: answer it to end the test cleanly
  });
});

/** The (step, interaction) pairs an action went through, in order. */
const steps = (states: MinaActionState<unknown>[]) =>
  states.flatMap((s) => (s.status === 'pending' ? [`${s.intermediateValue.step} ${s.intermediateValue.requiredUserInteraction}`] : []));

describe('SignerMina shaped as Ledger’s signer kits', () => {
  it('each pending state carries a Mina step: openApp while DMK opens the app, getAppConfig while the version gate reads, then the command’s own, with its interaction', async () => {
    const { signer } = await signerOn({ appOpen: false });
    expect(steps(await statesOf(signer.signMessage(0, 'hi', 0)))).toEqual([
      'signer.mina.steps.openApp none',
      'signer.mina.steps.openApp confirm-open-app',
      'signer.mina.steps.openApp none',
      'signer.mina.steps.getAppConfig none',
      'signer.mina.steps.signMessage sign-personal-message',
    ]);
    // No gate, no version read; skipOpenApp: no openApp step.
    expect(steps(await statesOf(signer.getAddress(1, { checkOnDevice: true, skipOpenApp: true })))).toEqual([
      `${minaSignerSteps.getAddress} verify-address`,
    ]);
    expect(steps(await statesOf(signer.getAppConfiguration({ skipOpenApp: true })))).toEqual([`${minaSignerSteps.getAppConfig} none`]);
  });

  it('the exported steps: openApp, getAppConfig and one per signer method (getAppConfiguration is getAppConfig), frozen, each named signer.mina.steps.<name>', async () => {
    const { signer } = await signerOn();
    const methods = Object.getOwnPropertyNames(Object.getPrototypeOf(signer)).filter((name) => name !== 'constructor');
    expect(Object.isFrozen(minaSignerSteps)).toBe(true);
    expect(Object.keys(minaSignerSteps).sort()).toEqual(
      ['openApp', 'getAppConfig', ...methods.filter((m) => m !== 'getAppConfiguration')].sort(),
    );
    for (const [name, step] of Object.entries(minaSignerSteps)) expect(step).toBe(`signer.mina.steps.${name}`);
  });

  it('getAddress takes the derivation path and resolves { address, publicKey }: mina-signer encodes that key to that address, for each vector account', async () => {
    const { signer } = await signerOn();
    const { PublicKey } = await minaSignerInternals('mesa');
    for (const { path, address } of vectors.accounts) {
      const result = await toPromise(signer.getAddress(path));
      expect(result.address).toBe(address);
      expect(PublicKey.toBase58(result.publicKey)).toBe(address);
      expect(result.publicKey).toEqual(PublicKey.fromBase58(address));
    }
  });

  it('a path the Mina app cannot sign for ends the action with LedgerInputError naming the path; nothing reaches the device', async () => {
    const { signer, session } = await signerOn();
    for (const path of ["44'/12586'/0'/0/1", "44'/60'/0'/0/0", "44'/12586'/2147483648'/0/0", "m/44'/12586'/0'"]) {
      await expect(toPromise(signer.getAddress(path))).rejects.toMatchObject({
        name: 'LedgerInputError',
        field: 'account',
        message: expect.stringContaining(path),
      });
      await expect(toPromise(signer.signMessage(path, 'hi', 0))).rejects.toMatchObject({ name: 'LedgerInputError', field: 'account' });
    }
    expect(session.requests).toEqual([]);
  });

  it('signMessage takes bytes: UTF-8 of a printable text is signed as that text (mina-signer verifies); other bytes are refused naming the message, before the device', async () => {
    const { signer, session } = await signerOn();
    const signed = await toPromise(signer.signMessage("44'/12586'/0'/0/0", new TextEncoder().encode('Sign in to example.com'), 0));
    const client = new Client({ network: 'testnet' });
    expect(signed.signedMessage).toBe('Message : Sign in to example.com');
    expect(client.verifyMessage({ data: signed.signedMessage, signature: signed, publicKey: ACCOUNT0 })).toBe(true);
    const sent = session.requests.length;
    for (const bytes of [Uint8Array.of(0xc3, 0x28), new TextEncoder().encode('naïve'), new Uint8Array(0)]) {
      await expect(toPromise(signer.signMessage(0, bytes, 0))).rejects.toMatchObject({ name: 'LedgerInputError', field: 'message' });
    }
    expect(session.requests.length).toBe(sent);
  });

  it('signText (SIGN_TEXT, extension 1.2) through the signer: the text itself is signed, as mina-signer verifies it', async () => {
    const { signer } = await signerOn({ extensions: true });
    const message = 'Sign in to https://dapp.example\nNonce: 42 — thanks';
    const signature = await toPromise(signer.signText({ account: 0, networkId: 0, origin: 'https://dapp.example', message }));
    expect(new Client({ network: 'testnet' }).verifyMessage({ data: message, signature, publicKey: ACCOUNT0 })).toBe(true);
  });

  it('one vocabulary: every signer method is the MinaLedgerApp method of the same name, running the same command', async () => {
    const { signer } = await signerOn();
    const methods = Object.getOwnPropertyNames(Object.getPrototypeOf(signer)).filter((name) => name !== 'constructor');
    expect(methods.length).toBe(10);
    for (const name of methods) {
      expect(Object.keys(COMMANDS)).toContain(name);
      expect(typeof (MinaLedgerApp.prototype as unknown as Record<string, unknown>)[name]).toBe('function');
    }
  });
});

describe('Mina commands (dmk.sendCommand), built from the codec', () => {
  it('INS 01, INS 02 (silent), GET_CAPABILITIES: decoded as MinaLedgerApp decodes them', async () => {
    const { session } = await signerOn({ extensions: true });
    const { dmk, sessionId } = session;
    expect(await dmk.sendCommand({ sessionId, command: new GetAppVersionCommand() })).toEqual({
      status: 'SUCCESS',
      data: { version: '1.6.0', major: 1, minor: 6, patch: 0 },
    });
    expect(await dmk.sendCommand({ sessionId, command: new GetAddressCommand({ account: 0 }) })).toMatchObject({
      status: 'SUCCESS',
      data: { address: ACCOUNT0 },
    });
    expect(await dmk.sendCommand({ sessionId, command: new GetCapabilitiesCommand() })).toMatchObject({ data: { version: '1.4' } });
    expect(session.requests).toEqual(['e001000000', 'e00201000400000000', 'e0a0000000']);
  });

  it('GET_CAPABILITIES on the released app (0x6D00) is null; a rejection is a MinaAppError with DMK’s errorCode', async () => {
    const { session } = await signerOn({ approve: () => false });
    const { dmk, sessionId } = session;
    expect(await dmk.sendCommand({ sessionId, command: new GetCapabilitiesCommand() })).toEqual({ status: 'SUCCESS', data: null });
    const refused = await dmk.sendCommand({ sessionId, command: new SignTransactionCommand({ transaction: PAYMENT }) });
    expect(refused).toMatchObject({ status: 'ERROR', error: { _tag: 'LedgerUserRejectedError', errorCode: '6985' } });
    // Blind signing off: INS 06 shows the notice and answers 0x6985, with the client's hint about the setting.
    const blind = await dmk.sendCommand({ sessionId, command: new SignFieldElementCommand({ account: 0, field: 1n, networkId: 0 }) });
    expect(blind).toMatchObject({ status: 'ERROR', error: { errorCode: '6985', message: /Blind signing/ } });
  });

  it('a bad argument throws from the constructor, naming the field: nothing is sent', async () => {
    expect(() => new GetAddressCommand({ account: -1 })).toThrow(expect.objectContaining({ name: 'LedgerInputError', field: 'account' }));
    expect(() => new SignFieldElementCommand({ account: 0, field: -1n, networkId: 0 })).toThrow(
      expect.objectContaining({ field: 'field' }),
    );
  });
});
