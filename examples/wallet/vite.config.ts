/**
 * The wallet page. Like the web dapp it bundles chain-ledger from src/ (the aliases below), with the
 * `chain-ledger/vite` plugin, but it is isolated with Document-Isolation-Policy instead of COOP/COEP: o1js needs a
 * cross-origin isolated context, and COOP would sever the window from the dapp that opened it (docs/wallet.md).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { chainLedger } from '../../src/vite.js';

const src = (path: string) => fileURLToPath(new URL(`../../src/${path}`, import.meta.url));

/** What the wallet page's server must send with every response (the same in production). */
export const WALLET_HEADERS = { 'Document-Isolation-Policy': 'isolate-and-require-corp' } as const;

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [chainLedger({ crossOriginIsolation: false })],
  server: { headers: { ...WALLET_HEADERS } },
  preview: { headers: { ...WALLET_HEADERS } },
  resolve: {
    alias: [
      { find: /^chain-ledger$/, replacement: src('index.ts') },
      { find: /^chain-ledger\/transport$/, replacement: src('transport.ts') },
      { find: /^chain-ledger\/emulator$/, replacement: src('emulator.ts') },
    ],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // o1js's browser build is one 16 MB file (its wasm inlined); it is a lazy chunk, expected to be big.
    chunkSizeWarningLimit: 20_000,
    reportCompressedSize: false,
  },
});
