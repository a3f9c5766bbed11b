/**
 * chain_storePrivateCredential and chain_requestPresentation through the provider, with the software Ledger, a
 * file store in a temporary directory, and real mina-attestations credentials and proofs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { shownValue } from '../../src/emulator/review.js';
import { FileCredentialStore } from '../../src/credentials-node.js';
import { credentialManager } from '../../src/index.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { credentialIssuer, issuerHash, presentationSpec, verifiedOutput, type Issuer } from '../support/credentials.js';
import { addressOf } from '../support/vectors.js';
import { ORIGIN, connectedWith, outcome, tempDirs } from '../support/rig.js';
import { deepValue } from '../support/odd-values.js';

const tempDir = tempDirs('credentials');
/** The store directory most tests share; a test that needs an empty store of its own makes one with `tempDir()`. */
const dir = tempDir();
let issuer: Issuer;

beforeAll(async () => {
  issuer = await credentialIssuer();
}, 60_000);

/**
 * A connected provider (extensions on) with a file store in `dir`; `requests('e0a5')` counts its SIGN_TEXT requests
 * (the store approval names the site), `requests('e0a6')` its STORE_KEY requests, `requests('e005')` its INS 05 ones.
 */
const connected = connectedWith({ extensions: true }, () => ({ credentialStore: new FileCredentialStore(dir) }));

