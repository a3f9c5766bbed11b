/**
 * What the two twins of `#upstream/attestations` share (attestations.ts for Node, attestations.browser.ts for
 * bundles): the modules handed out, assembled once from mina-attestations' entry points and four of its internal
 * files. The twins differ only in how they reach those internal files.
 */
import { claimsHasher } from './claims-hash.js';
import { loadO1js } from './o1js.js';
import { importPeer } from './optional-peers.js';
import { specEvaluator, type EvaluateSpec, type SpecEvaluationParts } from './spec-eval.js';

type Attestations = typeof import('mina-attestations');
type Validation = typeof import('mina-attestations/validation');

export interface AttestationsModules {
  o1js: Awaited<ReturnType<typeof loadO1js>>;
  attestations: Attestations;
  validation: Validation;
  credentialMatchesSpec(spec: unknown, credential: unknown): boolean;
  /**
   * The hash of a request's claims that goes into a presentation's context: mina-attestations' own computation
   * (presentation.js `hashClaims`: Poseidon over the claims' fields, typed by its internal `NestedProvable`), for a
   * device that computes the context itself (SIGN_PRESENTATION).
   */
  hashClaims(claims: unknown): bigint;
  /**
   * Whether a request's assertion holds for the chosen credentials, evaluated outside the circuit with
   * mina-attestations' own evaluation (spec-eval.ts); throws where the prover would fail.
   */
  evaluateSpec: EvaluateSpec;
}

/** mina-attestations as a twin imports it: its two entry points, then credential.js, nested.js, operation.js and program-spec.js. */
export type AttestationsImports = [
  attestations: Attestations,
  validation: Validation,
  credential: { credentialMatchesSpec(spec: unknown, credential: unknown): boolean },
  nested: { NestedProvable: { fromValue(value: unknown): unknown } },
  operation: Pick<SpecEvaluationParts, 'Node'>,
  programSpec: Pick<SpecEvaluationParts, 'rootValue' | 'isCredentialSpec'>,
];

/**
 * A twin's loader: o1js first (its loader configures it), then `importAll` (a missing package is the 20006 naming
 * it), assembled once; a load that failed is tried again by the next call.
 */
export function attestationsLoader(importAll: () => Promise<AttestationsImports>): {
  load(): Promise<AttestationsModules>;
  loaded(): boolean;
} {
  let loading: Promise<AttestationsModules> | undefined;
  let loaded = false;
  const load = async (): Promise<AttestationsModules> => {
    const o1js = await loadO1js();
    const [attestations, validation, credential, nested, operation, programSpec] = await importPeer('mina-attestations', importAll);
    const modules = {
      o1js,
      attestations,
      validation,
      credentialMatchesSpec: credential.credentialMatchesSpec,
      hashClaims: claimsHasher(o1js, nested.NestedProvable),
      evaluateSpec: specEvaluator({
        Node: operation.Node,
        rootValue: programSpec.rootValue,
        isCredentialSpec: programSpec.isCredentialSpec,
      }),
    };
    loaded = true;
    return modules;
  };
  return {
    load() {
      loading ??= load();
      loading.catch(() => (loading = undefined));
      return loading;
    },
    loaded: () => loaded,
  };
}
