/**
 * Running one call of a property test with a time bound: what it settled with, how long it took, and how many device
 * exchanges it made meanwhile.
 */

export interface Settled {
  ok: boolean;
  value?: unknown;
  error?: unknown;
  /** Device exchanges during the call. */
  exchanges: number;
  ms: number;
}

export class DidNotSettle extends Error {
  override readonly name = 'DidNotSettle';
}

/**
 * Runs `call`, bounded by `timeoutMs`: a call that neither resolves nor rejects in time is a failure (thrown as
 * `DidNotSettle`). `exchanges()` is read before and after, to count what reached the device.
 */
export async function settle(call: () => Promise<unknown>, exchanges: () => number, timeoutMs: number): Promise<Settled> {
  const before = exchanges();
  const start = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  const outcome = Promise.resolve()
    .then(call)
    .then(
      (value) => ({ ok: true, value }),
      (error: unknown) => ({ ok: false, error }),
    );
  try {
    const first = await Promise.race([outcome, timeout]);
    if (first === 'timeout') throw new DidNotSettle(`the call did not settle within ${timeoutMs} ms`);
    return { ...first, exchanges: exchanges() - before, ms: performance.now() - start };
  } finally {
    clearTimeout(timer);
  }
}
