/**
 * signMessage never signs the text that keys the credential store (src/messages/sign-message.ts,
 * src/apdu/store-key.ts): in any spelling that contains it, on every app version, including the 1.4.0–1.4.4 apps that
 * sign the text raw (so "Message : <store-key text>" is the store-key signature of a 1.4.5+ app). verifyMessage
 * accepts no text that signing refuses (a NUL), and its work is bounded before mina-signer's quadratic hash.
 */
import Client from 'mina-signer';
import { describe, expect, it, vi } from 'vitest';
import { minaSigners } from '../../src/upstream/mina-signers.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { connectedProvider, storeRig, tempDirs } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

const tempDir = tempDirs('sign-message');

describe('the store-key text is reserved', () => {
  const spellings = [
    'chain-ledger credential store key v1',
    'Message : chain-ledger credential store key v1', // what 1.4.0/1.4.1/1.4.4 sign raw = the 1.4.5+ store-key text
    'Message : Chain-Ledger Credential Store key v1',
    'x chain-ledger credential store',
  ];
  it.each(['1.4.0', '1.4.1', '1.4.2', '1.4.4', '1.4.5', '1.6.0'])(
    'app %s: every spelling is refused (20003) before reaching the device',
    async (version) => {
      const { chain, ledger } = storeRig(tempDir(), { version });
      await chain.requestAccounts();
      const before = ledger.exchanges.length;
      for (const message of spellings) {
        expect(await failure(chain.signMessage({ message }))).toMatchObject({ code: 20003, data: { field: 'message' } });
      }
      expect(ledger.exchanges.length).toBe(before);
      expect((await chain.signMessage({ message: 'Message : hello' })).publicKey).toBe(addressOf(0)); // the rest still works
    },
  );
});

describe('verification accepts only what signing signs', () => {
  it('verifyMessage and verifyJsonMessage answer false for data with a NUL, though mina-signer accepts the signature of the text without it', async () => {
    const { chain } = await connectedProvider({ extensions: true });
    const signed = await chain.signMessage({ message: 'pay 1 MINA' });
    const json = await chain.signJsonMessage({ message: [{ label: 'pay', value: '1 MINA' }] });
    const testnet = new Client({ network: 'testnet' });
    for (const [verify, { data, publicKey, signature }] of [
      [chain.verifyMessage.bind(chain), signed],
      [chain.verifyJsonMessage.bind(chain), json],
    ] as const) {
      expect(await verify({ data, publicKey, signature })).toBe(true);
      for (const padded of [`${data}\u0000`, `${data}\u0000\u0000\u0000`, `\u0000${data}`, `${data.slice(0, 3)}\u0000${data.slice(3)}`]) {
        expect(await verify({ data: padded, publicKey, signature })).toBe(false);
      }
      // Why: the legacy string hash ignores trailing zero bits, so mina-signer itself says true for the padded text.
      expect(testnet.verifyMessage({ data: `${data}\u0000`, publicKey, signature })).toBe(true);
    }
  });
});

describe('verification work is bounded before it starts', () => {
  it('verifyMessage and verifyJsonMessage refuse data over 16,384 characters (the longest text a Ledger signs) (20003 naming data) before mina-signer hashes it in quadratic time', async () => {
    const { chain } = await connectedProvider({ extensions: true });
    const signed = await chain.signMessage({ message: 'a'.repeat(1024) });
    expect(await chain.verifyMessage(signed)).toBe(true);
    const signers = await minaSigners();
    const hashed = vi.spyOn(signers.testnet, 'verifyMessage');
    for (const data of ['a'.repeat(16385), 'a'.repeat(4 * 1024 * 1024)]) {
      for (const verify of [chain.verifyMessage.bind(chain), chain.verifyJsonMessage.bind(chain)]) {
        expect(await failure(verify({ ...signed, data }))).toMatchObject({ code: 20003, data: { field: 'data' } });
      }
    }
    expect(hashed).not.toHaveBeenCalled();
    expect(await chain.verifyMessage({ ...signed, data: 'a'.repeat(16384) })).toBe(false); // at the bound: verified
    expect(hashed).toHaveBeenCalledTimes(1);
  });
});
