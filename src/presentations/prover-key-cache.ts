/**
 * A persistent cache for o1js's proving keys, behind o1js's synchronous `Cache` interface (read/write/canWrite).
 *
 * o1js reads and writes its cache synchronously during `compile()` and, for prover keys, lazily during the proof; a
 * browser's storage (IndexedDB) is asynchronous. So a view of it preloads what one presentation can use into memory (the
 * entries shared by every circuit, `srs-*` and `lagrange-basis-*`, plus the entries of this request's circuit),
 * serves o1js from that map, buffers what o1js writes, and flushes it to the backend afterwards.
 *
 * Rules (unit-tested in test/presentations/prover-key-cache.test.ts, against the in-memory backend below):
 * - only what o1js writes is stored, under o1js's own `persistentId`; a read hits only when the stored `uniqueId`
 *   and `dataType` equal the header's (o1js puts a hash of the circuit into the `uniqueId`: a changed circuit misses);
 * - every entry carries the SHA-256 of its bytes, checked when it is loaded: a tampered or truncated entry is deleted
 *   and is a miss (o1js then recomputes it and writes it again), never served;
 * - the store is bounded: after a flush, while the total exceeds `maxBytes`, whole circuits are evicted, least
 *   recently used first (then the current circuit, then the shared entries, if even that is not enough).
 *
 * The digest detects corruption (a truncated write, a damaged disk, an edited record), not a same-origin attacker who
 * can also rewrite the digest; a wrong prover key could at worst make a proof that fails verification.
 *
 * Platform-neutral (no DOM, no Node): the IndexedDB backend and the browser wiring are in indexeddb-key-cache.ts.
 */
import { toHex } from '../apdu/bytes.js';

/** The header o1js passes to `Cache.read`/`Cache.write` (the fields this cache uses). */
export interface KeyCacheHeader {
  persistentId: string;
  uniqueId: string;
  dataType: 'string' | 'bytes';
}

/** o1js's `Cache` shape (structurally; o1js is not imported here). */
export interface O1jsCache {
  read(header: KeyCacheHeader): Uint8Array | undefined;
  write(header: KeyCacheHeader, value: Uint8Array): void;
  canWrite: boolean;
  debug?: boolean;
}

/** What the backend keeps per entry, without the bytes (listed cheaply to pick what to load and what to evict). */
export interface KeyCacheMeta {
  persistentId: string;
  uniqueId: string;
  dataType: 'string' | 'bytes';
  /** `shared` (SRS, Lagrange bases) or the circuit's name (`credential-<16 hex>`). */
  group: string;
  /** The length of `bytes`. */
  size: number;
  /** Hex SHA-256 of `bytes`. */
  digest: string;
  /** Milliseconds since the epoch when a presentation last loaded or wrote the entry. */
  lastUsed: number;
}

export interface KeyCacheRecord extends KeyCacheMeta {
  bytes: Uint8Array;
}

/** Asynchronous storage behind the cache (IndexedDB in browsers; a Map in the unit tests). */
export interface KeyCacheBackend {
  listMeta(): Promise<KeyCacheMeta[]>;
  /** The records with these ids, in order (`undefined` for a missing one, or one whose bytes are gone). */
  getMany(ids: string[]): Promise<(KeyCacheRecord | undefined)[]>;
  put(records: KeyCacheRecord[]): Promise<void>;
  remove(ids: string[]): Promise<void>;
  touch(ids: string[], lastUsed: number): Promise<void>;
}

/**
 * The default cap: 450 MB, room for the shared entries (≈ 18 MB) and about three presentation circuits (the first
 * takes ≈ 147 MB with the shared entries, each further one ≈ 129 MB; docs/performance.md).
 */
export const DEFAULT_KEY_CACHE_MAX_BYTES = 450 * 1024 * 1024;

export const SHARED_GROUP = 'shared';

/** The group an entry belongs to: shared by every circuit, or the circuit named in its persistentId. */
export function groupOf(persistentId: string, fallback: string | undefined): string {
  if (persistentId.startsWith('srs-') || persistentId.startsWith('lagrange-basis-')) return SHARED_GROUP;
  return /credential-[0-9a-f]{16}/.exec(persistentId)?.[0] ?? fallback ?? persistentId;
}

/** WebCrypto's SHA-256 (not @noble's: entries are up to ≈ 100 MB), as hex. */
async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return toHex(new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>)));
}

/** Counters of one view: what the assertions and the benchmark read. */
export interface KeyCacheStats {
  /** Entries loaded from the backend (digest checked). */
  loaded: number;
  loadedBytes: number;
  /** Entries found damaged (digest or length mismatch) when loading; deleted, then a miss. */
  discarded: number;
  hits: number;
  misses: number;
  /** Entries o1js wrote in this view. */
  writes: number;
  /** Entries (and bytes) evicted by the size cap after this view's flushes. */
  evicted: number;
  evictedBytes: number;
  /** The persistentIds behind `discarded` and `writes`. */
  discardedIds: string[];
  writtenIds: string[];
}

