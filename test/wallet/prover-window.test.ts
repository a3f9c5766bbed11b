/**
 * The prover-window relay (src/wallet/prover.ts) over Node's BroadcastChannel, with a stand-in for the presentation
 * Worker that answers the presentation worker's messages: the wallet's side finds a prover window (or waits for one), a run's
 * messages and replies cross, failures and a closing window reach the run, and the runner's own protocol
 * (runOver) works over it. The real Worker in the real prover window: test/e2e/web-dapp.browser.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runOver, type WorkerChannel } from '../../src/presentations/runner.js';
import type { WorkerMessage, WorkerReply } from '../../src/presentations/presentation-worker.js';
import { catchUnisolatedO1jsStart, proverWindowProver, serveProverWindow } from '../../src/wallet/prover.js';
import { within } from '../support/rig.js';

/** A Worker stand-in: answers `prepare` and `finalize` as the presentation worker does; records what it got; can fail. */
function fakeWorker() {
  const got: WorkerMessage[] = [];
  let reply: (r: WorkerReply) => void = () => {};
  let failure: (e: unknown) => void = () => {};
  let terminated = false;
  const channel: WorkerChannel = {
    post(message) {
      got.push(message);
      if ('prepare' in message) reply({ prepared: { messageFields: ['1'], tagName: 't', clientNonce: '2', context: '3' } } as never);
      if ('finalize' in message) reply({ presentation: `proved with ${message.finalize.signature}` } as WorkerReply);
    },
    listen(onReply, onFailure) {
      reply = onReply;
      failure = onFailure;
    },
    terminate: () => void (terminated = true),
  };
  return { channel, got, fail: (message: string) => failure(new Error(message)), terminated: () => terminated };
}

const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

