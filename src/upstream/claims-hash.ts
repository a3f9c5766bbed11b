/**
 * The hash of a presentation request's claims, as mina-attestations puts it into a presentation's context
 * (presentation.js `hashClaims`, not exported): Poseidon over the claims' fields, typed by mina-attestations' own
 * `NestedProvable` (an internal module each loader reaches in its own way). Shared by both loaders.
 */
import type { loadO1js } from './o1js.js';

type O1js = Awaited<ReturnType<typeof loadO1js>>;

/** presentation.js `hashClaims`, from the package's own parts (it is not exported). */
export function claimsHasher(o1js: O1js, NestedProvable: { fromValue(value: unknown): unknown }): (claims: unknown) => bigint {
  return (claims) => {
    const type = o1js.Struct(NestedProvable.fromValue(claims) as Parameters<typeof o1js.Struct>[0]);
    return o1js.Poseidon.hash(type.toFields(claims as never)).toBigInt();
  };
}
