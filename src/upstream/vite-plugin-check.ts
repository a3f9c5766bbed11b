/**
 * The browser twins' check that the bundle is built with chain-ledger's Vite plugin. The id below is resolved (to an
 * empty module) only by `chainLedger()` from `chain-ledger/vite`; without the plugin the bundler stops on it at build
 * time, and its "could not resolve" message names the fix, before any later error that would not (Vite's worker
 * format, the other virtual ids).
 */
export function requirePlugin(): Promise<unknown> {
  return import(
    'chain-ledger-internal:vite-plugin missing: add chainLedger() from chain-ledger/vite to the Vite config, see docs/development.md#browser-bundles'
  );
}
