/**
 * "Reveals (per host)" on the Ledger is written from the output claim's leaves (credential property paths), never from
 * the names the page chose: requests whose names would show "nothing" (a NUL in a record key), push `passportNo`
 * behind "…" (a long first entry) or use look-alike letters are refused, and the screen names `passport.passportNo`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { shownValue } from '../../src/emulator/review.js';
import { FileCredentialStore } from '../../src/credentials-node.js';
import type { ProviderError } from '../../src/index.js';
import { signOnDevice } from '../../src/presentations/sign-on-device.js';
import { validateRequest } from '../../src/presentations/validate.js';
import { loadAttestations, type AttestationsModules } from '../../src/upstream/attestations.js';
import { presentationContext } from '../support/presentation-context.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { ORIGIN, connectedProvider, tempDirs } from '../support/rig.js';

const tempDir = tempDirs('reveals');
let A: AttestationsModules;
beforeAll(async () => {
  A = await loadAttestations();
}, 60_000);

type Op = AttestationsModules['attestations']['Operation'];
/** A no-context request over a passport `{ nationality, passportNo, age }` asserting age ≥ 18, with the output claim `output` builds. */
function passportRequest(output: (O: Op, passport: any) => unknown) {
  const { UInt64 } = A.o1js;
  const { PresentationSpec, Operation: O, Credential, DynamicString, PresentationRequest } = A.attestations;
  const S = DynamicString({ maxLength: 32 });
  const spec = PresentationSpec({ passport: Credential.Native({ nationality: S, passportNo: S, age: UInt64 }) }, ({ passport }) => ({
    assert: O.lessThanEq(O.constant(UInt64.from(18)), O.property(passport, 'age')),
    outputClaim: output(O, passport) as never,
  }));
  return JSON.parse(PresentationRequest.toJSON(PresentationRequest.noContext(spec, {})));
}

/** The refusal of `validateRequest` (the first stage: before the store, a compile or the device). */
function refusal(json: Record<string, unknown>): ProviderError {
  try {
    validateRequest({ origin: ORIGIN }, A, json);
  } catch (error) {
    return error as ProviderError;
  }
  throw new Error('the request was accepted');
}

const OUTPUT = 'presentation.presentationRequest.spec.outputClaim';

describe('what the Ledger is told a presentation reveals', () => {
  it('a record key with a NUL ("nothing\\u0000") → 20003 naming the output claim’s keys, before the store key or any device request', async () => {
    const request = passportRequest((O, passport) => O.record({ 'nothing\u0000': O.property(passport, 'passportNo') }));
    expect(refusal(request)).toMatchObject({
      code: 20003,
      data: { field: `${OUTPUT}.data`, reason: expect.stringContaining('"nothing\\u0000"') },
    });
    const { chain, ledger } = await connectedProvider({ extensions: true }, { credentialStore: new FileCredentialStore(tempDir()) });
    const exchanges = ledger.exchanges.length;
    expect(await failure(chain.requestPresentation({ presentation: { presentationRequest: request } }))).toMatchObject({
      code: 20003,
      data: { field: `${OUTPUT}.data` },
    });
    expect(ledger.exchanges.length).toBe(exchanges);
  });

  it('a 200-character harmless first entry before passportNo → 20003 (the name is too long to be a name), never "…"', () => {
    const harmless = `only_whether_you_are_over_18${'_'.repeat(150)}nothing_else`;
    const request = passportRequest((O, passport) =>
      O.record({ [harmless]: O.constant(A.o1js.Field(1)), passportNo: O.property(passport, 'passportNo') }),
    );
    expect(refusal(request)).toMatchObject({ code: 20003, data: { field: `${OUTPUT}.data` } });
  });

  it('Latin-Extended names (ůnly_āge_ŏver_18) → 20003, the name shown escaped in the reason', () => {
    const request = passportRequest((O, passport) => O.record({ ůnly_āge_ŏver_18: O.property(passport, 'passportNo') }));
    expect(refusal(request)).toMatchObject({
      code: 20003,
      data: { field: `${OUTPUT}.data`, reason: expect.stringContaining('\\u016fnly_\\u0101ge_\\u014fver_18') },
    });
  });

  it('a description longer than the screen’s 200 characters is refused, not cut', () => {
    const request = passportRequest((O, passport) =>
      O.record(
        Object.fromEntries(
          // Six different hashes: "a hash of passport.passportNo", "a hash of passport.passportNo, passport.passportNo", …
          Array.from({ length: 6 }, (_, i) => [
            `k${i}`,
            O.hash(...Array.from({ length: i + 1 }, () => O.property(passport, 'passportNo'))),
          ]),
        ),
      ),
    );
    expect(refusal(request)).toMatchObject({
      code: 20003,
      data: { field: OUTPUT, reason: expect.stringMatching(/more than the Ledger shows/) },
    });
  });

  it('plain keys the page chose are not shown: the screen names passport.passportNo, whatever the key says', async () => {
    const request = passportRequest((O, passport) =>
      O.record({ over18: O.constant(A.o1js.Bool(true)), nothing: O.property(passport, 'passportNo'), from: O.issuer(passport) }),
    );
    const valid = validateRequest({ origin: ORIGIN }, A, request);
    expect(valid.reveals).toBe('a constant, passport.passportNo, the issuer of passport');
    // The device stage with the message fields of a no-context presentation (context 0, one credential's hash and issuer).
    const { ctx, reviews } = await presentationContext(tempDir(), []);
    await signOnDevice(ctx, A.o1js, valid, { messageFields: ['0', '1', '2'], clientNonce: '0' });
    expect(shownValue(reviews[0]!, 'Reveals (per host)')).toBe('a constant, passport.passportNo, the issuer of passport');
    expect(reviews[0]!.screens.map((s) => `${s.title} ${s.text ?? ''}`).join('\n')).not.toMatch(/nothing|over18/);
  });
});
