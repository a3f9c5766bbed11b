/**
 * The virtual ids of the browser loaders (mina-signer-internals.browser.ts, credentials/attestations.browser.ts):
 * `chain-ledger-internal:<package>/<file>`, resolved by the chain-ledger Vite plugin (src/vite.ts) to a file of the
 * installed package. Typed loosely here; each loader states the shape it uses.
 */
declare module 'chain-ledger-internal:*' {
  // biome-ignore lint/suspicious/noExplicitAny: typed loosely here; each loader states the shape it uses.
  const module: any;
  export = module;
}
