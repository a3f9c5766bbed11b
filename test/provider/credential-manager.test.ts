/**
 * Stored credentials belong to the host, never to a page (src/provider/credential-manager.ts): pages have no method to
 * list, delete or re-key them, through `request()` or on the provider object; the host's `credentialManager` lists,
 * deletes only after an approval on the device, and re-keys through the device.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../src/credentials-node.js';
import { createLedgerProvider, credentialManager, wrapProvider } from '../../src/index.js';
import { credentialIssuer, type Issuer } from '../support/credentials.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { ORIGIN, quietLedger, storeRig, tempDirs } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

const ACCOUNT0 = addressOf(0);
const tempDir = tempDirs('credential-manager');

let issuer: Issuer;
beforeAll(async () => {
  issuer = await credentialIssuer();
}, 120_000);

describe('stored credentials never reach a page', () => {
  it('chain_listCredentials and chain_deleteCredential are unknown to request(): 20006, nothing reaches the device', async () => {
    const { chain, ledger } = storeRig(tempDir());
    await chain.requestAccounts();
    await chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0) });
    const before = ledger.exchanges.length;
    for (const method of ['chain_listCredentials', 'chain_deleteCredential', 'mina_listCredentials']) {
      expect(await failure(chain.request({ method, params: { id: '0'.repeat(64) } } as never))).toMatchObject({ code: 20006 });
    }
    expect(ledger.exchanges.length).toBe(before);
    // …and the page-facing objects have no such method.
    for (const name of ['listCredentials', 'deleteCredential']) {
      expect(name in chain).toBe(false);
      expect(name in wrapProvider({}, { transport: ledger, network: 'devnet', origin: ORIGIN, whenUnsupported: 'refuse' })).toBe(false);
    }
  }, 120_000);

  it('the host-side manager lists; deleting needs an approval on the device ("Delete credential <hash>"), a rejection deletes nothing', async () => {
    const { chain, reviews, reject } = storeRig(tempDir());
    await chain.requestAccounts();
    await chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0, 'Chile') });
    const storeApproval = reviews.flatMap((r) => r.screens).find((s) => s.text?.startsWith('Store credential'))!.text!;
    const manager = credentialManager(chain);
    const [entry] = await manager.list();
    reject();
    const seen = reviews.length;
    expect(await failure(manager.delete(entry!.id))).toMatchObject({ code: 1002 });
    const asked = reviews
      .slice(seen)
      .flatMap((r) => r.screens)
      .find((s) => s.title === 'Message')!.text!;
    // The hash the user approved when storing is the one shown when deleting.
    expect(asked).toBe(`Delete credential ${storeApproval.split(' ')[2]}`);
    expect(await manager.list()).toHaveLength(1);
    reject(false);
    expect(await manager.delete(entry!.id)).toBe(true);
    expect(await manager.list()).toEqual([]);
    const prompts = reviews.length;
    expect(await manager.delete(entry!.id)).toBe(false); // absent: nothing asked
    expect(reviews.length).toBe(prompts);
  }, 120_000);
});

describe('credentialManager(provider).rekey()', () => {
  it('rekey() re-derives the secret through the device and re-encrypts under a fresh salt; ids and contents stay', async () => {
    const dir = tempDir();
    const { chain, reviews } = storeRig(dir);
    const store = new FileCredentialStore(dir);
    const manager = credentialManager(chain);
    await chain.requestAccounts();
    expect(await manager.rekey()).toBe(false); // no store yet: nothing written
    await chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0) });
    const [entry] = await manager.list();
    const before = JSON.parse(readFileSync(store.fileOf(ACCOUNT0), 'utf8'));
    expect(await manager.rekey()).toBe(true);
    const after = JSON.parse(readFileSync(store.fileOf(ACCOUNT0), 'utf8'));
    expect(after.salt).not.toBe(before.salt);
    expect(after.check).not.toBe(before.check);
    expect(after.entries[0].id).toBe(before.entries[0].id);
    expect(after.entries[0].data).not.toBe(before.entries[0].data);
    expect(await manager.list()).toEqual([entry]);
    // A new connection (the same device re-derives the same secret, asked on the device again) opens it.
    const again = storeRig(dir);
    await again.chain.requestAccounts();
    expect(await credentialManager(again.chain).list()).toEqual([entry]);
    expect(again.reviews.map((r) => r.kind)).toContain('store-key'); // STORE_KEY (extension 1.3), asked again
    expect(reviews.length).toBeGreaterThan(0);
  }, 120_000);

  it('a store without rekey → 20006 before the device is asked', async () => {
    const ledger = quietLedger({ extensions: true });
    const inner = new FileCredentialStore(tempDir());
    const chain = createLedgerProvider({
      transport: ledger,
      network: 'devnet',
      origin: ORIGIN,
      credentialStore: { list: inner.list.bind(inner), add: inner.add.bind(inner), remove: inner.remove.bind(inner) },
    });
    await chain.requestAccounts();
    const before = ledger.exchanges.length;
    expect(await failure(credentialManager(chain).rekey())).toMatchObject({ code: 20006 });
    expect(ledger.exchanges.length).toBe(before);
  });
});
