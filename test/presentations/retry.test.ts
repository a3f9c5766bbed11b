/**
 * A worker that dies (o1js's wasm has trapped that way in the browser: "operation does not support unaligned
 * accesses", "memory access out of bounds") does not cost the user the presentation: while compiling, the prepare runs
 * again in a fresh worker; while proving, after the owner approved, the proof is made once more in a fresh worker,
 * prepared with the same client nonce and context, so that the owner's signature still fits. Once per step; a failure
 * of the presentation itself (an error the worker reports) is not retried.
 *
 * Chosen runs' steps are made to fail as a dying worker's do (a PresentationWorkerError from the run); everything else
 * is the real pipeline, and the presentation is checked by mina-attestations' verifier.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FileCredentialStore } from '../../src/credentials-node.js';
import { hostDetailOf } from '../../src/errors/provider-error.js';
import { DECLINED } from '../../src/presentations/context.js';
import { requestPresentation } from '../../src/presentations/request-presentation.js';
import * as runner from '../../src/presentations/runner.js';
import type { PrecompileMessage, PrepareMessage } from '../../src/presentations/presentation-worker.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { credentialIssuer, issuerHash, verifiedOutput, type Issuer } from '../support/credentials.js';
import { presentationContext } from '../support/presentation-context.js';
import { addressOf } from '../support/vectors.js';
import { ORIGIN, connectedWith, tempDirs } from '../support/rig.js';

/** Which runs' steps fail, and how, in this test; what the runs were asked to prepare. */
const plan: {
  failPrepare: number[];
  failFinalize: number[];
  error: () => Error;
  prepared: PrepareMessage[];
  started: number;
} = { failPrepare: [], failFinalize: [], error: () => new Error('unset'), prepared: [], started: 0 };

/** Run `index`'s step fails as planned: its worker gone, the error from the channel. */
function failed(run: runner.PresentationRun, index: number, failing: number[]): Promise<never> | undefined {
  if (!failing.includes(index)) return undefined;
  run.close();
  return Promise.reject(plan.error());
}

vi.mock('../../src/presentations/runner.js', async (importOriginal) => {
  const actual = await importOriginal<typeof runner>();
  return {
    ...actual,
    async startPresentationRun(signal?: AbortSignal) {
      const run = await actual.startPresentationRun(signal);
      if (run === undefined) return undefined;
      const index = plan.started++;
      // The compile is the precompile (started before the holder's review) or, on a fresh run, the prepare's own.
      return {
        precompile: (input: PrecompileMessage) => failed(run, index, plan.failPrepare) ?? run.precompile(input),
        prepare: (input: PrepareMessage) => (plan.prepared.push(input), failed(run, index, plan.failPrepare) ?? run.prepare(input)),
        finalize: (signature: string) => failed(run, index, plan.failFinalize) ?? run.finalize(signature),
        close: () => run.close(),
      };
    },
  };
});

/** How a dying worker's failure reaches the caller (runner.ts wraps the channel's error so). */
const trap = () =>
  new runner.PresentationWorkerError(
    'the presentation worker failed: Uncaught RuntimeError: operation does not support unaligned accesses',
  );

const tempDir = tempDirs('retry');
let issuer: Issuer;
beforeAll(async () => {
  issuer = await credentialIssuer();
}, 60_000);
afterAll(() => runner.closeIdlePresentationWorker());

const connected = connectedWith({ extensions: true }, () => ({ credentialStore: new FileCredentialStore(tempDir()) }));

/** A fresh plan: these runs' steps fail with `error`. */
function failing(steps: { prepare?: number[]; finalize?: number[] }, error: () => Error = trap): void {
  Object.assign(plan, { failPrepare: steps.prepare ?? [], failFinalize: steps.finalize ?? [], error, prepared: [], started: 0 });
}

