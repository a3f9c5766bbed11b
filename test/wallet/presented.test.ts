/**
 * What the wallet's record keeps to tie its Credentials screen to the sites (src/wallet/history.ts,
 * src/wallet/presented.ts): a stored credential's approval code (the 8 hex digits the device showed, checked here
 * against node:crypto's sha256 of the credential's text), and the store ids the holder chose for a presentation,
 * attributed only while one presentation call runs. Through the wallet host, a site's stored credential is recorded
 * with the code the device showed, which names the entry the wallet's own credential manager lists.
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { connectWallet } from '../../src/connect.js';
import { FileCredentialStore } from '../../src/credentials-node.js';
import { createLedgerProvider, credentialManager } from '../../src/index.js';
import type { Review } from '../../src/emulator/review.js';
import type { PresentationReview } from '../../src/presentations/context.js';
import { activityEntry, memoryHistory } from '../../src/wallet/history.js';
import { WalletHost } from '../../src/wallet/host.js';
import { PresentedCredentials } from '../../src/wallet/presented.js';
import { memorySites } from '../../src/wallet/sites.js';
import { credentialIssuer, type Issuer } from '../support/credentials.js';
import { FakeWindow, settle } from '../support/fake-windows.js';
import { quietLedger, tempDirs, within } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

const ID_A = 'a'.repeat(64);
const ID_B = 'b'.repeat(64);
const review = {} as PresentationReview;
const call = { origin: 'https://issuer.example', network: 'mina:devnet' };
const tempDir = tempDirs('presented');

let issuer: Issuer;
beforeAll(async () => {
  issuer = await credentialIssuer();
}, 120_000);

describe("the record's credential links", () => {
  it("a stored credential's entry carries the device's approval code: sha256 of its text, 8 hex digits", () => {
    const text = '{"version":"v0","credential":{"data":{"age":{"_type":"UInt64","value":"30"}}}}';
    const entry = activityEntry({ ...call, method: 'mina_storePrivateCredential', params: {}, result: { credential: text } });
    expect(entry?.credentialCode).toBe(createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 8));
    // Never the credential itself.
    expect(JSON.stringify(entry)).not.toContain('UInt64');
  });

  it("a presentation's entry carries the chosen ids; other entries never do; the record keeps them", () => {
    const history = memoryHistory();
    const presented = activityEntry({ ...call, method: 'chain_requestPresentation', params: {}, result: {}, credentialIds: [ID_A] });
    const signed = activityEntry({ ...call, method: 'chain_signMessage', params: { message: 'hi' }, result: {}, credentialIds: [ID_A] });
    expect(presented?.credentialIds).toEqual([ID_A]);
    expect(signed?.credentialIds).toBeUndefined();
    history.add(presented!);
    expect(history.list()[0]?.credentialIds).toEqual([ID_A]);
    expect(() => history.add({ ...presented!, credentialIds: ['not an id'] })).toThrow();
  });

  it("one presentation at a time: the holder's chosen ids; a default answer or two calls at once: none", async () => {
    const presented = new PresentedCredentials();
    const confirm = presented.wrap(() => ({ age: ID_A }))!;
    presented.begin();
    expect(await confirm(review)).toEqual({ age: ID_A });
    expect(presented.end()).toEqual([ID_A]);

    const byDefault = presented.wrap(() => true)!;
    presented.begin();
    await byDefault(review);
    expect(presented.end()).toBeUndefined();

    const second = presented.wrap(() => ({ age: ID_B }))!;
    presented.begin();
    presented.begin(); // another presentation of the site while the first runs
    await confirm(review);
    await second(review);
    expect(presented.end()).toBeUndefined();
    expect(presented.end()).toBeUndefined();
    // Both over: the next single call is attributed again.
    presented.begin();
    await second(review);
    expect(presented.end()).toEqual([ID_B]);
    expect(presented.wrap(undefined)).toBeUndefined();
  });

  it("a site stores a credential through the wallet host: the record's code is the device's, and finds the entry the wallet's own manager lists", async () => {
    const dir = tempDir();
    const reviews: Review[] = [];
    const ledger = quietLedger({ extensions: true, approve: (review) => (reviews.push(review), true) });
    const history = memoryHistory();
    const dapp = new FakeWindow(call.origin);
    dapp.onOpen = (url) => {
      const wallet = new FakeWindow(new URL(url).origin);
      const host = new WalletHost({
        provider: { network: 'devnet', credentialStore: new FileCredentialStore(dir) },
        sites: memorySites(),
        history,
      });
      host.useDevice(ledger);
      setTimeout(() => host.attach(wallet));
      return wallet;
    };
    const chain = connectWallet({ walletUrl: 'https://wallet.example/', window: dapp });
    await within(chain.requestAccounts(), 'requestAccounts');
    const { credential } = await within(chain.storePrivateCredential({ credential: issuer.issue(addressOf(0)) }), 'store', 120_000);
    await settle();
    const shown = reviews.flatMap((r) => r.screens).find((s) => s.text?.startsWith('Store credential'))!.text!;
    const [entry] = history.list();
    expect(entry).toMatchObject({ kind: 'credential', origin: call.origin, credentialCode: shown.split(' ')[2] });
    // The wallet's own provider (its Credentials screen) lists the same store: the code names its entry.
    const own = createLedgerProvider({
      transport: ledger,
      network: 'devnet',
      origin: 'https://wallet.example',
      credentialStore: new FileCredentialStore(dir),
    });
    await own.requestAccounts();
    const [stored] = await credentialManager(own).list();
    expect(stored!.credential).toBe(credential);
    expect(createHash('sha256').update(stored!.credential, 'utf8').digest('hex').slice(0, 8)).toBe(entry!.credentialCode);
  }, 180_000);
});
