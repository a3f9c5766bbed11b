/**
 * o1js keeps the keys of every circuit it compiled in its file cache (`cachedir('o1js')`: `~/.cache/o1js` on
 * Linux), about 140 MB per presentation spec, forever. Each presentation spec is its own circuit
 * (`credential-<16 hex>` in the file names), so a page that sends new specs would fill the disk. After each
 * compile, the spec just used is marked as recently used (its files' times are set to now) and the least recently
 * used specs are removed until the presentation circuits take at most the cap. Other files (SRS, Lagrange bases)
 * are shared and kept. Node only; best effort (a cache that cannot be pruned never fails a presentation).
 */
export const DEFAULT_O1JS_CACHE_BYTES = 1024 * 1024 * 1024;

const PROGRAM = /credential-[0-9a-f]{16}/;

/** The o1js cache directory, as o1js computes it (its `cachedir` dependency); undefined outside Node. */
async function o1jsCacheDirectory(): Promise<string | undefined> {
  if (typeof process === 'undefined' || typeof process.versions?.node !== 'string') return undefined;
  const { createRequire } = await import('node:module');
  const fromO1js = createRequire(createRequire(import.meta.url).resolve('o1js'));
  const cachedir = fromO1js('cachedir') as (name: string) => string;
  return cachedir('o1js');
}

/**
 * Marks `program` (a `credential-<hex>` name) as just used and evicts the least recently used presentation circuits
 * beyond `maxBytes`. Returns the names removed.
 */
export async function pruneO1jsCache(
  program: string | undefined,
  maxBytes = DEFAULT_O1JS_CACHE_BYTES,
  directory?: string,
): Promise<string[]> {
  try {
    const dir = directory ?? (await o1jsCacheDirectory());
    if (dir === undefined) return [];
    const [{ readdir, lstat, utimes, unlink }, { join }] = await Promise.all([import('node:fs/promises'), import('node:path')]);
    const groups = new Map<string, { files: string[]; bytes: number; used: number }>();
    const now = new Date();
    for (const name of await readdir(dir)) {
      const id = PROGRAM.exec(name)?.[0];
      if (id === undefined) continue;
      const path = join(dir, name);
      if (id === program) await utimes(path, now, now).catch(() => undefined);
      const info = await lstat(path).catch(() => undefined);
      if (!info?.isFile()) continue;
      const group = groups.get(id) ?? { files: [], bytes: 0, used: 0 };
      group.files.push(path);
      group.bytes += info.size;
      group.used = Math.max(group.used, id === program ? now.getTime() : info.mtimeMs);
      groups.set(id, group);
    }
    let total = [...groups.values()].reduce((sum, g) => sum + g.bytes, 0);
    const removed: string[] = [];
    for (const [id, group] of [...groups].sort((a, b) => a[1].used - b[1].used)) {
      if (total <= maxBytes) break;
      if (id === program) continue; // the circuit about to be proved stays
      for (const file of group.files) await unlink(file).catch(() => undefined);
      total -= group.bytes;
      removed.push(id);
    }
    return removed;
  } catch {
    return [];
  }
}
