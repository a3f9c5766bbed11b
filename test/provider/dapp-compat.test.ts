/**
 * The call shapes real dapps send to Auro's `window.mina`, served by the Ledger provider as Auro serves them, and the
 * results used the way those dapps use them (nullifiers verified with o1js, signatures with mina-signer). Each table
 * row names the dapp the shape comes from. Payments and delegations as dapps send them:
 * test/payments/send-payment.test.ts; wallet discovery: test/provider/discovery.test.ts; zkApp fees on a local chain:
 * test/zkapp/dapp-fees.test.ts.
 */
import Client from 'mina-signer';
import { Field, Nullifier } from 'o1js';
import { describe, expect, it } from 'vitest';
import { PALLAS_P } from '../../src/apdu/constants.js';
import type { SoftwareLedgerOptions } from '../../src/emulator.js';
import { shownValue } from '../../src/emulator/review.js';
import type { LedgerProviderOptions } from '../../src/index.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { addressOf } from '../support/vectors.js';
import { ORIGIN, providerRig } from '../support/rig.js';

const ACCOUNT0 = addressOf(0);
const testnet = new Client({ network: 'testnet' });

// These dapps switch networks and sign one field blind: the integrator opts in to switches without a confirmation
// hook and to blind signing without a host review.
const setup = (device: SoftwareLedgerOptions = {}, options: Partial<LedgerProviderOptions> = {}) =>
  providerRig(
    { extensions: true, blindSigning: true, ...device },
    { allowUnconfirmedSwitchChain: true, allowUnreviewedBlindSigning: true, ...options },
  );

describe('requestNetwork right after connecting (Lumina DEX SDK, ZkNoid, Auro test dapp)', () => {
  it.each([
    ['Auro test dapp: window.mina.requestNetwork()', (c: ReturnType<typeof setup>['chain']) => c.requestNetwork()],
    [
      'Lumina / ZkNoid: request({ method: "chain_requestNetwork" })',
      (c: ReturnType<typeof setup>['chain']) => c.request({ method: 'chain_requestNetwork' }),
    ],
  ])('%s → { networkID }, without touching the device', async (_dapp, call) => {
    const { chain, ledger } = setup();
    await chain.requestAccounts();
    const before = ledger.exchanges.length;
    expect(await call(chain)).toEqual({ networkID: 'mina:devnet' });
    await chain.switchChain({ networkID: 'mina:mainnet' });
    expect(await call(chain)).toEqual({ networkID: 'mina:mainnet' });
    expect(ledger.exchanges.length).toBe(before);
  });

  it('answers before connecting too, and refuses another origin', async () => {
    const { chain } = setup();
    expect(await chain.requestNetwork()).toEqual({ networkID: 'mina:devnet' });
    expect(await failure(chain.request({ method: 'chain_requestNetwork' }, { origin: 'https://evil.example' }))).toMatchObject({
      code: 23001,
    });
  });
});

