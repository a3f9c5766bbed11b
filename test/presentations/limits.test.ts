/**
 * The limits on a presentation's host work (src/presentations/runner.ts `PresentationLimits`): each step (the
 * compile, the proof) within a time, and in Node within a JavaScript heap; a step over either has its worker
 * terminated and the request refused with 20003 naming the spec, not retried (the circuit is what costs). With the
 * cost bound (request-bounds.ts) these stop what gets past the measure.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLedgerProvider } from '../../src/index.js';
import { requestPresentation } from '../../src/presentations/request-presentation.js';
import {
  PresentationLimitError,
  closeIdlePresentationWorker,
  presentationWorkers,
  runOver,
  type WorkerChannel,
} from '../../src/presentations/runner.js';
import { credentialIssuer, type Issuer } from '../support/credentials.js';
import { presentationContext } from '../support/presentation-context.js';
import { ORIGIN, quietLedger, tempDirs } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

/** The options each worker_threads Worker was created with in this file. */
const workerOptions = vi.hoisted(() => [] as unknown[]);
vi.mock('node:worker_threads', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:worker_threads')>();
  class RecordedWorker extends actual.Worker {
    constructor(url: string | URL, options?: import('node:worker_threads').WorkerOptions) {
      workerOptions.push(options);
      super(url, options);
    }
  }
  return { ...actual, Worker: RecordedWorker, default: { ...actual, Worker: RecordedWorker } };
});

const tempDir = tempDirs('limits');
let issuer: Issuer;
beforeAll(async () => {
  issuer = await credentialIssuer();
}, 60_000);
afterAll(() => closeIdlePresentationWorker());

const SPEC = 'presentation.presentationRequest.spec';

describe('a presentation step over its limits', () => {
  it('over the time limit: the worker terminated, 20003 naming the spec, not run again, the device never asked', async () => {
    closeIdlePresentationWorker(); // a fresh worker, whose end this test sees
    const before = presentationWorkers();
    const { ctx, reviews } = await presentationContext(tempDir(), [issuer.issue(addressOf(0))], {
      presentationLimits: { timeMs: 1, memoryMb: 2048 },
    });
    const error = await requestPresentation(ctx, issuer.presentationRequest().json).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 20003, data: { field: SPEC, reason: expect.stringMatching(/took longer than the host's limit/) } });
    expect(presentationWorkers().started).toBe(before.started + 1);
    await expect.poll(() => presentationWorkers().live).toBe(before.live);
    expect(reviews).toEqual([]);
  }, 120_000);

  it('the Node worker is started with the heap limit; a worker that reaches it is a memory-limit refusal, not a worker to retry', async () => {
    // The presentation worker's options, as the runner passes them (recorded by the mock of node:worker_threads).
    closeIdlePresentationWorker();
    const { ctx } = await presentationContext(tempDir(), [issuer.issue(addressOf(0))], {
      presentationLimits: { timeMs: 1, memoryMb: 1234 },
    });
    await requestPresentation(ctx, issuer.presentationRequest().json).catch(() => {});
    expect(workerOptions.at(-1)).toMatchObject({ resourceLimits: { maxOldGenerationSizeMb: 1234 } });
    // What Node reports when a worker reaches that limit, through the run: a real worker allocating past 32 MB.
    const { Worker } = await import('node:worker_threads');
    const hungry = new Worker('const a = []; for (;;) a.push(new Array(1e5).fill(Math.random()));', {
      eval: true,
      resourceLimits: { maxOldGenerationSizeMb: 32 },
    });
    let onFailure: (error: unknown) => void = () => {};
    hungry.on('error', (error) => onFailure(error));
    const channel: WorkerChannel = {
      post: () => {},
      listen: (_, failure) => void (onFailure = failure),
      terminate: () => void hungry.terminate(),
    };
    const error = await runOver(channel, undefined, 60_000)
      .prepare({ type: 'no-context', request: '{}', credentials: [] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PresentationLimitError);
    expect(error).toMatchObject({ limit: 'memory' });
  }, 120_000);

  it('a step the worker never answers: the run rejects with the time limit and terminates the worker', async () => {
    let terminated = 0;
    const silent: WorkerChannel = { post: () => {}, listen: () => {}, terminate: () => void terminated++ };
    const run = runOver(silent, undefined, 20);
    const error = await run.prepare({ type: 'no-context', request: '{}', credentials: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PresentationLimitError);
    expect(error).toMatchObject({ limit: 'time' });
    expect(terminated).toBe(1);
  });

  it('the option is checked at creation: a heap under 256 MB or a time that is no positive integer → 20003 naming it', () => {
    for (const presentationLimits of [{ memoryMb: 64 }, { timeMs: 0 }, { timeMs: 1.5 }, { heap: 1 }]) {
      expect(() =>
        createLedgerProvider({ transport: quietLedger(), network: 'devnet', origin: ORIGIN, presentationLimits } as never),
      ).toThrow(expect.objectContaining({ code: 20003, data: expect.objectContaining({ field: 'presentationLimits' }) }));
    }
  });
});
