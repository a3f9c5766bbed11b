/**
 * Browser only: a persistent key cache for in-browser presentations, so that a circuit compiled once on an origin is
 * never compiled again there (o1js 2.15 + mina-attestations 0.5.3; the design and its measurements are in
 * docs/performance.md and /work/shared/reference/browser-proving.md).
 *
 * Three parts:
 * 1. a shim for the one wasm method o1js 2.15's web build disables (`caml_{fp,fq}_srs_get_lagrange_basis`), without
 *    which any writable cache makes `compile()` throw; it self-checks and, if o1js changed, the cache is not used
 *    (today's behaviour: every compile from nothing) and the reason is logged;
 * 2. prover-key-cache.ts's `PersistentKeyCache` over IndexedDB (database `chain-ledger-o1js-keys-<o1js version>`, so an
 *    o1js upgrade starts clean), two object stores: `meta` (small, listed) and `data` (the bytes);
 * 3. the hook `requestPresentation` runs prepare/finalize through: it sets `o1js.Cache.FileSystemDefault` (which
 *    mina-attestations' `program.compile()` reads) to the presentation's view of the cache for the duration of each phase and restores
 *    it afterwards; Pickles keeps the object it was given, so the prover keys read lazily while proving still reach it.
 *
 * Each phase ends with a report, logged (`console.info`) and dispatched on the page's `globalThis` as the event
 * `chain-ledger:key-cache` (`detail`: `KeyCacheReport`; from the presentation Worker, through the page): the e2e test
 * counts hits from it, the benchmark reads times.
 */
import type { loadO1js } from '../upstream/o1js.js';
import {
  MemoryKeyCacheBackend,
  NO_PRESENTATION_KEYS,
  PersistentKeyCache,
  type KeyCacheBackend,
  type KeyCacheMeta,
  type KeyCacheRecord,
  type KeyCacheStats,
  type O1jsCache,
  type PresentationKeys,
  withCacheFallback,
} from './prover-key-cache.js';

type O1js = Awaited<ReturnType<typeof loadO1js>>;

/** The o1js version the shim was written and checked for (package.json pins it; a unit test keeps them equal). */
export const O1JS_VERSION = '2.15.0';
export const KEY_CACHE_DB = `chain-ledger-o1js-keys-${O1JS_VERSION}`;
export const KEY_CACHE_EVENT = 'chain-ledger:key-cache';

export interface KeyCacheReport extends KeyCacheStats {
  /**
   * `compile`: after the compile (the presentation worker's precompile, started during the holder's review, or a prepare that
   * compiled); `proof`: when the presentation is over (proved, rejected or failed).
   */
  phase: 'compile' | 'proof';
  circuit: string | undefined;
  /** IndexedDB read and digest checks before the compile. */
  loadMillis: number;
  compileMillis: number;
  /**
   * From the end of the compile to the start of the proof: what is left of the holder's review once the compile is
   * done, then the owner's signature on the device.
   */
  deviceMillis?: number;
  proofMillis?: number;
  /** Writing what o1js wrote to IndexedDB (both flushes so far). */
  persistMillis: number;
  /** Set when the compile with the cache threw and was run again without it: the error. */
  fallback?: string;
  /**
   * Set on the reports of a step run once more in a fresh Worker after the first Worker failed (presentation.ts): the
   * retry's compile and its proof. A Worker terminated because it failed sends no `proof` report.
   */
  retry?: true;
}

// ---------------------------------------------------------------------------------------------------------------
// 1. The Lagrange-basis shim

let shim: Promise<string | undefined> | undefined;

/**
 * Makes `caml_{fp,fq}_srs_get_lagrange_basis` work on the web: computes the basis in o1js's worker with
 * `caml_<f>_srs_lagrange_commitment` (which is forwarded to it) and copies it out with the pointer pair o1js itself
 * uses for whole-domain commitments (`_whole_domain_ptr` returns the same vector `get_lagrange_basis` would). Resolves
 * to undefined when installed, else to the reason it was not (then no writable cache may be used).
 */
