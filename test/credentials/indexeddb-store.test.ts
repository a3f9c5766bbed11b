/**
 * IndexedDbCredentialStore in Node, on fake-indexeddb: what can be checked without a browser (its re-keying).
 * test/credentials/indexeddb.browser.test.ts runs the same store in Chromium.
 */
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { IndexedDbCredentialStore } from '../../src/credentials/indexeddb-store.js';
import { addressOf } from '../support/vectors.js';

const ACCOUNT0 = addressOf(0);

describe('IndexedDbCredentialStore.rekey', () => {
  it('a fresh salt, the entries re-encrypted, ids kept; the old salt no longer in use; a wrong secret writes nothing', async () => {
    const factory = new IDBFactory();
    const store = new IndexedDbCredentialStore('rekey-test', { indexedDB: factory });
    const SECRET = Uint8Array.from({ length: 32 }, (_, i) => 255 - i);
    const header = async () => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = factory.open('rekey-test');
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      try {
        return await new Promise<{ salt: string; check: string; mac: string }>((resolve, reject) => {
          const get = db.transaction('headers').objectStore('headers').get(ACCOUNT0);
          get.onsuccess = () => resolve(get.result);
          get.onerror = () => reject(get.error);
        });
      } finally {
        db.close();
      }
    };
    expect(await store.rekey(ACCOUNT0, SECRET)).toBe(false);
    const a = await store.add(ACCOUNT0, SECRET, JSON.stringify({ name: 'a' }));
    const b = await store.add(ACCOUNT0, SECRET, JSON.stringify({ name: 'b' }));
    const listed = await store.list(ACCOUNT0, SECRET);
    const first = await header();
    expect(await store.rekey(ACCOUNT0, SECRET)).toBe(true);
    const second = await header();
    expect(second.salt).not.toBe(first.salt);
    expect(second.check).not.toBe(first.check);
    expect(second.mac).not.toBe(first.mac);
    expect(await store.list(ACCOUNT0, SECRET)).toEqual(listed);
    expect(listed.map((e) => e.id).sort()).toEqual([a.id, b.id].sort());
    await expect(
      store.rekey(
        ACCOUNT0,
        Uint8Array.from({ length: 32 }, () => 7),
      ),
    ).rejects.toMatchObject({ kind: 'wrong-key' });
    expect((await header()).salt).toBe(second.salt); // a wrong secret writes nothing
    await store.close();
  });
});
