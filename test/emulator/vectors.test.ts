import Client from 'mina-signer';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../../src/apdu/bytes.js';
import { signatureFromRawHex, signatureToBase58 } from '../../src/apdu/signature.js';
import type { Review } from '../../src/emulator.js';
import { addressOf, vectors } from '../support/vectors.js';
import { quietLedger } from '../support/rig.js';

function deviceFor(e: (typeof vectors.exchanges)[number], reviews: Review[] = []) {
  return quietLedger({
    blindSigning: e.ins === 'SIGN_FIELD_ELEMENT' && !e.name.includes('blind_signing_disabled'),
    approve: (review) => {
      reviews.push(review);
      return !e.userAction.startsWith('reject');
    },
  });
}

describe('software Ledger reproduces every vector of the Mina app v1.6.0 byte for byte', () => {
  it.each(vectors.exchanges.map((e) => [e.name, e] as const))('%s', async (_name, e) => {
    const reviews: Review[] = [];
    const reply = await deviceFor(e, reviews).exchange(fromHex(e.request));
    expect(toHex(reply)).toBe(e.reply);
    // Only exchanges with a user action show something on the device.
    expect(reviews.length > 0).toBe(e.userAction !== 'none');
  });

  it('derives every account of the vectors', () => {
    const device = quietLedger();
    for (const account of vectors.accounts) expect(device.addressOf(account.account)).toBe(account.address);
  });
});

describe('its signatures verify with mina-signer', () => {
  const testnet = new Client({ network: 'testnet' });

  for (const e of vectors.exchanges.filter((x) => x.signature && x.reply.endsWith('9000'))) {
    it(e.name, async () => {
      const reply = await deviceFor(e).exchange(fromHex(e.request));
      const signature = signatureFromRawHex(toHex(reply.subarray(0, 64)));
      expect(signature).toEqual({ field: e.signature!.field, scalar: e.signature!.scalar });
      expect(signatureToBase58(signature)).toBe(e.signature!.base58);
      const p = e.params;
      const publicKey = addressOf(p.account);
      if (e.ins === 'SIGN_TX') {
        const common = { to: p.to, from: p.from, fee: p.fee, nonce: p.nonce, memo: p.memo, validUntil: p.validUntil };
        const ok =
          p.txType === 'payment'
            ? testnet.verifyPayment({ data: { ...common, amount: p.amount }, signature, publicKey })
            : testnet.verifyStakeDelegation({ data: common, signature, publicKey });
        expect(ok).toBe(true);
      } else if (e.ins === 'SIGN_MSG') {
        expect(testnet.verifyMessage({ data: `Message : ${p.message}`, signature, publicKey })).toBe(true);
        // …and not the message without the prefix the app adds.
        expect(testnet.verifyMessage({ data: p.message, signature, publicKey })).toBe(false);
      } else {
        const ok = testnet.verifyFields({ data: [BigInt(p.field)], signature: signatureToBase58(signature), publicKey });
        expect(ok).toBe(true);
      }
    });
  }
});
