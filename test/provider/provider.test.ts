/** The window.chain provider over the software Ledger: connection, origin binding, every error code for its real cause. */
import Client from 'mina-signer';
import { describe, expect, it } from 'vitest';
import { PALLAS_P } from '../../src/apdu/constants.js';
import { createLedgerProvider } from '../../src/index.js';
import type { ApduTransport } from '../../src/transport.js';
// A ProviderError, and our own class here (dapps match on name/code).
import { ownProviderFailure as failure } from '../support/provider-failure.js';
import { addressOf } from '../support/vectors.js';
import { ORIGIN, OTHER_MNEMONIC, providerRigWith, quietLedger } from '../support/rig.js';

const testnet = new Client({ network: 'testnet' });

/**
 * A provider rig on a software Ledger with the extension 1.1: messages go to INS 05, as on every device without
 * SIGN_TEXT (the extension's long messages: test/provider/sign-in-messages.test.ts).
 */
const setup = providerRigWith({ extensions: '1.1' });

describe('ProviderError', () => {
  it('has the exact messages and survives structuredClone and JSON with code and data', async () => {
    const { chain } = setup();
    const error = await failure(chain.signMessage({ message: 'hi' }));
    expect(error).toMatchObject({ name: 'ProviderError', code: 1001, message: 'User disconnect, please connect first.' });
    const cloned = structuredClone(error);
    expect(cloned).toEqual({ name: 'ProviderError', code: 1001, message: error.message, data: error.data });
    expect(JSON.parse(JSON.stringify(error))).toEqual(cloned);
  });
});

describe('connection', () => {
  it('shows the address on the first connect, reads it silently afterwards, and emits accountsChanged', async () => {
    const { chain, reviews, actions, ledger } = setup();
    const changes: string[][] = [];
    chain.on('accountsChanged', (a) => changes.push(a));
    expect(await chain.getAccounts()).toEqual([]);
    expect(await chain.requestAccounts()).toEqual([addressOf(0)]);
    expect(reviews.map((r) => r.kind)).toEqual(['address']);
    expect(actions.map((a) => a.status)).toEqual(['confirm', 'done']);
    expect(await chain.requestAccounts()).toEqual([addressOf(0)]); // already connected: no device work
    // INS 01 version, 0xA0 extension probe, INS 02 address
    expect(ledger.exchanges.map((e) => e.request.slice(0, 4))).toEqual(['e001', 'e0a0', 'e002']);
    await chain.disconnect();
    expect(await chain.getAccounts()).toEqual([]);
    expect(await chain.requestAccounts()).toEqual([addressOf(0)]);
    expect(reviews).toHaveLength(1); // the reconnect was silent (P1 = 1)
    expect(ledger.exchanges.at(-1)!.request).toBe('e00201000400000000');
    expect(changes).toEqual([[addressOf(0)], [], [addressOf(0)]]);
    expect(chain.capabilities).toMatchObject({
      appVersion: { version: '1.6.0' },
      signFieldElement: true,
      extension: { version: '1.1', signFields: true, createNullifier: true, signZkapp: true, signPresentation: true, maxFields: 64 },
    });
  });

  it('uses the account index', async () => {
    const { chain } = setup({}, { accountIndex: 3 });
    expect(await chain.requestAccounts()).toEqual([addressOf(3)]);
  });

  it('confirmAddress: false reads the address silently on the first connect too: no review, no prompt', async () => {
    const { chain, reviews, actions, ledger } = setup({}, { confirmAddress: false });
    expect(await chain.requestAccounts()).toEqual([addressOf(0)]);
    expect(reviews).toEqual([]);
    expect(actions.filter((a) => a.status === 'confirm')).toEqual([]);
    expect(ledger.exchanges.at(-1)!.request).toBe('e00201000400000000'); // P1 = 1: silent
  });

  it('confirmAddress: false on an app older than 1.4.1 still shows the address (it cannot read it silently)', async () => {
    const { chain, reviews } = setup({ version: '1.4.0' }, { confirmAddress: false });
    await chain.requestAccounts();
    expect(reviews.map((r) => r.kind)).toEqual(['address']);
  });

  it('an app older than 1.4.1 shows the address at every connect (it cannot read it silently)', async () => {
    const { chain, reviews } = setup({ version: '1.4.0' });
    await chain.requestAccounts();
    await chain.disconnect();
    await chain.requestAccounts();
    expect(reviews.map((r) => r.kind)).toEqual(['address', 'address']);
  });
});