export interface PersistentKeyCacheOptions {
  maxBytes?: number;
  now?: () => number;
}

/** A cache over a backend; `open(circuit)` opens a view of it for one presentation. */
export class PersistentKeyCache {
  readonly maxBytes: number;
  readonly #now: () => number;

  constructor(
    readonly backend: KeyCacheBackend,
    options: PersistentKeyCacheOptions = {},
  ) {
    this.maxBytes = options.maxBytes ?? DEFAULT_KEY_CACHE_MAX_BYTES;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Loads the shared entries and those of `circuit` (a `credential-<16 hex>` name; undefined: shared only), checking
   * each one's digest; damaged ones are deleted from the backend.
   */
  async open(circuit: string | undefined): Promise<KeyCacheView> {
    const { metas, malformed } = await this.#listMeta();
    const wanted = metas.filter((m) => m.group === SHARED_GROUP || (circuit !== undefined && m.group === circuit));
    const records = await this.backend.getMany(wanted.map((m) => m.persistentId));
    const entries = new Map<string, KeyCacheRecord>();
    const damaged: string[] = [];
    let loadedBytes = 0;
    for (const [i, record] of records.entries()) {
      const meta = wanted[i]!;
      const intact =
        record !== undefined &&
        record.bytes instanceof Uint8Array &&
        record.bytes.length === meta.size &&
        record.size === meta.size &&
        record.digest === meta.digest &&
        (await sha256Hex(record.bytes)) === meta.digest;
      if (!intact) {
        damaged.push(meta.persistentId);
        continue;
      }
      entries.set(meta.persistentId, record);
      loadedBytes += record.size;
    }
    damaged.push(...malformed);
    if (damaged.length > 0) await this.backend.remove(damaged);
    const view = new KeyCacheView(this, circuit, entries, this.#now);
    Object.assign(view.stats, { loaded: entries.size, loadedBytes, discarded: damaged.length, discardedIds: damaged });
    return view;
  }

  /** The backend's meta records, and the ids of those that are not well-formed (damaged: to be removed). */
  async #listMeta(): Promise<{ metas: KeyCacheMeta[]; malformed: string[] }> {
    const metas: KeyCacheMeta[] = [];
    const malformed: string[] = [];
    for (const m of await this.backend.listMeta()) {
      const ok =
        typeof m?.persistentId === 'string' &&
        typeof m.uniqueId === 'string' &&
        (m.dataType === 'string' || m.dataType === 'bytes') &&
        typeof m.group === 'string' &&
        Number.isSafeInteger(m.size) &&
        m.size >= 0 &&
        typeof m.digest === 'string' &&
        Number.isFinite(m.lastUsed);
      if (ok) metas.push(m);
      else if (typeof m?.persistentId === 'string') malformed.push(m.persistentId);
    }
    return { metas, malformed };
  }

  /** Evicts whole groups, least recently used first (never `keep` before the others), until under the cap. */
  async evict(keep: string | undefined): Promise<{ evicted: number; evictedBytes: number }> {
    const { metas } = await this.#listMeta();
    let total = metas.reduce((n, m) => n + m.size, 0);
    if (total <= this.maxBytes) return { evicted: 0, evictedBytes: 0 };
    const groups = new Map<string, { lastUsed: number; ids: string[]; bytes: number }>();
    for (const m of metas) {
      const g = groups.get(m.group) ?? { lastUsed: 0, ids: [], bytes: 0 };
      g.lastUsed = Math.max(g.lastUsed, m.lastUsed);
      g.ids.push(m.persistentId);
      g.bytes += m.size;
      groups.set(m.group, g);
    }
    const rank = (name: string) => (name === SHARED_GROUP ? 2 : name === keep ? 1 : 0);
    const order = [...groups.entries()].sort(([a, ga], [b, gb]) => rank(a) - rank(b) || ga.lastUsed - gb.lastUsed);
    const ids: string[] = [];
    let evictedBytes = 0;
    for (const [, g] of order) {
      if (total <= this.maxBytes) break;
      ids.push(...g.ids);
      total -= g.bytes;
      evictedBytes += g.bytes;
    }
    await this.backend.remove(ids);
    return { evicted: ids.length, evictedBytes };
  }
}

/** One presentation's view of the cache: `cache` is what o1js gets; `flush()` persists what it wrote. */
export class KeyCacheView {
  readonly stats: KeyCacheStats = {
    loaded: 0,
    loadedBytes: 0,
    discarded: 0,
    hits: 0,
    misses: 0,
    writes: 0,
    evicted: 0,
    evictedBytes: 0,
    discardedIds: [],
    writtenIds: [],
  };
  readonly cache: O1jsCache;
  readonly #pending = new Map<string, KeyCacheHeader & { bytes: Uint8Array }>();
  #closed = false;

