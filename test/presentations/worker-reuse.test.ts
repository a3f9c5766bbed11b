/**
 * Node keeps the presentation worker warm between presentations (src/presentations/runner.ts): a run that
 * ended normally hands its worker back (o1js loaded, the SRS decoded, the spec's program compiled), and the next
 * presentation of the process takes it instead of starting a new one. Worker starts are counted, never timed. A run
 * that is aborted or fails still terminates its worker.
 *
 * Node's native backend only: with o1js's wasm backend there is no Node worker (the presentation runs in-process).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../src/credentials-node.js';
import {
  closeIdlePresentationWorker,
  presentationWorkers,
  startPresentationRun,
  PresentationRunError,
} from '../../src/presentations/runner.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { credentialIssuer, issuerHash, verifiedOutput, type Issuer } from '../support/credentials.js';
import { addressOf } from '../support/vectors.js';
import { ORIGIN, connectedWith, never, tempDirs } from '../support/rig.js';

const tempDir = tempDirs('worker-reuse');
const dir = tempDir();
let issuer: Issuer;

beforeAll(async () => {
  issuer = await credentialIssuer();
}, 60_000);

afterAll(() => closeIdlePresentationWorker());

const connected = connectedWith({ extensions: true }, () => ({ credentialStore: new FileCredentialStore(dir) }));
/** The device step of a presentation: a clear review (SIGN_PRESENTATION) or a blind one (SIGN_FIELDS). */
const isOwnerSignature = (kind: string) => kind === 'presentation' || kind === 'sign-fields';
/**
 * How long a worker may take to answer a close or to exit: a fresh one first loads tsx and o1js, which took over the
 * poll's default second on a loaded 2-core machine. A bound, not a speed requirement.
 */
const SETTLED = { timeout: 30_000 };

describe.skipIf(process.env.O1JS_BACKEND === 'wasm')('the Node presentation worker, kept warm', () => {
  it('a presentation after one refused on the device reuses its worker (one worker started) and its compiled program, and verifies', async () => {
    // One proof: the first presentation ends at the device, the second is proved on the worker it left warm.
    const refusing = await connected({ approve: (review) => !isOwnerSignature(review.kind) });
    await refusing.chain.storePrivateCredential({ credential: issuer.issue(addressOf(0)) });
    const before = presentationWorkers();

    // The owner refuses on the device after the compile: a normal end, the worker is kept (after its close reply).
    const first = issuer.presentationRequest();
    expect(await failure(refusing.chain.requestPresentation({ presentation: { presentationRequest: first.json } }))).toMatchObject({
      code: 1002,
    });
    await expect.poll(() => presentationWorkers().idle, SETTLED).toBe(true);
    expect(presentationWorkers()).toEqual({ started: before.started + 1, live: 1, idle: true });

    const { chain } = await connected();
    const second = issuer.presentationRequest();
    const two = await chain.requestPresentation({ presentation: { presentationRequest: second.json } });
    expect(presentationWorkers()).toEqual({ started: before.started + 1, live: 1, idle: true });

    // The proof, made from the compiled program the worker kept, verifies for this origin.
    expect(await verifiedOutput(issuer.A, second.req, two.presentation, ORIGIN)).toBe(issuerHash(issuer.A, issuer.key));
  }, 600_000);

  it('an aborted presentation terminates the warm worker it took; a failed run is not reused either', async () => {
    // A warm worker to start from (the previous test left one; alone, a run that closes at once makes one).
    if (!presentationWorkers().idle) (await startPresentationRun())!.close();
    await expect.poll(() => presentationWorkers().idle, SETTLED).toBe(true);
    const before = presentationWorkers();

    // Aborted while the device waits for the owner (between the compile and the proof).
    const controller = new AbortController();
    const { chain } = await connected({
      approve: (review) => {
        if (!isOwnerSignature(review.kind)) return true;
        controller.abort(new Error('the page went away'));
        return never();
      },
    });
    const { json } = issuer.presentationRequest();
    await expect(
      chain.requestPresentation({ presentation: { presentationRequest: json } }, { signal: controller.signal }),
    ).rejects.toThrow();
    await expect.poll(() => presentationWorkers().live, SETTLED).toBe(before.live - 1); // the warm worker it took is gone
    expect(presentationWorkers()).toMatchObject({ started: before.started, idle: false });

    // The next run starts a new worker; one whose prepare fails terminates it instead of keeping it.
    const run = (await startPresentationRun())!;
    expect(presentationWorkers()).toMatchObject({ started: before.started + 1, live: before.live, idle: false });
    await expect(run.prepare({ type: 'https', request: '{}', credentials: [] })).rejects.toBeInstanceOf(PresentationRunError);
    run.close();
    await expect.poll(() => presentationWorkers().live, SETTLED).toBe(before.live - 1);
    expect(presentationWorkers().idle).toBe(false);
  }, 300_000);
});
