/** Awaiting calls that must fail: the error they reject with, or a failed test naming what resolved instead. */
import { expect } from 'vitest';
import { ProviderError } from '../../src/index.js';
import { within } from './rig.js';

/** What a promise settled with, without throwing. */
export function settled(promise: Promise<unknown>): Promise<{ value: unknown } | { error: unknown }> {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

/** The error of an outcome that must be a rejection; a value fails the test without printing it (only its type). */
function errorOf(outcome: { value: unknown } | { error: unknown }): unknown {
  if (!('error' in outcome)) throw new Error(`expected a rejection, but the call returned a value (${typeof outcome.value})`);
  return outcome.error;
}

/**
 * Awaits a call that must reject with a ProviderError (matched by name, as dapps match it) and returns the error.
 * A call that resolves fails the test without printing its value: the security tests pass results that may carry
 * secrets if a check is broken.
 */
export async function providerFailure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = errorOf(await settled(promise));
  expect(error).toMatchObject({ name: 'ProviderError' });
  return error as ProviderError;
}

/** `providerFailure`, and the error is an instance of this package's own `ProviderError` class, not only named so. */
export async function ownProviderFailure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await providerFailure(promise);
  expect(error).toBeInstanceOf(ProviderError);
  return error;
}

/**
 * Awaits a call that must reject (any error: transports and device clients throw their own) and returns the error,
 * naming `what` when it neither settles within `ms` (`within`'s bound by default) nor rejects.
 */
export async function rejection(
  promise: Promise<unknown>,
  what?: string,
  ms?: number,
): Promise<{ name: string; message: string; statusCode?: number; cause?: unknown }> {
  return errorOf(await within(settled(promise), what, ms)) as never;
}

/** The error a creation (`createLedgerProvider`, `wrapProvider`) throws; a creation that succeeds fails the test. */
export function creationFailure(create: () => unknown): { code: number; data?: { field?: string; reason?: string } } {
  try {
    create();
  } catch (error) {
    return error as { code: number; data?: { field?: string; reason?: string } };
  }
  throw new Error('expected the creation to be refused');
}
