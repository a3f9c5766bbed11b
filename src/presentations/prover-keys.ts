/**
 * The prover-key cache a presentation's o1js phases run through, in Node: none beyond o1js's own file cache
 * (`~/.cache/o1js`, which serves every compile there). Browser bundles get prover-keys.browser.ts instead (a
 * persistent IndexedDB cache, since o1js writes nothing in a browser): `#presentations/prover-keys` in package.json.
 */
import type { loadO1js } from '../upstream/o1js.js';
import { NO_PRESENTATION_KEYS, type PresentationKeys } from './prover-key-cache.js';

/**
 * The `PresentationKeys` of one presentation of `requestJson` (the request as mina-attestations serializes it).
 * `retry`: a step runs again after its first worker failed (marked on the browser's reports).
 */
export async function openPresentationKeys(
  _o1js: Awaited<ReturnType<typeof loadO1js>>,
  _requestJson: string,
  _options: { retry?: boolean } = {},
): Promise<PresentationKeys> {
  return NO_PRESENTATION_KEYS;
}