describe('every error code for its real cause', () => {
  it('1001 not connected: every method, and nothing reaches the device', async () => {
    const { chain, ledger } = setup();
    for (const call of [
      chain.signMessage({ message: 'hi' }),
      chain.createNullifier({ message: ['1'] }),
      chain.sendTransaction({ transaction: '{}' }),
      chain.requestPresentation({ presentation: { presentationRequest: {} } }),
      chain.storePrivateCredential({ credential: {} }),
    ]) {
      expect(await failure(call)).toMatchObject({ code: 1001, data: { reason: expect.stringMatching(/requestAccounts/) } });
    }
    expect(ledger.exchanges).toHaveLength(0);
  });

  it('1001 device locked', async () => {
    const { chain } = setup({ locked: true });
    expect(await failure(chain.requestAccounts())).toMatchObject({
      code: 1001,
      data: { reason: expect.stringMatching(/locked/), statusWord: '0x5515' },
    });
  });

  it('1001 Mina app not open', async () => {
    const { chain } = setup({ appOpen: false });
    expect(await failure(chain.requestAccounts())).toMatchObject({
      code: 1001,
      data: { reason: expect.stringMatching(/open the Mina app/) },
    });
  });

  it('1001 unplugged during a call: disconnect is emitted, and after plugging back in the next call works', async () => {
    const { chain, ledger } = setup();
    await chain.requestAccounts();
    const events: string[] = [];
    chain.on('disconnect', (e) => events.push(`disconnect ${e.code}`));
    chain.on('accountsChanged', (a) => events.push(`accounts ${a.length}`));
    ledger.approve = () => {
      ledger.unplug();
      return new Promise<boolean>(() => {});
    };
    expect(await failure(chain.signMessage({ message: 'hi' }))).toMatchObject({
      code: 1001,
      data: { reason: expect.stringMatching(/disconnected/) },
    });
    expect(events).toEqual(['disconnect 1001', 'accounts 0']);
    expect(await failure(chain.signMessage({ message: 'hi' }))).toMatchObject({ code: 1001 });
    ledger.plug();
    ledger.approve = () => true;
    expect(await chain.requestAccounts()).toEqual([addressOf(0)]);
    expect((await chain.signMessage({ message: 'hi' })).data).toBe('Message : hi');
  });

  it('1002 rejected on the device, at connect and when signing', async () => {
    const { chain, ledger } = setup({ approve: () => false });
    expect(await failure(chain.requestAccounts())).toMatchObject({
      code: 1002,
      message: 'User rejected the request.',
      data: { statusWord: '0x6985' },
    });
    ledger.approve = (r) => r.kind === 'address';
    await chain.requestAccounts();
    expect(await failure(chain.signMessage({ message: 'hi' }))).toMatchObject({ code: 1002 });
  });

  describe('20003 bad parameters name the field, and nothing reaches the device', () => {
    const cases: [string, (c: ReturnType<typeof setup>['chain']) => Promise<unknown>, string][] = [
      ['sendTransaction without transaction', (c) => c.sendTransaction({} as never), 'transaction'],
      ['sendTransaction with non-JSON text', (c) => c.sendTransaction({ transaction: '{nope' }), 'transaction'],
      ['sendTransaction with a JSON array', (c) => c.sendTransaction({ transaction: '[]' }), 'transaction'],
      // (A bad feePayer.fee is refused only when the command's fee is 0, i.e. when it is used: test/zkapp/dapp-fees.test.ts.)
      [
        'sendTransaction memo of 33 bytes',
        (c) => c.sendTransaction({ transaction: {}, feePayer: { memo: 'é'.repeat(17) } }),
        'feePayer.memo',
      ],
      ['sendTransaction negative nonce', (c) => c.sendTransaction({ transaction: {}, nonce: -1 }), 'nonce'],
      ['sendTransaction nonce "1.5"', (c) => c.sendTransaction({ transaction: {}, nonce: '1.5' }), 'nonce'],
      ['sendTransaction onlySign "yes"', (c) => c.sendTransaction({ transaction: {}, onlySign: 'yes' } as never), 'onlySign'],
      ['createNullifier without message', (c) => c.createNullifier({} as never), 'message'],
      ['createNullifier field = p', (c) => c.createNullifier({ message: ['1', PALLAS_P.toString()] }), 'message[1]'],
      ['createNullifier fraction', (c) => c.createNullifier({ message: [1.5] }), 'message[0]'],
      ['createNullifier negative', (c) => c.createNullifier({ message: ['-1'] }), 'message[0]'],
      ['createNullifier text that is no number', (c) => c.createNullifier({ message: ['1e3'] }), 'message[0]'],
      ['createNullifier hex = p', (c) => c.createNullifier({ message: [`0x${PALLAS_P.toString(16)}`] }), 'message[0]'],
      ['createNullifier 65 fields', (c) => c.createNullifier({ message: Array(65).fill('1') }), 'message'],
      ['storePrivateCredential non-JSON', (c) => c.storePrivateCredential({ credential: 'x' }), 'credential'],
      [
        'requestPresentation without request',
        (c) => c.requestPresentation({ presentation: {} } as never),
        'presentation.presentationRequest',
      ],
      ['signMessage not a string', (c) => c.signMessage({ message: 42 } as never), 'message'],
      ['signFields a value that is no field element', (c) => c.signFields({ message: [...Array(70).fill('1'), 'x'] }), 'message[70]'],
      ['params not an object', (c) => c.createNullifier(42 as never), 'params'],
    ];
    it.each(cases)('%s', async (_name, call, field) => {
      const { chain, ledger } = setup();
      await chain.requestAccounts();
      const before = ledger.exchanges.length;
      const error = await failure(call(chain));
      expect(error).toMatchObject({ code: 20003, message: 'Invalid method parameter(s).', data: { field } });
      expect(ledger.exchanges.length).toBe(before);
    });
  });

  describe('20006 for well-formed messages the device cannot sign, with the reason; nothing reaches the device', () => {
    const cases: [string, (c: ReturnType<typeof setup>['chain']) => Promise<unknown>, RegExp][] = [
      [
        'signMessage of 66 bytes',
        (c) => c.signMessage({ message: 'a'.repeat(66) }),
        /1 to 65 printable ASCII bytes \(INS 05\); this message is 66 bytes/,
      ],
      [
        'signMessage with a non-ASCII letter',
        (c) => c.signMessage({ message: 'héllo' }),
        /this message has U\+00E9, which is not printable ASCII/,
      ],
      ['signMessage with a tab', (c) => c.signMessage({ message: 'a\tb' }), /this message has U\+0009/],
      ['signMessage empty', (c) => c.signMessage({ message: '' }), /this message is empty/],
      [
        'signJsonMessage whose JSON text is over 65 bytes',
        (c) => c.signJsonMessage({ message: [{ label: 'action', value: 'x'.repeat(60) }] }),
        /this JSON text is 91 bytes/,
      ],
      [
        'signFields of 65 fields',
        (c) => c.signFields({ message: Array(65).fill('1') }),
        /at most 64 fields in one request.*this message has 65/,
      ],
    ];
    it.each(cases)('%s', async (_name, call, reason) => {
      const { chain, ledger } = setup();
      await chain.requestAccounts();
      const before = ledger.exchanges.length;
      expect(await failure(call(chain))).toMatchObject({
        code: 20006,
        message: 'Method not supported.',
        data: { reason: expect.stringMatching(reason) },
      });
      expect(ledger.exchanges.length).toBe(before);
    });

    it('65 printable bytes, and CR / LF, are still signed', async () => {
      const { chain } = setup();
      await chain.requestAccounts();
      const signed = await chain.signMessage({ message: `${'a'.repeat(63)}\r\n` });
      expect(testnet.verifyMessage(signed)).toBe(true);
    });
  });

  it('23001 origin mismatch through request(..., { origin }), before anything reaches the device', async () => {
    const { chain, ledger } = setup();
    await chain.requestAccounts();
    const before = ledger.exchanges.length;
    const error = await failure(
      chain.request({ method: 'chain_signMessage', params: { message: 'hi' } }, { origin: 'https://evil.example' }),
    );
    expect(error).toMatchObject({ code: 23001, message: 'Origin dismatch.', data: { reason: expect.stringMatching(/evil\.example/) } });
    expect(await failure(chain.request({ method: 'chain_requestAccounts' }, { origin: 'https://evil.example' }))).toMatchObject({
      code: 23001,
    });
    expect(ledger.exchanges.length).toBe(before);
  });

  it('23001 in a browser when the page origin is not the bound one', async () => {
    const { chain, ledger } = setup();
    await chain.requestAccounts();
    const before = ledger.exchanges.length;
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'location');
    Object.defineProperty(globalThis, 'location', { value: { origin: 'https://other.example' }, configurable: true });
    try {
      expect(await failure(chain.signMessage({ message: 'hi' }))).toMatchObject({ code: 23001 });
    } finally {
      if (saved) Object.defineProperty(globalThis, 'location', saved);
      else delete (globalThis as { location?: unknown }).location;
    }
    expect(ledger.exchanges.length).toBe(before);
  });

  it('20006 unknown method', async () => {
    const { chain } = setup();
    expect(await failure(chain.request({ method: 'chain_listNetworks', params: {} } as never))).toMatchObject({
      code: 20006,
      message: 'Method not supported.',
    });
    expect(await failure(chain.request({ method: 'toString' } as never))).toMatchObject({ code: 20006 });
  });

  it('20006 an instruction the app lacks: nullifiers and multi-field signing on the real app 1.6.0', async () => {
    const { chain, ledger } = setup({ extensions: false });
    await chain.requestAccounts();
    const before = ledger.exchanges.length;
    expect(await failure(chain.createNullifier({ message: ['1', 2] }))).toMatchObject({
      code: 20006,
      data: { reason: 'Mina app 1.6.0 has no nullifier instruction: it needs CREATE_NULLIFIER of the chain-ledger protocol extension' },
    });
    expect(await failure(chain.requestPresentation({ presentation: { presentationRequest: {} } }))).toMatchObject({
      code: 20006,
      data: { reason: expect.stringMatching(/SIGN_FIELDS/) },
    });
    expect(ledger.exchanges.length).toBe(before);
    expect(chain.capabilities!.extension).toBeNull();
  });

  it('20006 message signing on app 1.3.2 (no INS 05), refused before sending it', async () => {
    const { chain, ledger } = setup({ version: '1.3.2' });
    await chain.requestAccounts();
    expect(await failure(chain.signMessage({ message: 'hi' }))).toMatchObject({
      code: 20006,
      data: { reason: expect.stringMatching(/1\.4\.0/) },
    });
    expect(ledger.exchanges.map((e) => e.request.slice(0, 4))).not.toContain('e005');
  });

  it('22001 a device signature that does not verify for the connected account is never returned', async () => {
    // A transport that switches devices behind the provider's back (another seed answers after connect).
    const first = quietLedger({ extensions: '1.1' });
    const other = quietLedger({ extensions: '1.1' }, OTHER_MNEMONIC);
    let current: ApduTransport = first;
    const switching: ApduTransport = { send: (...args) => current.send(...args) };
    const chain = createLedgerProvider({ transport: switching, network: 'devnet', origin: ORIGIN });
    await chain.requestAccounts();
    current = other;
    expect(await failure(chain.signMessage({ message: 'hi' }))).toMatchObject({
      code: 22001,
      data: { reason: expect.stringMatching(/does not verify/) },
    });
  });
});

