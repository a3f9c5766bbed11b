/**
 * A presentation that fails tells the page one fixed reason, never the prover's, o1js's or mina-attestations' text:
 * a failing proof's "Constraint unsatisfied … Data: Equal …" prints the private wire values (a salary, say).
 * The request's assertion is evaluated on the chosen credentials outside the circuit first, so such a request is
 * refused before anything is compiled, signed or proved; a proof that fails anyway gets the same reason. The detail
 * goes to the host's log (`onHostLog`) only.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FileCredentialStore } from '../../src/credentials-node.js';
import { hostDetailOf } from '../../src/errors/provider-error.js';
import { requestPresentation } from '../../src/presentations/request-presentation.js';
import * as runner from '../../src/presentations/runner.js';
import { NOT_SATISFIED } from '../../src/presentations/satisfies.js';
import type { Prepared } from '../../src/presentations/session.js';
import { credentialIssuer, type Issuer } from '../support/credentials.js';
import { presentationContext } from '../support/presentation-context.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { connectedWith, tempDirs } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

/** The runs this file starts: a real worker unless `scripted` says how the run answers (no compile, no proof). */
const runs = vi.hoisted(() => ({
  started: 0,
  scripted: undefined as undefined | { prepared: Prepared; finalizeError: Error },
}));
vi.mock('../../src/presentations/runner.js', async (importOriginal) => {
  const actual = await importOriginal<typeof runner>();
  return {
    ...actual,
    async startPresentationRun(signal?: AbortSignal) {
      runs.started++;
      const scripted = runs.scripted;
      if (scripted === undefined) return actual.startPresentationRun(signal);
      return {
        prepare: async () => structuredClone(scripted.prepared),
        finalize: async () => Promise.reject(scripted.finalizeError),
        close: () => {},
      };
    },
  };
});

const SALARY = 123_456n;
const tempDir = tempDirs('failure-reasons');
let issuer: Issuer;
beforeAll(async () => {
  issuer = await credentialIssuer();
}, 60_000);
afterAll(() => runner.closeIdlePresentationWorker());

/** A credential `{ age: 37, salary: 123456 }` from the tests' issuer to account 0, as JSON text. */
function salaryCredential(): string {
  const { UInt64, PublicKey } = issuer.A.o1js;
  const { Credential } = issuer.A.attestations;
  const data = { age: UInt64.from(37), salary: UInt64.from(SALARY) };
  return Credential.toJSON(Credential.sign(issuer.key, { owner: PublicKey.fromBase58(addressOf(0)), data }));
}

/**
 * The review's request (https, action "newsletter sign-up", output a constant) over that credential, asserting
 * `assertion(salary)`: by default salary − 10,000,000 ≤ 1, which underflows in UInt64 arithmetic.
 */
function salaryRequest(assertion?: (O: Issuer['A']['attestations']['Operation'], salary: unknown) => unknown) {
  const { UInt64, Field } = issuer.A.o1js;
  const { PresentationSpec, Operation: O, Credential, PresentationRequest } = issuer.A.attestations;
  const spec = PresentationSpec({ c: Credential.Native({ age: UInt64, salary: UInt64 }) }, ({ c }) => {
    const salary = O.property(c, 'salary');
    return {
      assert: (assertion?.(O, salary) ??
        O.lessThanEq(O.sub(salary, O.constant(UInt64.from(10_000_000))), O.constant(UInt64.from(1)))) as never,
      outputClaim: O.constant(Field(0)),
    };
  });
  return JSON.parse(PresentationRequest.toJSON(PresentationRequest.https(spec, {}, { action: 'newsletter sign-up' })));
}

/** Digits of the salary or of a field element a prover would print, and o1js's "Data:" dumps. */
const PRIVATE = /123456|\d{9,}|Data:|rangeCheck|Constraint/;

async function connectedWithSalary() {
  const log: string[] = [];
  const connected = connectedWith({ extensions: true }, () => ({
    credentialStore: new FileCredentialStore(tempDir()),
    onHostLog: (line: string) => log.push(line),
  }));
  const rig = await connected();
  await rig.chain.storePrivateCredential({ credential: salaryCredential() });
  return { ...rig, log };
}

describe('a presentation the credentials do not satisfy', () => {
  it('an underflowing salary request: a fixed reason with no digit of the salary, the detail in the host log, refused before compiling or the device', async () => {
    runs.scripted = undefined;
    const { chain, reviews, log } = await connectedWithSalary();
    const started = runs.started;
    const error = await failure(chain.requestPresentation({ presentation: { presentationRequest: salaryRequest() } }));
    expect(error).toMatchObject({ code: 20003, data: { field: 'presentation.presentationRequest', reason: NOT_SATISFIED } });
    expect(JSON.stringify(error)).not.toMatch(PRIVATE);
    expect(log.join('\n')).toMatch(/withheld from the page: .*assertion.*fails: .*rangeCheck/);
    expect(runs.started).toBe(started); // no worker, no compile
    expect(reviews.filter((r) => r.kind === 'presentation')).toEqual([]);
  }, 120_000);

  it('an assertion that is simply false (salary ≥ 1,000,000): the same reason, before compiling or the device', async () => {
    runs.scripted = undefined;
    const { chain, reviews, log } = await connectedWithSalary();
    const started = runs.started;
    const request = salaryRequest((O, salary) => O.lessThanEq(O.constant(issuer.A.o1js.UInt64.from(1_000_000)), salary as never));
    const error = await failure(chain.requestPresentation({ presentation: { presentationRequest: request } }));
    expect(error).toMatchObject({ code: 20003, data: { reason: NOT_SATISFIED } });
    expect(log.join('\n')).toMatch(/assertion is false/);
    expect(runs.started).toBe(started);
    expect(reviews.filter((r) => r.kind === 'presentation')).toEqual([]);
  }, 120_000);
});

describe('a proof that fails anyway', () => {
  it('o1js’s "Constraint unsatisfied … Data: Equal …" text stays on the host: the page gets the fixed reason', async () => {
    // A run that prepares a no-context-shaped message (context 0, one credential) and whose proof fails as o1js's does.
    const leak =
      'Constraint unsatisfied (unreduced): Equal\nData: Equal 11037532056210459585 28948022309329048855892746252171976963363056481941560715954676640893957753793';
    runs.scripted = {
      prepared: { messageFields: ['0', '1', '2'], clientNonce: '0' },
      finalizeError: new runner.PresentationRunError('finalize', leak),
    };
    const { ctx, reviews } = await presentationContext(tempDir(), [issuer.issue(addressOf(0))]);
    const error = await requestPresentation(ctx, issuer.presentationRequest().json).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 20003, data: { field: 'presentation.presentationRequest', reason: NOT_SATISFIED } });
    expect(JSON.stringify(error)).not.toMatch(PRIVATE);
    expect(hostDetailOf(error)).toContain('Data: Equal 11037532056210459585');
    expect(reviews.map((r) => r.kind)).toEqual(['presentation']); // it got as far as the proof
  });
});
