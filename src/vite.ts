/**
 * `chain-ledger/vite`: what a browser bundle of chain-ledger needs, as a Vite plugin (runs in Node, at build time).
 *
 * ```ts
 * // vite.config.ts
 * import { chainLedger } from 'chain-ledger/vite';
 * export default defineConfig({ plugins: [chainLedger()] });
 * ```
 *
 * The Node/browser twins (mina-signer's and mina-attestations' loaders, the prover-key cache, the file credential
 * store) are chosen by the package itself: package.json "imports" (`#upstream/mina-signer-internals`, …) with a
 * `browser` condition, which Vite, like any bundler, applies. The plugin does what a manifest cannot:
 *
 * 1. resolves the browser loaders' virtual ids `chain-ledger-internal (…):<package>/<file>` to unexported files of the
 *    installed packages (mina-signer 4.0.0 and 3.1.0 as `mina-signer-berkeley`: their `dist/node/mina-signer/…` ESM
 *    files, which the packages' exports maps hide; mina-attestations' `build/…`). Without the plugin the build stops
 *    on the first of those ids, and the error quotes its prefix (`INTERNAL_PREFIX`), which names this plugin;
 * 2. gives those mina-signer files a browser `crypto` (their only Node import: `randomBytes`, here from
 *    `crypto.getRandomValues`);
 * 3. turns chain-ledger's dynamic imports of `node:*` modules (behind checks that never pass in a browser) into an
 *    empty module, instead of Vite's "externalized for browser compatibility" stub and its warnings, and its imports
 *    of an optional peer the application did not install (o1js, mina-attestations) into a module that throws when
 *    loaded, so that only the methods needing it fail (20006 naming the package);
 * 4. sends `Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Embedder-Policy: require-corp` from the dev
 *    and preview servers (o1js needs SharedArrayBuffer, i.e. a cross-origin isolated page), unless
 *    `crossOriginIsolation: false`. Production servers must send the same two headers;
 * 5. builds the presentation Worker (o1js compiles and proves there, off the page's main thread) as an ES module
 *    worker with this plugin applied (`worker.format: 'es'`, `worker.plugins`). A config that sets `worker.plugins`
 *    itself must list `chainLedger()` there too;
 * 6. emits o1js once, for the page and the Worker: Vite bundles a Worker apart from the page, so each would carry its
 *    own 16 MB copy of o1js (Vite 8 writes both). The build emits `<assetsDir>/o1js-<version>.js` (all of o1js's
 *    exports) as a chunk of its own, and every `import 'o1js'` of the page, the Worker and the application's code
 *    loads that file, so there is one o1js per thread and one download;
 * 7. serves mina-signer's files without their source maps, which point to TypeScript sources the packages do not
 *    ship (the dev server would warn about each), and has the dev server pre-bundle the CommonJS packages they import
 *    (`blakejs`, and 3.1.0's `js-sha256`: Vite serves them unbundled otherwise, and their named exports are missing).
 *
 * @module chain-ledger/vite
 */

import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';

export interface ChainLedgerViteOptions {
  /** Send the COOP/COEP headers from `vite dev` and `vite preview` (default true). */
  crossOriginIsolation?: boolean;
}

/**
 * The prefix of the virtual ids used by the `.browser` loaders. Without this plugin, the bundler stops on the first
 * of them with "failed to resolve import …", and the prefix it quotes says what to add.
 */
export const INTERNAL_PREFIX =
  'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):';

/** The headers that make a page cross-origin isolated (SharedArrayBuffer, needed by o1js). */
export const CROSS_ORIGIN_ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
} as const;

const BROWSER_CRYPTO = '\0chain-ledger:browser-crypto';
const BROWSER_CRYPTO_CODE = `
export function randomBytes(n) {
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i += 65536) globalThis.crypto.getRandomValues(bytes.subarray(i, Math.min(n, i + 65536)));
  return bytes;
}
export default { randomBytes };
`;

const EMPTY = '\0chain-ledger:empty';
/** Stands in for an optional peer (o1js, mina-attestations) the application did not install: throws when loaded. */
const MISSING = '\0chain-ledger:missing-package';
const OPTIONAL_PEERS = ['o1js', 'mina-attestations'];
const missingCode = (pkg: string) => `// chain-ledger/vite: ${pkg} was not installed when this bundle was built.
throw Object.assign(new Error("Cannot find package '${pkg}' (not installed when this bundle was built)"), { code: 'ERR_MODULE_NOT_FOUND' });
`;
/** The module of the shared o1js chunk (6.): o1js's whole namespace. */
const O1JS_ENTRY = '\0chain-ledger:o1js';
/** Marks the plugin instance Vite runs on the Worker's build (`worker.plugins`). */
const IN_WORKER = Symbol('chain-ledger worker build');
const EMPTY_CODE = `// chain-ledger/vite: nothing to load in a browser bundle (a Node-only module).
export default undefined;
`;

