/**
 * The presentation spec of the web dapp's sample request: a native credential `{ nationality, age, expiresAt }`, the
 * owner an adult whose credential has not expired at the claimed time, the issuer revealed. Shared with the test
 * suite's global setup (test/support/o1js-warm-up.ts), which compiles this circuit once per run in Node: the e2e test
 * seeds the page's key cache from those keys.
 */
type O1js = typeof import('o1js');
type Attestations = typeof import('mina-attestations');

export function sampleSpec(o1js: Pick<O1js, 'UInt64'>, A: Attestations) {
  const { UInt64 } = o1js;
  const Nationality = A.DynamicString({ maxLength: 50 });
  return A.PresentationSpec(
    { credential: A.Credential.Native({ nationality: Nationality, age: UInt64, expiresAt: UInt64 }), createdAt: A.Claim(UInt64) },
    ({ credential, createdAt }) => ({
      assert: [
        A.Operation.lessThanEq(A.Operation.constant(UInt64.from(18)), A.Operation.property(credential, 'age')),
        A.Operation.lessThanEq(createdAt, A.Operation.property(credential, 'expiresAt')),
      ],
      outputClaim: A.Operation.issuer(credential),
    }),
  );
}