describe('chain_storePrivateCredential', () => {
  it('validates, asks for approval on the device, stores encrypted, and recognises duplicates', async () => {
    const { chain, reviews, requests } = await connected();
    const credential = issuer.issue(addressOf(0));
    const result = await chain.storePrivateCredential({ credential });
    expect(JSON.parse(result.credential)).toEqual(JSON.parse(credential));
    // First store in this connection: the approval (SIGN_TEXT), then the store key (STORE_KEY); the second: the approval.
    expect([requests('e0a5'), requests('e0a6'), requests('e005')]).toEqual([1, 1, 0]);
    const approval = reviews.find((r) => r.kind === 'text' && r.screens.some((s) => s.text?.startsWith('Store credential')));
    expect(approval!.screens.find((s) => s.title === 'Message')!.text).toMatch(/^Store credential [0-9a-f]{8} from B62q\w{4}\.\.\w{4}$/);
    expect(approval!.screens.find((s) => s.title === 'Requested by')!.text).toBe(ORIGIN); // the site asking, on the device
    await chain.storePrivateCredential({ credential: JSON.parse(credential) }); // the same, as an object
    expect([requests('e0a5'), requests('e0a6')]).toEqual([2, 1]);
    const listed = await credentialManager(chain).list();
    expect(listed).toHaveLength(1);
    expect(listed[0]!.credential).toBe(result.credential);
    // Encrypted at rest: the data is nowhere in the files.
    for (const file of readdirSync(dir)) expect(readFileSync(join(dir, file), 'utf8')).not.toContain('Austria');
  });

  it('survives a restart (a new store object and a new connection re-derive the key on the device) and is unreadable without it', async () => {
    const first = await connected();
    const credential = issuer.issue(addressOf(0), 'Chile');
    await first.chain.storePrivateCredential({ credential });
    const again = await connected({}, { credentialStore: new FileCredentialStore(dir) });
    const ids = (await credentialManager(again.chain).list()).map((e) => JSON.parse(e.credential).credential.data.nationality);
    expect(ids).toContainEqual(expect.objectContaining({ value: 'Chile' }));
    expect([again.requests('e0a6'), again.requests('e0a5')]).toEqual([1, 0]); // only the store key, re-derived by the device
    // The file alone, with any other secret: refused as the wrong key, not read.
    await expect(new FileCredentialStore(dir).list(addressOf(0), crypto.getRandomValues(new Uint8Array(32)))).rejects.toMatchObject({
      name: 'CredentialStoreError',
      kind: 'wrong-key',
    });
  });

  it("refuses a credential of another owner (existing wallets don't check)", async () => {
    const { chain, requests } = await connected();
    expect(await failure(chain.storePrivateCredential({ credential: issuer.issue(addressOf(1)) }))).toMatchObject({
      code: 20003,
      data: { field: 'credential.credential.owner', reason: expect.stringMatching(/belongs to B62q/) },
    });
    expect([requests('e005'), requests('e0a5'), requests('e0a6')]).toEqual([0, 0, 0]);
  });

  it.each([
    ['a wrong version', (c: any) => (c.version = 'v1'), 'credential.version'],
    ['an unknown witness type', (c: any) => (c.witness = { type: 'simple' }), 'credential.witness'],
    ['no owner', (c: any) => delete c.credential.owner, 'credential.credential'],
  ])('refuses %s by the schema, naming the field', async (_name, mutate, field) => {
    const { chain } = await connected();
    const credential = JSON.parse(issuer.issue(addressOf(0)));
    mutate(credential);
    const error = await failure(chain.storePrivateCredential({ credential }));
    expect(error.code).toBe(20003);
    expect(error.data!.field!.startsWith(field)).toBe(true);
  });

  it('refuses a forged issuer signature', async () => {
    const { chain } = await connected();
    const credential = JSON.parse(issuer.issue(addressOf(0)));
    credential.credential.data.age.value = '99';
    expect(await failure(chain.storePrivateCredential({ credential }))).toMatchObject({
      code: 20003,
      data: { field: 'credential', reason: expect.stringMatching(/does not validate/) },
    });
  });

  it('a credential over the size limit (100 kB of metadata, outside the issuer signature) → 20003 before the approval is asked', async () => {
    const { ledger, chain } = await connected();
    const big = { ...JSON.parse(issuer.issue(addressOf(0))), metadata: 'a'.repeat(100_000) };
    const r = await outcome(ledger, () => chain.storePrivateCredential({ credential: big }));
    expect(r.error).toMatchObject({ name: 'ProviderError', code: 20003 });
    expect(r.sent).toEqual([]);
  }, 60_000);

  // mina-attestations' schemas take time quadratic in the nesting depth: the bound must refuse this before them.
  it('credential metadata nested 400 levels is refused with 20003 before the device (and without the quadratic work)', async () => {
    const { ledger, chain } = await connected();
    const deep = { ...JSON.parse(issuer.issue(addressOf(0))), metadata: deepValue(400, 'array') };
    const r = await outcome(ledger, () => chain.storePrivateCredential({ credential: deep }));
    if (r.error) expect(r.error).toMatchObject({ name: 'ProviderError', code: 20003 });
    if (r.error) expect(r.sent).toEqual([]);
  }, 30_000);

  it('a credential of more than 2 000 values → 20003 naming the bound, nothing sent', async () => {
    const { ledger, chain } = await connected();
    const wide = JSON.parse(issuer.issue(addressOf(0))) as { credential: { data: Record<string, unknown> } };
    wide.credential.data.padding = Object.fromEntries([...Array(2_000)].map((_, i) => [`k${i}`, i]));
    const r = await outcome(ledger, () => chain.storePrivateCredential({ credential: wide }));
    expect(r.error).toMatchObject({ name: 'ProviderError', code: 20003, data: { field: 'credential', reason: 'more than 2000 values' } });
    expect(r.sent).toEqual([]);
  }, 30_000);

  it('a rejection on the device → 1002, nothing stored', async () => {
    const own = tempDir();
    const { chain } = await connected({ approve: (r) => r.kind === 'address' }, { credentialStore: new FileCredentialStore(own) });
    expect(await failure(chain.storePrivateCredential({ credential: issuer.issue(addressOf(0)) }))).toMatchObject({ code: 1002 });
    expect(readdirSync(own).filter((f) => f.endsWith('.json'))).toEqual([]);
  });

  it('the store-key text is never signed for a page', async () => {
    const { chain } = await connected();
    expect(await failure(chain.signMessage({ message: 'chain-ledger credential store key v1' }))).toMatchObject({
      code: 20003,
      data: { field: 'message', reason: expect.stringMatching(/reserved/) },
    });
  });
});

