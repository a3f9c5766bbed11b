/**
 * mina-signer's internal modules, loaded by path next to the package's entry point (the package exports only
 * `Client`). Two copies are installed, one per protocol era, both pinned to exact versions in package.json so the
 * paths cannot move under us:
 *
 * - `mina-signer-berkeley` = mina-signer 3.1.0, the Berkeley transaction layout (8 app-state fields), as o1js 2.x;
 * - `mina-signer` = mina-signer 4.0.0, the Mesa layout (32 app-state fields).
 *
 * The layouts differ silently (no library checks array lengths), so every caller must choose the era explicitly.
 * Node only: browser bundles get mina-signer-internals.browser.ts instead (`#upstream/mina-signer-internals` under
 * the `browser` condition of package.json "imports"; docs/development.md "Browser bundles"). The two export the same
 * names and types (test/architecture.test.ts).
 */
import { INTERNAL_FILES, assemble, type Era, type MinaSignerInternals } from './mina-signer-modules.js';

export type { Era, GroupPoint, LegacyHashInput, Layout, MinaSignerInternals, RawSignature, SignerNetwork } from './mina-signer-modules.js';

export const ERA_PACKAGES: Record<Era, string> = { berkeley: 'mina-signer-berkeley', mesa: 'mina-signer' };

const loaded = new Map<Era, Promise<MinaSignerInternals>>();

export function minaSignerInternals(era: Era): Promise<MinaSignerInternals> {
  let internals = loaded.get(era);
  if (!internals) {
    internals = load(ERA_PACKAGES[era]);
    loaded.set(era, internals);
    internals.catch(() => loaded.delete(era));
  }
  return internals;
}

async function load(pkg: string): Promise<MinaSignerInternals> {
  const [{ createRequire }, { pathToFileURL }, { dirname, join }] = await Promise.all([
    import('node:module'),
    import('node:url'),
    import('node:path'),
  ]);
  const dir = dirname(createRequire(import.meta.url).resolve(pkg));
  return assemble(await Promise.all(INTERNAL_FILES.map((file) => import(pathToFileURL(join(dir, file)).href))));
}
