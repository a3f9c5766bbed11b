/**
 * The credential store of chain_storePrivateCredential, in Node: FileCredentialStore's contract (add, list, remove,
 * refusals), the encryption it shares with the browser store (test/credentials/indexeddb.browser.test.ts runs that
 * one in Chromium), its salt and re-keying. The file system under it (atomic writes, locks, other processes, links
 * and FIFOs): file-store.test.ts.
 */
import { cp, mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { base64 } from '@scure/base';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { FileCredentialStore, MAX_CREDENTIAL_BYTES, StoreKeys, type CredentialFile } from '../../src/credentials-node.js';
import { canonicalCredential } from '../../src/credentials/store.js';
import { tempDirs } from '../support/rig.js';
import { ALICE, BOB, OTHER_SECRET, SECRET, TEMPLATE, credential, expectKind } from '../support/store-fixtures.js';

const tempDir = tempDirs('store');
/** Each test's own directory, its store in `dir` below it. */
let root: string;
let dir: string;
let store: FileCredentialStore;

beforeEach(() => {
  root = tempDir();
  dir = join(root, 'credentials');
  store = new FileCredentialStore(dir);
});

const readStoreFile = async (account = ALICE) => JSON.parse(await readFile(store.fileOf(account), 'utf8')) as CredentialFile;
const writeStoreFile = (file: CredentialFile, account = ALICE) => writeFile(store.fileOf(account), JSON.stringify(file));

describe('FileCredentialStore: add, list, remove', () => {
  it('round trip: entries come back as stored, oldest first, and removal by id', async () => {
    const one = await store.add(ALICE, SECRET, credential(1));
    const two = await store.add(ALICE, SECRET, credential(2));
    expect(one).toEqual({ id: expect.stringMatching(/^[0-9a-f]{64}$/), duplicate: false });
    expect(two.duplicate).toBe(false);
    expect(two.id).not.toBe(one.id);

    const listed = await store.list(ALICE, SECRET);
    expect(listed.map((e) => [e.id, e.credential])).toEqual([
      [one.id, credential(1)],
      [two.id, credential(2)],
    ]);
    for (const e of listed) expect(new Date(e.storedAt).toISOString()).toBe(e.storedAt);

    expect(await store.remove(ALICE, SECRET, one.id)).toBe(true);
    expect((await store.list(ALICE, SECRET)).map((e) => e.id)).toEqual([two.id]);
    expect(await store.remove(ALICE, SECRET, one.id)).toBe(false);
    expect(await store.remove(ALICE, SECRET, two.id)).toBe(true);
    expect(await store.list(ALICE, SECRET)).toEqual([]);
    // The file stays, holding the header: the key check still applies to it.
    await expectKind(store.list(ALICE, OTHER_SECRET), 'wrong-key');
  });

  it('an account without a store lists nothing, and removing from it creates nothing', async () => {
    expect(await store.list(ALICE, SECRET)).toEqual([]);
    expect(await store.remove(ALICE, SECRET, 'a'.repeat(64))).toBe(false);
    await expect(stat(dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('the same credential is stored once: same text, other metadata, other key order or spacing', async () => {
    const first = await store.add(ALICE, SECRET, credential(7));
    expect(await store.add(ALICE, SECRET, credential(7))).toEqual({ id: first.id, duplicate: true });

    const parsed = JSON.parse(credential(7)) as Record<string, unknown>;
    const withMetadata = JSON.stringify({ ...parsed, metadata: { name: 'passport', issuedBy: 'somewhere' } });
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(parsed).reverse()), null, 3);
    const otherMetadata = JSON.stringify({ metadata: { name: 'other' }, ...parsed });
    for (const text of [withMetadata, reordered, otherMetadata]) {
      expect(await store.add(ALICE, SECRET, text)).toEqual({ id: first.id, duplicate: true });
    }
    const entries = await store.list(ALICE, SECRET);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.credential).toBe(credential(7)); // the text first stored, not a later duplicate
    // Metadata nested deeper than the top level is part of the credential.
    const nested = JSON.stringify({ ...parsed, credential: { ...(parsed.credential as object), metadata: 1 } });
    expect((await store.add(ALICE, SECRET, nested)).duplicate).toBe(false);
  });

  it('a duplicate writes nothing', async () => {
    await store.add(ALICE, SECRET, credential(1));
    const before = await readFile(store.fileOf(ALICE));
    const { mtimeMs } = await stat(store.fileOf(ALICE));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await store.add(ALICE, SECRET, credential(1))).duplicate).toBe(true);
    expect(await readFile(store.fileOf(ALICE))).toEqual(before);
    expect((await stat(store.fileOf(ALICE))).mtimeMs).toBe(mtimeMs);
  });

  it('ids are keyed: HMAC of the canonical credential under the id key, not a plain hash', async () => {
    const { id } = await store.add(ALICE, SECRET, credential(3));
    const canonical = canonicalCredential(credential(3));
    expect(canonical).not.toContain('metadata');
    expect(id).not.toBe(Buffer.from(sha256(new TextEncoder().encode(canonical))).toString('hex'));
    // Another secret gives another id for the same credential.
    const other = new FileCredentialStore(join(root, 'other'));
    expect((await other.add(ALICE, OTHER_SECRET, credential(3))).id).not.toBe(id);
    // Recomputed from the documented derivation (docs/credentials.md): HKDF-SHA256(secret, no salt, info, 32).
    const { hkdf } = await import('@noble/hashes/hkdf.js');
    const idKey = hkdf(sha256, SECRET, undefined, new TextEncoder().encode('chain-ledger credential store v1: id'), 32);
    expect(Buffer.from(hmac(sha256, idKey, new TextEncoder().encode(canonical))).toString('hex')).toBe(id);
  });

  it('accounts are separate: one file each, nothing shared', async () => {
    const a = await store.add(ALICE, SECRET, credential(1));
    expect(await store.list(BOB, SECRET)).toEqual([]);
    const b = await store.add(BOB, SECRET, credential(1));
    expect(b).toEqual({ id: a.id, duplicate: false }); // the same credential under the same secret, another account
    expect(await store.remove(BOB, SECRET, b.id)).toBe(true);
    expect(await store.list(BOB, SECRET)).toEqual([]);
    expect((await store.list(ALICE, SECRET)).map((e) => e.id)).toEqual([a.id]);
    expect((await readdir(dir)).sort()).toEqual([`${ALICE}.json`, `${BOB}.json`]);
    expect((await readStoreFile(ALICE)).check).not.toBe((await readStoreFile(BOB)).check);
  });

  it('the directory is created 0o700 and the files 0o600; no lock or temporary file remains', async () => {
    await store.add(ALICE, SECRET, credential(1));
    await store.add(ALICE, SECRET, credential(2));
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(store.fileOf(ALICE))).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual([`${ALICE}.json`]);
  });
});