describe("events like Auro's EventEmitter", () => {
  it('chainChanged delivers { networkID }, accountsChanged the list; on() chains; removeListener and removeAllListeners work', async () => {
    const { chain } = setup();
    const chains: unknown[] = [];
    const accounts: unknown[] = [];
    const dropped: unknown[] = [];
    const onDropped = (a: string[]) => dropped.push(a);
    // Auro's EventEmitter returns the provider from on(): dapps chain the calls.
    expect(
      chain
        .on('chainChanged', (c) => chains.push(c))
        .on('accountsChanged', (a) => accounts.push(a))
        .on('accountsChanged', onDropped),
    ).toBe(chain);
    expect(chain.removeListener('accountsChanged', onDropped)).toBe(chain);
    await chain.requestAccounts();
    await chain.switchChain({ networkID: 'mina:mainnet' });
    expect(chains).toEqual([{ networkID: 'mina:mainnet' }]);
    expect(accounts).toEqual([[ACCOUNT0]]);
    expect(dropped).toEqual([]);
    expect(chain.removeAllListeners('chainChanged')).toBe(chain);
    await chain.switchChain({ networkID: 'mina:devnet' });
    expect(chains).toHaveLength(1);
    chain.removeAllListeners();
    await chain.disconnect();
    expect(accounts).toEqual([[ACCOUNT0]]);
  });

  it('isConnected() follows the connection, without touching the device', async () => {
    const { chain, ledger } = setup();
    expect(chain.isConnected()).toBe(false);
    await chain.requestAccounts();
    const before = ledger.exchanges.length;
    expect(chain.isConnected()).toBe(true);
    expect(ledger.exchanges.length).toBe(before);
    await chain.disconnect();
    expect(chain.isConnected()).toBe(false);
    await chain.requestAccounts();
    ledger.unplug();
    expect(chain.isConnected()).toBe(false); // an unplug drops the connection too
  });

  it('once() fires a single time and returns the provider; off() removes a once listener before it fires', async () => {
    const { chain } = setup();
    const seen: string[] = [];
    const never = () => seen.push('never');
    expect(chain.once('chainChanged', ({ networkID }) => seen.push(networkID)).once('chainChanged', never)).toBe(chain);
    chain.off('chainChanged', never);
    await chain.switchChain({ networkID: 'mina:mainnet' });
    await chain.switchChain({ networkID: 'mina:devnet' });
    expect(seen).toEqual(['mina:mainnet']);
  });

  it('a once listener that emits the same event again still runs only once', async () => {
    const { chain } = setup();
    const calls: string[] = [];
    // The first listener switches the chain again (a nested chainChanged) before the once listener is reached.
    let nested = false;
    chain.on('chainChanged', () => {
      if (nested) return;
      nested = true;
      void chain.switchChain({ networkID: 'mina:local' });
    });
    chain.once('chainChanged', ({ networkID }) => calls.push(networkID));
    await chain.switchChain({ networkID: 'mina:mainnet' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(calls).toHaveLength(1);
  });

  it('the same listener added twice is called twice, and each removeListener removes one, as with an EventEmitter', async () => {
    const { chain } = setup();
    const seen: string[] = [];
    const listener = ({ networkID }: { networkID: string }) => seen.push(networkID);
    chain.on('chainChanged', listener).on('chainChanged', listener);
    await chain.switchChain({ networkID: 'mina:mainnet' });
    expect(seen).toEqual(['mina:mainnet', 'mina:mainnet']);
    chain.removeListener('chainChanged', listener);
    await chain.switchChain({ networkID: 'mina:devnet' });
    expect(seen).toEqual(['mina:mainnet', 'mina:mainnet', 'mina:devnet']);
    chain.removeListener('chainChanged', listener);
    await chain.switchChain({ networkID: 'mina:mainnet' });
    expect(seen).toHaveLength(3);
  });
});

describe("Auro's method names: request({ method: 'mina_…' }) as a dapp written for window.mina calls it", () => {
  it('mina_requestAccounts, mina_accounts and mina_requestNetwork answer as their chain_ names', async () => {
    const { chain } = setup();
    expect(await chain.request({ method: 'mina_accounts' })).toEqual([]);
    expect(await chain.request({ method: 'mina_requestAccounts' })).toEqual([ACCOUNT0]);
    expect(await chain.request({ method: 'mina_accounts' })).toEqual(await chain.request({ method: 'chain_accounts' }));
    expect(await chain.request({ method: 'mina_requestNetwork' })).toEqual({ networkID: 'mina:devnet' });
    expect(await chain.request({ method: 'mina_switchChain', params: { networkID: 'mina:mainnet' } })).toEqual({
      networkID: 'mina:mainnet',
    });
    expect(await chain.request({ method: 'mina_requestNetwork' })).toEqual(await chain.request({ method: 'chain_requestNetwork' }));
  });

  it('mina_signMessage, mina_sign_JsonMessage, mina_signFields and mina_createNullifier give what the chain_ names give', async () => {
    const { chain } = setup();
    await chain.requestAccounts();
    const message = await chain.request({ method: 'mina_signMessage', params: { message: 'hello' } });
    // Mina's Schnorr signatures are deterministic: the same request gives the same signature under either name.
    expect(message).toEqual(await chain.request({ method: 'chain_signMessage', params: { message: 'hello' } }));
    expect(testnet.verifyMessage(message)).toBe(true);
    expect(await chain.request({ method: 'mina_verifyMessage', params: message })).toBe(true);
    const json = await chain.request({ method: 'mina_sign_JsonMessage', params: { message: [{ label: 'a', value: 1 }] } });
    expect(await chain.request({ method: 'mina_verify_JsonMessage', params: json })).toBe(true);
    const fields = await chain.request({ method: 'mina_signFields', params: { message: ['1', '2'] } });
    expect(testnet.verifyFields({ data: [1n, 2n], publicKey: ACCOUNT0, signature: fields.signature })).toBe(true);
    expect(
      await chain.request({ method: 'mina_verifyFields', params: { publicKey: ACCOUNT0, data: ['1', '2'], signature: fields.signature } }),
    ).toBe(true);
    const nullifier = await chain.request({ method: 'mina_createNullifier', params: [['7']] });
    expect(nullifier.public.nullifier).toEqual(
      (await chain.request({ method: 'chain_createNullifier', params: [['7']] })).public.nullifier,
    );
  });

  it('a mina_ name with no chain_ method is unknown (20006); the origin is checked first, as for chain_ names', async () => {
    const { chain, ledger } = setup();
    await chain.requestAccounts();
    const before = ledger.exchanges.length;
    // mina-js's mina_getState (Pallad's credential store) is a method neither Auro nor this provider has.
    for (const method of ['mina_getState', 'mina_listCredentials', 'mina_', 'mina_requestaccounts', 'mina_info']) {
      expect(await failure(chain.request({ method } as never))).toMatchObject({
        code: 20006,
        data: { reason: `unknown method ${JSON.stringify(method)}` },
      });
    }
    expect(
      await failure(chain.request({ method: 'mina_signMessage', params: { message: 'hi' } }, { origin: 'https://evil.example' })),
    ).toMatchObject({ code: 23001 });
    expect(ledger.exchanges.length).toBe(before);
  });
});

describe('createNullifier with the messages dapps send', () => {
  const cases: [string, unknown[], bigint[]][] = [
    ['a voting dapp: an empty message', [], []],
    ['decimal text with leading zeros', ['007', '0'], [7n, 0n]],
    ['0x-hex text', ['0x1f', '0XFF'], [31n, 255n]],
    ['integral numbers, beyond 2^53 too', [5, 2 ** 60], [5n, 2n ** 60n]],
    ['p − 1 as hex', [`0x${(PALLAS_P - 1n).toString(16)}`], [PALLAS_P - 1n]],
    // What BigInt(text) reads, as Auro reads it: surrounding whitespace, 0o / 0b, a "+", and '' (BigInt('') is 0n).
    ['BigInt() text: whitespace, 0o, 0b, "+" and ""', [' 7 ', '\n0x1f\t', '0o17', '0B101', '+5', ''], [7n, 31n, 15n, 5n, 5n, 0n]],
    ['p − 1 in binary (257 characters)', [`0b${(PALLAS_P - 1n).toString(2)}`], [PALLAS_P - 1n]],
  ];
  it.each(cases)('%s: verifies with o1js, data is the message as given', async (_name, message, fields) => {
    const { chain, reviews } = setup();
    await chain.requestAccounts();
    const result = (await chain.request({ method: 'chain_createNullifier', params: { message: message as (string | number)[] } })) as any;
    expect(result.data).toEqual(message);
    const nullifier = Nullifier.fromJSON({ publicKey: result.publicKey, public: result.public, private: result.private });
    nullifier.verify(fields.map((f) => Field(f))); // throws if it does not verify for these fields
    expect(nullifier.getPublicKey().toBase58()).toBe(ACCOUNT0);
    // The same values in canonical decimal give the same nullifier point (the key a voting contract stores).
    const canonical = (await chain.createNullifier({ message: fields.map(String) })) as any;
    expect(canonical.public.nullifier).toEqual(result.public.nullifier);
    // The device shows each field as the value it hashes (canonical decimal), and the origin asking.
    const review = reviews.filter((r) => r.kind === 'nullifier').at(-1)!;
    fields.forEach((f, i) => expect(shownValue(review, `Field ${i + 1}/${fields.length}`)).toBe(f.toString()));
    expect(shownValue(review, 'Requested by')).toBe(ORIGIN);
  });

  it('mina-js positional form [[fields]] and Auro object form give the same nullifier', async () => {
    const { chain } = setup();
    await chain.requestAccounts();
    const a = (await chain.request({ method: 'chain_createNullifier', params: [['1', '2']] })) as any;
    const b = (await chain.request({ method: 'chain_createNullifier', params: [{ message: ['1', '2'] }] })) as any;
    expect(a.public.nullifier).toEqual(b.public.nullifier);
  });

  it('a value outside the field, a negative or a fraction stays 20003 naming the entry', async () => {
    const { chain, ledger } = setup();
    await chain.requestAccounts();
    const before = ledger.exchanges.length;
    for (const [value, field] of [
      [PALLAS_P.toString(), 'message[0]'],
      ['-1', 'message[0]'],
      [1.5, 'message[0]'],
      ['1e3', 'message[0]'],
      ['1.0', 'message[0]'],
      [-1, 'message[0]'],
      ['-0x1', 'message[0]'],
      [`0b${PALLAS_P.toString(2)}`, 'message[0]'],
      [`0o${PALLAS_P.toString(8)}`, 'message[0]'],
      ['0x', 'message[0]'],
      ['1 2', 'message[0]'],
    ] as const) {
      expect(await failure(chain.createNullifier({ message: [value] }))).toMatchObject({ code: 20003, data: { field } });
    }
    expect(ledger.exchanges.length).toBe(before);
  });
});

describe('signFields / verifyFields (Auro shapes)', () => {
  it.each([
    ['one field: INS 06', ['12345'], 'field-element'],
    ['three fields: extension SIGN_FIELDS', ['1', '0x2', 3], 'sign-fields'],
  ])('%s → { data, publicKey, signature (base58) } that mina-signer verifyFields accepts', async (_name, message, kind) => {
    const { chain, reviews } = setup();
    await chain.requestAccounts();
    const signed = (await chain.request({ method: 'chain_signFields', params: { message } })) as {
      data: unknown[];
      publicKey: string;
      signature: string;
    };
    expect(signed.data).toEqual(message);
    expect(signed.publicKey).toBe(ACCOUNT0);
    const fields = message.map((m) => BigInt(m));
    expect(testnet.verifyFields({ data: fields, publicKey: ACCOUNT0, signature: signed.signature })).toBe(true);
    expect(reviews.at(-1)!.kind).toBe(kind);
    // And the provider's own verifyFields, on the host.
    expect(await chain.verifyFields({ publicKey: ACCOUNT0, data: message, signature: signed.signature })).toBe(true);
    expect(await chain.verifyFields({ publicKey: ACCOUNT0, data: [...message, '4'], signature: signed.signature })).toBe(false);
    expect(await chain.verifyFields({ publicKey: addressOf(1), data: message, signature: signed.signature })).toBe(false);
  });

  it('several fields on the released app (no extension) → 20006 with the reason at once, never pending; nothing sent', async () => {
    const { chain, ledger } = setup({ extensions: false });
    await chain.requestAccounts();
    const before = ledger.exchanges.length;
    expect(await failure(chain.signFields({ message: ['1', '2'] }))).toMatchObject({
      code: 20006,
      data: { reason: expect.stringMatching(/signs one field element at most \(INS 06\): 2 fields need SIGN_FIELDS/) },
    });
    expect(ledger.exchanges.length).toBe(before);
    // One field still works there (INS 06).
    const one = await chain.signFields({ message: ['9'] });
    expect(testnet.verifyFields({ data: [9n], publicKey: ACCOUNT0, signature: one.signature })).toBe(true);
  });

  it('more than 64 fields → 20006 saying the device signs at most 64 at once (not 20003); a malformed one stays 20003', async () => {
    const { chain, ledger } = setup();
    await chain.requestAccounts();
    const before = ledger.exchanges.length;
    expect(
      await failure(chain.request({ method: 'chain_signFields', params: [Array.from({ length: 65 }, (_, i) => String(i))] })),
    ).toMatchObject({
      code: 20006,
      data: { reason: expect.stringMatching(/at most 64 fields in one request \(SIGN_FIELDS.*\); this message has 65/) },
    });
    expect(await failure(chain.signFields({ message: ['1', '2.5'] }))).toMatchObject({ code: 20003, data: { field: 'message[1]' } });
    expect(ledger.exchanges.length).toBe(before);
    // 64 still works, and BigInt() text is read as Auro reads it.
    const message = [...Array(63).fill(' 0b11 '), '']; // 3, …, 3, 0
    const signed = await chain.signFields({ message });
    expect(testnet.verifyFields({ data: [...Array(63).fill(3n), 0n], publicKey: ACCOUNT0, signature: signed.signature })).toBe(true);
  });

  it('an app older than 1.6.0 → 20006 naming INS 06; an empty message → 20003', async () => {
    const { chain } = setup({ version: '1.4.5', extensions: false });
    await chain.requestAccounts();
    expect(await failure(chain.signFields({ message: ['1'] }))).toMatchObject({
      code: 20006,
      data: { reason: expect.stringMatching(/1\.6\.0/) },
    });
    expect(await failure(chain.signFields({ message: [] }))).toMatchObject({ code: 20003, data: { field: 'message' } });
  });
});

describe('verifyMessage, signJsonMessage, verifyJsonMessage (Auro test dapp)', () => {
  it('verifyMessage checks a signMessage result on the provider network, on the host', async () => {
    const { chain, ledger } = setup();
    await chain.requestAccounts();
    const signed = await chain.signMessage({ message: 'hello from the test dapp' });
    const before = ledger.exchanges.length;
    expect(await chain.request({ method: 'chain_verifyMessage', params: signed })).toBe(true);
    expect(await chain.verifyMessage({ ...signed, data: `${signed.data}!` })).toBe(false);
    expect(ledger.exchanges.length).toBe(before);
    await chain.switchChain({ networkID: 'mina:mainnet' });
    expect(await chain.verifyMessage(signed)).toBe(false); // a devnet signature is not a mainnet one
    expect(await failure(chain.verifyMessage({ publicKey: 'B62', data: 'x', signature: { field: '1', scalar: '2' } }))).toMatchObject({
      code: 20003,
      data: { field: 'publicKey' },
    });
  });

  it('signJsonMessage signs the JSON text of [{ label, value }] with INS 05 on a device without SIGN_TEXT; verifyJsonMessage and mina-signer accept it', async () => {
    const { chain, ledger } = setup({ extensions: '1.1' });
    await chain.requestAccounts();
    // Auro's documentation passes a number as a value (new Date().getTime()); it stays a number in the JSON text.
    const message = [
      { label: 'v', value: 'yes' },
      { label: 't', value: 1699295213 },
    ];
    const signed = (await chain.request({ method: 'chain_sign_JsonMessage', params: { message } })) as any;
    expect(signed.data).toBe('Message : [{"label":"v","value":"yes"},{"label":"t","value":1699295213}]');
    expect(testnet.verifyMessage(signed)).toBe(true);
    expect(await chain.request({ method: 'chain_verify_JsonMessage', params: signed })).toBe(true);
    const long = [
      { label: 'Network', value: 'devnet' },
      { label: 'Action', value: 'Approve the long description' },
    ];
    // Well-formed, but longer than the device signs (INS 05): 20006 with the reason, not 20003; nothing is sent.
    const before = ledger.exchanges.length;
    expect(await failure(chain.signJsonMessage({ message: long }))).toMatchObject({
      code: 20006,
      data: { reason: expect.stringMatching(/signs messages of 1 to 65 printable ASCII bytes \(INS 05\); this JSON text is \d+ bytes/) },
    });
    expect(await failure(chain.signJsonMessage({ message: [{ label: 'café', value: 1 }] }))).toMatchObject({
      code: 20006,
      data: { reason: expect.stringMatching(/this JSON text has U\+00E9, which is not printable ASCII/) },
    });
    expect(ledger.exchanges.length).toBe(before);
    // Malformed stays 20003.
    expect(await failure(chain.signJsonMessage({ message: [{ label: 1, value: 'x' }] } as never))).toMatchObject({
      code: 20003,
      data: { field: 'message[0].label' },
    });
  });
});
