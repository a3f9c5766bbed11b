/**
 * zkApp commands built with o1js the way public dapps build them, signed through `sendTransaction` with the fee,
 * nonce and memo arguments those dapps pass, then used as they use the result: `signedData` grafted onto the
 * dapp's own o1js transaction and sent, or applied as it is, on an o1js LocalBlockchain (Mina's own transaction
 * logic checks every signature). Fee order as Auro 2.5.1: the command's own fee when > 0 (nanomina), else
 * `feePayer.fee` (MINA), else the default; empty values mean "not given".
 */
import { AccountUpdate, Mina, PublicKey, UInt32, UInt64 } from 'o1js';
import { beforeAll, describe, expect, it } from 'vitest';

import { createLedgerProvider, type LedgerProvider } from '../../src/index.js';
import { EMPTY_PUBLIC_KEY } from '../../src/zkapp/command.js';
import { createLocalChain, type LocalChain } from '../../src/zkapp/local-chain.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { addressOf } from '../support/vectors.js';
import { quietLedger } from '../support/rig.js';

const ORIGIN = 'http://localhost:5173';
const ACCOUNT0 = addressOf(0);
const sender = PublicKey.fromBase58(ACCOUNT0);
/** The default when no fee is given anywhere: 0.0101 MINA + 0.002 MINA per account update (computed per command). */
const DEFAULT_FEE = 'default';

let chain: LocalChain;
let provider: LedgerProvider;
/** Another funded account, touched without authorization by the commands that have no sender. */
const bystander = PublicKey.fromBase58(addressOf(3));

beforeAll(async () => {
  chain = await createLocalChain();
  await chain.fund(ACCOUNT0, 100_000_000_000n);
  await chain.fund(bystander.toBase58(), 1_000_000_000n);
  const ledger = quietLedger({ blindSigning: true });
  // The released app signs blind; these tests are about fees, not review: the integrator's opt-in.
  provider = createLedgerProvider({
    transport: ledger,
    network: 'local',
    origin: ORIGIN,
    localChain: chain,
    allowUnreviewedBlindSigning: true,
  });
  await provider.requestAccounts();
}, 180_000);

/**
 * A one-update payment command as dapps build it: `Mina.transaction({ sender, fee }, …)` (ZkNoid, silvana-lib,
 * Lumina), `Mina.transaction(sender, …)` without a fee (the o1-labs zkApp UI tutorial), or with the empty fee payer
 * (`Mina.transaction(async () => …)`, Auro's documentation example).
 */
async function build(kind: 'sender+fee' | 'sender' | 'empty', fee = 100_000_000) {
  chain.activate();
  // With a sender: a signed update of the Ledger account (o1js has it use the full commitment, as the fee payer).
  const signedUpdate = async () => {
    AccountUpdate.createSigned(sender).send({ to: sender, amount: UInt64.from(1) });
  };
  // Without one (Auro's documentation example has a proof-authorised update): an update the fee payer does not sign.
  // (A signed update of the same account would carry a nonce precondition that the wallet's fee payer then breaks.)
  const unsignedUpdate = async () => {
    AccountUpdate.create(bystander);
  };
  const tx =
    kind === 'sender+fee'
      ? await Mina.transaction({ sender, fee }, signedUpdate)
      : kind === 'sender'
        ? await Mina.transaction(sender, signedUpdate)
        : await Mina.transaction(unsignedUpdate);
  return tx;
}

type Call = Record<string, unknown>;
/**
 * Rows name where the shape comes from: Auro's documentation and test dapp and the o1-labs tutorial as read there;
 * "public dapps" for the shapes a survey of public dapps found (the command built with
 * `Mina.transaction({ sender, fee })` and the same value passed again as `feePayer.fee`, in nanomina).
 */
