/**
 * Network id 1 (mainnet). The vectors are testnet only; mainnet expectations come from mina-signer itself: the
 * device's signature must equal mina-signer's on a mainnet client and verify there, and must not verify on testnet.
 */
import Client from 'mina-signer';
import { describe, expect, it } from 'vitest';
import { MinaLedgerApp, signatureToBase58 } from '../../src/apdu.js';

import { verifyFieldElement } from '../support/mina-signer-internals.js';
import { addressOf, keyOf, txOf, vectors } from '../support/vectors.js';
import { quietLedger } from '../support/rig.js';

const mainnet = new Client({ network: 'mainnet' });
const testnet = new Client({ network: 'testnet' });
const app = new MinaLedgerApp(quietLedger({ blindSigning: true }));

describe('mainnet signatures', () => {
  for (const e of vectors.exchanges.filter((x) => x.ins === 'SIGN_TX' && x.result.statusWord === '9000')) {
    it(`${e.name} on mainnet`, async () => {
      const p = e.params;
      const tx = txOf(e, 1);
      const signature = await app.signTransaction(tx);
      const common = { to: p.to, from: p.from, fee: p.fee, nonce: p.nonce, memo: p.memo, validUntil: p.validUntil };
      const expected =
        p.txType === 'payment'
          ? mainnet.signPayment({ ...common, amount: p.amount }, keyOf(p.account)).signature
          : mainnet.signStakeDelegation(common, keyOf(p.account)).signature;
      expect(signature).toEqual(expected);
      expect(signature).not.toEqual(e.signature && { field: e.signature.field, scalar: e.signature.scalar });
      const verify = (c: Client) =>
        p.txType === 'payment'
          ? c.verifyPayment({ data: { ...common, amount: p.amount }, signature, publicKey: p.from })
          : c.verifyStakeDelegation({ data: common, signature, publicKey: p.from });
      expect(verify(mainnet)).toBe(true);
      expect(verify(testnet)).toBe(false);
    });
  }

  it('a message on mainnet', async () => {
    const signature = await app.signMessage(0, 'Hello Mina!', 1);
    expect({ field: signature.field, scalar: signature.scalar }).toEqual(mainnet.signMessage('Message : Hello Mina!', keyOf(0)).signature);
    expect(mainnet.verifyMessage({ data: 'Message : Hello Mina!', signature, publicKey: addressOf(0) })).toBe(true);
    expect(testnet.verifyMessage({ data: 'Message : Hello Mina!', signature, publicKey: addressOf(0) })).toBe(false);
  });

  it('a field element on mainnet verifies with mainnet prefixes only', async () => {
    const field = 12345678901234567890n;
    const devnetSig = await app.signFieldElement(0, field, 0);
    const mainnetSig = await app.signFieldElement(0, field, 1);
    expect(mainnetSig).not.toEqual(devnetSig);
    // Client.verifyFields is hard-wired to the devnet prefix: it accepts the devnet signature and refuses the mainnet one.
    const verifyDevnet = (sig: { field: string; scalar: string }) =>
      testnet.verifyFields({ data: [field], signature: signatureToBase58(sig), publicKey: addressOf(0) });
    expect(verifyDevnet(devnetSig)).toBe(true);
    expect(verifyDevnet(mainnetSig)).toBe(false);
    expect(verifyFieldElement(mainnetSig, field, addressOf(0), 'mainnet')).toBe(true);
    expect(verifyFieldElement(mainnetSig, field + 1n, addressOf(0), 'mainnet')).toBe(false);
    expect(verifyFieldElement(devnetSig, field, addressOf(0), 'mainnet')).toBe(false);
  });
});