/**
 * This file lives in src/ (development) or dist/ (the published package); the `node:*` imports of both trees are
 * emptied, so the plugin from dist/ also serves a page that bundles chain-ledger's src/ (as examples/web-dapp does).
 */
const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TREES = [join(PACKAGE_ROOT, 'src'), join(PACKAGE_ROOT, 'dist')];

interface Internal {
  /** Where `<file>` in `chain-ledger-internal (…):<package>/<file>` is relative to. */
  base: string;
  /** The package's root: files under it get the browser `crypto`. */
  root: string;
}

function locate(pkg: string): Internal {
  const require = createRequire(import.meta.url);
  if (pkg === 'mina-signer' || pkg === 'mina-signer-berkeley') {
    // As the Node loader does: the directory of the CommonJS entry, dist/node/mina-signer.
    const base = dirname(require.resolve(pkg));
    return { base, root: resolve(base, '..', '..', '..') };
  }
  // mina-attestations' exports map lists only ESM entry points (no package.json, no "require").
  const roots = require.resolve.paths(pkg) ?? [];
  const root = roots.map((r) => join(r, pkg)).find((d) => existsSync(join(d, 'package.json')));
  if (!root) throw new Error(`chain-ledger/vite: ${pkg} is not installed`);
  return { base: root, root };
}

const PACKAGES = ['mina-signer', 'mina-signer-berkeley', 'mina-attestations'] as const;

/**
 * The CommonJS packages the internal files of both mina-signer eras import (test/vite.test.ts walks their import
 * graphs and checks this list), as Vite's `optimizeDeps.include` names a dependency reached through a package:
 * 4.0.0 imports `blakejs` (its `@noble/hashes` is ESM), 3.1.0 `blakejs` and `js-sha256`.
 */
const COMMONJS_DEPENDENCIES = ['mina-signer > blakejs', 'mina-signer-berkeley > blakejs', 'mina-signer-berkeley > js-sha256'] as const;

/** Where a production build puts the one o1js chunk: `<assetsDir>/o1js-<version>.js`, beside every other chunk. */
function sharedO1jsFile(assetsDir: string): string {
  const { version } = JSON.parse(readFileSync(join(locate('o1js').root, 'package.json'), 'utf8')) as { version: string };
  return join(assetsDir, `o1js-${version}.js`).split(sep).join('/');
}

function installed(pkg: string): boolean {
  try {
    locate(pkg);
    return true;
  } catch {
    return false;
  }
}

/**
 * The Vite plugin a browser bundle of chain-ledger needs (see the module comment above for what it does).
 *
 * @param options - `crossOriginIsolation: false` leaves out the COOP/COEP headers of `vite` and `vite preview`.
 * @example
 * ```ts
 * // vite.config.ts
 * import { defineConfig } from 'vite';
 * import { chainLedger } from 'chain-ledger/vite';
 * export default defineConfig({ plugins: [chainLedger()] });
 * ```
 * @throws at build time, when an internal module it must resolve is not a file of the installed package (a
 *   version mismatch of mina-signer or mina-attestations).
 */
export function chainLedger(options: ChainLedgerViteOptions = {}): Plugin {
  // Vite applies `worker.plugins` only to the Worker's production build.
  const inWorker = (options as { [IN_WORKER]?: boolean })[IN_WORKER] === true;
  let building = inWorker;
  let assetsDir = 'assets';
  const internal = memoizedLocate();

  return {
    name: 'chain-ledger',
    enforce: 'pre',
    config: () => viteConfig(options),
    configResolved(config) {
      building ||= config.command === 'build' && !config.build.ssr;
      assetsDir = config.build.assetsDir;
    },
    buildStart() {
      if (building && !inWorker && installed('o1js')) {
        this.emitFile({ type: 'chunk', id: O1JS_ENTRY, fileName: sharedO1jsFile(assetsDir), preserveSignature: 'strict' });
      }
    },
    async resolveId(source, importer, opts) {
      // Server-side rendering runs in Node, with the Node loaders.
      if (opts?.ssr) return null;
      // 6. the one o1js chunk of a production build
      if (source === O1JS_ENTRY) return O1JS_ENTRY;
      if (source === 'o1js' && building && importer !== O1JS_ENTRY && installed('o1js')) {
        return { id: `./${basename(sharedO1jsFile(assetsDir))}`, external: true };
      }
      // 1. chain-ledger-internal (…):<package>/<file>
      if (source.startsWith(INTERNAL_PREFIX)) return resolveInternal(source, internal);
      if (!importer) return null;
      const from = clean(importer);
      // 2. mina-signer's `import { randomBytes } from 'crypto'`
      if ((source === 'crypto' || source === 'node:crypto') && PACKAGES.slice(0, 2).some((p) => inside(from, internal(p).root))) {
        return BROWSER_CRYPTO;
      }
      // 3. chain-ledger's own `node:*` imports, and its optional peers where they are not installed
      if (!TREES.some((tree) => inside(from, tree))) return null;
      if (source.startsWith('node:')) return `${EMPTY}?${source}`;
      const peer = OPTIONAL_PEERS.find((p) => source === p || source.startsWith(`${p}/`));
      if (peer) {
        // Vite's own stand-in for a missing optional peer (`__vite-optional-peer-dep:…`) throws a message the loaders
        // do not recognise; ours throws what Node does, which becomes 20006 naming the package.
        const resolved = await this.resolve(source, importer, { skipSelf: true });
        if (!resolved || resolved.id.includes('__vite-optional-peer-dep')) return `${MISSING}?${peer}`;
      }
      return null;
    },
    load(id) {
      if (id === O1JS_ENTRY) return "export * from 'o1js';\n";
      if (id === BROWSER_CRYPTO) return BROWSER_CRYPTO_CODE;
      if (id.startsWith(EMPTY)) return EMPTY_CODE;
      if (id.startsWith(MISSING)) return missingCode(id.slice(MISSING.length + 1));
      return loadWithoutSourceMap(clean(id), internal);
    },
  };
}

