/**
 * The in-page mode (the provider and its IndexedDB store in the dapp's own page), attacked by a third-party script of
 * the same page: it wraps `SubtleCrypto.prototype.decrypt` and `importKey`, then asks for a presentation that fits
 * none of the stored credentials. The store takes WebCrypto when its module loads, so a
 * wrapper installed afterwards sees no plaintext and no raw key. (A script that runs before the library is not
 * stopped: docs/security.md, "In-page mode"; the wallet page is the answer to that.) The page is simulated: Node's
 * WebCrypto, fake-indexeddb.
 */
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IndexedDbCredentialStore } from '../../src/credentials/indexeddb-store.js';
import { createLedgerProvider, credentialManager } from '../../src/index.js';
import { credentialIssuer } from '../support/credentials.js';
import { ownProviderFailure as failure } from '../support/provider-failure.js';
import { ORIGIN, quietLedger } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

type Subtle = Record<'decrypt' | 'importKey', (...args: unknown[]) => Promise<unknown>>;
const proto = Object.getPrototypeOf(globalThis.crypto.subtle) as Subtle;
const originals = { decrypt: proto.decrypt, importKey: proto.importKey };

/** The third-party script: copies every plaintext `decrypt` returns and every raw key `importKey` is given. */
function wrapWebCrypto(): { plaintexts: string[]; rawKeys: Uint8Array[] } {
  const seen = { plaintexts: [] as string[], rawKeys: [] as Uint8Array[] };
  proto.decrypt = async function (this: unknown, ...args: unknown[]) {
    const plain = (await originals.decrypt.apply(this, args)) as ArrayBuffer;
    seen.plaintexts.push(new TextDecoder().decode(plain));
    return plain;
  };
  proto.importKey = function (this: unknown, ...args: unknown[]) {
    if (args[0] === 'raw') seen.rawKeys.push(Uint8Array.from(args[1] as Uint8Array));
    return originals.importKey.apply(this, args);
  };
  return seen;
}

afterEach(() => {
  Object.assign(proto, originals);
});

describe('in-page mode: a script that wraps WebCrypto after the library loaded', () => {
  it('sees no plaintext and no raw key: neither while a credential is stored, nor for a request that fits nothing, nor while the host lists', async () => {
    const issuer = await credentialIssuer();
    const seen = wrapWebCrypto();
    const chain = createLedgerProvider({
      transport: quietLedger({ extensions: true, approve: () => true }),
      network: 'devnet',
      origin: ORIGIN,
      credentialStore: new IndexedDbCredentialStore('in-page', { indexedDB: new IDBFactory() }),
      confirmPresentation: () => true, // the holder approves: the store is read, and nothing fits
    });
    await chain.requestAccounts();
    await chain.storePrivateCredential({ credential: issuer.issue(addressOf(0), 'Alice Example') });
    // The script's request: no context, over a credential type nothing stored has.
    const { attestations: A, o1js } = issuer.A;
    const spec = A.PresentationSpec({ credential: A.Credential.Native({ something: o1js.Field }) }, ({ credential }) => ({
      assert: [A.Operation.equals(A.Operation.property(credential, 'something'), A.Operation.constant(o1js.Field(1)))],
    }));
    const request = JSON.parse(A.PresentationRequest.toJSON(A.PresentationRequest.noContext(spec, {})));
    expect(await failure(chain.requestPresentation({ presentation: { presentationRequest: request } }))).toMatchObject({
      code: 1002,
      data: { reason: 'the presentation request was declined' },
    });
    // The store did decrypt (the host's list), with the WebCrypto it took at load.
    const [entry] = await credentialManager(chain).list();
    expect(JSON.parse(entry!.credential).credential.data.nationality.value).toBe('Alice Example');
    expect(seen).toEqual({ plaintexts: [], rawKeys: [] });
  }, 120_000);

  it('the wrapper would see them if the store looked WebCrypto up at each use: a copy of the module loaded after the wrap gives it the raw key and the plaintext', async () => {
    const seen = wrapWebCrypto();
    vi.resetModules();
    const { StoreKeys } = await import('../../src/credentials/store-crypto.js');
    const keys = await StoreKeys.derive(addressOf(0), new Uint8Array(32).fill(7), StoreKeys.newSalt());
    const text = JSON.stringify({ passportNo: 'P1234567' });
    await keys.open(await keys.seal(keys.idOf(text), text, new Date().toISOString()));
    expect(seen.rawKeys).toHaveLength(1);
    expect(seen.plaintexts.some((p) => p.includes('P1234567'))).toBe(true);
  });
});
