import { expect } from 'vitest';
import type { ProviderError } from '../../src/index.js';

/**
 * Awaits a call that must reject with a ProviderError (matched by name, as dapps match it) and returns the error.
 * A call that resolves fails the test without printing its value: the security tests pass results that may carry
 * secrets if a check is broken.
 */
export async function providerFailure(promise: Promise<unknown>): Promise<ProviderError> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a rejection, but the call returned a value (${typeof outcome.value})`);
  expect(outcome.error).toMatchObject({ name: 'ProviderError' });
  return outcome.error as ProviderError;
}