describe('FileCredentialStore: refusals', () => {
  it('invalid input → kind "invalid", and nothing is touched', async () => {
    await expectKind(store.add('B62qnotanaddress', SECRET, credential(1)), 'invalid');
    await expectKind(store.add(ALICE.slice(0, -1) + (ALICE.endsWith('s') ? 't' : 's'), SECRET, credential(1)), 'invalid');
    await expectKind(store.list(ALICE, SECRET.subarray(0, 31)), 'invalid');
    await expectKind(store.list(ALICE, Array.from(SECRET) as unknown as Uint8Array), 'invalid');
    await expectKind(store.add(ALICE, SECRET, 'not json'), 'invalid');
    await expectKind(store.add(ALICE, SECRET, '[1, 2]'), 'invalid');
    await expectKind(store.add(ALICE, SECRET, 'null'), 'invalid');
    await expectKind(store.add(ALICE, SECRET, { a: 1 } as unknown as string), 'invalid');
    await expectKind(store.add(ALICE, SECRET, JSON.stringify({ big: 'x'.repeat(MAX_CREDENTIAL_BYTES) })), 'invalid');
    await expectKind(store.add(ALICE, SECRET, `${'{"a":'.repeat(100)}1${'}'.repeat(100)}`), 'invalid');
    await expectKind(store.remove(ALICE, SECRET, 'not-an-id'), 'invalid');
    await expectKind(store.remove(ALICE, SECRET, 'A'.repeat(64)), 'invalid');
    await expect(stat(dir)).rejects.toMatchObject({ code: 'ENOENT' });
    // Exactly at the limit is accepted.
    const padding = MAX_CREDENTIAL_BYTES - JSON.stringify({ big: '' }).length;
    expect((await store.add(ALICE, SECRET, JSON.stringify({ big: 'x'.repeat(padding) }))).duplicate).toBe(false);
  });

  it('a wrong secret → "wrong-key" for list, add and remove, and the file is not changed', async () => {
    const { id } = await store.add(ALICE, SECRET, credential(1));
    const before = await readFile(store.fileOf(ALICE));
    const e = await expectKind(store.list(ALICE, OTHER_SECRET), 'wrong-key');
    expect(e.message).toContain(ALICE);
    await expectKind(store.add(ALICE, OTHER_SECRET, credential(2)), 'wrong-key');
    await expectKind(store.remove(ALICE, OTHER_SECRET, id), 'wrong-key');
    expect(await readFile(store.fileOf(ALICE))).toEqual(before);
    expect(await store.list(ALICE, SECRET)).toHaveLength(1);
  });

  it('a flipped byte in an entry → "corrupt" (AES-GCM authentication), and add refuses to write on top of it', async () => {
    await store.add(ALICE, SECRET, credential(1));
    await store.add(ALICE, SECRET, credential(2));
    const file = await readStoreFile();
    const data = base64.decode(file.entries[1]!.data);
    data[5]! ^= 0x01;
    file.entries[1]!.data = base64.encode(data);
    await writeStoreFile(file);
    const before = await readFile(store.fileOf(ALICE));
    const e = await expectKind(store.list(ALICE, SECRET), 'corrupt');
    expect(e.message).toContain(file.entries[1]!.id);
    await expectKind(store.add(ALICE, SECRET, credential(3)), 'corrupt');
    await expectKind(store.remove(ALICE, SECRET, file.entries[0]!.id), 'corrupt');
    expect(await readFile(store.fileOf(ALICE))).toEqual(before);
  });

  it('a damaged IV, tag, date or id → "corrupt"', async () => {
    await store.add(ALICE, SECRET, credential(1));
    const good = await readStoreFile();
    const variants: ((f: CredentialFile) => void)[] = [
      (f) => (f.entries[0]!.iv = base64.encode(base64.decode(f.entries[0]!.iv).map((b, i) => (i === 0 ? b ^ 0x80 : b)))),
      (f) => (f.entries[0]!.data = base64.encode(base64.decode(f.entries[0]!.data).slice(0, -1))),
      (f) => (f.entries[0]!.storedAt = '2020-01-01T00:00:00.000Z'),
      (f) => (f.entries[0]!.id = f.entries[0]!.id.replace(/^./, (c) => (c === '0' ? '1' : '0'))),
    ];
    for (const damage of variants) {
      const file = structuredClone(good);
      damage(file);
      await writeStoreFile(file);
      await expectKind(store.list(ALICE, SECRET), 'corrupt');
    }
  });

  it('a garbage or truncated file → "corrupt", never a crash or an empty list', async () => {
    await store.add(ALICE, SECRET, credential(1));
    const text = await readFile(store.fileOf(ALICE), 'utf8');
    const good = JSON.parse(text) as CredentialFile;
    const garbage = [
      '',
      '\u0000\u0001garbage',
      text.slice(0, text.length / 2),
      'null',
      '[]',
      '{}',
      JSON.stringify({ ...good, format: 'something-else' }),
      JSON.stringify({ ...good, version: 3 }),
      JSON.stringify({ ...good, version: 1 }), // format 1 has no salt nor mac
      JSON.stringify({ ...good, salt: 'AAAA' }),
      JSON.stringify({ ...good, mac: 'zz' }),
      JSON.stringify({ ...good, account: BOB }),
      JSON.stringify({ ...good, check: 'zz' }),
      JSON.stringify({ ...good, entries: {} }),
      JSON.stringify({ ...good, entries: [null] }),
      JSON.stringify({ ...good, entries: [good.entries[0], good.entries[0]] }),
      JSON.stringify({ ...good, entries: [{ ...good.entries[0], iv: 'AAAA' }] }),
      JSON.stringify({ ...good, entries: [{ ...good.entries[0], data: 'not base64!' }] }),
      JSON.stringify({ ...good, entries: [{ ...good.entries[0], storedAt: 'yesterday' }] }),
      JSON.stringify({ ...good, entries: [{ ...good.entries[0], extra: 1 }] }),
      JSON.stringify({ ...good, extra: 1 }),
    ];
    for (const content of garbage) {
      await writeFile(store.fileOf(ALICE), content);
      await expectKind(store.list(ALICE, SECRET), 'corrupt');
      await expectKind(store.add(ALICE, SECRET, credential(2)), 'corrupt');
      expect(await readFile(store.fileOf(ALICE), 'utf8')).toBe(content);
    }
  });

  it('an unreadable store → "io"', async () => {
    await store.add(ALICE, SECRET, credential(1));
    await rm(store.fileOf(ALICE));
    await mkdir(store.fileOf(ALICE)); // a directory where the file should be
    await expectKind(store.list(ALICE, SECRET), 'io');
  });
});

