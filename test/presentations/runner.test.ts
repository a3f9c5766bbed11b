/**
 * The presentation runner over a worker channel (src/presentations/runner.ts's runOver), with a scripted channel: what
 * the run posts, when it terminates the worker, and how it reports a worker's failure versus the presentation's own
 * error. The real workers are exercised by worker-reuse.test.ts, retry.test.ts and the browser e2e test.
 */
import { describe, expect, it } from 'vitest';
import {
  PresentationRunError,
  PresentationWorkerError,
  runOver,
  workerExecArgv,
  type WorkerChannel,
} from '../../src/presentations/runner.js';
import { isWasmTrap, type PrepareMessage, type WorkerMessage, type WorkerReply } from '../../src/presentations/presentation-worker.js';
import { SOURCE_CONDITION_FLAG, spawnBounded } from '../support/process.js';

/** A channel whose worker answers `prepare` and then does what `onFinalize` says. */
function scriptedChannel(onFinalize: (fail: (error: Error) => void, reply: (r: WorkerReply) => void) => void) {
  const posted: WorkerMessage[] = [];
  let terminated = 0;
  let reply: (r: WorkerReply) => void = () => {};
  let fail: (error: unknown) => void = () => {};
  const channel: WorkerChannel = {
    post(message) {
      posted.push(message);
      if ('prepare' in message) queueMicrotask(() => reply({ prepared: { messageFields: ['1'], clientNonce: '2' } }));
      if ('finalize' in message) queueMicrotask(() => onFinalize(fail, reply));
      if ('close' in message) queueMicrotask(() => reply({ closed: true }));
    },
    listen(onReply, onFailure) {
      reply = onReply;
      fail = onFailure;
    },
    terminate: () => void terminated++,
  };
  return { channel, posted, terminated: () => terminated };
}

const INPUT: PrepareMessage = { type: 'no-context', request: '{}', credentials: [] };

describe('a presentation run over a worker channel', () => {
  it('a worker that fails while proving is terminated at once (not asked to close), and the failure is not the presentation’s error', async () => {
    const { channel, posted, terminated } = scriptedChannel((fail) =>
      fail(new Error('the presentation worker failed: Uncaught RuntimeError: operation does not support unaligned accesses')),
    );
    const run = runOver(channel, undefined);
    await run.prepare(INPUT);
    const error = await run.finalize('sig').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(PresentationRunError); // what the caller retries on
    expect((error as Error).message).toMatch(/unaligned accesses/);
    expect(terminated()).toBe(1); // before close(): a fresh worker may start now without this one alive beside it
    run.close();
    await new Promise((r) => setTimeout(r, 10));
    expect(terminated()).toBe(1);
    expect(posted.map((m) => Object.keys(m)[0])).toEqual(['prepare', 'finalize']); // no close sent to a failed worker
  });

  it('a worker that failed while idle (between prepare and finalize): finalize rejects with its failure, nothing is posted', async () => {
    let failIdle: (error: Error) => void = () => {};
    const { channel, posted, terminated } = scriptedChannel(() => {});
    const listen = channel.listen.bind(channel);
    channel.listen = (onReply, onFailure) => {
      failIdle = onFailure;
      listen(onReply, onFailure);
    };
    const run = runOver(channel, undefined);
    await run.prepare(INPUT);
    failIdle(new Error('the presentation worker failed: Uncaught Error: injected'));
    expect(terminated()).toBe(1);
    await expect(run.finalize('sig')).rejects.toThrow('the presentation worker failed: Uncaught Error: injected');
    expect(posted.map((m) => Object.keys(m)[0])).toEqual(['prepare']);
  });

  it('a wasm trap the worker reports (trapped): a worker failure, the worker terminated at once, never asked to close', async () => {
    const { channel, posted, terminated } = scriptedChannel((_, reply) =>
      reply({ error: { stage: 'finalize', message: 'operation does not support unaligned accesses', trapped: true } }),
    );
    const run = runOver(channel, undefined);
    await run.prepare(INPUT);
    const error = await run.finalize('sig').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PresentationWorkerError);
    expect((error as Error).message).toBe("o1js's wasm trapped in the presentation worker: operation does not support unaligned accesses");
    expect(terminated()).toBe(1);
    run.close();
    expect(posted.map((m) => Object.keys(m)[0])).toEqual(['prepare', 'finalize']);
  });

  it('an error the worker reports is a PresentationRunError; the run then asks the worker to close before ending it', async () => {
    const { channel, posted, terminated } = scriptedChannel((_, reply) =>
      reply({ error: { stage: 'finalize', message: 'Constraint unsatisfied' } }),
    );
    const run = runOver(channel, undefined);
    await run.prepare(INPUT);
    const error = await run.finalize('sig').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PresentationRunError);
    expect(error).toMatchObject({ stage: 'finalize', message: 'Constraint unsatisfied' });
    expect(terminated()).toBe(0);
    run.close();
    await expect.poll(terminated).toBe(1);
    expect(posted.map((m) => Object.keys(m)[0])).toEqual(['prepare', 'finalize', 'close']);
  });
});

