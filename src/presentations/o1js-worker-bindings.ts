/**
 * Browser only, inside the presentation Worker: let o1js's kimchi calls run on this thread.
 *
 * o1js 2.15's web backend assumes it runs on a page's main thread, where a thread may not block: it forwards every
 * kimchi call to a worker of its own and busy-waits for the result (web-backend.js `overrideBindings`, a spin on a
 * shared u32). In a dedicated Worker that design costs a whole core for nothing: the calling thread spins while
 * o1js's worker and its rayon pool compute. On 2 cores that is three busy threads on two cores, and under load the
 * proof crawled (measured: over 400 s instead of 35 s while the Node tests proved beside it). A Worker may block,
 * so the calls can run here directly, on this thread's own instance of the same wasm module and memory, with rayon's
 * pool doing the parallel parts (as wasm-bindgen-rayon is meant to be used), and one more pool thread instead of the
 * spinning one.
 *
 * How: right after `initializeBindings()` resolves (o1js starts its worker and replaces the bindings in a
 * `setTimeout(0)` that has not run yet), each `caml_*` binding becomes an accessor that keeps the raw function and
 * ignores the replacement. Self-checking: if anything is not as expected (another o1js, bindings already replaced),
 * nothing is changed and o1js forwards as before; the reason is returned.
 */
import type { loadO1js } from '../upstream/o1js.js';

type O1js = Awaited<ReturnType<typeof loadO1js>>;

/** Runs o1js's kimchi calls on the calling Worker thread. Resolves to undefined when done, else to why not. */
export async function runKimchiOnThisThread(o1js: O1js): Promise<string | undefined> {
  const scope = globalThis as {
    WorkerGlobalScope?: unknown;
    kimchi_wasm?: Record<string, unknown>;
    navigator?: { hardwareConcurrency?: number };
  };
  if (scope.WorkerGlobalScope === undefined) return 'not in a Worker: a page must not block its main thread';
  if (scope.kimchi_wasm !== undefined) return 'o1js was started before: its bindings are already forwarded';
  await o1js.initializeBindings();
  const wasm = scope.kimchi_wasm;
  if (wasm === undefined || wasm === null) return 'o1js changed: no globalThis.kimchi_wasm after initializeBindings()';
  const names = Object.keys(wasm).filter((name) => name.startsWith('caml_') && typeof wasm[name] === 'function');
  // A method o1js forwards (worker-spec.js): still the raw wasm export at this point, or o1js changed.
  const probe = 'caml_pasta_fp_plonk_index_create';
  if (!names.includes(probe) || /postMessage|wait_until_non_zero/.test(String(wasm[probe]))) {
    return `o1js changed: ${probe} is not the raw wasm export`;
  }
  for (const name of names) {
    const raw = wasm[name];
    Object.defineProperty(wasm, name, { get: () => raw, set() {}, configurable: true, enumerable: true });
  }
  // The calling thread blocks while rayon computes: give the pool every core (o1js's browser default is cores - 1,
  // which leaves the spinning thread one).
  o1js.setNumberOfWorkers(Math.max(1, scope.navigator?.hardwareConcurrency ?? 1));
  return undefined;
}