const cases: [source: string, kind: 'sender+fee' | 'sender' | 'empty', call: Call, fee: string][] = [
  // The command's fee (nanomina) comes first; the same value again as feePayer.fee, in nanomina, is not read.
  [
    'public dapps: Mina.transaction({ sender, fee: 1e8 }) and feePayer: { fee: 1e8, memo: "" } (nanomina number)',
    'sender+fee',
    { feePayer: { fee: 1e8, memo: '' } },
    '100000000',
  ],
  ['public dapps: the same with feePayer.fee as nanomina text', 'sender+fee', { feePayer: { fee: '100000000' } }, '100000000'],
  ['Mina.transaction({ sender, fee }) and no feePayer', 'sender+fee', {}, '100000000'],
  [
    'public dapps: feePayer.fee far above the cap (2e9 read as MINA) beside a 0.1 MINA command fee',
    'sender+fee',
    { feePayer: { fee: 2_000_000_000 } },
    '100000000',
  ],
  // A command fee of 0: feePayer.fee (MINA) decides.
  [
    'o1-labs zkApp UI tutorial: Mina.transaction(sender) and feePayer: { fee: 0.1, memo: "" }',
    'sender',
    { feePayer: { fee: 0.1, memo: '' } },
    '100000000',
  ],
  ['public dapps: float noise, feePayer.fee 0.1 + 0.2', 'sender', { feePayer: { fee: 0.1 + 0.2 } }, '300000000'],
  // Nothing given anywhere: the default.
  ["Auro docs: empty fee payer and feePayer: { fee: '', memo: '' }", 'empty', { feePayer: { fee: '', memo: '' } }, DEFAULT_FEE],
  [
    "Auro test dapp, inputs left empty: nonce parseInt(''), fee parseFloat('')",
    'empty',
    { nonce: parseInt('', 10), feePayer: { fee: parseFloat(''), memo: '' } },
    DEFAULT_FEE,
  ],
  ['public dapps: null fee, nonce and memo', 'sender', { nonce: null, feePayer: { fee: null, memo: null } }, DEFAULT_FEE],
  ['public dapps: fee 0', 'sender', { feePayer: { fee: 0 } }, DEFAULT_FEE],
  // Rounded to 9 decimals as Auro rounds it, 1e-10 MINA is 0: "not given".
  ['fee 1e-10 (rounds to 0 nanomina)', 'sender', { feePayer: { fee: 1e-10 } }, DEFAULT_FEE],
  ["fee '0.0000000004' (rounds to 0 nanomina)", 'sender', { feePayer: { fee: '0.0000000004' } }, DEFAULT_FEE],
];

