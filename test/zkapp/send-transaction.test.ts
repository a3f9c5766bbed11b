/**
 * chain_sendTransaction signed through the software Ledger: both eras under their own verifiers, fee-payer rules,
 * device requests per command, and the errors users meet. Chain acceptance is in local-chain.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { base58check, concatBytes, uintToBytesLE } from '../../src/apdu/bytes.js';
import { minaSignerInternals } from '../../src/upstream/mina-signer-internals.js';
import { EMPTY_PUBLIC_KEY } from '../../src/zkapp/command.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { NOT_A_CURVE_POINT, addressOf, vectors } from '../support/vectors.js';
import { berkeleyCommand, manyUpdates, mesaCommand, resizeState, verifySigned } from '../support/zkapp.js';
import { connectedWith, outcome } from '../support/rig.js';

const ACCOUNT0 = addressOf(0);

/**
 * A connected provider (blind signing on, and the integrator's opt-in to sign blind without a host review: these
 * tests are about signing, test/zkapp/host-review.test.ts about the review); `requests('e006')` counts its
 * SIGN_FIELD_ELEMENT requests so far.
 */
const connected = connectedWith({ blindSigning: true }, { allowUnreviewedBlindSigning: true });

const signedDataOf = (result: unknown) => (result as { signedData: string }).signedData;

describe('both protocol eras, each under its own verifier', () => {
  for (const network of ['devnet', 'mainnet'] as const) {
    it(`Berkeley (8 fields) on ${network}: mina-signer 3.1.0 accepts, 4.0.0 refuses`, async () => {
      const { chain } = await connected({}, { network });
      const signedData = signedDataOf(await chain.sendTransaction({ transaction: berkeleyCommand(), onlySign: true }));
      expect(verifySigned('berkeley', network, signedData, ACCOUNT0)).toBe(true);
      expect(verifySigned('mesa', network, signedData, ACCOUNT0)).toBe(false);
      expect(verifySigned('berkeley', network === 'devnet' ? 'mainnet' : 'devnet', signedData, ACCOUNT0)).toBe(false);
    });

    it(`Mesa (32 fields) on ${network}: mina-signer 4.0.0 accepts, 3.1.0 refuses`, async () => {
      const { chain } = await connected({}, { network });
      const signedData = signedDataOf(await chain.sendTransaction({ transaction: JSON.stringify(mesaCommand()), onlySign: true }));
      expect(verifySigned('mesa', network, signedData, ACCOUNT0)).toBe(true);
      expect(verifySigned('berkeley', network, signedData, ACCOUNT0)).toBe(false);
    });
  }

  it('refuses mixed and unknown layouts, naming the problem', async () => {
    const { chain, requests } = await connected();
    const mixed = berkeleyCommand();
    mixed.accountUpdates[0]!.body.update.appState = Array(32).fill(null);
    for (const transaction of [mixed, resizeState(berkeleyCommand(), 16)]) {
      const error = await failure(chain.sendTransaction({ transaction, onlySign: true }));
      expect(error).toMatchObject({
        code: 20003,
        data: { field: 'transaction', reason: expect.stringMatching(/unsupported zkApp state layout/) },
      });
    }
    expect(requests('e006')).toBe(0);
  });

  it('refuses a command of the other era when the network era is configured', async () => {
    const { chain } = await connected({}, { era: 'mesa' });
    expect(await failure(chain.sendTransaction({ transaction: berkeleyCommand(), onlySign: true }))).toMatchObject({
      code: 20003,
      data: { reason: expect.stringMatching(/berkeley layout, but this network runs mesa/) },
    });
  });
});

