/**
 * Where no worker can start (no `Worker`, a bundle without the worker file, o1js's wasm backend in Node), a
 * presentation runs the same stages over the same presentation worker protocol, served in this thread (src/presentations/
 * in-thread.ts). The channel's own rules with a scripted worker; then one real presentation with no worker at all,
 * proved in this thread and checked by mina-attestations' verifier.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { inThreadChannel } from '../../src/presentations/in-thread.js';
import * as runner from '../../src/presentations/runner.js';
import type { PrepareMessage, WorkerMessage, WorkerReply } from '../../src/presentations/presentation-worker.js';
import { credentialIssuer, issuerHash, verifiedOutput, type Issuer } from '../support/credentials.js';
import { presentationContext } from '../support/presentation-context.js';
import { ORIGIN, tempDirs } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

/** How often a worker was asked for: none can start in this file. */
const asked = vi.hoisted(() => ({ workers: 0 }));
vi.mock('../../src/presentations/runner.js', async (importOriginal) => ({
  ...(await importOriginal<typeof runner>()),
  startPresentationRun: async () => {
    asked.workers++;
    return undefined;
  },
}));

/** A presentation worker that answers as `answer` says (or waits for `release` when it returns undefined), recording what it was sent. */
function scriptedWorker(answer: (message: WorkerMessage) => WorkerReply | undefined) {
  const sent: WorkerMessage[] = [];
  let release: (reply: WorkerReply) => void = () => {};
  const worker = (message: WorkerMessage) => {
    sent.push(message);
    const reply = answer(message);
    return reply ? Promise.resolve(reply) : new Promise<WorkerReply>((resolve) => (release = resolve));
  };
  return { worker, sent, release: (reply: WorkerReply) => release(reply) };
}

const INPUT: PrepareMessage = { type: 'no-context', request: '{}', credentials: [] };
const PREPARED: WorkerReply = { prepared: { messageFields: ['1', '2', '3'], clientNonce: '4' } };

describe('the presentation worker served in this thread', () => {
  it('replies are copies, as a worker’s are: what the caller does with one never reaches the worker', async () => {
    const { worker } = scriptedWorker(() => PREPARED);
    const run = runner.runOver(inThreadChannel(worker), undefined);
    const prepared = await run.prepare(INPUT);
    expect(prepared).toEqual((PREPARED as { prepared: unknown }).prepared);
    prepared.messageFields[0] = '9';
    expect((PREPARED as { prepared: { messageFields: string[] } }).prepared.messageFields[0]).toBe('1');
  });

  it('a wasm trap here is the step’s error, not a worker’s to retry elsewhere (a fresh run would use this thread’s o1js)', async () => {
    const { worker } = scriptedWorker((m) =>
      'prepare' in m ? PREPARED : { error: { stage: 'finalize', message: 'memory access out of bounds', trapped: true } },
    );
    const run = runner.runOver(inThreadChannel(worker), undefined);
    await run.prepare(INPUT);
    const error = await run.finalize('sig').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(runner.PresentationRunError);
    expect(error).not.toBeInstanceOf(runner.PresentationWorkerError);
    expect(error).toMatchObject({ stage: 'finalize', message: 'memory access out of bounds' });
  });

  it('an aborted run rejects at once; the step in flight ends unseen and the worker is closed after it', async () => {
    const { worker, sent, release } = scriptedWorker((m) => ('close' in m ? { closed: true } : undefined));
    const controller = new AbortController();
    const run = runner.runOver(inThreadChannel(worker), controller.signal);
    const preparing = run.prepare(INPUT);
    controller.abort(new Error('the page went away'));
    await expect(preparing).rejects.toThrow('the page went away');
    expect(sent.map((m) => Object.keys(m)[0])).toEqual(['prepare']); // the close waits for the step in flight
    release(PREPARED);
    await expect.poll(() => sent.map((m) => Object.keys(m)[0])).toEqual(['prepare', 'close']);
    run.close();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(sent).toHaveLength(2);
  });
});

const tempDir = tempDirs('in-thread');
let issuer: Issuer;
beforeAll(async () => {
  issuer = await credentialIssuer();
}, 60_000);

describe('a presentation with no worker', () => {
  it('is proved in this thread through the same stages, reported in order: the device asked once, no worker started; it verifies', async () => {
    // A module graph of its own, where o1js and mina-attestations are not loaded yet (the issuer's graph loaded them).
    vi.resetModules();
    const domain = await import('../../src/presentations/request-presentation.js');
    const workers = await import('../../src/presentations/runner.js');
    const { ctx, reported, reviews } = await presentationContext(tempDir(), [issuer.issue(addressOf(0))]);
    const { req, json } = issuer.presentationRequest();
    const { presentation } = await domain.requestPresentation(ctx, json);
    expect(reported).toEqual([
      { stage: 'loading-prover' },
      { stage: 'awaiting-approval' },
      { stage: 'compiling' },
      { stage: 'confirm-on-device', prompt: 'Check the verifier and what is shared on your Ledger, and approve' },
      { stage: 'proving' },
    ]);
    expect(asked.workers).toBe(1);
    expect(workers.presentationWorkers().started).toBe(0);
    expect(reviews.map((r) => r.kind)).toEqual(['presentation']);
    expect(await verifiedOutput(issuer.A, req, presentation, ORIGIN)).toBe(issuerHash(issuer.A, issuer.key));

    // Loaded now: a later presentation does not report the import (this one is refused at validation).
    reported.length = 0;
    await expect(domain.requestPresentation(ctx, { type: 'https' })).rejects.toMatchObject({ code: 20003 });
    expect(reported).toEqual([]);
  }, 300_000);
});