/** A `//# sourceMappingURL=…` comment at the end of a file. */
const SOURCE_MAPPING_URL = /\n\/\/# sourceMappingURL=[^\n]*\s*$/;

/**
 * 7. A JavaScript file of mina-signer (either era), without its source map: each file's map names the TypeScript
 * sources it was compiled from (`../../../../src/signature.ts`, `bindings/crypto/random.ts`), which the packages do
 * not ship, so the dev server would warn "Sourcemap for … points to missing source files" once per file (about 30).
 * A map with no sources has nothing to show: the file is served as it is, and `mappings: ''` tells Vite and Rollup
 * that it has none. Other files (mina-attestations ships its sources) are left to Vite.
 */
async function loadWithoutSourceMap(file: string, internal: (pkg: string) => Internal) {
  if (!file.endsWith('.js') || !PACKAGES.slice(0, 2).some((p) => inside(file, internal(p).root))) return null;
  const code = await readFile(file, 'utf8');
  return { code: code.replace(SOURCE_MAPPING_URL, '\n'), map: { mappings: '' as const } };
}

/** `locate`, each package looked up once per plugin instance (resolveId asks for the same few on every import). */
function memoizedLocate(): (pkg: string) => Internal {
  const located = new Map<string, Internal>();
  return (pkg) => {
    let found = located.get(pkg);
    if (!found) {
      found = locate(pkg);
      located.set(pkg, found);
    }
    return found;
  };
}

const inside = (file: string, dir: string) => file === dir || file.startsWith(dir + sep);
/** A module id without its query string. */
const clean = (id: string) => id.split('?')[0]!;

/** The Vite config the plugin adds: mina-signer's CommonJS dependencies pre-bundled (7.), the COOP/COEP headers (4.), the Worker's build (5.). */
function viteConfig(options: ChainLedgerViteOptions) {
  return {
    // The dev server serves mina-signer's internal files as they are; the CommonJS packages they import must be
    // pre-bundled (the dependency scan does not follow the virtual ids), or their named imports are missing.
    optimizeDeps: { include: [...COMMONJS_DEPENDENCIES] },
    // 5. The presentation Worker (presentations/worker.browser): an ES module, since it loads o1js and
    // mina-attestations lazily (code-splitting; Vite's default worker format, iife, cannot split), built with this
    // plugin too (Vite applies `plugins` to workers only in dev; `worker.plugins` in builds).
    worker: { format: 'es' as const, plugins: () => [chainLedger({ ...options, [IN_WORKER]: true } as ChainLedgerViteOptions)] },
    ...(options.crossOriginIsolation === false
      ? {}
      : { server: { headers: { ...CROSS_ORIGIN_ISOLATION_HEADERS } }, preview: { headers: { ...CROSS_ORIGIN_ISOLATION_HEADERS } } }),
  };
}

/**
 * 1. A virtual id `chain-ledger-internal (…):<package>/<file>` → that file of the installed package (or the throwing
 * stand-in of an optional peer that is not installed); anything else is a version mismatch, refused at build time.
 */
function resolveInternal(source: string, internal: (pkg: string) => Internal): string {
  const rest = source.slice(INTERNAL_PREFIX.length);
  const pkg = PACKAGES.find((p) => rest.startsWith(`${p}/`));
  if (!pkg) throw new Error(`chain-ledger/vite: unknown internal module ${source}`);
  if (OPTIONAL_PEERS.includes(pkg) && !installed(pkg)) return `${MISSING}?${pkg}`;
  const file = resolve(internal(pkg).base, rest.slice(pkg.length + 1));
  if (!inside(file, internal(pkg).root) || !existsSync(file)) {
    throw new Error(`chain-ledger/vite: ${source} is not a file of the installed ${pkg}`);
  }
  return file;
}

export default chainLedger;