describe('fee payer', () => {
  it('the connected account pays: fee, nonce and memo kept from the command unless the dapp overrides nonce and memo', async () => {
    const { chain } = await connected();
    const kept = JSON.parse(signedDataOf(await chain.sendTransaction({ transaction: berkeleyCommand(), onlySign: true })));
    expect(kept.feePayer).toEqual({ feePayer: ACCOUNT0, fee: '100000000', nonce: '0', memo: 'chain-ledger transcript', validUntil: null });
    expect(kept.zkappCommand.memo).toBe(berkeleyCommand().memo); // the dapp's memo is kept

    const overridden = JSON.parse(
      signedDataOf(
        await chain.sendTransaction({
          transaction: berkeleyCommand(),
          onlySign: true,
          nonce: 7,
          feePayer: { fee: '0.05', memo: 'new memo' },
        }),
      ),
    );
    // The command's own fee (> 0, nanomina) comes first, as in Auro 2.5.1: feePayer.fee is read only when it is 0.
    expect(overridden.feePayer).toMatchObject({ fee: '100000000', nonce: '7', memo: 'new memo' });
    expect(verifySigned('berkeley', 'devnet', JSON.stringify(overridden), ACCOUNT0)).toBe(true);
  });

  it('the empty placeholder key means the wallet pays, with the documented default fee when none is given', async () => {
    const { chain } = await connected();
    const command = berkeleyCommand();
    command.feePayer.body = { publicKey: EMPTY_PUBLIC_KEY, fee: '0', validUntil: null, nonce: '0' };
    const data = JSON.parse(signedDataOf(await chain.sendTransaction({ transaction: command, onlySign: true })));
    // 0.0101 MINA + 0.002 MINA for each of the 3 account updates
    expect(data.feePayer).toMatchObject({ feePayer: ACCOUNT0, fee: String(10_100_000 + 3 * 2_000_000) });
    expect(verifySigned('berkeley', 'devnet', JSON.stringify(data), ACCOUNT0)).toBe(true);
  });

  it('exact decimal fees: 0.1 as a number, 1.000000001 as a string', async () => {
    const { chain } = await connected();
    for (const [fee, nanomina] of [
      [0.1, '100000000'],
      ['1.000000001', '1000000001'],
    ] as const) {
      const command = berkeleyCommand();
      command.feePayer.body.fee = '0'; // a zero fee in the command: feePayer.fee (MINA) decides
      const data = JSON.parse(signedDataOf(await chain.sendTransaction({ transaction: command, onlySign: true, feePayer: { fee } })));
      expect(data.feePayer.fee).toBe(nanomina);
    }
  });

  it('a fee above the cap is refused, and the cap is configurable', async () => {
    const { chain } = await connected({}, { feeCap: '0.5' });
    const zeroFee = berkeleyCommand();
    zeroFee.feePayer.body.fee = '0';
    expect(await failure(chain.sendTransaction({ transaction: zeroFee, onlySign: true, feePayer: { fee: 1 } }))).toMatchObject({
      code: 20003,
      data: { field: 'feePayer.fee', reason: 'the fee 1 MINA is above the fee cap of 0.5 MINA' },
    });
    const expensive = berkeleyCommand();
    expensive.feePayer.body.fee = '600000000';
    expect(await failure(chain.sendTransaction({ transaction: expensive, onlySign: true }))).toMatchObject({
      data: { field: 'transaction.feePayer.body.fee' },
    });
  });

  it('another fee payer: its fee, nonce and memo stay; only our partial-commitment update is signed', async () => {
    const { chain, requests } = await connected();
    const command = manyUpdates(berkeleyCommand(), 1, 1); // one update of account 0, useFullCommitment = false
    command.feePayer.body = { publicKey: addressOf(1), fee: '123000000', validUntil: null, nonce: '42' };
    const data = JSON.parse(signedDataOf(await chain.sendTransaction({ transaction: command, onlySign: true })));
    expect(data.zkappCommand.feePayer).toEqual(command.feePayer); // untouched, unsigned
    expect(data.feePayer).toMatchObject({ feePayer: addressOf(1), fee: '123000000', nonce: '42' });
    expect(requests('e006')).toBe(1);
    // Our update's signature is over the partial commitment; it verifies once the fee payer has signed too.
    const internals = await minaSignerInternals('berkeley');
    const { signZkappCommand } = (await import('../support/mina-signer-sign.js')).forEra('berkeley');
    const both = signZkappCommand(data.zkappCommand, vectors.accounts.find((a) => a.account === 1)!.privateKeyBase58, 'devnet');
    expect(internals.verifyZkappCommandSignature(both, ACCOUNT0, 'devnet', addressOf(1))).toBe(true);
  });

  it('another fee payer cannot be broadcast by the Ledger, and a command with nothing for us to sign is refused', async () => {
    const { chain } = await connected();
    const foreign = manyUpdates(berkeleyCommand(), 1, 1);
    foreign.feePayer.body.publicKey = addressOf(1);
    expect(await failure(chain.sendTransaction({ transaction: foreign }))).toMatchObject({ code: 20003, data: { field: 'onlySign' } });
    const notOurs = berkeleyCommand();
    notOurs.feePayer.body.publicKey = addressOf(1);
    for (const au of notOurs.accountUpdates) au.body.publicKey = addressOf(2);
    expect(await failure(chain.sendTransaction({ transaction: notOurs, onlySign: true }))).toMatchObject({
      code: 20003,
      data: { reason: 'the Ledger account is not a signer for this zkApp command' },
    });
  });
});

