/**
 * The prover-key cache's rules (src/presentations/prover-key-cache.ts), against the in-memory backend behind the same
 * interface as the IndexedDB one: what o1js writes is persisted with a digest; a read hits only on the same uniqueId
 * and dataType; a tampered or truncated entry is discarded on load, is a miss, and is replaced by o1js's next write;
 * the size cap evicts whole circuits, least recently used first. The IndexedDB backend itself runs in the browser
 * e2e test (test/e2e/web-dapp.browser.test.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { O1JS_VERSION, KEY_CACHE_DB } from '../../src/presentations/indexeddb-key-cache.js';
import {
  MemoryKeyCacheBackend,
  PersistentKeyCache,
  SHARED_GROUP,
  groupOf,
  withCacheFallback,
  type KeyCacheHeader,
  type KeyCacheView,
} from '../../src/presentations/prover-key-cache.js';

const A = 'credential-0123456789abcdef';
const B = 'credential-fedcba9876543210';
const C = 'credential-00000000aaaaaaaa';

const header = (persistentId: string, uniqueId = `${persistentId}-u1`, dataType: 'string' | 'bytes' = 'bytes'): KeyCacheHeader => ({
  persistentId,
  uniqueId,
  dataType,
});
const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

/** What o1js writes for one circuit: its four keys (+ the shared SRS when `shared`). */
function compileInto(view: KeyCacheView, circuit: string, size: number, shared = false): void {
  if (shared) view.cache.write(header('srs-fp-65536', 'srs-fp-65536', 'string'), bytes(size, 1));
  view.cache.write(header(`step-pk-${circuit}-run`), bytes(size, 2));
  view.cache.write(header(`step-vk-${circuit}-run`, undefined, 'string'), bytes(10, 3));
  view.cache.write(header(`wrap-pk-${circuit}`), bytes(size, 4));
  view.cache.write(header(`wrap-vk-${circuit}`, undefined, 'string'), bytes(10, 5));
}

function clock() {
  let t = 1_000;
  return () => (t += 1_000);
}

