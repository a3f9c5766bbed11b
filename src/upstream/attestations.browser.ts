/**
 * The browser twin of `attestations.ts`: `#upstream/attestations` under the `browser` condition (package.json
 * "imports"). The same lazy loading of o1js and mina-attestations, but mina-attestations' internal modules
 * (`credentialMatchesSpec`, `NestedProvable`, `Node.eval` and `rootValue`) are reached through the virtual id
 * `chain-ledger-internal:mina-attestations/<file>` (resolved by the Vite plugin `chain-ledger/vite`) instead of a
 * file URL built with Node's module resolution.
 */
import { loadO1js } from './o1js.js';
import type { AttestationsModules } from './attestations.js';
import { claimsHasher } from './claims-hash.js';
import { specEvaluator, type SpecEvaluationParts } from './spec-eval.js';
import { importPeer } from './optional-peers.js';

export type { AttestationsModules } from './attestations.js';

let loading: Promise<AttestationsModules> | undefined;
let loaded = false;

/** Whether o1js and mina-attestations are loaded already (else a caller about to wait for their import can say so). */
export function attestationsLoaded(): boolean {
  return loaded;
}

export function loadAttestations(): Promise<AttestationsModules> {
  loading ??= (async () => {
    const o1js = await loadO1js();
    const [attestations, validation, internal, nested, operation, programSpec] = await importPeer('mina-attestations', () =>
      Promise.all([
        import('mina-attestations'),
        import('mina-attestations/validation'),
        import(
          'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-attestations/build/src/credential.js'
        ) as Promise<{
          credentialMatchesSpec(spec: unknown, credential: unknown): boolean;
        }>,
        import(
          'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-attestations/build/src/nested.js'
        ) as Promise<{
          NestedProvable: { fromValue(value: unknown): unknown };
        }>,
        import(
          'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-attestations/build/src/operation.js'
        ) as Promise<Pick<SpecEvaluationParts, 'Node'>>,
        import(
          'chain-ledger-internal (add chainLedger() from chain-ledger/vite to the Vite config: docs/development.md, Browser bundles):mina-attestations/build/src/program-spec.js'
        ) as Promise<Pick<SpecEvaluationParts, 'rootValue' | 'isCredentialSpec'>>,
      ]),
    );
    const modules = {
      o1js,
      attestations,
      validation,
      credentialMatchesSpec: internal.credentialMatchesSpec,
      hashClaims: claimsHasher(o1js, nested.NestedProvable),
      evaluateSpec: specEvaluator({
        Node: operation.Node,
        rootValue: programSpec.rootValue,
        isCredentialSpec: programSpec.isCredentialSpec,
      }),
    };
    loaded = true;
    return modules;
  })();
  loading.catch(() => (loading = undefined));
  return loading;
}
