/**
 * The wallet page. It bundles chain-ledger from src/ (the aliases below), with the `chain-ledger/vite` plugin, and is
 * isolated with Document-Isolation-Policy instead of COOP/COEP: o1js needs a cross-origin isolated context, and COOP
 * would sever the window from the dapp that opened it. Its prover window (prover.html, the fallback for browsers that
 * ignore that policy) is isolated with COOP/COEP: it needs no opener (docs/wallet.md).
 */
import { fileURLToPath } from 'node:url';
import { defaultClientConditions, defineConfig, type Plugin } from 'vite';
import { chainLedger } from 'chain-ledger/vite';
import { headersFile, walletHeadersFor } from './headers.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const src = (path: string) => here(`../../src/${path}`);

/**
 * Sends `walletHeadersFor` from `vite` and `vite preview`, and writes the same rules into the build as `_headers`
 * (Netlify, Cloudflare Pages: docs/wallet.md, "Host the wallet page").
 */
function walletHeaders(): Plugin {
  type Server = Parameters<NonNullable<Extract<Plugin['configurePreviewServer'], (...args: never[]) => unknown>>>[0];
  const use = (server: Pick<Server, 'middlewares'>): void => {
    server.middlewares.use((req, res, next) => {
      for (const [name, value] of Object.entries(walletHeadersFor(req.url ?? '/'))) res.setHeader(name, value);
      next();
    });
  };
  return {
    name: 'chain-ledger-wallet-headers',
    configureServer: use,
    configurePreviewServer: use,
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: '_headers', source: headersFile() });
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  // Its own dependency cache: `npm run wallet` runs this dev server beside the dapp's, and with Vite's one default
  // (node_modules/.vite) each would overwrite the other's pre-bundled dependencies.
  cacheDir: here('../../node_modules/.vite/wallet'),
  plugins: [chainLedger({ crossOriginIsolation: false }), walletHeaders()],
  resolve: {
    // In this repository: package.json "imports" (the browser twins of the loaders) point at src/ too.
    conditions: ['chain-ledger-source', ...defaultClientConditions],
    alias: [
      { find: /^chain-ledger$/, replacement: src('index.ts') },
      { find: /^chain-ledger\/transport$/, replacement: src('transport.ts') },
      { find: /^chain-ledger\/emulator$/, replacement: src('emulator.ts') },
      { find: /^chain-ledger\/dmk$/, replacement: src('dmk.ts') },
      { find: /^chain-ledger\/wallet$/, replacement: src('wallet.ts') },
    ],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    manifest: true,
    rollupOptions: { input: { index: here('index.html'), prover: here('prover.html') } },
    // o1js's browser build is one 16 MB file (its wasm inlined); it is a lazy chunk, expected to be big.
    chunkSizeWarningLimit: 20_000,
    reportCompressedSize: false,
  },
});
