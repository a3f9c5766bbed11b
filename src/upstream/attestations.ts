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
import { attestationsLoader, type AttestationsModules } from './attestations-modules.js';

export type { AttestationsModules } from './attestations-modules.js';

const loader = attestationsLoader(() =>
  Promise.all([
    import('mina-attestations'),
    import('mina-attestations/validation'),
    importInternal('build/src/credential.js'),
    importInternal('build/src/nested.js'),
    importInternal('build/src/operation.js'),
    importInternal('build/src/program-spec.js'),
  ]),
);

/** Whether o1js and mina-attestations are loaded already (else a caller about to wait for their import can say so). */
export function attestationsLoaded(): boolean {
  return loader.loaded();
}

export function loadAttestations(): Promise<AttestationsModules> {
  return loader.load();
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
