/**
 * The browser twin of `attestations.ts`: `#upstream/attestations` under the `browser` condition (package.json
 * "imports"). The same loader (attestations-modules.ts), but mina-attestations' internal modules
 * (`credentialMatchesSpec`, `NestedProvable`, `Node.eval` and `rootValue`) are reached through the virtual id
 * `chain-ledger-internal:mina-attestations/<file>` (resolved by the Vite plugin `chain-ledger/vite`) instead of a
 * file URL built with Node's module resolution.
 */
import { attestationsLoader, type AttestationsImports, type AttestationsModules } from './attestations-modules.js';

export type { AttestationsModules } from './attestations-modules.js';

const loader = attestationsLoader(() =>
  Promise.all([
    import('mina-attestations'),
    import('mina-attestations/validation'),
    import(
      'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-attestations/build/src/credential.js'
    ) as Promise<AttestationsImports[2]>,
    import(
      'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-attestations/build/src/nested.js'
    ) as Promise<AttestationsImports[3]>,
    import(
      'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-attestations/build/src/operation.js'
    ) as Promise<AttestationsImports[4]>,
    import(
      'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-attestations/build/src/program-spec.js'
    ) as Promise<AttestationsImports[5]>,
  ]),
);

/** Whether o1js and mina-attestations are loaded already (else a caller about to wait for their import can say so). */
export function attestationsLoaded(): boolean {
  return loader.loaded();
}

export function loadAttestations(): Promise<AttestationsModules> {
  return loader.load();
}