describe('the prover-key cache', () => {
  it('persists what o1js writes, with its SHA-256, and serves it to a later view (hits counted)', async () => {
    const backend = new MemoryKeyCacheBackend();
    const cache = new PersistentKeyCache(backend, { now: clock() });
    const first = await cache.open(A);
    expect(first.cache.canWrite).toBe(true);
    expect(first.cache.read(header(`step-pk-${A}-run`))).toBeUndefined();
    compileInto(first, A, 100, true);
    await first.flush();
    first.close();
    expect(first.stats).toMatchObject({ loaded: 0, hits: 0, misses: 1, writes: 5, discarded: 0 });
    expect(backend.records.size).toBe(5);
    const stored = backend.records.get(`wrap-pk-${A}`)!;
    expect(stored.group).toBe(A);
    expect(backend.records.get('srs-fp-65536')!.group).toBe(SHARED_GROUP);
    expect(stored.digest).toBe(createHash('sha256').update(stored.bytes).digest('hex'));

    const second = await cache.open(A);
    expect(second.stats).toMatchObject({ loaded: 5, loadedBytes: 320, discarded: 0 });
    expect(second.cache.read(header(`wrap-pk-${A}`))).toEqual(bytes(100, 4));
    expect(second.cache.read(header('srs-fp-65536', 'srs-fp-65536', 'string'))).toEqual(bytes(100, 1));
    expect(second.stats.hits).toBe(2);
    expect(second.stats.misses).toBe(0);
  });

  it('a read hits only on the same uniqueId and dataType (a changed circuit is a miss, then rewritten)', async () => {
    const backend = new MemoryKeyCacheBackend();
    const cache = new PersistentKeyCache(backend, { now: clock() });
    const first = await cache.open(A);
    compileInto(first, A, 50);
    await first.flush();
    const second = await cache.open(A);
    expect(second.cache.read(header(`step-pk-${A}-run`, 'other-constraint-system-hash'))).toBeUndefined();
    expect(second.cache.read(header(`step-vk-${A}-run`, undefined, 'bytes'))).toBeUndefined();
    expect(second.stats).toMatchObject({ hits: 0, misses: 2 });
    second.cache.write(header(`step-pk-${A}-run`, 'other-constraint-system-hash'), bytes(60, 9));
    await second.flush();
    expect(backend.records.get(`step-pk-${A}-run`)).toMatchObject({ uniqueId: 'other-constraint-system-hash', size: 60 });
  });

  it('loads only the shared entries and the requested circuit', async () => {
    const backend = new MemoryKeyCacheBackend();
    const cache = new PersistentKeyCache(backend, { now: clock() });
    const a = await cache.open(A);
    compileInto(a, A, 10, true);
    await a.flush();
    const b = await cache.open(B);
    compileInto(b, B, 10);
    await b.flush();
    const again = await cache.open(B);
    expect([...again.entries.keys()].sort()).toEqual(
      ['srs-fp-65536', `step-pk-${B}-run`, `step-vk-${B}-run`, `wrap-pk-${B}`, `wrap-vk-${B}`].sort(),
    );
    const unknown = await cache.open(undefined);
    expect([...unknown.entries.keys()]).toEqual(['srs-fp-65536']);
  });

  it('a tampered entry (same length) is discarded on load, is a miss, never served, and is replaced by the recompile', async () => {
    const backend = new MemoryKeyCacheBackend();
    const cache = new PersistentKeyCache(backend, { now: clock() });
    const first = await cache.open(A);
    compileInto(first, A, 64, true);
    await first.flush();
    const record = backend.records.get(`wrap-pk-${A}`)!;
    const tampered = new Uint8Array(record.bytes);
    tampered[17]! ^= 0x01;
    record.bytes = tampered;

    const second = await cache.open(A);
    expect(second.stats).toMatchObject({ loaded: 4, discarded: 1, discardedIds: [`wrap-pk-${A}`] });
    expect(backend.records.has(`wrap-pk-${A}`)).toBe(false); // deleted from the store
    expect(second.cache.read(header(`wrap-pk-${A}`))).toBeUndefined();
    expect(second.stats.misses).toBe(1);
    // o1js recomputes the key and writes it; the next view loads the good one.
    second.cache.write(header(`wrap-pk-${A}`), bytes(64, 4));
    await second.flush();
    const third = await cache.open(A);
    expect(second.stats.writtenIds).toEqual([`wrap-pk-${A}`]);
    expect(third.stats).toMatchObject({ loaded: 5, discarded: 0 });
    expect(third.cache.read(header(`wrap-pk-${A}`))).toEqual(bytes(64, 4));
  });

  it('a truncated entry, a wrong stored digest, or bytes that are gone are discarded too', async () => {
    const backend = new MemoryKeyCacheBackend();
    const cache = new PersistentKeyCache(backend, { now: clock() });
    const first = await cache.open(A);
    compileInto(first, A, 64, true);
    await first.flush();
    const truncated = backend.records.get(`step-pk-${A}-run`)!;
    truncated.bytes = truncated.bytes.subarray(0, 40);
    backend.records.get(`wrap-pk-${A}`)!.digest = '00'.repeat(32);
    (backend.records.get('srs-fp-65536') as { bytes: unknown }).bytes = 'not bytes';
    const second = await cache.open(A);
    expect(second.stats).toMatchObject({ loaded: 2, discarded: 3 });
    expect(second.cache.read(header(`step-pk-${A}-run`))).toBeUndefined();
    expect(second.cache.read(header(`wrap-pk-${A}`))).toBeUndefined();
    expect(second.cache.read(header('srs-fp-65536', 'srs-fp-65536', 'string'))).toBeUndefined();
    expect([...backend.records.keys()].sort()).toEqual([`step-vk-${A}-run`, `wrap-vk-${A}`].sort());
  });

  it('a malformed meta record (a size that is no number) is discarded, whatever its circuit, and does not break eviction', async () => {
    const backend = new MemoryKeyCacheBackend();
    const cache = new PersistentKeyCache(backend, { now: clock(), maxBytes: 1000 });
    for (const circuit of [A, B]) {
      const s = await cache.open(circuit);
      compileInto(s, circuit, 100, circuit === A);
      await s.flush();
    }
    (backend.records.get(`wrap-pk-${B}`) as { size: unknown }).size = 'lots';
    const view = await cache.open(A);
    expect(view.stats).toMatchObject({ loaded: 5, discarded: 1, discardedIds: [`wrap-pk-${B}`] });
    expect(backend.records.has(`wrap-pk-${B}`)).toBe(false);
    await view.flush();
    expect(view.stats.evicted).toBe(0); // 100 + 2 × 220 − 100 bytes: under the cap
    expect(backend.records.size).toBe(8);
  });

  it('over the cap, whole circuits are evicted least recently used first; the current one and the shared entries last', async () => {
    const backend = new MemoryKeyCacheBackend();
    // Each circuit: 2 × 100 + 2 × 10 = 220 bytes; shared: 100. Cap: shared + 2 circuits.
    const cache = new PersistentKeyCache(backend, { now: clock(), maxBytes: 100 + 2 * 220 });
    for (const [circuit, shared] of [
      [A, true],
      [B, false],
    ] as const) {
      const s = await cache.open(circuit);
      compileInto(s, circuit, 100, shared);
      await s.flush();
      expect(s.stats.evicted).toBe(0);
    }
    // A is used again (loaded and touched): B is now the least recently used.
    const useA = await cache.open(A);
    expect(useA.cache.read(header(`wrap-pk-${A}`))).toBeDefined();
    await useA.flush();
    const c = await cache.open(C);
    compileInto(c, C, 100);
    await c.flush();
    expect(c.stats).toMatchObject({ evicted: 4, evictedBytes: 220 });
    const groups = new Set([...backend.records.values()].map((r) => r.group));
    expect(groups).toEqual(new Set([SHARED_GROUP, A, C]));

    // A circuit bigger than the cap on its own: it is not kept, the shared entries are.
    const tiny = new PersistentKeyCache(backend, { now: clock(), maxBytes: 100 + 2 * 220 + 50 });
    const big = await tiny.open(B);
    compileInto(big, B, 200);
    await big.flush();
    const total = [...backend.records.values()].reduce((n, r) => n + r.size, 0);
    expect(total).toBeLessThanOrEqual(tiny.maxBytes);
    expect(backend.records.has('srs-fp-65536')).toBe(true);
  });

  it('an entry larger than the whole cap is never stored; writes after close are ignored', async () => {
    const backend = new MemoryKeyCacheBackend();
    const cache = new PersistentKeyCache(backend, { now: clock(), maxBytes: 1000 });
    const s = await cache.open(A);
    s.cache.write(header(`step-pk-${A}-run`), bytes(1001, 1));
    s.cache.write(header(`step-vk-${A}-run`), bytes(10, 1));
    await s.flush();
    expect([...backend.records.keys()]).toEqual([`step-vk-${A}-run`]);
    s.close();
    s.cache.write(header(`wrap-vk-${A}`), bytes(10, 1));
    await s.flush();
    expect(backend.records.has(`wrap-vk-${A}`)).toBe(false);
  });

  it('a compile that fails with the cache runs once more without it; a genuine error still fails', async () => {
    const reasons: unknown[] = [];
    const note = (e: unknown) => reasons.push((e as Error).message);
    await expect(
      withCacheFallback(
        async () => 'cached',
        async () => 'plain',
        note,
      ),
    ).resolves.toBe('cached');
    expect(reasons).toEqual([]);
    const shimBroke = async () => {
      throw new Error('Atomics.wait cannot be called in this context');
    };
    await expect(withCacheFallback(shimBroke, async () => 'plain', note)).resolves.toBe('plain');
    expect(reasons).toEqual(['Atomics.wait cannot be called in this context']);
    const genuine = async () => {
      throw new Error('credential does not match');
    };
    await expect(withCacheFallback(genuine, genuine, note)).rejects.toThrow('credential does not match');
  });

  it('groups entries by circuit name; the database is named by the installed o1js version', () => {
    expect(groupOf('lagrange-basis-fp-8192', A)).toBe(SHARED_GROUP);
    expect(groupOf('srs-fq-32768', undefined)).toBe(SHARED_GROUP);
    expect(groupOf(`step-pk-${B}-run`, A)).toBe(B);
    expect(groupOf('wrap-pk-something-else', A)).toBe(A);
    const installed = JSON.parse(readFileSync(new URL('../../node_modules/o1js/package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    // The Lagrange-basis shim was checked against this o1js; an upgrade must revisit it (and starts a new database).
    expect(O1JS_VERSION).toBe(installed.version);
    expect(KEY_CACHE_DB).toBe(`chain-ledger-o1js-keys-${installed.version}`);
  });
});
