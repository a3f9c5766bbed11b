/**
 * The virtual ids of the browser loaders (mina-signer-internals.browser.ts, attestations.browser.ts):
 * `chain-ledger-internal (…):<package>/<file>`, resolved by the chain-ledger Vite plugin (src/vite.ts, INTERNAL_PREFIX)
 * to a file of the installed package; without the plugin, the bundler's "failed to resolve" error quotes the id, whose
 * prefix says what to add. Typed loosely here; each loader states the shape it uses.
 */
declare module 'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):*' {
  // biome-ignore lint/suspicious/noExplicitAny: typed loosely here; each loader states the shape it uses.
  const module: any;
  export = module;
}