export function installLagrangeBasisShim(o1js: O1js): Promise<string | undefined> {
  shim ??= (async () => {
    try {
      await o1js.initializeBindings();
      const wasm = (globalThis as { kimchi_wasm?: Record<string, unknown> }).kimchi_wasm;
      if (wasm === undefined || wasm === null) return 'o1js changed: no globalThis.kimchi_wasm after initializeBindings()';
      for (const f of ['fp', 'fq']) {
        const names = {
          commit: `caml_${f}_srs_lagrange_commitment`,
          ptr: `caml_${f}_srs_lagrange_commitments_whole_domain_ptr`,
          read: `caml_${f}_srs_lagrange_commitments_whole_domain_read_from_ptr`,
        };
        for (const name of Object.values(names)) {
          if (typeof wasm[name] !== 'function') return `o1js changed: ${name} is missing`;
        }
        type Fn = (...args: unknown[]) => unknown;
        // Looked up at each call, not now: o1js's worker replaces `commit` with its forwarding wrapper when it starts
        // (overrideBindings). The raw method would compute the basis here, and rayon cannot wait on the page's main
        // thread ("Atomics.wait cannot be called in this context").
        const get = (srs: unknown, n: number) => {
          (wasm[names.commit] as Fn)(srs, n, 0); // in o1js's worker: computes the basis and keeps it on the SRS
          return (wasm[names.read] as Fn)((wasm[names.ptr] as Fn)(srs, n)); // here: copies it out (no computation)
        };
        const name = `caml_${f}_srs_get_lagrange_basis`;
        // An accessor, so that o1js's `overrideBindings` (run when its worker starts) cannot put the disabled stub back.
        Object.defineProperty(wasm, name, { get: () => get, set() {}, configurable: true, enumerable: true });
        if (wasm[name] !== get) return `o1js changed: ${name} cannot be replaced`;
      }
      return undefined;
    } catch (error) {
      return `the Lagrange-basis shim failed: ${(error as Error)?.message ?? error}`;
    }
  })();
  return shim;
}

// ---------------------------------------------------------------------------------------------------------------
// 2. IndexedDB

const DB_VERSION = 1;
const META = 'meta';
const DATA = 'data';

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });
}

/** `meta` holds `KeyCacheMeta` by persistentId; `data` holds `{ persistentId, bytes }`. */
export class IndexedDbKeyCacheBackend implements KeyCacheBackend {
  #db: Promise<IDBDatabase> | undefined;

  constructor(
    readonly dbName: string = KEY_CACHE_DB,
    readonly factory: IDBFactory | undefined = globalThis.indexedDB,
  ) {}

