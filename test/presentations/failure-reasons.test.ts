/**
 * A presentation that fails tells the page one fixed answer, a refusal's, never the prover's, o1js's or
 * mina-attestations' text: a failing proof's "Constraint unsatisfied … Data: Equal …" prints the private wire values
 * (a salary, say). Once the holder approved, the request's assertion is evaluated on the chosen credentials outside
 * the circuit, so such a request is refused before its `compiling` stage, the device or a proof; a proof that fails
 * anyway gets the same answer. The detail goes to the host's log (`onHostLog`) only.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FileCredentialStore } from '../../src/credentials-node.js';
import { hostDetailOf } from '../../src/errors/provider-error.js';
import { requestPresentation } from '../../src/presentations/request-presentation.js';
import * as runner from '../../src/presentations/runner.js';
import { DECLINED } from '../../src/presentations/context.js';
import { NOT_SATISFIED } from '../../src/presentations/satisfies.js';
import type { Prepared } from '../../src/presentations/presentation-worker.js';
import { credentialIssuer, type Issuer } from '../support/credentials.js';
import { presentationContext } from '../support/presentation-context.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { connectedWith, tempDirs } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

/** The runs this file starts: a real worker unless `scripted` says how the run answers (no compile, no proof). */
const runs = vi.hoisted(() => ({
  scripted: undefined as undefined | { prepared: Prepared; finalizeError: Error },
}));
vi.mock('../../src/presentations/runner.js', async (importOriginal) => {
  const actual = await importOriginal<typeof runner>();
  return {
    ...actual,
    async startPresentationRun(signal?: AbortSignal) {
      const scripted = runs.scripted;
      if (scripted === undefined) return actual.startPresentationRun(signal);
      return {
        precompile: async () => ({}),
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
  const stages: string[] = [];
  const connected = connectedWith({ extensions: true }, () => ({
    credentialStore: new FileCredentialStore(tempDir()),
    onHostLog: (line: string) => log.push(line),
    onProgress: ({ stage }) => stages.push(stage),
  }));
  const rig = await connected();
  await rig.chain.storePrivateCredential({ credential: salaryCredential() });
  stages.length = 0;
  return { ...rig, log, stages };
}

/** What every declined request gets: a refusal’s answer, whatever declined it. */
const REFUSAL = { code: 1002, data: { reason: DECLINED } };

describe('a presentation the credentials do not satisfy', () => {
  it('an underflowing salary request: a refusal’s answer with no digit of the salary, the detail in the host log, refused before its compiling stage or the device', async () => {
    runs.scripted = undefined;
    const { chain, reviews, log, stages } = await connectedWithSalary();
    const error = await failure(chain.requestPresentation({ presentation: { presentationRequest: salaryRequest() } }));
    expect(error).toMatchObject(REFUSAL);
    expect(JSON.stringify(error)).not.toMatch(PRIVATE);
    expect(log.join('\n')).toMatch(/withheld from the page: .*assertion.*fails: .*rangeCheck/);
    expect(stages).toEqual(['awaiting-approval', 'failed']); // the compile (of the request alone) was never the page's stage
    expect(reviews.filter((r) => r.kind === 'presentation')).toEqual([]);
  }, 120_000);

  it('an assertion that is simply false (salary ≥ 1,000,000): the same answer, before its compiling stage or the device', async () => {
    runs.scripted = undefined;
    const { chain, reviews, log, stages } = await connectedWithSalary();
    const request = salaryRequest((O, salary) => O.lessThanEq(O.constant(issuer.A.o1js.UInt64.from(1_000_000)), salary as never));
    const error = await failure(chain.requestPresentation({ presentation: { presentationRequest: request } }));
    expect(error).toMatchObject(REFUSAL);
    expect(log.join('\n')).toMatch(/assertion is false/);
    expect(stages).toEqual(['awaiting-approval', 'failed']);
    expect(reviews.filter((r) => r.kind === 'presentation')).toEqual([]);
  }, 120_000);
});

describe('a proof that fails anyway', () => {
  it('o1js’s "Constraint unsatisfied … Data: Equal …" text stays on the host: the page gets a refusal’s answer, the holder is told', async () => {
    // A run that prepares a no-context-shaped message (context 0, one credential) and whose proof fails as o1js's does.
    const leak =
      'Constraint unsatisfied (unreduced): Equal\nData: Equal 11037532056210459585 28948022309329048855892746252171976963363056481941560715954676640893957753793';
    runs.scripted = {
      prepared: { messageFields: ['0', '1', '2'], clientNonce: '0' },
      finalizeError: new runner.PresentationRunError('finalize', leak),
    };
    const told: string[] = [];
    const { ctx, reviews } = await presentationContext(tempDir(), [issuer.issue(addressOf(0))], {
      onPresentationNotSatisfied: ({ reason }) => void told.push(reason),
    });
    const error = await requestPresentation(ctx, issuer.presentationRequest().json).catch((e: unknown) => e);
    expect(error).toMatchObject(REFUSAL);
    expect(told).toEqual([NOT_SATISFIED]);
    expect(JSON.stringify(error)).not.toMatch(PRIVATE);
    expect(hostDetailOf(error)).toContain('Data: Equal 11037532056210459585');
    expect(reviews.map((r) => r.kind)).toEqual(['presentation']); // it got as far as the proof
  });
});