describe('device requests: one per distinct value', () => {
  it.each([
    [1, 0, 1],
    [10, 0, 1],
    [11, 0, 1], // MAX_ACCOUNT_UPDATES: what a node accepts
    [10, 3, 2],
    [11, 5, 2],
  ])('%i account updates (%i partial) → %i INS 06 request(s)', async (n, partial, expected) => {
    const { chain, requests } = await connected();
    const signedData = signedDataOf(
      await chain.sendTransaction({ transaction: manyUpdates(berkeleyCommand(), n, partial), onlySign: true }),
    );
    expect(requests('e006')).toBe(expected);
    expect(verifySigned('berkeley', 'devnet', signedData, ACCOUNT0)).toBe(true);
  });
});

describe('errors', () => {
  it('a rejection on the device → 1002, and nothing is returned', async () => {
    const { chain, ledger } = await connected();
    ledger.approve = () => false;
    expect(await failure(chain.sendTransaction({ transaction: berkeleyCommand(), onlySign: true }))).toMatchObject({
      code: 1002,
      data: { reason: expect.stringMatching(/Blind signing/), statusWord: '0x6985' },
    });
  });

  it('blind signing off → 1002 explaining the setting', async () => {
    const { chain } = await connected({ blindSigning: false });
    expect(await failure(chain.sendTransaction({ transaction: berkeleyCommand(), onlySign: true }))).toMatchObject({
      code: 1002,
      data: { reason: expect.stringMatching(/enable "Blind signing" in the Mina app settings/) },
    });
  });

  it('unplugged between the two signatures → 1001, no partially signed command', async () => {
    const { chain, ledger } = await connected();
    let reviews = 0;
    ledger.approve = () => {
      if (++reviews === 2) {
        ledger.unplug();
        return new Promise<boolean>(() => {});
      }
      return true;
    };
    expect(await failure(chain.sendTransaction({ transaction: manyUpdates(berkeleyCommand(), 4, 2), onlySign: true }))).toMatchObject({
      code: 1001,
    });
    expect(reviews).toBe(2);
  });

  it('an app older than 1.6.0 → 20006 before any device request', async () => {
    const { chain, requests } = await connected({ version: '1.5.1' });
    expect(await failure(chain.sendTransaction({ transaction: berkeleyCommand(), onlySign: true }))).toMatchObject({
      code: 20006,
      data: { reason: expect.stringMatching(/1\.6\.0/) },
    });
    expect(requests('e006')).toBe(0);
  });

  it.each([
    ['a fee payer that is not an address', (c: any) => (c.feePayer.body.publicKey = 'B62qbad'), 'transaction.feePayer.body.publicKey'],
    [
      'an update key with a bad checksum',
      (c: any) => (c.accountUpdates[1].body.publicKey = `${ACCOUNT0.slice(0, -1)}x`),
      'transaction.accountUpdates[1].body.publicKey',
    ],
    ['no accountUpdates array', (c: any) => delete c.accountUpdates, 'transaction.accountUpdates'],
    ['a memo that is not base58', (c: any) => (c.memo = 'hello'), 'transaction.memo'],
    ['a nonce that is not a number', (c: any) => (c.feePayer.body.nonce = 'x'), 'transaction.feePayer.body.nonce'],
    [
      'a number where a boolean belongs',
      (c: any) => (c.accountUpdates[0].body.incrementNonce = 0),
      'transaction.accountUpdates[0].body.incrementNonce',
    ],
    ['an own __proto__ key', (c: any) => Object.defineProperty(c, '__proto__', { value: {}, enumerable: true }), 'transaction.__proto__'],
    ['7 app-state entries', (c: any) => c.accountUpdates[0].body.update.appState.pop(), 'transaction'],
    ['a missing update body field', (c: any) => delete c.accountUpdates[0].body.callDepth, 'transaction.accountUpdates[0].body.callDepth'],
    ['an unknown field', (c: any) => (c.accountUpdates[2].body.sneaky = 1), 'transaction.accountUpdates[2].body.sneaky'],
    ['a number where a string belongs', (c: any) => (c.feePayer.body.fee = 100000000), 'transaction.feePayer.body.fee'],
  ])('%s → 20003 naming the field, no device request', async (_name, mutate, field) => {
    const { chain, requests } = await connected();
    const command = berkeleyCommand();
    mutate(command);
    expect(await failure(chain.sendTransaction({ transaction: command, onlySign: true }))).toMatchObject({ code: 20003, data: { field } });
    expect(requests('e006')).toBe(0);
  });

  it('broadcast without a node or a local chain is refused before signing', async () => {
    const { chain, requests } = await connected();
    expect(await failure(chain.sendTransaction({ transaction: berkeleyCommand() }))).toMatchObject({
      code: 20003,
      data: { field: 'onlySign' },
    });
    expect(requests('e006')).toBe(0); // nothing is blind-signed for a command that could not be sent
  });
});