describe('the prover window relay', () => {
  it('runs a presentation in the prover window: prepare, finalize, then the Worker is terminated there', async () => {
    const worker = fakeWorker();
    stops.push(serveProverWindow(async () => worker.channel));
    const channel = (await within(proverWindowProver()(undefined), 'a prover window'))!;
    const run = runOver(channel, undefined);
    const prepared = await within(run.prepare({ type: 'no-context', request: '{}', credentials: [] }), 'prepare');
    expect(prepared.messageFields).toEqual(['1']);
    expect(await within(run.finalize('SIG'), 'finalize')).toBe('proved with SIG');
    run.close();
    await expect.poll(worker.terminated).toBe(true);
    expect(worker.got.map((m) => Object.keys(m)[0])).toEqual(['prepare', 'finalize']);
  });

  it('waits, saying so, until a prover window is opened; an abort ends the wait', async () => {
    const waiting: boolean[] = [];
    const pending = proverWindowProver({ onWaiting: (w) => waiting.push(w) })(undefined);
    await new Promise((wake) => setTimeout(wake, 700));
    expect(waiting).toEqual([true]);
    stops.push(serveProverWindow(async () => fakeWorker().channel));
    await within(pending, 'a prover window');
    expect(waiting).toEqual([true, false]);

    stops.splice(0).forEach((stop) => stop());
    const controller = new AbortController();
    const aborted = proverWindowProver()(controller.signal);
    controller.abort(new Error('the dapp cancelled'));
    await expect(aborted).rejects.toThrow('the dapp cancelled');
  });

  it("tells the call that it waits for the holder (the dapp's progress stage) and that it goes on once a prover window answers", async () => {
    const ui: boolean[] = [];
    const call: boolean[] = [];
    const pending = proverWindowProver({ onWaiting: (w) => ui.push(w) })(undefined, (w) => call.push(w));
    await expect.poll(() => call).toEqual([true]);
    stops.push(serveProverWindow(async () => fakeWorker().channel));
    await within(pending, 'a prover window');
    expect({ ui, call }).toEqual({ ui: [true, false], call: [true, false] });
    // An open prover window answers at once: no wait, nothing said.
    const quick: boolean[] = [];
    await within(
      proverWindowProver()(undefined, (w) => quick.push(w)),
      'the open prover window',
    );
    expect(quick).toEqual([]);
  });

  it('without a prover window the call ends after waitMs with 1002 naming what was needed; the prompt is withdrawn', async () => {
    const ui: boolean[] = [];
    const call: boolean[] = [];
    const waiting = proverWindowProver({ waitMs: 1_500, onWaiting: (w) => ui.push(w) })(undefined, (w) => call.push(w));
    await expect(within(waiting, 'the bound')).rejects.toMatchObject({
      code: 1002,
      data: {
        reason: expect.stringMatching(/^the prover window was not opened within 2 s: .*cross-origin isolated.*"Open the prover window"/),
      },
    });
    // The wallet's prompt is taken down; the call's progress is not told that it goes on (it ended).
    expect({ ui, call }).toEqual({ ui: [true, false], call: [true] });
    // A prover window opened afterwards serves the next call.
    stops.push(serveProverWindow(async () => fakeWorker().channel));
    expect(await within(proverWindowProver({ waitMs: 1_500 })(undefined), 'the next call')).toBeDefined();
  });

  it("handles only o1js's refused SharedArrayBuffer transfer in a window that is not isolated, once, and says what it means", () => {
    const listeners = new Set<(event: PromiseRejectionEvent) => void>();
    const target = {
      addEventListener: (_: string, l: never) => listeners.add(l),
      removeEventListener: (_: string, l: never) => listeners.delete(l),
    };
    const said: string[] = [];
    catchUnisolatedO1jsStart(target, (line) => said.push(line));
    const reject = (reason: unknown) => {
      const event = { reason, defaultPrevented: false, preventDefault: () => void (event.defaultPrevented = true) };
      for (const listener of [...listeners]) listener(event as unknown as PromiseRejectionEvent);
      return event.defaultPrevented;
    };
    const refused = Object.assign(
      new Error("Failed to execute 'postMessage' on 'Worker': SharedArrayBuffer transfer requires self.crossOriginIsolated."),
      {
        name: 'DataCloneError',
      },
    );
    expect(reject(new Error('something else'))).toBe(false);
    expect(reject(Object.assign(new Error('could not clone a function'), { name: 'DataCloneError' }))).toBe(false);
    expect(reject(refused)).toBe(true);
    expect(said).toEqual([
      expect.stringMatching(
        /^chain-ledger wallet: o1js cannot start its worker threads in this window .*SharedArrayBuffer.*proves in the prover window$/,
      ),
    ]);
    expect(listeners.size).toBe(0); // once: o1js starts its bindings once per window
    expect(reject(refused)).toBe(false);
  });

  it("a Worker's failure and a prover window that closes reach the run as worker failures", async () => {
    const worker = fakeWorker();
    const stop = serveProverWindow(async () => worker.channel);
    const channel = (await within(proverWindowProver()(undefined), 'a prover window'))!;
    const failures: string[] = [];
    channel.listen(
      () => {},
      (error) => failures.push((error as Error).message),
    );
    worker.fail('o1js trapped');
    stop();
    await expect.poll(() => failures).toEqual(['o1js trapped', 'the prover window was closed']);
    expect(worker.terminated()).toBe(true);
  });

  it('a run cancelled while the prover window starts its Worker: that Worker is terminated once it has started', async () => {
    const workers = [fakeWorker(), fakeWorker()];
    let starts = 0;
    let started!: () => void;
    const starting = new Promise<void>((resolve) => (started = resolve));
    let finishStart!: () => void;
    const loaded = new Promise<void>((resolve) => (finishStart = resolve));
    stops.push(
      serveProverWindow(async () => {
        const worker = workers[starts++]!;
        started();
        await loaded; // the Worker loading its module graph
        return worker.channel;
      }),
    );
    const controller = new AbortController();
    const cancelled = proverWindowProver()(controller.signal);
    await within(starting, 'the Worker starting');
    controller.abort(new Error('the dapp cancelled'));
    await expect(cancelled).rejects.toThrow('the dapp cancelled');
    finishStart();
    await expect.poll(workers[0]!.terminated).toBe(true);
    // The prover window serves the next run as before.
    const channel = (await within(proverWindowProver()(undefined), 'the next run'))!;
    const run = runOver(channel, undefined);
    expect((await within(run.prepare({ type: 'no-context', request: '{}', credentials: [] }), 'prepare')).messageFields).toEqual(['1']);
    expect(workers[1]!.terminated()).toBe(false);
    run.close();
  });

  it('a prover window that cannot start its Worker is a clear error', async () => {
    stops.push(serveProverWindow(async () => undefined));
    await expect(proverWindowProver()(undefined)).rejects.toMatchObject({
      code: 22001,
      data: { reason: 'the prover window could not start the presentation Worker' },
    });
  });
});
