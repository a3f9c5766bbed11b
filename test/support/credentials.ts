/**
 * Real mina-attestations credentials for the tests: one issuer (a random o1js key) that signs native credentials
 * `{ nationality, age, expiresAt }` to an owner, and the https presentation request that asks for one of them.
 */
import { loadAttestations, type AttestationsModules } from '../../src/upstream/attestations.js';

/**
 * The spec of the tests' presentation request: one native credential `{ nationality, age, expiresAt }`, asserting
 * createdAt ≤ expiresAt, output: the issuer. The o1js warm-up (test/support/o1js-warm-up.ts) compiles this very spec,
 * so the tests prove from cached keys; `Nationality` is the `nationality` field's type (a new one by default).
 */
export function presentationSpec(A: AttestationsModules, Nationality = A.attestations.DynamicString({ maxLength: 50 })) {
  const { UInt64: U } = A.o1js;
  const { PresentationSpec, Claim, Operation, Credential } = A.attestations;
  return PresentationSpec(
    { credential: Credential.Native({ nationality: Nationality, age: U, expiresAt: U }), createdAt: Claim(U) },
    ({ credential, createdAt }) => ({
      assert: [Operation.lessThanEq(createdAt, Operation.property(credential, 'expiresAt'))],
      outputClaim: Operation.issuer(credential),
    }),
  );
}

function issuerOf(A: AttestationsModules) {
  const key = A.o1js.PrivateKey.random();
  /** The `nationality` field's type. */
  const Nationality = A.attestations.DynamicString({ maxLength: 50 });
  return {
    /** o1js and mina-attestations, as the library loads them. */
    A,
    /** The issuer's o1js PrivateKey. */
    key,
    Nationality,
    /** A native credential issued to `owner` (Credential.sign), as JSON text; it expires ≈ 300 years from now. */
    issue(owner: string, nationality = 'Austria', age = 30): string {
      const { UInt64, PublicKey } = A.o1js;
      const data = { nationality: Nationality.from(nationality), age: UInt64.from(age), expiresAt: UInt64.from(Date.now() + 1e10) };
      return A.attestations.Credential.toJSON(A.attestations.Credential.sign(key, { owner: PublicKey.fromBase58(owner), data }));
    },
    /** An https presentation request (action "login") for one such credential: the request and its JSON value. */
    presentationRequest() {
      const { UInt64: U } = A.o1js;
      const { PresentationRequest } = A.attestations;
      const req = PresentationRequest.https(presentationSpec(A, Nationality), { createdAt: U.from(Date.now()) }, { action: 'login' });
      return { req, json: JSON.parse(PresentationRequest.toJSON(req)) };
    },
  };
}

export type Issuer = ReturnType<typeof issuerOf>;

/**
 * What a verifier does with a presentation: `Presentation.verify` against the request (the `verifierIdentity` it
 * expects), returning the output claim as text; for the specs here, the issuer's hash (`issuerHash`).
 */
export async function verifiedOutput(
  A: AttestationsModules,
  request: unknown,
  presentation: string,
  verifierIdentity: string,
): Promise<string> {
  const { Presentation } = A.attestations;
  type Req = Parameters<typeof Presentation.compile>[0];
  const output = (await Presentation.verify(await Presentation.compile(request as Req), Presentation.fromJSON(presentation), {
    verifierIdentity,
  })) as { toString(): string };
  return output.toString();
}

/** The output claim `Operation.issuer(credential)` of a native credential signed by `issuerKey`. */
export function issuerHash(A: AttestationsModules, issuerKey: { toPublicKey(): { toFields(): unknown[] } }): string {
  const fields = issuerKey.toPublicKey().toFields() as Parameters<AttestationsModules['o1js']['Poseidon']['hashWithPrefix']>[1];
  return A.o1js.Poseidon.hashWithPrefix('mina-cred:v0:native', fields).toString();
}

/** Loads o1js and mina-attestations (seconds the first time) and makes an issuer with a fresh key. */
export async function credentialIssuer(): Promise<Issuer> {
  return issuerOf(await loadAttestations());
}
