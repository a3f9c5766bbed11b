/**
 * mina-attestations, loaded on first use (it pulls o1js, which the loader configures first). A few internal modules
 * are loaded by path, like mina-signer's (the package is pinned to an exact version): `credentialMatchesSpec`, the
 * very check `Presentation.prepare` uses to match a stored credential to a request input, so that the credentials
 * offered to the user are exactly the ones the proof will accept; `NestedProvable` for the claims' hash; and
 * `Node.eval` with `rootValue`, to evaluate a request's assertion on the chosen credentials before proving
 * (spec-eval.ts).
 *
 * Node only: browser bundles get attestations.browser.ts instead (`#upstream/attestations` under the `browser`
 * condition of package.json "imports"). The two export the same names and types (test/architecture.test.ts).
 */
import { loadO1js } from './o1js.js';
import { claimsHasher } from './claims-hash.js';
import { specEvaluator, type EvaluateSpec } from './spec-eval.js';
import { importPeer } from './optional-peers.js';

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
        importInternal('build/src/credential.js'),
        importInternal('build/src/nested.js'),
        importInternal('build/src/operation.js'),
        importInternal('build/src/program-spec.js'),
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

/** A file inside the installed package (its exports map lists ESM entry points only, not package.json). */
async function importInternal(file: string) {
  const [{ createRequire }, { pathToFileURL }, { join }, { existsSync }] = await Promise.all([
    import('node:module'),
    import('node:url'),
    import('node:path'),
    import('node:fs'),
  ]);
  const roots = createRequire(import.meta.url).resolve.paths('mina-attestations') ?? [];
  const dir = roots.map((root) => join(root, 'mina-attestations')).find((d) => existsSync(join(d, 'package.json')));
  if (!dir) throw Object.assign(new Error("Cannot find package 'mina-attestations'"), { code: 'ERR_MODULE_NOT_FOUND' });
  return import(pathToFileURL(join(dir, file)).href);
}
