/**
 * The web dapp example. In this repository it bundles chain-ledger/connect from src/ (the alias below), so that it
 * always matches the code under test; in an application, drop the alias. A dapp needs no chain-ledger Vite plugin
 * and no cross-origin isolation: it holds no device and proves nothing (docs/wallet.md). It must not be served with
 * `Cross-Origin-Opener-Policy: same-origin`, which would cut it off from the wallet window it opens.
 *
 * The wallet page it opens: CHAIN_LEDGER_WALLET_URL at build (or dev-server start) time, default the local one that
 * `npm run wallet` serves.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const src = (path: string) => fileURLToPath(new URL(`../../src/${path}`, import.meta.url));

/** The wallet `npm run wallet` serves (examples/wallet/serve.ts). */
export const LOCAL_WALLET_URL = 'http://127.0.0.1:5174/';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  // Its own dependency cache, apart from the wallet's (examples/wallet/vite.config.ts): they run side by side.
  cacheDir: fileURLToPath(new URL('../../node_modules/.vite/web-dapp', import.meta.url)),
  define: { __CHAIN_LEDGER_WALLET_URL__: JSON.stringify(process.env.CHAIN_LEDGER_WALLET_URL ?? LOCAL_WALLET_URL) },
  resolve: {
    alias: [{ find: /^chain-ledger\/connect$/, replacement: src('connect.ts') }],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    manifest: true,
    // o1js's browser build (the sample buttons) is one 16 MB file (its wasm inlined); a lazy chunk, expected to be big.
    chunkSizeWarningLimit: 20_000,
    reportCompressedSize: false,
  },
});