describe('FileCredentialStore: encryption at rest', () => {
  const DISTINCTIVE = 'Zebediah Quillfeather-Okonkwo 4471';
  const secretCredential = JSON.stringify({
    ...TEMPLATE,
    credential: { ...TEMPLATE.credential, data: { name: { _type: 'String', value: DISTINCTIVE } } },
  });

  it('the file holds no plaintext of the credential', async () => {
    const { id } = await store.add(ALICE, SECRET, secretCredential);
    const raw = await readFile(store.fileOf(ALICE));
    const text = raw.toString('latin1');
    for (const needle of [DISTINCTIVE, 'Zebediah', 'issuerSignature', TEMPLATE.witness.issuerSignature.value.r, BOB, '"_type"']) {
      expect(text).not.toContain(needle);
      expect(text).not.toContain(Buffer.from(needle).toString('base64').slice(0, 12));
      expect(text).not.toContain(Buffer.from(needle).toString('hex'));
    }
    // What is in clear: the header, the id, the IV, the ciphertext (credential + 16-byte tag) and the date.
    const file = await readStoreFile();
    expect(Object.keys(file).sort()).toEqual(['account', 'check', 'entries', 'format', 'mac', 'salt', 'version']);
    expect(file.entries[0]!.id).toBe(id);
    // Padded to a 1 KiB bucket: the exact length of the credential is not in the file.
    const length = new TextEncoder().encode(secretCredential).length;
    expect(base64.decode(file.entries[0]!.data)).toHaveLength(Math.ceil(length / 1024) * 1024 + 16);
    expect((await store.list(ALICE, SECRET))[0]!.credential).toContain(DISTINCTIVE);
  });

  it('a copied store is useless with another secret, even with the key check replaced', async () => {
    await store.add(ALICE, SECRET, secretCredential);
    const copy = new FileCredentialStore(join(root, 'copy'));
    await cp(dir, copy.directory, { recursive: true });
    await expectKind(copy.list(ALICE, OTHER_SECRET), 'wrong-key');
    // An attacker who swaps in the check value of their own secret still cannot decrypt (or forge) an entry.
    const forged = JSON.parse(await readFile(copy.fileOf(ALICE), 'utf8')) as CredentialFile;
    forged.check = (await StoreKeys.derive(ALICE, OTHER_SECRET, forged.salt)).check;
    await writeFile(copy.fileOf(ALICE), JSON.stringify(forged));
    await expectKind(copy.list(ALICE, OTHER_SECRET), 'corrupt');
    // The original, untouched, still opens with the original secret.
    expect((await store.list(ALICE, SECRET))[0]!.credential).toBe(secretCredential);
  });

  it('two encryptions of the same credential differ (random IV)', async () => {
    const a = new FileCredentialStore(join(root, 'a'));
    const b = new FileCredentialStore(join(root, 'b'));
    await a.add(ALICE, SECRET, credential(1));
    await b.add(ALICE, SECRET, credential(1));
    const [fa, fb] = [JSON.parse(await readFile(a.fileOf(ALICE), 'utf8')), JSON.parse(await readFile(b.fileOf(ALICE), 'utf8'))];
    expect(fa.entries[0].id).toBe(fb.entries[0].id);
    expect(fa.entries[0].iv).not.toBe(fb.entries[0].iv);
    expect(fa.entries[0].data).not.toBe(fb.entries[0].data);
  });

  it('an entry moved from another account, even under the same secret, is detected', async () => {
    const { id } = await store.add(BOB, SECRET, credential(9));
    await store.add(ALICE, SECRET, credential(1));
    const alice = await readStoreFile(ALICE);
    const bob = await readStoreFile(BOB);
    expect(alice.check).not.toBe(bob.check);
    alice.entries.push(bob.entries[0]!);
    await writeStoreFile(alice, ALICE);
    const e = await expectKind(store.list(ALICE, SECRET), 'corrupt');
    expect(e.message).toMatch(/entry list/); // the list MAC sees the extra entry first
    // With the list MAC recomputed (an attacker with the secret could), the entry itself is still bound to Bob.
    alice.mac = (await StoreKeys.derive(ALICE, SECRET, alice.salt)).entriesMac(alice.entries);
    await writeStoreFile(alice, ALICE);
    expect((await expectKind(store.list(ALICE, SECRET), 'corrupt')).message).toContain(id);
    // A whole file copied under another account's name is refused too (its header names its account).
    await writeFile(store.fileOf(ALICE), JSON.stringify(bob));
    await expectKind(store.list(ALICE, SECRET), 'corrupt');
  });
});

