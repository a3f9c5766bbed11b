/**
 * Broadcasting: the in-process LocalBlockchain really applies the command (Mina's own transaction logic checks the
 * Ledger's signatures), a Mina node over loopback GraphQL (every request validated against the daemon's schema),
 * and a recorded APDU transcript of one full sendTransaction.
 */
import { readFileSync } from 'node:fs';
import { AccountUpdate, Mina, PrivateKey, PublicKey, UInt64 } from 'o1js';
import { beforeAll, describe, expect, it } from 'vitest';
import { signatureToBase58 } from '../../src/apdu.js';

import { createLedgerProvider } from '../../src/index.js';
import { openTranscript } from '../../src/transport/node.js';
import { createLocalChain, type LocalChain } from '../../src/zkapp/local-chain.js';
import { fakeMinaNodes } from '../support/mina-node.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { addressOf } from '../support/vectors.js';
import { berkeleyCommand, verifySigned } from '../support/zkapp.js';
import { quietLedger } from '../support/rig.js';

const ORIGIN = 'http://localhost:5173';
const ACCOUNT0 = addressOf(0);
const BASE58_HASH = /^5J[1-9A-HJ-NP-Za-km-z]{40,60}$/;
/** The released app signs zkApp commands blind; these tests are about broadcasting, not review: the integrator's opt-in. */
const BLIND = { allowUnreviewedBlindSigning: true } as const;

function device() {
  return quietLedger({ blindSigning: true });
}

describe('network "local": an o1js LocalBlockchain applies what the Ledger signed', () => {
  let chain: LocalChain;
  beforeAll(async () => {
    chain = await createLocalChain();
    await chain.fund(ACCOUNT0, 50_000_000_000n);
  }, 120_000);

  async function payment(to: PublicKey, amount: number) {
    chain.activate();
    const tx = await Mina.transaction({ sender: PublicKey.fromBase58(ACCOUNT0), fee: 100_000_000, memo: 'from the Ledger' }, async () => {
      AccountUpdate.fundNewAccount(PublicKey.fromBase58(ACCOUNT0));
      AccountUpdate.createSigned(PublicKey.fromBase58(ACCOUNT0)).send({ to, amount: UInt64.from(amount) });
    });
    return tx.toJSON();
  }

  it('accepts two commands in a row (nonces 0 and 1), moving the funds', async () => {
    const provider = createLedgerProvider({ transport: device(), network: 'local', origin: ORIGIN, localChain: chain, ...BLIND });
    await provider.requestAccounts();
    const nonceBefore = (await chain.nonceOf(ACCOUNT0))!;
    const first = PrivateKey.random().toPublicKey();
    const second = PrivateKey.random().toPublicKey();
    const a = (await provider.sendTransaction({ transaction: await payment(first, 1_000_000_000) })) as { hash: string };
    const b = (await provider.sendTransaction({ transaction: await payment(second, 2_000_000_000) })) as { hash: string };
    expect(a.hash).toMatch(BASE58_HASH);
    expect(b.hash).not.toBe(a.hash);
    expect(await chain.balanceOf(first.toBase58())).toBe(1_000_000_000n);
    expect(await chain.balanceOf(second.toBase58())).toBe(2_000_000_000n);
    expect(await chain.nonceOf(ACCOUNT0)).toBe(nonceBefore + 2);
  });

  it('rejects a tampered fee-payer signature, a tampered update signature, and a mainnet signature', async () => {
    const ledger = device();
    const provider = createLedgerProvider({ transport: ledger, network: 'local', origin: ORIGIN, localChain: chain, ...BLIND });
    await provider.requestAccounts();
    const to = PrivateKey.random().toPublicKey();
    const signed = JSON.parse(
      ((await provider.sendTransaction({ transaction: await payment(to, 1_000_000_000), onlySign: true })) as { signedData: string })
        .signedData,
    ).zkappCommand;
    // A genuine signature of this key, but over another value.
    const { MinaLedgerApp } = await import('../../src/apdu.js');
    const wrong = signatureToBase58(await new MinaLedgerApp(ledger).signFieldElement(0, 12345n, 0));

    const badFeePayer = structuredClone(signed);
    badFeePayer.feePayer.authorization = wrong;
    await expect(chain.send(badFeePayer)).rejects.toThrow(/Invalid signature on fee payer/);

    const badUpdate = structuredClone(signed);
    const i = badUpdate.accountUpdates.findIndex((au: any) => au.authorization.signature);
    badUpdate.accountUpdates[i].authorization.signature = wrong;
    await expect(chain.send(badUpdate)).rejects.toThrow(/Invalid signature on account_update/);

    const mainnet = createLedgerProvider({ transport: device(), network: 'mainnet', origin: ORIGIN, ...BLIND });
    await mainnet.requestAccounts();
    const mainnetSigned = JSON.parse(
      ((await mainnet.sendTransaction({ transaction: await payment(to, 1_000_000_000), onlySign: true })) as { signedData: string })
        .signedData,
    ).zkappCommand;
    await expect(chain.send(mainnetSigned)).rejects.toThrow(/Invalid signature/);

    // The untampered command is accepted.
    await expect(chain.send(signed)).resolves.toMatchObject({ hash: expect.stringMatching(BASE58_HASH) });
  });
});

