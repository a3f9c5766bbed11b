/**
 * The software Ledger's INS 03 signature is assembled from mina-signer's own pieces (signer.ts `signUserCommand`),
 * so that it can sign what the app signs and the public Client cannot express. For everything the Client can
 * express it must equal the Client's `signPayment` / `signStakeDelegation`: checked here over generated commands.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeAddress, type DecodedAddress } from '../../src/apdu/address.js';
import { signLegacyTransaction, signUserCommand } from '../../src/emulator/signer.js';
import { addressOf, keyOf, vectors } from '../support/vectors.js';
import { base58check, bytesToUintLE } from '../../src/apdu/bytes.js';

const decoded = (address: string) => decodeAddress(address) as DecodedAddress;
const secretOf = (account: number) => bytesToUintLE(base58check.decode(keyOf(account)).subarray(2));

describe('signUserCommand equals mina-signer Client for the commands the Client can express', () => {
  it('payments and delegations, testnet and mainnet, any amounts, nonces, slots and UTF-8 memos', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('payment' as const, 'delegation' as const),
        fc.constantFrom(0, 1),
        fc.constantFrom(0, 1, 2),
        fc.bigInt({ min: 0n, max: 2n ** 63n }),
        fc.bigInt({ min: 0n, max: 2n ** 63n }),
        fc.nat({ max: 2 ** 32 - 1 }),
        fc.nat({ max: 2 ** 32 - 1 }),
        fc.string({ unit: 'grapheme', maxLength: 8 }).filter((m) => new TextEncoder().encode(m).length <= 32 && !m.includes('\0')),
        async (txType, networkId, to, amount, fee, nonce, validUntil, memo) => {
          const account = vectors.accounts[0]!.account;
          const tx = {
            txType,
            from: addressOf(account),
            to: addressOf(to),
            amount: txType === 'payment' ? amount : 0n,
            fee,
            nonce,
            validUntil,
            memo,
          };
          const expected = signLegacyTransaction(tx, keyOf(account), networkId as 0 | 1);
          const command = { ...tx, source: decoded(tx.from), receiver: decoded(tx.to), memo: new TextEncoder().encode(memo) };
          expect(await signUserCommand(command, secretOf(account), networkId as 0 | 1)).toEqual(expected);
        },
      ),
      { numRuns: 40 },
    );
  });
});
