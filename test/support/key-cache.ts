/**
 * The wallet page's prover-key cache (its IndexedDB), as the e2e test reads, seeds and damages it: the page's own
 * record format (src/presentations/indexeddb-key-cache.ts), and Node's o1js cache, which the global setup filled by
 * compiling the same circuit (test/support/o1js-warm-up.ts), as the source of byte-identical entries.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { Page } from 'playwright-core';
import { KEY_CACHE_DB } from '../../src/presentations/indexeddb-key-cache.js';

/** o1js's file cache in Node (~/.cache/o1js), filled by the vitest global setup (test/support/o1js-warm-up.ts). */
export const NODE_O1JS_CACHE = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'o1js');
/** Where the wallet's test server serves the files of Node's o1js cache, for seeding the key cache (seedKeyCache). */
export const NODE_CACHE_ROUTE = '/__node-o1js-cache/';

/** The server route of NODE_CACHE_ROUTE: a path there → the file of Node's cache (null: refused). */
export function nodeCacheRoute(path: string): string | null | undefined {
  if (!path.startsWith(NODE_CACHE_ROUTE)) return undefined;
  const name = path.slice(NODE_CACHE_ROUTE.length);
  return /^[a-z0-9-]+(\.header)?$/.test(name) ? join(NODE_O1JS_CACHE, name) : null;
}

/** The key cache's IndexedDB, as the page sees it: per entry its meta record and whether its bytes match the digest. */
export async function keyCacheContents(
  page: Page,
): Promise<{ persistentId: string; uniqueId: string; size: number; digest: string; intact: boolean }[]> {
  return page.evaluate(async (name) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open(name);
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    // (No helper functions in here: the page gets this function's source, without the test runner's helpers.)
    const [metas, records] = (await Promise.all(
      ['meta', 'data'].map(
        (store) =>
          new Promise<unknown[]>((resolve, reject) => {
            const r = db.transaction(store, 'readonly').objectStore(store).getAll();
            r.onsuccess = () => resolve(r.result);
            r.onerror = () => reject(r.error);
          }),
      ),
    )) as [
      { persistentId: string; uniqueId: string; size: number; digest: string }[],
      { persistentId: string; bytes: Uint8Array<ArrayBuffer> }[],
    ];
    const data = new Map(records.map((d) => [d.persistentId, d.bytes]));
    db.close();
    return Promise.all(
      metas.map(async (m) => {
        const bytes = data.get(m.persistentId);
        const digest =
          bytes === undefined
            ? ''
            : Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)), (x) => x.toString(16).padStart(2, '0')).join('');
        const intact = bytes !== undefined && bytes.length === m.size && digest === m.digest;
        return { persistentId: m.persistentId, uniqueId: m.uniqueId, size: m.size, digest: m.digest, intact };
      }),
    );
  }, KEY_CACHE_DB);
}

/**
 * Information for seeding a page's cache from Node's (not an assertion): whether o1js's file cache in Node
 * (~/.cache/o1js, filled by the global setup or earlier runs, native backend) holds the same entries, byte for byte.
 */
export async function compareWithNodeCache(entries: { persistentId: string; uniqueId: string; digest: string }[]): Promise<string> {
  const dir = NODE_O1JS_CACHE;
  const outcomes = await Promise.all(
    entries.map(async (e) => {
      try {
        const [bytes, header] = await Promise.all([
          readFile(join(dir, e.persistentId)),
          readFile(join(dir, `${e.persistentId}.header`), 'utf8'),
        ]);
        const same = createHash('sha256').update(bytes).digest('hex') === e.digest;
        return `${e.persistentId}: ${same ? 'same bytes' : 'different bytes'}, ${header.trim() === e.uniqueId ? 'same' : 'different'} uniqueId`;
      } catch {
        return `${e.persistentId}: not in Node's cache`;
      }
    }),
  );
  return outcomes.join('; ');
}