describe('a Mina node over GraphQL', () => {
  const startNode = fakeMinaNodes();

  it('takes the inferred nonce, broadcasts with sendZkapp, and never reuses a nonce while the node lags', async () => {
    const sent: any[] = [];
    const node = await startNode({
      accountNonce: () => ({ data: { account: { nonce: '4', inferredNonce: '5' } } }),
      sendZkapp: (request) => {
        sent.push(request.variables.zkappCommandInput);
        return {
          data: { sendZkapp: { zkapp: { hash: `5JtxHash${sent.length}aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa`, id: `id${sent.length}` } } },
        };
      },
    });
    const provider = createLedgerProvider({ transport: device(), network: 'devnet', origin: ORIGIN, graphqlUrl: node.url, ...BLIND });
    await provider.requestAccounts();
    const a = await provider.sendTransaction({ transaction: berkeleyCommand() });
    const b = await provider.sendTransaction({ transaction: berkeleyCommand() });
    expect(a).toEqual({ hash: '5JtxHash1aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', paymentId: 'id1' });
    expect(b).toMatchObject({ paymentId: 'id2' });
    expect(sent.map((c) => c.feePayer.body.nonce)).toEqual(['5', '6']);
    // Every request fitted the daemon's schema, operation and variables (the signed command as ZkappCommandInput).
    expect(node.requests.map((r) => [r.operationName, r.valid])).toEqual([
      ['accountNonce', true],
      ['sendZkapp', true],
      ['accountNonce', true],
      ['sendZkapp', true],
    ]);
    expect(verifySigned('berkeley', 'devnet', JSON.stringify({ zkappCommand: sent[0], feePayer: {} }), ACCOUNT0)).toBe(true);
  });

  it("a page's own nonce (2^32 − 1) is broadcast as asked, and never becomes the floor of the host's next nonces", async () => {
    const sent: any[] = [];
    const node = await startNode({
      accountNonce: () => ({ data: { account: { nonce: '5', inferredNonce: '5' } } }),
      sendZkapp: (request) => {
        sent.push(request.variables.zkappCommandInput);
        return {
          data: { sendZkapp: { zkapp: { hash: `5JtxHash${sent.length}aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa`, id: `id${sent.length}` } } },
        };
      },
    });
    const provider = createLedgerProvider({ transport: device(), network: 'devnet', origin: ORIGIN, graphqlUrl: node.url, ...BLIND });
    await provider.requestAccounts();
    await provider.sendTransaction({ transaction: berkeleyCommand(), nonce: 4_294_967_295 });
    await provider.sendTransaction({ transaction: berkeleyCommand() });
    await provider.sendTransaction({ transaction: berkeleyCommand() });
    // The host's own nonces go on from the node's, 5 then 6 (the node lags): the page's far nonce is not theirs.
    expect(sent.map((c) => c.feePayer.body.nonce)).toEqual(['4294967295', '5', '6']);
  });

  it("the node's GraphQL error and an unreachable node become 21001 with the node's message", async () => {
    const node = await startNode({
      accountNonce: () => ({ data: { account: null } }),
      sendZkapp: () => ({ errors: [{ message: 'Insufficient replace fee' }] }),
    });
    const provider = createLedgerProvider({ transport: device(), network: 'devnet', origin: ORIGIN, graphqlUrl: node.url, ...BLIND });
    await provider.requestAccounts();
    expect(await failure(provider.sendTransaction({ transaction: berkeleyCommand() }))).toMatchObject({
      code: 21001,
      message: 'Transaction error.',
      data: { reason: expect.stringMatching(/Insufficient replace fee/) },
    });
    const url = node.url;
    await node.close();
    const offline = createLedgerProvider({ transport: device(), network: 'devnet', origin: ORIGIN, graphqlUrl: url, ...BLIND });
    await offline.requestAccounts();
    expect(await failure(offline.sendTransaction({ transaction: berkeleyCommand() }))).toMatchObject({
      code: 21001,
      data: { reason: expect.stringMatching(/Mina node at/) },
    });
  });
});

describe('recorded APDU transcript of one full sendTransaction', () => {
  it('replays byte for byte and yields a command that verifies', async () => {
    const transport = await openTranscript(readFileSync(new URL('../fixtures/send-transaction.apdu', import.meta.url), 'utf8'));
    const provider = createLedgerProvider({ transport, network: 'devnet', origin: ORIGIN, ...BLIND });
    await provider.requestAccounts();
    const result = (await provider.sendTransaction({ transaction: berkeleyCommand(), onlySign: true })) as { signedData: string };
    transport.ensureDone();
    expect(verifySigned('berkeley', 'devnet', result.signedData, ACCOUNT0)).toBe(true);
  });
});