  constructor(
    readonly owner: PersistentKeyCache,
    readonly circuit: string | undefined,
    readonly entries: Map<string, KeyCacheRecord>,
    readonly now: () => number,
  ) {
    this.cache = {
      canWrite: true,
      debug: false,
      read: (header) => {
        const entry = this.entries.get(header.persistentId);
        if (entry !== undefined && entry.uniqueId === header.uniqueId && entry.dataType === header.dataType) {
          this.stats.hits++;
          return entry.bytes;
        }
        this.stats.misses++;
        return undefined;
      },
      write: (header, value) => {
        if (this.#closed) return;
        // o1js may reuse its buffer; a copy is what gets stored.
        const bytes = new Uint8Array(value);
        const { persistentId, uniqueId, dataType } = header;
        this.stats.writes++;
        this.stats.writtenIds.push(persistentId);
        this.#pending.set(persistentId, { persistentId, uniqueId, dataType, bytes });
        const group = groupOf(persistentId, this.circuit);
        this.entries.set(persistentId, {
          persistentId,
          uniqueId,
          dataType,
          bytes,
          group,
          size: bytes.length,
          digest: '',
          lastUsed: this.now(),
        });
      },
    };
  }

  /** Persists what o1js wrote since the last flush (with digests), marks what was loaded as used, applies the cap. */
  async flush(): Promise<void> {
    const now = this.now();
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    const records: KeyCacheRecord[] = [];
    for (const p of pending) {
      if (p.bytes.length > this.owner.maxBytes) continue; // could never fit
      records.push({
        ...p,
        group: groupOf(p.persistentId, this.circuit),
        size: p.bytes.length,
        digest: await sha256Hex(p.bytes),
        lastUsed: now,
      });
    }
    if (records.length > 0) await this.owner.backend.put(records);
    const written = new Set(records.map((r) => r.persistentId));
    const used = [...this.entries.keys()].filter((id) => !written.has(id) && !this.#pending.has(id));
    if (used.length > 0) await this.owner.backend.touch(used, now);
    const { evicted, evictedBytes } = await this.owner.evict(this.circuit);
    this.stats.evicted += evicted;
    this.stats.evictedBytes += evictedBytes;
  }

  /** Drops the in-memory entries (≈ 150 MB per circuit); later writes are ignored. */
  close(): void {
    this.#closed = true;
    this.#pending.clear();
    this.entries.clear();
  }
}

/** An in-memory backend: for tests, and a page without IndexedDB (then the keys last as long as the page). */
export class MemoryKeyCacheBackend implements KeyCacheBackend {
  readonly records = new Map<string, KeyCacheRecord>();

  async listMeta(): Promise<KeyCacheMeta[]> {
    return [...this.records.values()].map(({ bytes: _bytes, ...meta }) => meta);
  }
  async getMany(ids: string[]): Promise<(KeyCacheRecord | undefined)[]> {
    return ids.map((id) => this.records.get(id));
  }
  async put(records: KeyCacheRecord[]): Promise<void> {
    for (const r of records) this.records.set(r.persistentId, r);
  }
  async remove(ids: string[]): Promise<void> {
    for (const id of ids) this.records.delete(id);
  }
  async touch(ids: string[], lastUsed: number): Promise<void> {
    for (const id of ids) {
      const r = this.records.get(id);
      if (r) r.lastUsed = lastUsed;
    }
  }
}

/**
 * The hook `requestPresentation` runs its two o1js phases through (src/credentials/presentation.ts): `compile` around
 * `Presentation.prepare`, `prove` around `Presentation.finalize`, `close` when the presentation is over (also after a
 * rejection). The browser loader provides one backed by this cache (indexeddb-key-cache.ts); Node keeps o1js's own file
 * cache and uses `NO_PRESENTATION_KEYS`.
 */
export interface PresentationKeys {
  compile<T>(run: () => Promise<T>): Promise<T>;
  prove<T>(run: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export const NO_PRESENTATION_KEYS: PresentationKeys = {
  compile: (run) => run(),
  prove: (run) => run(),
  close: async () => {},
};

/**
 * Runs `withCache`; if it throws, runs `without` once (o1js's own default cache: every key computed, the behaviour
 * without this cache) after telling `onFallback` why. The cache must never be the reason a presentation fails: a
 * genuine error of the presentation itself fails `without` too, and that error is the one thrown.
 */
export async function withCacheFallback<T>(
  withCache: () => Promise<T>,
  without: () => Promise<T>,
  onFallback: (error: unknown) => void,
): Promise<T> {
  try {
    return await withCache();
  } catch (error) {
    onFallback(error);
    return without();
  }
}
