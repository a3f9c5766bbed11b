/**
 * Runs in Chromium (bundled by esbuild, see indexeddb.browser.test.ts): drives IndexedDbCredentialStore through the
 * browser entry `src/credentials.ts` and POSTs what it observed to the test server, which asserts on it.
 * Phase 1 writes and probes; it then navigates to phase 2, which reopens the database after the page reload.
 */
import { IndexedDbCredentialStore, isCredentialStoreError, DEFAULT_CREDENTIAL_DB } from '../../src/credentials.js';
/** A format-1 store of ALICE under SECRET (no salt, no entry-list MAC), as the file store wrote that format (same entries in IndexedDB). */
import V1 from '../fixtures/credential-store-v1.json' with { type: 'json' };

export const ALICE = 'B62qo6wASdEftjuRPaoxxcqqCFteG4SD36SeTkfZKzR98UyLZJa3chs';
export const BOB = 'B62qqWPZ9omDuiVY771CR5v3yr8WXKdRfjmQmmfPmSbVEhJSxdqYjVh';
export const DISTINCTIVE = 'Zebediah Quillfeather-Okonkwo 4471';
const SECRET = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const OTHER_SECRET = Uint8Array.from({ length: 32 }, (_, i) => 200 - i);

export const credential = (serial: string | number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    version: 'v0',
    witness: { type: 'native', issuer: { _type: 'PublicKey', value: ALICE } },
    credential: { owner: { _type: 'PublicKey', value: BOB }, data: { serial: { _type: 'Field', value: String(serial) } } },
    ...extra,
  });

export interface Phase1Report {
  phase: 1;
  environment: { userAgent: string; isSecureContext: boolean; subtle: boolean };
  first: { id: string; duplicate: boolean };
  again: { id: string; duplicate: boolean };
  withMetadata: { id: string; duplicate: boolean };
  second: { id: string; duplicate: boolean };
  secret: { id: string; duplicate: boolean };
  listed: { id: string; credential: string; storedAt: string }[];
  bobBefore: number;
  wrongKey: { list: string; add: string; remove: string };
  invalid: { account: string; secret: string; credential: string; id: string };
  removed: boolean;
  removedAgain: boolean;
  afterRemove: string[];
  concurrent: { results: number; distinct: number; duplicates: number; listed: number };
  raw: { entryKeys: string[][]; recordFields: string[]; headerFields: string[]; containsPlaintext: boolean; containsIssuer: boolean };
  moved: string;
  movedMessage: string;
  restored: number;
  flipped: string;
  ids: { second: string; secret: string };
  /** A format-1 database: what it listed, then after one add, the header's version and fields and the ids. */
  legacy: { listed: string[]; version: number; headerFields: string[]; ids: string[]; listedAfter: number; v1Ids: string[] };
}

export interface Phase2Report {
  phase: 2;
  listed: { id: string; credential: string }[];
  wrongKey: string;
  removed: boolean;
  afterRemove: number;
}

const kindOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (e: unknown) => (isCredentialStoreError(e) ? e.kind : `not a CredentialStoreError: ${String(e)}`),
  );

