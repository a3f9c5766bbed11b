/**
 * signMessage never signs the text that keys the credential store (src/messages/sign-message.ts,
 * src/apdu/store-key.ts): in any spelling that contains it, on every app version, including the 1.4.0–1.4.4 apps that
 * sign the text raw (so "Message : <store-key text>" is the store-key signature of a 1.4.5+ app).
 */
import { describe, expect, it } from 'vitest';
import { providerFailure as failure } from '../support/provider-failure.js';
import { storeRig, tempDirs } from '../support/rig.js';
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