describe('a presentation whose worker dies', () => {
  it('while compiling, then the fresh one while proving: prepared again, then proved once more with the same client nonce and context; the owner signs once; it verifies', async () => {
    failing({ prepare: [0], finalize: [1] });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const { chain, reviews } = await connected();
      await chain.storePrivateCredential({ credential: issuer.issue(addressOf(0)) });
      const { req, json } = issuer.presentationRequest();
      const { presentation } = await chain.requestPresentation({ presentation: { presentationRequest: json } });
      expect(plan.started).toBe(3);
      // Run 0 failed compiling (its precompile), before anything was signed: run 1 prepared from scratch; run 2 proved
      // what the owner signed in run 1.
      expect(plan.prepared.map((p) => p.again)).toEqual([
        undefined,
        { clientNonce: expect.stringMatching(/^\d+$/), context: expect.stringMatching(/^\d+$/) },
      ]);
      expect(JSON.parse(presentation).clientNonce.value).toBe(plan.prepared[1]!.again!.clientNonce);
      expect(reviews.filter((r) => r.kind === 'presentation')).toHaveLength(1); // one approval on the device
      expect(await verifiedOutput(issuer.A, req, presentation, ORIGIN)).toBe(issuerHash(issuer.A, issuer.key));
      // Each retry says why, with the worker's own error.
      const said = warn.mock.calls.map((c) => String(c[0]));
      expect(
        said.filter((l) => /presentation worker failed while compiling \(.*unaligned accesses\); compiling once more/.test(l)),
      ).toHaveLength(1);
      expect(
        said.filter((l) => /presentation worker failed while proving \(.*unaligned accesses\); proving once more/.test(l)),
      ).toHaveLength(1);
    } finally {
      warn.mockRestore();
    }
  }, 300_000);

  it("twice in the same step: 22001 (not 20003: the request is not at fault), the worker's error in the host log; once per step only", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const log: string[] = [];
      const { chain, reviews } = await connected({}, { onHostLog: (line) => log.push(line) });
      await chain.storePrivateCredential({ credential: issuer.issue(addressOf(0)) });
      const ask = () => failure(chain.requestPresentation({ presentation: { presentationRequest: issuer.presentationRequest().json } }));
      const twice = { code: 22001, data: { reason: "the presentation worker failed twice (the host's log has the details)" } };

      failing({ prepare: [0, 1] });
      expect(await ask()).toMatchObject(twice);
      expect(plan.started).toBe(2);
      expect(reviews.filter((r) => r.kind === 'presentation')).toHaveLength(0); // nothing reached the device

      failing({ finalize: [0, 1] });
      expect(await ask()).toMatchObject(twice);
      expect(plan.started).toBe(2);
      expect(reviews.filter((r) => r.kind === 'presentation')).toHaveLength(1);
      expect(log.filter((l) => /withheld from the page: presentation (prepare|finalize): .*unaligned accesses/.test(l))).toHaveLength(2);
    } finally {
      warn.mockRestore();
    }
  }, 300_000);

  it('each step run again reports its stage once more, marked retry, in order; the device is asked once', async () => {
    // Compiling fails once; proving fails twice (22001), so no proof is made: the stages are what is asserted.
    failing({ prepare: [0], finalize: [1, 2] });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const { ctx, reported, reviews } = await presentationContext(tempDir(), [issuer.issue(addressOf(0))]);
      const error = await requestPresentation(ctx, issuer.presentationRequest().json).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 22001, data: { reason: expect.stringMatching(/^the presentation worker failed twice /) } });
      expect(hostDetailOf(error)).toMatch(/unaligned accesses/);
      expect(reported).toEqual([
        { stage: 'awaiting-approval' },
        { stage: 'compiling' },
        { stage: 'compiling', retry: true },
        { stage: 'confirm-on-device', prompt: 'Check the verifier and what is shared on your Ledger, and approve' },
        { stage: 'proving' },
        { stage: 'proving', retry: true },
      ]);
      expect(plan.started).toBe(3);
      expect(reviews.map((r) => r.kind)).toEqual(['presentation']);
    } finally {
      warn.mockRestore();
    }
  }, 300_000);

  it('an error the worker reports for the presentation itself is not retried (a refusal’s answer, its text in the host log only)', async () => {
    failing({ finalize: [0] }, () => new runner.PresentationRunError('finalize', 'constraint not satisfied'));
    const log: string[] = [];
    const { chain } = await connected({}, { onHostLog: (line) => log.push(line) });
    await chain.storePrivateCredential({ credential: issuer.issue(addressOf(0)) });
    const error = await failure(chain.requestPresentation({ presentation: { presentationRequest: issuer.presentationRequest().json } }));
    expect(error).toMatchObject({ code: 1002, data: { reason: DECLINED } });
    expect(log.some((l) => l.includes('constraint not satisfied'))).toBe(true);
    expect(plan.started).toBe(1);
  }, 300_000);
});