describe('request()', () => {
  it('accepts params as an object or a one-element array, and refuses other arrays', async () => {
    const { chain } = setup();
    await chain.request({ method: 'chain_requestAccounts' });
    const a = (await chain.request({ method: 'chain_signMessage', params: { message: 'one' } })) as { data: string };
    const b = (await chain.request({ method: 'chain_signMessage', params: [{ message: 'two' }] })) as { data: string };
    expect([a.data, b.data]).toEqual(['Message : one', 'Message : two']);
    expect(
      await failure(chain.request({ method: 'chain_signMessage', params: [{ message: 'a' }, { message: 'b' }] } as never)),
    ).toMatchObject({
      code: 20003,
      data: { field: 'params' },
    });
    expect(await chain.request({ method: 'chain_accounts' })).toEqual([addressOf(0)]);
  });

  it('never throws anything but a ProviderError, even for garbage', async () => {
    const { chain } = setup();
    for (const garbage of [null, undefined, 42, 'x', { method: 7 }, { method: 'chain_createNullifier', params: [[[]]] }]) {
      const error = await failure(chain.request(garbage as never));
      expect([20003, 20006, 1001]).toContain(error.code);
    }
  });
});

describe('approval and concurrency', () => {
  it('20 calls at once complete in order, each with its own verified result', async () => {
    const { chain, ledger } = setup({ latencyMs: 1 });
    await chain.requestAccounts();
    const messages = Array.from({ length: 20 }, (_, i) => `message ${i}`);
    const results = await Promise.all(messages.map((message) => chain.signMessage({ message })));
    results.forEach((r, i) => {
      expect(r.data).toBe(`Message : ${messages[i]}`);
      expect(testnet.verifyMessage(r)).toBe(true);
    });
    const signed = ledger.exchanges
      .filter((e) => e.request.startsWith('e005'))
      .map((e) => Buffer.from(e.request.slice(20), 'hex').toString());
    expect(signed).toEqual(messages);
  });

  it('a second call while the user is confirming waits its turn; cancelling one does not disturb the others', async () => {
    const answers: ((ok: boolean) => void)[] = [];
    const { chain, ledger } = setup();
    await chain.requestAccounts();
    ledger.approve = () => new Promise<boolean>((resolve) => answers.push(resolve));
    const controller = new AbortController();
    const first = chain.signMessage({ message: 'first' });
    const cancelled = chain.signMessage({ message: 'cancelled' }, { signal: controller.signal });
    const third = chain.signMessage({ message: 'third' });
    for (let i = 0; i < 100 && answers.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    expect(await failure(cancelled)).toMatchObject({ code: 1002, data: { reason: expect.stringMatching(/cancelled/) } });
    answers.shift()!(true);
    for (let i = 0; i < 100 && answers.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    answers.shift()!(true);
    expect((await first).data).toBe('Message : first');
    expect((await third).data).toBe('Message : third');
    const sent = ledger.exchanges
      .filter((e) => e.request.startsWith('e005'))
      .map((e) => Buffer.from(e.request.slice(20), 'hex').toString());
    expect(sent).toEqual(['first', 'third']);
  });

  it('two providers on one device are serialised too', async () => {
    const ledger = quietLedger({ extensions: '1.1', latencyMs: 1 });
    const a = createLedgerProvider({ transport: ledger, network: 'devnet', origin: ORIGIN });
    const b = createLedgerProvider({ transport: ledger, network: 'mainnet', origin: 'https://other.example', accountIndex: 1 });
    await Promise.all([a.requestAccounts(), b.requestAccounts()]);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).signMessage({ message: `m${i}` })));
    results.forEach((r, i) => expect(r.publicKey).toBe(addressOf(i % 2 ? 0 : 1)));
  });

  it('tells the page when to confirm on the device', async () => {
    const { chain, actions } = setup();
    await chain.requestAccounts();
    actions.length = 0;
    await chain.signMessage({ message: 'hi' });
    expect(actions).toEqual([
      { method: 'signMessage', status: 'confirm', prompt: 'Review the message on your Ledger and approve' },
      { method: 'signMessage', status: 'done', prompt: '' },
    ]);
  });
});

