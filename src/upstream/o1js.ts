/**
 * The one place o1js is imported. o1js is heavy (≈ 0.2 s to import, ≈ 0.8 s to start its bindings, 170 MB on disk),
 * so it is loaded only when a method needs it: the local chain, nullifier verification, credentials.
 *
 * In Node the native backend (`@o1js/native-<os>-<arch>`, an optional dependency of o1js) proves ≈ 2.5× faster than
 * wasm, and o1js uses every core; the backend must be chosen before the bindings start, hence this loader.
 * `O1JS_BACKEND=wasm|native` overrides the choice.
 */
import { importPeer } from './optional-peers.js';

type O1js = typeof import('o1js');

let loading: Promise<O1js> | undefined;

export function loadO1js(): Promise<O1js> {
  loading ??= (async () => {
    const o1js = await importPeer('o1js', () => import('o1js'));
    const isNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string';
    if (isNode) {
      const { availableParallelism } = await import('node:os');
      if (!process.env.O1JS_BACKEND && (await nativeBackendInstalled())) {
        try {
          o1js.setBackend('native');
        } catch {
          // The application started o1js's bindings first: its backend stays (wasm by default).
        }
      }
      o1js.setNumberOfWorkers(Math.max(1, availableParallelism()));
    }
    return o1js;
  })();
  loading.catch(() => (loading = undefined));
  return loading;
}

async function nativeBackendInstalled(): Promise<boolean> {
  try {
    const { createRequire } = await import('node:module');
    createRequire(import.meta.url).resolve(`@o1js/native-${process.platform}-${process.arch}`);
    return true;
  } catch {
    return false;
  }
}
