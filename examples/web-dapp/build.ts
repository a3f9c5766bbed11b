/**
 * `npm run build:web-dapp`: builds the example with Vite (examples/web-dapp/dist) and writes
 * examples/web-dapp/bundle-sizes.json: the initial bundle (the entry chunk, its static imports and the CSS) and each
 * lazy chunk, with the packages each holds. Fails if anything but the page and chain-ledger/connect reaches the
 * initial bundle (o1js and mina-attestations come only with the sample buttons). `buildAndMeasure` does the same for
 * the wallet page (examples/wallet/build.ts).
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Rollup } from 'vite';

const HERE = fileURLToPath(new URL('.', import.meta.url));
/** What the dapp's initial bundle may hold: the page and chain-ledger (its connect entry; no zod, no mina-signer). */
const INITIAL_ONLY = ['chain-ledger', 'web-dapp'];

export interface ChunkSize {
  file: string;
  bytes: number;
  gzipBytes: number;
  /** npm packages with modules in this chunk (chain-ledger's own src/ as "chain-ledger"). */
  packages: string[];
}
export interface BundleSizes {
  initial: { bytes: number; gzipBytes: number; files: ChunkSize[] };
  lazy: { bytes: number; gzipBytes: number; files: ChunkSize[] };
  /** The lazy chunks holding o1js / mina-attestations. */
  o1js: ChunkSize[];
  minaAttestations: ChunkSize[];
}

function packagesOf(moduleIds: string[]): string[] {
  const names = new Set<string>();
  for (const id of moduleIds) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(id);
    if (match) names.add(match[1]!);
    else if (id.includes('/src/')) names.add(/\/examples\/([^/]+)\//.exec(id)?.[1] ?? 'chain-ledger');
  }
  return [...names].sort();
}

/**
 * Builds with the Vite config `configFile`, writes the sizes to `sizesFile`, and throws (naming the chunks) when the
 * initial bundle holds a package that `allowedInitially` refuses.
 */
export async function buildAndMeasure(
  configFile: string,
  sizesFile: string,
  allowedInitially: (pkg: string) => boolean,
): Promise<BundleSizes> {
  const result = (await build({ configFile, logLevel: 'warn' })) as Rollup.RollupOutput | Rollup.RollupOutput[];
  const output = (Array.isArray(result) ? result : [result]).flatMap((r) => r.output);
  const chunks = output.filter((o): o is Rollup.OutputChunk => o.type === 'chunk');
  const byFile = new Map(chunks.map((c) => [c.fileName, c]));
  const initialFiles = new Set<string>();
  const visit = (file: string) => {
    if (initialFiles.has(file)) return;
    initialFiles.add(file);
    for (const next of byFile.get(file)?.imports ?? []) visit(next);
  };
  // The page's entry, not the chunk chain-ledger/vite emits for o1js (a virtual module, loaded on first use).
  for (const chunk of chunks) if (chunk.isEntry && !chunk.facadeModuleId?.startsWith('\0')) visit(chunk.fileName);

  const size = (file: string, text: string | Uint8Array, packages: string[]): ChunkSize => ({
    file,
    bytes: typeof text === 'string' ? Buffer.byteLength(text) : text.byteLength,
    gzipBytes: gzipSync(text).byteLength,
    packages,
  });
  const initial: ChunkSize[] = [];
  const lazy: ChunkSize[] = [];
  for (const item of output) {
    if (item.type === 'chunk') {
      const entry = size(item.fileName, item.code, packagesOf(item.moduleIds));
      (initialFiles.has(item.fileName) ? initial : lazy).push(entry);
    } else if (/\.(css|html)$/.test(item.fileName)) {
      initial.push(size(item.fileName, item.source, []));
    }
  }
  const leaked = initial.filter((c) => c.packages.some((p) => !allowedInitially(p)));
  if (leaked.length > 0) {
    throw new Error(`packages reached the initial bundle: ${leaked.map((c) => `${c.file} (${c.packages.join(', ')})`).join('; ')}`);
  }
  const total = (files: ChunkSize[]) => ({
    bytes: files.reduce((n, f) => n + f.bytes, 0),
    gzipBytes: files.reduce((n, f) => n + f.gzipBytes, 0),
    files: files.sort((a, b) => b.bytes - a.bytes),
  });
  const sizes: BundleSizes = {
    initial: total(initial),
    lazy: total(lazy),
    o1js: lazy.filter((c) => c.packages.includes('o1js')),
    minaAttestations: lazy.filter((c) => c.packages.includes('mina-attestations')),
  };
  await writeFile(sizesFile, `${JSON.stringify(sizes, null, 2)}\n`);
  return sizes;
}

export function buildWebDapp(): Promise<BundleSizes> {
  return buildAndMeasure(`${HERE}vite.config.ts`, `${HERE}bundle-sizes.json`, (pkg) => INITIAL_ONLY.includes(pkg));
}

/** Prints what `buildAndMeasure` measured. */
export function printSizes(sizes: BundleSizes, written: string): void {
  console.log(`initial bundle: ${kB(sizes.initial.bytes)} (gzip ${kB(sizes.initial.gzipBytes)}) in ${sizes.initial.files.length} files`);
  for (const f of sizes.initial.files) console.log(`  ${f.file.padEnd(44)} ${kB(f.bytes).padStart(12)}  ${f.packages.join(', ')}`);
  console.log(`lazy chunks: ${kB(sizes.lazy.bytes)} (gzip ${kB(sizes.lazy.gzipBytes)}) in ${sizes.lazy.files.length} files`);
  for (const f of sizes.lazy.files) console.log(`  ${f.file.padEnd(44)} ${kB(f.bytes).padStart(12)}  ${f.packages.join(', ')}`);
  console.log(`written to ${written}`);
}

const kB = (n: number) => `${(n / 1024).toFixed(1)} kB`;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  printSizes(await buildWebDapp(), 'examples/web-dapp/bundle-sizes.json');
}