describe('switchChain', () => {
  it('changes the network id used for signing and emits chainChanged once per change', async () => {
    const { chain } = setup({}, { allowUnconfirmedSwitchChain: true });
    await chain.requestAccounts();
    const changes: { networkID: string }[] = [];
    chain.on('chainChanged', (id) => changes.push(id));
    expect(await chain.request({ method: 'chain_switchChain', params: { networkID: 'mina:mainnet' } })).toEqual({
      networkID: 'mina:mainnet',
    });
    await chain.switchChain({ networkID: 'mina:mainnet' });
    const signed = await chain.signMessage({ message: 'hi' });
    expect(new Client({ network: 'mainnet' }).verifyMessage(signed)).toBe(true);
    expect(testnet.verifyMessage(signed)).toBe(false);
    expect(changes).toEqual([{ networkID: 'mina:mainnet' }]);
    // Auro's code for a network it cannot use: 20004 (Zeko mainnet's custom signature domain, a network it does not
    // know); a value that is no network id at all stays 20003.
    expect(await failure(chain.switchChain({ networkID: 'zeko:mainnet' }))).toMatchObject({ code: 20004 });
    expect(await failure(chain.switchChain({ networkID: 'mina:berkeley' }))).toMatchObject({ code: 20004 });
    expect(await failure(chain.switchChain({ networkID: 42 } as never))).toMatchObject({ code: 20003, data: { field: 'networkID' } });
  });
});