async function post(path: string, body: unknown): Promise<void> {
  await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

function rawDb(name = DEFAULT_CREDENTIAL_DB): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const r = indexedDB.open(name);
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

function rawRequest<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

async function rawWrite(change: (entries: IDBObjectStore) => void): Promise<void> {
  const db = await rawDb();
  const tx = db.transaction('entries', 'readwrite');
  change(tx.objectStore('entries'));
  await new Promise<void>((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onabort = () => reject(tx.error);
  });
  db.close();
}

async function phase1(): Promise<Phase1Report> {
  const store = new IndexedDbCredentialStore();
  const first = await store.add(ALICE, SECRET, credential(1));
  const again = await store.add(ALICE, SECRET, credential(1));
  const reordered = JSON.parse(credential(1, { metadata: { name: 'passport' } })) as Record<string, unknown>;
  const withMetadata = await store.add(ALICE, SECRET, JSON.stringify(Object.fromEntries(Object.entries(reordered).reverse())));
  const second = await store.add(ALICE, SECRET, credential(2));
  const secret = await store.add(ALICE, SECRET, credential(3, { credential: { name: { _type: 'String', value: DISTINCTIVE } } }));
  const listed = await store.list(ALICE, SECRET);
  const bobBefore = (await store.list(BOB, SECRET)).length;

  const wrongKey = {
    list: await kindOf(store.list(ALICE, OTHER_SECRET)),
    add: await kindOf(store.add(ALICE, OTHER_SECRET, credential(4))),
    remove: await kindOf(store.remove(ALICE, OTHER_SECRET, first.id)),
  };
  const invalid = {
    account: await kindOf(store.add('B62qnotanaddress', SECRET, credential(5))),
    secret: await kindOf(store.list(ALICE, SECRET.subarray(1))),
    credential: await kindOf(store.add(ALICE, SECRET, '[1]')),
    id: await kindOf(store.remove(ALICE, SECRET, 'xyz')),
  };

  const removed = await store.remove(ALICE, SECRET, first.id);
  const removedAgain = await store.remove(ALICE, SECRET, first.id);
  const afterRemove = (await store.list(ALICE, SECRET)).map((e) => e.id);

  // 20 concurrent adds (5 of them repeats) from one page.
  const results = await Promise.all(Array.from({ length: 25 }, (_, i) => store.add(BOB, SECRET, credential(`c${i % 20}`))));
  const concurrent = {
    results: results.length,
    distinct: new Set(results.map((r) => r.id)).size,
    duplicates: results.filter((r) => r.duplicate).length,
    listed: (await store.list(BOB, SECRET)).length,
  };

  // What is at rest.
  const db = await rawDb();
  const tx = db.transaction(['entries', 'headers'], 'readonly');
  const records = await rawRequest(tx.objectStore('entries').getAll());
  const entryKeys = (await rawRequest(tx.objectStore('entries').getAllKeys())) as string[][];
  const headers = await rawRequest(tx.objectStore('headers').getAll());
  db.close();
  const dump = JSON.stringify([records, headers]);
  const raw = {
    entryKeys: entryKeys.slice(0, 3),
    recordFields: Object.keys(records[0] as object).sort(),
    headerFields: Object.keys(headers[0] as object).sort(),
    containsPlaintext: dump.includes(DISTINCTIVE) || dump.includes('Zebediah') || dump.includes('serial'),
    containsIssuer: dump.includes('issuer') || dump.includes('_type'),
  };

  // Alice's entry moved under Bob's key: the additional data (account, id) no longer match.
  const aliceRecord = (records as { account: string; id: string }[]).find((r) => r.account === ALICE && r.id === second.id)!;
  await rawWrite((entries) => entries.put({ ...aliceRecord, account: BOB }));
  const movedError = await store.list(BOB, SECRET).then(
    () => undefined,
    (e: unknown) => e,
  );
  const moved = isCredentialStoreError(movedError) ? movedError.kind : String(movedError);
  const movedMessage = isCredentialStoreError(movedError) ? movedError.message : '';
  await rawWrite((entries) => entries.delete([BOB, second.id]));
  const restored = (await store.list(BOB, SECRET)).length;

  // A flipped ciphertext byte in one of Bob's entries.
  const bobRecord = (records as { account: string; data: string }[]).find((r) => r.account === BOB)!;
  const bytes = Uint8Array.from(atob(bobRecord.data), (c) => c.charCodeAt(0));
  bytes[3]! ^= 0x01;
  await rawWrite((entries) => entries.put({ ...bobRecord, data: btoa(String.fromCharCode(...bytes)) }));
  const flipped = await kindOf(store.list(BOB, SECRET));

  await store.close();
  const legacy = await legacyStore();
  return {
    phase: 1,
    legacy,
    environment: { userAgent: navigator.userAgent, isSecureContext, subtle: typeof crypto.subtle?.encrypt === 'function' },
    first,
    again,
    withMetadata,
    second,
    secret,
    listed,
    bobBefore,
    wrongKey,
    invalid,
    removed,
    removedAgain,
    afterRemove,
    concurrent,
    raw,
    moved,
    movedMessage,
    restored,
    flipped,
    ids: { second: second.id, secret: secret.id },
  };
}

/** A format-1 header and its entries written raw, then read and written through the store (re-keyed on write). */
async function legacyStore(): Promise<Phase1Report['legacy']> {
  const name = 'chain-ledger-credentials-format-1';
  const store = new IndexedDbCredentialStore(name);
  await store.list(ALICE, SECRET); // creates the database and its object stores
  await store.close();
  const db = await rawDb(name);
  const tx = db.transaction(['entries', 'headers'], 'readwrite');
  tx.objectStore('headers').put({ account: ALICE, format: V1.format, version: 1, check: V1.check });
  for (const entry of V1.entries) tx.objectStore('entries').put({ account: ALICE, ...entry });
  await new Promise<void>((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onabort = () => reject(tx.error);
  });
  const listed = (await store.list(ALICE, SECRET)).map((e) => e.credential);
  await store.add(ALICE, SECRET, credential(99));
  const listedAfter = (await store.list(ALICE, SECRET)).length;
  await store.close();
  const read = db.transaction(['entries', 'headers'], 'readonly');
  const header = (await rawRequest(read.objectStore('headers').get(ALICE))) as Record<string, unknown>;
  const ids = ((await rawRequest(read.objectStore('entries').getAll())) as { id: string }[]).map((r) => r.id);
  db.close();
  return {
    listed,
    version: header.version as number,
    headerFields: Object.keys(header).sort(),
    ids,
    listedAfter,
    v1Ids: V1.entries.map((e) => e.id),
  };
}

async function phase2(): Promise<Phase2Report> {
  const store = new IndexedDbCredentialStore(DEFAULT_CREDENTIAL_DB);
  const listed = (await store.list(ALICE, SECRET)).map(({ id, credential }) => ({ id, credential }));
  const wrongKey = await kindOf(store.list(ALICE, OTHER_SECRET));
  const removed = await store.remove(ALICE, SECRET, listed[0]?.id ?? '0'.repeat(64));
  const afterRemove = (await store.list(ALICE, SECRET)).length;
  await store.close();
  return { phase: 2, listed, wrongKey, removed, afterRemove };
}

/** In the page only: the test imports this module in Node for the constants above. */
if (typeof document !== 'undefined') {
  addEventListener('error', (event) => void post('/error', { message: String(event.message), stack: String(event.error?.stack ?? '') }));
  addEventListener(
    'unhandledrejection',
    (event) => void post('/error', { message: String(event.reason), stack: String(event.reason?.stack ?? '') }),
  );
  const phase = new URLSearchParams(location.search).get('phase');
  void (async () => {
    try {
      if (phase === '1') {
        await post('/result', await phase1());
        location.href = '/?phase=2';
      } else {
        await post('/result', await phase2());
      }
    } catch (error) {
      await post('/error', { message: String(error), stack: String((error as Error)?.stack ?? '') });
    }
  })();
}