describe('FileCredentialStore: salt, re-keying, entry list, padding', () => {
  const V1 = fileURLToPath(new URL('../fixtures/credential-store-v1.json', import.meta.url));
  /** The fixture's credentials: written in format 1 (keys from HKDF without a salt) for ALICE under SECRET. */
  const v1Text = (n: number) =>
    JSON.stringify({
      version: 'v0',
      witness: { type: 'unsigned' },
      metadata: { n },
      credential: { owner: { _type: 'PublicKey', value: ALICE }, data: { serial: { _type: 'Field', value: String(n) } } },
    });

  it('a format-1 store is still read, and re-keyed under a fresh salt on its next write (ids unchanged)', async () => {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(store.fileOf(ALICE), await readFile(V1));
    const before = await store.list(ALICE, SECRET);
    expect(before.map((e) => e.credential)).toEqual([v1Text(1), v1Text(2)]);
    const old = await readStoreFile(ALICE);
    expect(old.version).toBe(1);
    await store.add(ALICE, SECRET, credential(3));
    const file = await readStoreFile(ALICE);
    expect(file.version).toBe(2);
    expect(base64.decode(file.salt!)).toHaveLength(32);
    expect(file.check).not.toBe(old.check);
    expect(file.entries.slice(0, 2).map((e) => [e.id, e.storedAt])).toEqual(old.entries.map((e) => [e.id, e.storedAt]));
    expect(file.entries[0]!.data).not.toBe(old.entries[0]!.data);
    expect((await store.list(ALICE, SECRET)).map((e) => e.credential)).toEqual([v1Text(1), v1Text(2), credential(3)]);
    // The format-1 keys (HKDF without a salt) no longer open it.
    const legacy = await StoreKeys.derive(ALICE, SECRET);
    expect(() => legacy.verifyCheck(file.check)).toThrow(/another key/);
  });

  it('rekey(): a new salt, every entry re-encrypted, same ids; the old derived keys no longer open it', async () => {
    await store.add(ALICE, SECRET, credential(1));
    await store.add(ALICE, SECRET, credential(2));
    const before = await readStoreFile(ALICE);
    expect(await store.rekey(ALICE, SECRET)).toBe(true);
    const after = await readStoreFile(ALICE);
    expect(after.salt).not.toBe(before.salt);
    expect(after.entries.map((e) => e.id)).toEqual(before.entries.map((e) => e.id));
    const oldKeys = await StoreKeys.derive(ALICE, SECRET, before.salt);
    expect(() => oldKeys.verifyCheck(after.check)).toThrow(/another key/);
    await expect(oldKeys.open(after.entries[0]!)).rejects.toMatchObject({ kind: 'corrupt' });
    expect((await store.list(ALICE, SECRET)).map((e) => e.credential)).toEqual([credential(1), credential(2)]);
    expect(await store.rekey(BOB, SECRET)).toBe(false);
  });

  it('a dropped, duplicated or reordered entry is detected (the entry list is authenticated)', async () => {
    for (const n of [1, 2, 3]) await store.add(ALICE, SECRET, credential(n));
    const good = await readStoreFile(ALICE);
    for (const entries of [good.entries.slice(1), [good.entries[1], good.entries[0], good.entries[2]], good.entries.slice(0, 2)]) {
      await writeStoreFile({ ...good, entries: entries as CredentialFile['entries'] }, ALICE);
      expect((await expectKind(store.list(ALICE, SECRET), 'corrupt')).message).toMatch(/entry list/);
      await expectKind(store.add(ALICE, SECRET, credential(4)), 'corrupt');
    }
  });

  it('two credentials whose private value differs in length give ciphertexts of the same length', async () => {
    await store.add(ALICE, SECRET, credential(1));
    await store.add(ALICE, SECRET, credential(1234567));
    const [a, b] = (await readStoreFile(ALICE)).entries;
    expect(base64.decode(a!.data).length).toBe(base64.decode(b!.data).length);
  });
});
