/**
 * The browser twin of prover-keys.ts (`#presentations/prover-keys` under the `browser` condition of package.json
 * "imports"): a presentation's o1js phases
 * run through the persistent IndexedDB key cache (indexeddb-key-cache.ts), so that a circuit compiled once on an
 * origin is not compiled again there.
 */
import type { loadO1js } from '../upstream/o1js.js';
import { openBrowserPresentationKeys } from './indexeddb-key-cache.js';
import type { PresentationKeys } from './prover-key-cache.js';

/** The `PresentationKeys` of one in-browser presentation of `requestJson`; never throws (see openBrowserPresentationKeys). */
export function openPresentationKeys(
  o1js: Awaited<ReturnType<typeof loadO1js>>,
  requestJson: string,
  options: { retry?: boolean } = {},
): Promise<PresentationKeys> {
  return openBrowserPresentationKeys(o1js, requestJson, options);
}