describe("isWasmTrap (how the worker tells a trap of o1js's wasm from an error of the presentation)", () => {
  // A real trap: a module whose one function is `unreachable`.
  const trapping = new WebAssembly.Instance(
    new WebAssembly.Module(
      Buffer.from(
        [
          '0061736d 01000000', // magic, version
          '01 04 01 60 00 00', // one type: () -> ()
          '03 02 01 00', // one function of it
          '07 05 01 01 66 00 00', // exported as "f"
          '0a 05 01 03 00 00 0b', // its body: unreachable, end
        ]
          .join('')
          .replaceAll(' ', ''),
        'hex',
      ),
    ),
  ).exports as { f: () => void };

  it('a trap is one; an ordinary error, a string, undefined are not', () => {
    let trap: unknown;
    try {
      trapping.f();
    } catch (error) {
      trap = error;
    }
    expect(trap).toBeInstanceOf(WebAssembly.RuntimeError);
    expect(isWasmTrap(trap)).toBe(true);
    expect(isWasmTrap(new Error('memory access out of bounds'))).toBe(true); // rethrown as a plain Error
    expect(isWasmTrap(new Error('Constraint unsatisfied'))).toBe(false);
    expect(isWasmTrap(new Error('reading memory access out of bounds of the credential'))).toBe(false);
    expect(isWasmTrap(new TypeError('x is undefined'))).toBe(false);
    expect(isWasmTrap('unreachable')).toBe(false);
    expect(isWasmTrap(undefined)).toBe(false);
  });
});

describe('the Node worker’s options', () => {
  it('a host started with --input-type=module makes a presentation: its worker does not inherit the flag (Node refuses it there)', async () => {
    // One presentation by the domain in a child process run as `node --input-type=module -e …` (test/support/present-once.ts).
    const program =
      "const { presentOnce } = await import('./test/support/present-once.ts'); console.log(await presentOnce()); process.exit(0);";
    const host = await spawnBounded(
      process.execPath,
      [SOURCE_CONDITION_FLAG, '--import', 'tsx', '--input-type=module', '-e', program],
      300_000,
      'a presentation in a host started with --input-type=module',
    );
    expect(host.output).not.toMatch(/--input-type can only be used/);
    expect(host.stdout.trim()).toBe('verified, 1 worker(s)');
    expect(host.code).toBe(0);
  }, 320_000);

  it('--input-type is dropped in both spellings, every other option kept in order', () => {
    expect(
      workerExecArgv(['--conditions=x', '--input-type=module', '--import', 'tsx', '--input-type', 'commonjs', '--no-warnings']),
    ).toEqual(['--conditions=x', '--import', 'tsx', '--no-warnings']);
  });
});