/**
 * mina-attestations' name for a request's circuit: `credential-` + 16 hex of Keccak-256 over the serialized spec (as
 * the request JSON carries it; build/src/program.js).
 */
export function circuitOf(requestJson: string): string {
  const spec = JSON.stringify((JSON.parse(requestJson) as { spec: unknown }).spec);
  return `credential-${Buffer.from(keccak_256(new TextEncoder().encode(spec)))
    .toString('hex')
    .slice(0, 16)}`;
}

/** The entries of a one-credential presentation circuit in o1js's cache (shared ones first). */
export const circuitEntries = (circuit: string) => [
  'srs-fp-65536',
  'srs-fq-32768',
  'lagrange-basis-fp-8192',
  `step-pk-${circuit}-run`,
  `step-vk-${circuit}-run`,
  `wrap-pk-${circuit}`,
  `wrap-vk-${circuit}`,
];

/**
 * Seeds the page's key cache (its IndexedDB, in the cache's own record format) with entries of Node's o1js cache,
 * which the global setup compiled for the same circuit: they are byte-identical to what the page would compute
 * (compareWithNodeCache), so the page's first compile loads keys instead of spending minutes generating them. The
 * page fetches the files itself (no 150 MB through the DevTools protocol) and checks nothing: the cache does, on load.
 */
export async function seedKeyCache(page: Page, ids: string[]): Promise<void> {
  await page.evaluate(
    async ([name, route, ids]) => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open(name as string, 1);
        open.onupgradeneeded = () => {
          for (const store of ['meta', 'data']) {
            if (!open.result.objectStoreNames.contains(store)) open.result.createObjectStore(store, { keyPath: 'persistentId' });
          }
        };
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      for (const id of ids as string[]) {
        const fetched = (path: string) =>
          fetch(path).then((r) => {
            if (!r.ok) throw new Error(`${path}: ${r.status} (not in Node's o1js cache: the global setup compiles this circuit)`);
            return r;
          });
        const [bytes, uniqueId] = await Promise.all([
          fetched(`${route}${id}`).then(async (r) => new Uint8Array(await r.arrayBuffer())),
          fetched(`${route}${id}.header`).then((r) => r.text()),
        ]);
        const digest = Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)), (x) =>
          x.toString(16).padStart(2, '0'),
        ).join('');
        const group = /^(srs|lagrange-basis)-/.test(id) ? 'shared' : /credential-[0-9a-f]{16}/.exec(id)![0];
        const dataType = /-pk-/.test(id) ? 'bytes' : 'string';
        await new Promise<void>((resolve, reject) => {
          const tx = db.transaction(['meta', 'data'], 'readwrite');
          tx.objectStore('data').put({ persistentId: id, bytes });
          tx.objectStore('meta').put({
            persistentId: id,
            uniqueId: uniqueId.trim(),
            dataType,
            group,
            size: bytes.length,
            digest,
            lastUsed: Date.now(),
          });
          tx.oncomplete = () => resolve();
          tx.onerror = () => reject(tx.error);
        });
      }
      db.close();
    },
    [KEY_CACHE_DB, NODE_CACHE_ROUTE, ids],
  );
}

/** Flips one byte of a stored entry's bytes in the page's IndexedDB (its digest stays): a damaged cache entry. */
export async function tamperKeyCacheEntry(page: Page, persistentId: string): Promise<void> {
  await page.evaluate(
    async ([name, id]) => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open(name!);
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      await new Promise<void>((resolve, reject) => {
        const tx = db.transaction('data', 'readwrite');
        const store = tx.objectStore('data');
        const get = store.get(id!);
        get.onsuccess = () => {
          const record = get.result as { persistentId: string; bytes: Uint8Array };
          const bytes = new Uint8Array(record.bytes);
          bytes[bytes.length >> 1]! ^= 0x01;
          store.put({ ...record, bytes });
        };
        tx.oncomplete = () => resolve();
        tx.onerror = () => reject(tx.error);
      });
      db.close();
    },
    [KEY_CACHE_DB, persistentId],
  );
}
