/**
 * The stage after the holder approved and chose: the request's assertion (and its output claim) evaluated on the
 * chosen credentials' values outside the circuit, with mina-attestations' own evaluation (src/upstream/spec-eval.ts).
 * A request the credentials do not satisfy is refused here, before anything is compiled, signed on the device or
 * proved, with the answer a refusal gets (`declined()`), as a failing proof is: the values the prover or o1js would
 * print about it (an unsatisfied constraint's wires, a range check's number) are private, and go to the host's log
 * only. It runs only after the holder approved a request that states the assertion (consent.ts): that it holds is
 * the bit the holder agreed to prove.
 */
import { type ProviderError, detailOf } from '../errors/provider-error.js';
import type { AttestationsModules } from '../upstream/attestations.js';
import type { StoredCredentialValue } from '../upstream/spec-eval.js';
import type { ChosenCredential } from './choose.js';
import { declined } from './context.js';
import type { ValidRequest } from './validate.js';

/** What the holder is told when the chosen credentials do not satisfy the request, however that was found. */
export const NOT_SATISFIED = 'the chosen credentials do not satisfy the request';

/** The page's answer (a refusal's), the detail (if any) for the host's log only. */
export function notSatisfied(detail?: string): ProviderError {
  return declined(detail);
}

/** Resolves when `chosen` satisfy the request's assertion; `notSatisfied()` otherwise. */
export function checkSatisfied({ evaluateSpec }: AttestationsModules, { request }: ValidRequest, chosen: ChosenCredential[]): void {
  const credentials = Object.fromEntries(chosen.map(({ key, credential }) => [key, credential as StoredCredentialValue]));
  let holds: boolean;
  try {
    holds = evaluateSpec(request.spec as unknown as Parameters<typeof evaluateSpec>[0], request.claims, credentials);
  } catch (error) {
    throw notSatisfied(`the request's assertion, evaluated on the chosen credentials, fails: ${detailOf(error)}`);
  }
  if (!holds) throw notSatisfied("the request's assertion is false for the chosen credentials");
}
