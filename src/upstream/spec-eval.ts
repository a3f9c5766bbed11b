/**
 * A presentation spec evaluated on values, outside any circuit: mina-attestations' own evaluation (operation.js
 * `Node.eval`, the function its circuit runs) over the root its program builds (program-spec.js `rootValue`), both
 * internal modules each loader reaches in its own way. o1js computes with constants here, so an assertion that does
 * not hold is known, and a gadget that would fail in the prover (an underflow, a range check) throws, before anything
 * is compiled, signed or proved. Shared by both loaders.
 */

/** mina-attestations' internal parts this needs (operation.js, program-spec.js). */
export interface SpecEvaluationParts {
  Node: { eval(root: unknown, node: unknown): unknown };
  rootValue(spec: unknown, publicInput: { claims: unknown }, privateInput: unknown, credentialOutputs: unknown): unknown;
  isCredentialSpec(input: unknown): boolean;
}

/** A stored credential as `Credential.fromJSON` reads it. */
export interface StoredCredentialValue {
  witness: unknown;
  credential: { owner: unknown; data: unknown };
}

/**
 * Whether `spec`'s assertion holds for `claims` and the chosen `credentials` (by input key), computing the output
 * claim too. Throws what o1js or mina-attestations throw where the prover would fail (its message may hold private
 * values: never for a page). The owner signature is not part of it (the device makes it, the proof checks it).
 */
export type EvaluateSpec = (
  spec: { inputs: Record<string, unknown>; assert: unknown; outputClaim: unknown },
  claims: unknown,
  credentials: Record<string, StoredCredentialValue>,
) => boolean;

export function specEvaluator({ Node, rootValue, isCredentialSpec }: SpecEvaluationParts): EvaluateSpec {
  return (spec, claims, credentials) => {
    // credential.js verifyCredentials' outputs, in the spec's input order: data, witness and issuer per credential.
    const chosen = Object.entries(spec.inputs).filter(([, input]) => isCredentialSpec(input));
    const outputs = chosen.map(([key, input]) => {
      const stored = credentials[key];
      if (stored === undefined) throw new Error(`no credential for the input "${key}"`);
      const issuer = (input as { issuer(witness: unknown): unknown }).issuer(stored.witness);
      return { data: stored.credential.data, witness: stored.witness, issuer };
    });
    const owner = chosen.length > 0 ? credentials[chosen[0]![0]]!.credential.owner : undefined;
    const root = rootValue(spec, { claims }, undefined, { owner, credentials: outputs });
    const assertion = Node.eval(root, spec.assert) as { toBoolean(): boolean };
    Node.eval(root, spec.outputClaim);
    return assertion.toBoolean();
  };
}