  #open(): Promise<IDBDatabase> {
    this.#db ??= new Promise<IDBDatabase>((resolve, reject) => {
      if (this.factory === undefined) return reject(new Error('IndexedDB is not available here'));
      const opening = this.factory.open(this.dbName, DB_VERSION);
      opening.onupgradeneeded = () => {
        const db = opening.result;
        if (!db.objectStoreNames.contains(META)) db.createObjectStore(META, { keyPath: 'persistentId' });
        if (!db.objectStoreNames.contains(DATA)) db.createObjectStore(DATA, { keyPath: 'persistentId' });
      };
      opening.onsuccess = () => resolve(opening.result);
      opening.onerror = () => reject(opening.error);
      opening.onblocked = () => reject(new Error(`the IndexedDB database ${this.dbName} is blocked by another tab`));
    });
    this.#db.catch(() => (this.#db = undefined));
    return this.#db;
  }

  async listMeta(): Promise<KeyCacheMeta[]> {
    const db = await this.#open();
    return request(db.transaction(META, 'readonly').objectStore(META).getAll() as IDBRequest<KeyCacheMeta[]>);
  }

  async getMany(ids: string[]): Promise<(KeyCacheRecord | undefined)[]> {
    const db = await this.#open();
    const tx = db.transaction([META, DATA], 'readonly');
    return Promise.all(
      ids.map(async (id) => {
        const [meta, data] = await Promise.all([
          request(tx.objectStore(META).get(id) as IDBRequest<KeyCacheMeta | undefined>),
          request(tx.objectStore(DATA).get(id) as IDBRequest<{ bytes?: unknown } | undefined>),
        ]);
        if (meta === undefined || data === undefined || !(data.bytes instanceof Uint8Array)) return undefined;
        return { ...meta, bytes: data.bytes };
      }),
    );
  }

  async put(records: KeyCacheRecord[]): Promise<void> {
    const db = await this.#open();
    const tx = db.transaction([META, DATA], 'readwrite');
    for (const { bytes, ...meta } of records) {
      tx.objectStore(DATA).put({ persistentId: meta.persistentId, bytes });
      tx.objectStore(META).put(meta);
    }
    await done(tx);
  }

  async remove(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const db = await this.#open();
    const tx = db.transaction([META, DATA], 'readwrite');
    for (const id of ids) {
      tx.objectStore(META).delete(id);
      tx.objectStore(DATA).delete(id);
    }
    await done(tx);
  }

  async touch(ids: string[], lastUsed: number): Promise<void> {
    const db = await this.#open();
    const tx = db.transaction(META, 'readwrite');
    const store = tx.objectStore(META);
    for (const id of ids) {
      const meta = await request(store.get(id) as IDBRequest<KeyCacheMeta | undefined>);
      if (meta !== undefined) store.put({ ...meta, lastUsed });
    }
    await done(tx);
  }
}

/**
 * Deletes the whole key cache of this origin (the keys are recompiled on the next presentation). The same as
 * deleting the IndexedDB database `chain-ledger-o1js-keys-<o1js version>` in the browser's developer tools, or
 * clearing the site's data.
 */