describe('sendTransaction with the fee, nonce and memo dapps pass', () => {
  it.each(cases)(
    '%s: the local chain applies what was signed',
    async (_dapp, kind, call, expectedFee) => {
      let fee = expectedFee;
      const tx = await build(kind);
      const { memo, accountUpdates } = JSON.parse(tx.toJSON());
      if (fee === DEFAULT_FEE) fee = String(10_100_000 + 2_000_000 * accountUpdates.length);
      const nonce = await chain.nonceOf(ACCOUNT0);
      const { signedData } = (await provider.sendTransaction({ transaction: tx.toJSON(), onlySign: true, ...call })) as {
        signedData: string;
      };
      const signed = JSON.parse(signedData);
      expect(signed.feePayer).toMatchObject({ feePayer: ACCOUNT0, fee, nonce: String(nonce) });
      expect(signed.zkappCommand.memo).toBe(memo); // the command's memo is kept (an empty feePayer.memo is "not given")
      const balance = (await chain.balanceOf(ACCOUNT0))!;
      await expect(chain.send(signed.zkappCommand)).resolves.toMatchObject({ hash: expect.any(String) });
      expect(await chain.balanceOf(ACCOUNT0)).toBe(balance - BigInt(fee));
      expect(await chain.nonceOf(ACCOUNT0)).toBe(nonce! + 1);
    },
    60_000,
  );

  it('Auro test dapp: grafts signedData.zkappCommand onto its own o1js transaction and sends that', async () => {
    const tx = await build('empty');
    const { signedData } = (await provider.sendTransaction({
      transaction: tx.toJSON(),
      onlySign: true,
      feePayer: { fee: 0.05, memo: 'graft' },
    })) as {
      signedData: string;
    };
    const signed = JSON.parse(signedData).zkappCommand;
    const plainMemo: string = JSON.parse(signedData).feePayer.memo;
    // What the test dapp does: take the wallet's fee payer (and signatures) into the transaction it holds.
    tx.transaction.feePayer.body.publicKey = PublicKey.fromBase58(signed.feePayer.body.publicKey);
    tx.transaction.feePayer.body.fee = UInt64.from(signed.feePayer.body.fee);
    tx.transaction.feePayer.body.nonce = UInt32.from(signed.feePayer.body.nonce);
    tx.transaction.feePayer.authorization = signed.feePayer.authorization;
    tx.transaction.memo = plainMemo; // o1js holds the memo as text
    expect(signed.feePayer.body.fee).toBe('50000000');
    expect(plainMemo).toBe('graft');
    chain.activate();
    const pending = await tx.send();
    expect(pending.status).toBe('pending');
  }, 60_000);

  it.each([
    ['a negative fee', { feePayer: { fee: -0.1 } }, 'feePayer.fee'],
    ['non-numeric fee text', { feePayer: { fee: 'cheap' } }, 'feePayer.fee'],
    ['exponent text "1e8"', { feePayer: { fee: '1e8' } }, 'feePayer.fee'],
    ['a fee above the cap when it is the one chosen (command fee 0)', { feePayer: { fee: 11 } }, 'feePayer.fee'],
    ['a negative nonce', { nonce: -1 }, 'nonce'],
  ])(
    '%s stays 20003 when the command fee is 0 (feePayer.fee is the fee used)',
    async (_name, call, field) => {
      const tx = await build('sender');
      expect(await failure(provider.sendTransaction({ transaction: tx.toJSON(), onlySign: true, ...call }))).toMatchObject({
        code: 20003,
        data: { field },
      });
    },
    60_000,
  );

  it.each([
    ['"1e8" (exponent text)', '1e8'],
    ['-1', -1],
    ['"abc"', 'abc'],
    ['a fee far above the cap', 1_000_000],
  ])(
    'a command fee > 0 makes feePayer.fee %s irrelevant, as in Auro: not validated, the command fee is signed',
    async (_name, fee) => {
      const tx = await build('sender+fee');
      const nonce = await chain.nonceOf(ACCOUNT0);
      // Auro's name for the method, as a window.mina dapp calls it.
      const { signedData } = (await provider.request({
        method: 'mina_sendTransaction',
        params: { transaction: tx.toJSON(), onlySign: true, feePayer: { fee } },
      })) as { signedData: string };
      const signed = JSON.parse(signedData);
      expect(signed.feePayer).toMatchObject({ feePayer: ACCOUNT0, fee: '100000000', nonce: String(nonce) });
      expect(signed.zkappCommand.feePayer.body.fee).toBe('100000000');
    },
    60_000,
  );

  it('mina_sendTransaction broadcasts on the local chain as chain_sendTransaction does', async () => {
    const tx = await build('sender+fee');
    const nonce = (await chain.nonceOf(ACCOUNT0))!;
    const balance = (await chain.balanceOf(ACCOUNT0))!;
    expect(
      await provider.request({ method: 'mina_sendTransaction', params: { transaction: tx.toJSON(), feePayer: { fee: 'abc' } } }),
    ).toMatchObject({
      hash: expect.any(String),
    });
    expect(await chain.nonceOf(ACCOUNT0)).toBe(nonce + 1);
    expect(await chain.balanceOf(ACCOUNT0)).toBe(balance - 100_000_000n);
  }, 60_000);

  it('a command fee above the cap is refused, naming the command field', async () => {
    const tx = await build('sender+fee', 11_000_000_000);
    expect(await failure(provider.sendTransaction({ transaction: tx.toJSON(), onlySign: true }))).toMatchObject({
      code: 20003,
      data: { field: 'transaction.feePayer.body.fee' },
    });
  }, 60_000);

  it('the empty key placeholder is what o1js writes without a sender', async () => {
    const tx = await build('empty');
    expect(JSON.parse(tx.toJSON()).feePayer.body.publicKey).toBe(EMPTY_PUBLIC_KEY);
  }, 60_000);
});