describe('chain_requestPresentation', () => {
  /** A request of `type`: one native credential whose expiry is after the claimed creation time; output: its issuer. */
  function request(type: 'https' | 'no-context' | 'zk-app' = 'https') {
    const { UInt64 } = issuer.A.o1js;
    const { PresentationRequest } = issuer.A.attestations;
    const spec = presentationSpec(issuer.A, issuer.Nationality);
    const claims = { createdAt: UInt64.from(Date.now()) };
    const req =
      type === 'https'
        ? PresentationRequest.https(spec, claims, { action: 'login' })
        : type === 'no-context'
          ? PresentationRequest.noContext(spec, claims)
          : PresentationRequest.zkApp(spec, claims, {
              publicKey: issuer.A.o1js.PrivateKey.random().toPublicKey(),
              methodName: 'verifyPresentation',
              network: 'devnet',
            });
    return { req, json: JSON.parse(PresentationRequest.toJSON(req)) };
  }

  it('no stored credential fits: the holder approved, is told why, and the page gets the refusal; nothing signed', async () => {
    // Account 2 has nothing stored (the store is per account).
    const told: string[] = [];
    const { chain, reviews } = await connected({}, { accountIndex: 2, onPresentationNotSatisfied: ({ reason }) => void told.push(reason) });
    expect(await failure(chain.requestPresentation({ presentation: { presentationRequest: request('https').json } }))).toEqual(
      expect.objectContaining({ code: 1002, data: { reason: 'the presentation request was declined' } }),
    );
    expect(told).toEqual(['no stored credential fits the input "credential"']);
    expect(reviews.some((r) => r.kind === 'sign-fields')).toBe(false);
  }, 120_000);

  it('a presentation that waits for the device while a credential is stored on a new connection uses the store key that call derived: the device is asked for it once', async () => {
    let storeOnScreen!: () => void;
    const onScreen = new Promise<void>((resolve) => (storeOnScreen = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const { chain, requests } = await connected(
      {
        approve: async (review) => {
          if (review.screens.some((screen) => screen.text?.startsWith('Store credential'))) {
            storeOnScreen();
            await released;
          }
          return true;
        },
      },
      { accountIndex: 3 },
    );
    const stored = chain.storePrivateCredential({ credential: issuer.issue(addressOf(3)) });
    await onScreen; // the store call holds the device, its approval on screen
    // A request for a credential type nothing stored has (a string of at most 20 bytes): it fails once it has read
    // the store, for which it needs the store key, while the store call still holds the device.
    const { PresentationRequest, DynamicString } = issuer.A.attestations;
    const spec = presentationSpec(issuer.A, DynamicString({ maxLength: 20 }));
    const json = JSON.parse(
      PresentationRequest.toJSON(
        PresentationRequest.https(spec, { createdAt: issuer.A.o1js.UInt64.from(Date.now()) }, { action: 'login' }),
      ),
    );
    const presented = failure(chain.requestPresentation({ presentation: { presentationRequest: json } }));
    await new Promise((resolve) => setTimeout(resolve, 3000)); // its host checks done, it waits for the device
    release();
    await stored;
    expect(await presented).toMatchObject({ code: 1002, data: { reason: 'the presentation request was declined' } });
    expect([requests('e0a5'), requests('e0a6')]).toEqual([1, 1]); // the store call's approval and one store key
  }, 120_000);

  it('a malformed request → 20003 naming the path', async () => {
    const { chain } = await connected();
    const { json } = request('https');
    json.type = 'ftp';
    expect(await failure(chain.requestPresentation({ presentation: { presentationRequest: json } }))).toMatchObject({
      code: 20003,
      data: { field: expect.stringMatching(/^presentation\.presentationRequest/) },
    });
  });

  it('the real app without the extension → 20006 naming SIGN_FIELDS', async () => {
    const { chain } = await connected({ extensions: false });
    expect(await failure(chain.requestPresentation({ presentation: { presentationRequest: request('https').json } }))).toMatchObject({
      code: 20006,
      data: { reason: expect.stringMatching(/SIGN_FIELDS/) },
    });
  });

  it('proves with the owner signature made on the device, which shows the verifier (this origin) and computes the context itself; with several fitting credentials selectCredentials decides; the verifier accepts it for this origin only', async () => {
    // One proof (tens of seconds) checked several ways: the clear review, the choice among two credentials, the verifier.
    const own = tempDir();
    const otherIssuer = issuer.A.o1js.PrivateKey.random();
    const asked: string[][] = [];
    const { chain, reviews } = await connected(
      {},
      {
        credentialStore: new FileCredentialStore(own),
        selectCredentials: ({ inputs }) => {
          asked.push(inputs.credential!.map((e) => e.id));
          // Choose the one from the other issuer.
          const chosen = inputs.credential!.find(
            (e) => JSON.parse(e.credential).witness.issuer.value === otherIssuer.toPublicKey().toBase58(),
          );
          return { credential: chosen!.id };
        },
      },
    );
    await chain.storePrivateCredential({ credential: issuer.issue(addressOf(0)) });
    const { UInt64, PublicKey } = issuer.A.o1js;
    const data = { nationality: issuer.Nationality.from('Peru'), age: UInt64.from(40), expiresAt: UInt64.from(Date.now() + 1e10) };
    const second = issuer.A.attestations.Credential.sign(otherIssuer, { owner: PublicKey.fromBase58(addressOf(0)), data });
    await chain.storePrivateCredential({ credential: issuer.A.attestations.Credential.toJSON(second) });
    const { req, json } = request('https');
    // While the presentation compiles and proves (in a worker thread), this event loop stays free: its timers fire.
    const INTERVAL = 100;
    let ticks = 0;
    let last = performance.now();
    let longestGap = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks++;
    }, INTERVAL);
    const started = performance.now();
    const { presentation } = await chain
      .requestPresentation({ presentation: { presentationRequest: json } })
      .finally(() => clearInterval(timer));
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThan(2_000); // a proof: seconds of work that a blocked loop would not share
    expect(ticks).toBeGreaterThanOrEqual(Math.floor((elapsed / INTERVAL) * 0.5));
    expect(longestGap).toBeLessThan(5_000);
    // The device showed who the verifier is and what is asked, and signed a context it computed from that.
    const review = reviews.filter((r) => r.kind === 'presentation').at(-1)!;
    expect(shownValue(review, 'Verifier')).toBe(ORIGIN);
    expect(shownValue(review, 'Action')).toBe('login');
    expect(shownValue(review, 'Reveals (per host)')).toBe('the issuer of credential');
    expect(reviews.some((r) => r.kind === 'sign-fields')).toBe(false); // nothing blind
    expect(asked).toHaveLength(1);
    expect(asked[0]).toHaveLength(2);
    expect(await verifiedOutput(issuer.A, req, presentation, ORIGIN)).toBe(issuerHash(issuer.A, otherIssuer));
    const { Presentation } = issuer.A.attestations;
    await expect(
      Presentation.verify(await Presentation.compile(req), Presentation.fromJSON(presentation), {
        verifierIdentity: 'https://evil.example',
      }),
    ).rejects.toThrow();
    // …and deleting the chosen one (host side) leaves the other one.
    const manager = credentialManager(chain);
    const entries = await manager.list();
    const peru = entries.find((e) => e.credential.includes('Peru'))!;
    expect(await manager.delete(peru.id)).toBe(true);
    expect(await manager.delete(peru.id)).toBe(false);
    expect((await manager.list()).map((e) => e.id)).toEqual(entries.filter((e) => e !== peru).map((e) => e.id));
    expect(await failure(manager.delete('nope'))).toMatchObject({ code: 20003, data: { field: 'id' } });
  }, 300_000);

  it.each(['no-context', 'zk-app'] as const)(
    'a %s request works too, and the device says who can verify it; request() with positional params as the mina-attestations web demo sends them',
    async (type) => {
      const { chain, reviews } = await connected();
      const credential = issuer.issue(addressOf(0));
      // The mina-attestations web demo: request({ params: [credential] }) and request({ params: [{ presentationRequest }] }),
      // read as Auro reads params[0]; an object credential, and the object form inside the array, the same way.
      const stored = (await chain.request({ method: 'chain_storePrivateCredential', params: [credential] })) as { credential: string };
      expect(JSON.parse(stored.credential)).toEqual(JSON.parse(credential));
      await chain.request({ method: 'chain_storePrivateCredential', params: [JSON.parse(credential)] });
      await chain.request({ method: 'chain_storePrivateCredential', params: [{ credential }] });
      const { req, json } = request(type);
      const { presentation } =
        type === 'zk-app'
          ? ((await chain.request({ method: 'chain_requestPresentation', params: [{ presentationRequest: json }] })) as {
              presentation: string;
            })
          : await chain.requestPresentation({ presentation: { presentationRequest: json } });
      const review = reviews.filter((r) => r.kind === 'presentation').at(-1)!;
      if (type === 'no-context') {
        // Bound to no verifier: anyone who gets it can present it again. The device says so, loudly.
        expect(review.screens.map((s) => s.lines)).toContainEqual(['WARNING', 'No verifier']);
        expect(review.screens.map((s) => s.lines)).toContainEqual(['Anyone can reuse', 'this presentation']);
      } else {
        expect(shownValue(review, 'zkApp')).toBe(
          (json.inputContext as { verifierIdentity: { publicKey: { value: string } } }).verifierIdentity.publicKey.value,
        );
        expect(shownValue(review, 'zkApp network')).toBe('devnet');
        expect(shownValue(review, 'Action')).toBe('verifyPresentation');
      }
      const { Presentation } = issuer.A.attestations;
      const output = (await Presentation.verify(
        await Presentation.compile(req),
        Presentation.fromJSON(presentation),
        undefined as never,
      )) as {
        toString(): string;
      };
      expect(output.toString()).toBe(
        issuer.A.o1js.Poseidon.hashWithPrefix('mina-cred:v0:native', issuer.key.toPublicKey().toFields()).toString(),
      );
    },
    300_000,
  );

  it('a rejection on the device → 1002; a device of extension 1.0 signs blind (SIGN_FIELDS), so only with Blind signing on', async () => {
    const own = tempDir();
    const { chain, ledger } = await connected({}, { credentialStore: new FileCredentialStore(own) });
    await chain.storePrivateCredential({ credential: issuer.issue(addressOf(0)) });
    ledger.approve = (r) => r.kind !== 'presentation';
    expect(await failure(chain.requestPresentation({ presentation: { presentationRequest: request('https').json } }))).toMatchObject({
      code: 1002,
      data: { statusWord: '0x6985' },
    });
    // Extension 1.0, Blind signing off: the device refuses SIGN_FIELDS with its notice (nothing signed).
    const blind = await connected({ extensions: '1.0', blindSigning: false }, { credentialStore: new FileCredentialStore(own) });
    await blind.chain.storePrivateCredential({ credential: issuer.issue(addressOf(0)) });
    expect(await failure(blind.chain.requestPresentation({ presentation: { presentationRequest: request('https').json } }))).toMatchObject({
      code: 1002,
    });
    expect(blind.reviews.at(-1)).toMatchObject({ kind: 'blind-signing-disabled', approvable: false });
  }, 120_000);
});