export function clearPresentationKeyCache(factory: IDBFactory | undefined = globalThis.indexedDB): Promise<void> {
  return new Promise((resolve, reject) => {
    if (factory === undefined) return resolve();
    const deleting = factory.deleteDatabase(KEY_CACHE_DB);
    deleting.onsuccess = () => resolve();
    deleting.onerror = () => reject(deleting.error);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// 3. The hook for requestPresentation

let cache: PersistentKeyCache | undefined;
/** One o1js phase at a time may own `Cache.FileSystemDefault`. */
let phases: Promise<unknown> = Promise.resolve();

function warn(reason: string): void {
  console.warn(`chain-ledger: presentation keys are not cached (every compile starts from nothing): ${reason}`);
}

/**
 * Logs a report (`console.info`) and dispatches it on `globalThis` as the event `chain-ledger:key-cache`. The default
 * reporter; in the presentation Worker the reports are posted to the page instead, which passes them to this.
 */
export function publishKeyCacheReport(detail: KeyCacheReport): void {
  console.info(`chain-ledger key cache: ${JSON.stringify(detail)}`);
  try {
    globalThis.dispatchEvent?.(new CustomEvent(KEY_CACHE_EVENT, { detail }));
  } catch {
    // no event target here: the log line stays
  }
}

let reporter: (report: KeyCacheReport) => void = publishKeyCacheReport;

/** Where this context's reports go (worker.browser.ts: to the page). */
export function setKeyCacheReporter(to: (report: KeyCacheReport) => void): void {
  reporter = to;
}

function report(live: KeyCacheReport): void {
  reporter(JSON.parse(JSON.stringify(live)) as KeyCacheReport); // a snapshot: the view's counters go on
}

/** mina-attestations' circuit name: `credential-` + 16 hex of Keccak-256 over the serialized spec (program.js). */
function circuitName(o1js: O1js, requestJson: string): string | undefined {
  try {
    const spec = (JSON.parse(requestJson) as { spec?: unknown }).spec;
    if (spec === undefined) return undefined;
    return `credential-${o1js.Hash.Keccak256.hash(o1js.Bytes.fromString(JSON.stringify(spec)))
      .toHex()
      .slice(0, 16)}`;
  } catch {
    return undefined;
  }
}

/** Runs `run` with o1js's default cache set to `with`, one phase at a time, and restores it. */
function withDefaultCache<T>(o1js: O1js, withCache: O1jsCache, run: () => Promise<T>): Promise<T> {
  const next = phases.then(async () => {
    const Cache = o1js.Cache as unknown as { FileSystemDefault: unknown };
    const before = Cache.FileSystemDefault;
    Cache.FileSystemDefault = withCache;
    try {
      return await run();
    } finally {
      Cache.FileSystemDefault = before;
    }
  });
  phases = next.catch(() => {});
  return next;
}

/**
 * The `PresentationKeys` of one in-browser presentation of `requestJson` (the request as mina-attestations serializes
 * it). Never throws: if the shim or storage is unavailable it logs why and returns the uncached hook.
 */
export async function openBrowserPresentationKeys(
  o1js: O1js,
  requestJson: string,
  options: { retry?: boolean } = {},
): Promise<PresentationKeys> {
  const why = await installLagrangeBasisShim(o1js);
  if (why !== undefined) {
    warn(why);
    return NO_PRESENTATION_KEYS;
  }
  const started = Date.now();
  const circuit = circuitName(o1js, requestJson);
  let view: Awaited<ReturnType<PersistentKeyCache['open']>>;
  try {
    cache ??= new PersistentKeyCache(globalThis.indexedDB === undefined ? new MemoryKeyCacheBackend() : new IndexedDbKeyCacheBackend());
    view = await cache.open(circuit);
  } catch (error) {
    warn(`the key cache cannot be read: ${(error as Error)?.message ?? error}`);
    return NO_PRESENTATION_KEYS;
  }
  const times = {
    loadMillis: Date.now() - started,
    compileMillis: 0,
    persistMillis: 0,
    ...(options.retry ? { retry: true } : {}),
  } as Omit<KeyCacheReport, keyof KeyCacheStats | 'phase' | 'circuit'>;
  let compiledAt: number | undefined;
  const flush = async () => {
    const t = Date.now();
    try {
      await view.flush();
    } catch (error) {
      // Quota, private mode, a closed database: the presentation stays correct, only uncached.
      console.warn(`chain-ledger: the key cache could not be written: ${(error as Error)?.message ?? error}`);
    }
    times.persistMillis += Date.now() - t;
  };
  let closed = false;
  return {
    async compile(run) {
      const t = Date.now();
      try {
        return await withCacheFallback(
          () => withDefaultCache(o1js, view.cache, run),
          () => run(),
          (error) => {
            // Whatever went wrong with the cache (a shim that no longer fits o1js, …): compile again without it.
            times.fallback = `${(error as Error)?.message ?? error}`.slice(0, 300);
            warn(`compiling with the key cache failed (${times.fallback}); compiling again without it`);
          },
        );
      } finally {
        times.compileMillis = Date.now() - t;
        compiledAt = Date.now();
        await flush();
        report({ phase: 'compile', circuit, ...view.stats, ...times });
      }
    },
    async prove(run) {
      const t = Date.now();
      if (compiledAt !== undefined) times.deviceMillis = t - compiledAt;
      try {
        // After a fallback, o1js compiled with its own cache: the proof runs the same way.
        return await (times.fallback === undefined ? withDefaultCache(o1js, view.cache, run) : run());
      } finally {
        times.proofMillis = Date.now() - t;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await flush();
      view.close();
      report({ phase: 'proof', circuit, ...view.stats, ...times });
    },
  };
}
