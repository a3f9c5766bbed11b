/** Version gating in the client, checked against the software Ledger behaving as each older app version. */
import Client from 'mina-signer';
import { describe, expect, it } from 'vitest';
import { MinaLedgerApp, codec, signedMessageText, supports } from '../../src/apdu.js';
import { createLedgerProvider } from '../../src/index.js';
import type { Review } from '../../src/emulator.js';
import { counting } from '../support/counting.js';
import { addressOf, vectors } from '../support/vectors.js';
import { quietLedger } from '../support/rig.js';

const testnet = new Client({ network: 'testnet' });

function setup(version: string, reviews: Review[] = []) {
  const device = quietLedger({
    version,
    blindSigning: true,
    approve: (r) => (reviews.push(r), true),
  });
  const { transport, sent } = counting(device);
  return { app: new MinaLedgerApp(transport), sent, device };
}

describe('feature gating', () => {
  it('1.3.2: message signing is refused after reading the version, without sending INS 05', async () => {
    const { app, sent } = setup('1.3.2');
    const error = await app.signMessage(0, 'hi', 0).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'LedgerAppVersionError', feature: 'signMessage', required: '1.4.0', actual: '1.3.2' });
    expect(sent.map((s) => s.ins)).toEqual([0x01]);
  });

  it('1.4.0: a silent address is refused (the app would ignore P1 and prompt); a displayed one works', async () => {
    const reviews: Review[] = [];
    const { app, sent } = setup('1.4.0', reviews);
    await expect(app.getAddress(0)).rejects.toMatchObject({ name: 'LedgerAppVersionError', required: '1.4.1' });
    expect(await app.getAddress(0, { display: true })).toBe(addressOf(0));
    expect(reviews.map((r) => r.kind)).toEqual(['address']);
    expect(sent.map((s) => [s.ins, s.p1])).toEqual([
      [0x01, 0],
      [0x02, 0],
    ]);
  });

  it('1.4.0: checkOnDevice (the DMK kit’s name for display) shows the address as display does, with no version gate', async () => {
    const reviews: Review[] = [];
    const { app, sent } = setup('1.4.0', reviews);
    expect(await app.getAddress("44'/12586'/0'/0/0", { checkOnDevice: true })).toBe(addressOf(0));
    expect(reviews.map((r) => r.kind)).toEqual(['address']);
    expect(sent.map((s) => [s.ins, s.p1])).toEqual([[0x02, 0]]);
  });

  it('1.5.1: field-element signing is refused without sending INS 06', async () => {
    const { app, sent } = setup('1.5.1');
    await expect(app.signFieldElement(0, 1n, 0)).rejects.toMatchObject({ name: 'LedgerAppVersionError', required: '1.6.0' });
    expect(sent.map((s) => s.ins)).toEqual([0x01]);
  });

  it('a raw INS 06 sent to 1.5.1 anyway answers 0x6D00, like the real app', async () => {
    const { device } = setup('1.5.1');
    const reply = await device.exchange(Uint8Array.from([0xe0, 0x06, 0, 0, 0x25, ...new Uint8Array(37)]));
    expect([...reply]).toEqual([0x6d, 0x00]);
  });

  it('knows each feature threshold', () => {
    expect(supports('1.4.0', 'signMessage')).toBe(true);
    expect(supports('1.3.9', 'signMessage')).toBe(false);
    expect(supports('1.4.1', 'silentAddress')).toBe(true);
    expect(supports('1.4.4', 'echoedMessage')).toBe(false);
    expect(supports('1.4.5', 'echoedMessage')).toBe(true);
    expect(supports('1.6.0', 'signFieldElement')).toBe(true);
    expect(supports('1.10.0', 'signFieldElement')).toBe(true);
  });
});

describe('INS 05 across the 1.4.x message quirks', () => {
  // version → what the app signs and whether it echoes it
  const cases: [string, boolean, boolean][] = [
    ['1.4.0', false, false],
    ['1.4.1', false, false],
    ['1.4.2', true, false],
    ['1.4.3', true, false],
    ['1.4.4', false, false],
    ['1.4.5', true, true],
    ['1.6.0', true, true],
  ];
  it.each(cases)('%s signs %s', async (version, prefixed, echoed) => {
    const reviews: Review[] = [];
    const { app, device } = setup(version, reviews);
    const result = await app.signMessage(0, 'Hello Mina!', 0);
    const expected = prefixed ? 'Message : Hello Mina!' : 'Hello Mina!';
    expect(result.signedMessage).toBe(expected);
    expect(signedMessageText(version, 'Hello Mina!')).toBe(expected);
    expect(testnet.verifyMessage({ data: expected, signature: result, publicKey: addressOf(0) })).toBe(true);
    // Reply shape: 64 bytes, or 64 + length byte + text from 1.4.5 on.
    const reply = device.exchanges.at(-1)!.reply;
    expect(reply.length / 2 - 2).toBe(echoed ? 65 + expected.length : 64);
    // 1.4.2/1.4.3 also displayed the prefix; later versions show the message alone.
    const shown = reviews[0]!.screens.find((s) => s.title === 'Message')!.text;
    expect(shown).toBe(version === '1.4.2' || version === '1.4.3' ? 'Message : Hello Mina!' : 'Hello Mina!');
  });

  it('the vector signature (1.6.0) is the one of the prefixed text', async () => {
    const { app } = setup('1.6.0');
    const e = vectors.exchanges.find((x) => x.name === 'sign_msg_1')!;
    expect(await app.signMessage(0, 'Hello Mina!', 0)).toMatchObject({ field: e.signature!.field, scalar: e.signature!.scalar });
  });
});

describe('the version a device claims must be one a Mina app can have (major 1–9, minor and patch 0–99)', () => {
  it.each([
    ['0.0.0 (an all-zero reply)', [0, 0, 0]],
    ['0.9.9', [0, 9, 9]],
    ['10.0.0', [10, 0, 0]],
    ['114.47.110 (a fuzzed reply)', [114, 47, 110]],
    ['2.227.35 (another)', [2, 227, 35]],
    ['1.100.0', [1, 100, 0]],
    ['1.6.255', [1, 6, 255]],
  ])('%s → LedgerReplyError, through the codec, the client and the provider', async (_name, bytes) => {
    expect(() => codec.decodeVersion(Uint8Array.from(bytes))).toThrow(expect.objectContaining({ name: 'LedgerReplyError' }));
    const device = quietLedger();
    const lying = {
      async send(cla: number, ins: number, p1: number, p2: number, data?: Uint8Array, statusList?: readonly number[]) {
        if (ins === 0x01) return Uint8Array.from([...bytes, 0x90, 0x00]);
        return device.send(cla, ins, p1, p2, data, statusList);
      },
    };
    await expect(new MinaLedgerApp(lying).getAppVersion()).rejects.toMatchObject({
      name: 'LedgerReplyError',
      message: expect.stringMatching(/no Mina app is/),
    });
    const chain = createLedgerProvider({ transport: lying, network: 'devnet', origin: 'https://dapp.example' });
    await expect(chain.requestAccounts()).rejects.toMatchObject({ code: 22001 });
    expect(chain.isConnected()).toBe(false);
  });

  it.each([
    ['1.0.0', [1, 0, 0]],
    ['1.6.0', [1, 6, 0]],
    ['1.10.3 (a later release)', [1, 10, 3]],
    ['9.99.99 (the edge)', [9, 99, 99]],
  ])('%s is accepted', (name, bytes) => {
    expect(codec.decodeVersion(Uint8Array.from(bytes)).version).toBe(name.split(' ')[0]);
  });
});