describe('a malformed command, or one that cannot be broadcast, reaches no device (a device that signs in clear, Blind signing on)', () => {
  /** A 1.1+ device: a command that passed the host would go to SIGN_ZKAPP, so `sent` shows any that got through. */
  const clearDevice = connectedWith({ extensions: true, blindSigning: true });

  it.each([
    ['onlySign absent', {}],
    ['onlySign: false', { onlySign: false }],
  ])('%s on a provider without a node → 20003 naming onlySign, and nothing reaches the device', async (_name, extra) => {
    const { ledger, chain } = await clearDevice();
    const r = await outcome(ledger, () => chain.sendTransaction({ transaction: berkeleyCommand(), ...extra }));
    expect(r.error).toMatchObject({ name: 'ProviderError', code: 20003, data: { field: 'onlySign' } });
    expect(r.sent).toEqual([]);
  });

  it.each<[string, (c: any) => void, string]>([
    ['an account update', (c) => (c.accountUpdates[2].body.publicKey = NOT_A_CURVE_POINT), 'transaction.accountUpdates[2].body.publicKey'],
    [
      'a delegate',
      (c) => (c.accountUpdates[1].body.update.delegate = NOT_A_CURVE_POINT),
      'transaction.accountUpdates[1].body.update.delegate',
    ],
    [
      'a delegate precondition',
      (c) => (c.accountUpdates[1].body.preconditions.account.delegate = NOT_A_CURVE_POINT),
      'transaction.accountUpdates[1].body.preconditions.account.delegate',
    ],
  ])('%s whose key is no curve point → 20003 naming it, nothing signed', async (_name, edit, field) => {
    const { ledger, chain } = await clearDevice();
    const command = berkeleyCommand();
    edit(command);
    const r = await outcome(ledger, () => chain.sendTransaction({ transaction: command, onlySign: true }));
    expect(r.error).toMatchObject({ code: 20003, data: { field, reason: expect.stringMatching(/not a point of the Pallas curve/) } });
    expect(r.sent).toEqual([]);
  });

  it('a fee payer whose key is no curve point → 20003 naming it; the empty key there is the placeholder "the wallet pays"', async () => {
    const { ledger, chain } = await clearDevice();
    const command = berkeleyCommand();
    // x = 2, even: 2³ + 5 has no square root, so no key has this address (and it is not the placeholder).
    command.feePayer.body.publicKey = base58check.encode(concatBytes(Uint8Array.of(0xcb, 1, 1), uintToBytesLE(2n, 32), Uint8Array.of(0)));
    const r = await outcome(ledger, () => chain.sendTransaction({ transaction: command, onlySign: true }));
    expect(r.error).toMatchObject({
      code: 20003,
      data: { field: 'transaction.feePayer.body.publicKey', reason: expect.stringMatching(/not a point of the Pallas curve/) },
    });
    expect(r.sent).toEqual([]);
    command.feePayer.body.publicKey = NOT_A_CURVE_POINT;
    const signed = signedDataOf(await chain.sendTransaction({ transaction: command, onlySign: true }));
    expect(verifySigned('berkeley', 'devnet', signed, ACCOUNT0)).toBe(true);
  });

  it('an own "__proto__" key at the top level of the command (JSON text) → 20003, nothing signed', async () => {
    const { ledger, chain } = await clearDevice();
    const text = JSON.stringify(berkeleyCommand()).replace(/^\{/, '{"__proto__":{},');
    const r = await outcome(ledger, () => chain.sendTransaction({ transaction: text, onlySign: true }));
    expect(r.value).toBeUndefined();
    expect(r.error).toMatchObject({ name: 'ProviderError', code: 20003, data: { field: expect.stringMatching(/^transaction/) } });
    expect(r.sent).toEqual([]);
  });

  it('an own "__proto__" key inside an account update (object form) → 20003, nothing signed', async () => {
    const { ledger, chain } = await clearDevice();
    const text = JSON.stringify(berkeleyCommand()).replace('"useFullCommitment"', '"__proto__":{},"useFullCommitment"');
    const r = await outcome(ledger, () => chain.sendTransaction({ transaction: JSON.parse(text), onlySign: true }));
    expect(r.value).toBeUndefined();
    expect(r.error).toMatchObject({
      name: 'ProviderError',
      code: 20003,
      data: { field: expect.stringMatching(/^transaction\.accountUpdates\[0\]\.body/) },
    });
    expect(r.sent).toEqual([]);
  });

  it.each<[string, (c: any) => void, string]>([
    ['incrementNonce: 0', (c) => (c.accountUpdates[0].body.incrementNonce = 0), 'transaction.accountUpdates[0].body.incrementNonce'],
    ['incrementNonce: "0"', (c) => (c.accountUpdates[0].body.incrementNonce = '0'), 'transaction.accountUpdates[0].body.incrementNonce'],
    [
      'useFullCommitment: "yes"',
      (c) => (c.accountUpdates[1].body.useFullCommitment = 'yes'),
      'transaction.accountUpdates[1].body.useFullCommitment',
    ],
    [
      'isSigned: 1',
      (c) => (c.accountUpdates[1].body.authorizationKind.isSigned = 1),
      'transaction.accountUpdates[1].body.authorizationKind.isSigned',
    ],
    [
      'mayUseToken.inheritFromParent: null',
      (c) => (c.accountUpdates[2].body.mayUseToken.inheritFromParent = null),
      'transaction.accountUpdates[2].body.mayUseToken.inheritFromParent',
    ],
    [
      'isProved: " "',
      (c) => (c.accountUpdates[0].body.authorizationKind.isProved = ' '),
      'transaction.accountUpdates[0].body.authorizationKind.isProved',
    ],
  ])('a boolean field that is no boolean (%s) → 20003 naming the field, nothing signed', async (_name, change, field) => {
    const { ledger, chain } = await clearDevice();
    const command = berkeleyCommand();
    change(command);
    const r = await outcome(ledger, () => chain.sendTransaction({ transaction: command, onlySign: true }));
    expect(r.value).toBeUndefined();
    expect(r.error).toMatchObject({ name: 'ProviderError', code: 20003, data: { field: expect.stringContaining(field) } });
    expect(r.sent).toEqual([]);
  });

  it.each<[string, (c: any) => void]>([
    ['an extra top-level key holding a function', (c) => (c.extra = () => 1)],
    ['accountUpdates[0].authorization.proof = Symbol()', (c) => (c.accountUpdates[0].authorization.proof = Symbol('x'))],
  ])('a command object holding a value JSON cannot hold (%s) → 20003, not an internal error; nothing signed', async (_name, change) => {
    const { ledger, chain } = await clearDevice();
    const command = berkeleyCommand();
    change(command);
    const r = await outcome(ledger, () => chain.sendTransaction({ transaction: command, onlySign: true }));
    expect(r.error).toMatchObject({ name: 'ProviderError', code: 20003, data: { field: expect.stringMatching(/^transaction/) } });
    expect(r.sent).toEqual([]);
  });

  it('an account update both signed and proved (isSigned and isProved true) → 20003 naming the authorization kind', async () => {
    const { ledger, chain } = await clearDevice();
    const command = berkeleyCommand() as any;
    command.accountUpdates[0].body.authorizationKind.isProved = true;
    const r = await outcome(ledger, () => chain.sendTransaction({ transaction: command, onlySign: true }));
    expect(r.error).toMatchObject({
      name: 'ProviderError',
      code: 20003,
      data: { field: expect.stringMatching(/^transaction\.accountUpdates\[0\]/) },
    });
    expect(r.sent).toEqual([]);
  });

  // With isProved false the hash must be the dummy one (3392518251…494): "0" fits the layout and the parser, and
  // only the commitment's rules refuse it.
  it.each([0, 2])('accountUpdates[%i] with verificationKeyHash "0" and isProved false → 20003 naming the authorization kind', async (i) => {
    const { ledger, chain } = await clearDevice();
    const command = berkeleyCommand() as any;
    command.accountUpdates[i].body.authorizationKind.verificationKeyHash = '0';
    const r = await outcome(ledger, () => chain.sendTransaction({ transaction: command, onlySign: true }));
    expect(r.error).toMatchObject({
      name: 'ProviderError',
      code: 20003,
      data: { field: 'transaction', reason: expect.stringMatching(/verification key hash/i) },
    });
    expect(r.sent).toEqual([]);
  });
});
