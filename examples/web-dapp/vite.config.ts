/**
 * The web dapp example. In this repository it bundles chain-ledger from src/ (the aliases below, and the
 * `chain-ledger-source` condition, which points package.json "imports" at src/ too) so that it always matches the
 * code under test; in an application, drop the aliases and the condition and import the plugin from the package:
 * `import { chainLedger } from 'chain-ledger/vite'`.
 */
import { fileURLToPath } from 'node:url';
import { defaultClientConditions, defineConfig } from 'vite';
import { chainLedger } from '../../src/vite.js';

const src = (path: string) => fileURLToPath(new URL(`../../src/${path}`, import.meta.url));

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [chainLedger()],
  resolve: {
    conditions: ['chain-ledger-source', ...defaultClientConditions],
    alias: [
      { find: /^chain-ledger$/, replacement: src('index.ts') },
      { find: /^chain-ledger\/transport$/, replacement: src('transport.ts') },
      { find: /^chain-ledger\/emulator$/, replacement: src('emulator.ts') },
      { find: /^chain-ledger\/dmk$/, replacement: src('dmk.ts') },
    ],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    manifest: true,
    // o1js's browser build is one 16 MB file (its wasm inlined); it is a lazy chunk, expected to be big.
    chunkSizeWarningLimit: 20_000,
    reportCompressedSize: false,
  },
});
