/**
 * Where a presentation's compile and proof run. In Node: a `worker_threads` worker (presentation-worker.ts), so the
 * event loop stays free and an AbortSignal rejects at once: the worker is terminated, its work dropped. In browsers
 * (a Worker there is issue #17): in the page, as before, with the signal checked between the steps.
 */
import type { PrepareMessage, WorkerReply } from './presentation-worker.js';

export interface PresentationRun {
  /** Compiles and prepares; resolves with the fields the owner must sign. */
  prepare(input: PrepareMessage): Promise<{ messageFields: string[]; tagName?: string }>;
  /** Proves with the owner's signature (base58); resolves with the Presentation JSON text. */
  finalize(signatureBase58: string): Promise<string>;
  /** Ends the run (terminates the worker); idempotent. */
  close(): void;
}

/** A failure inside the run, with the step it happened in (the caller maps it to its error). */
export class PresentationRunError extends Error {
  override readonly name = 'PresentationRunError';
  constructor(
    readonly stage: 'prepare' | 'finalize',
    message: string,
  ) {
    super(message);
  }
}

const isNode = () =>
  typeof process !== 'undefined' &&
  typeof process.versions?.node === 'string' &&
  typeof (globalThis as { document?: unknown }).document === 'undefined';

/** A run for one presentation: a Node worker thread, else undefined (the caller runs in-process). */
export async function startPresentationRun(signal?: AbortSignal): Promise<PresentationRun | undefined> {
  if (!isNode()) return undefined;
  const { Worker } = await import('node:worker_threads');
  signal?.throwIfAborted();
  // From dist: the compiled .js next to this file. From the TypeScript sources (tests, tsx): the .ts, through tsx.
  const fromSource = import.meta.url.endsWith('.ts');
  // A variable, not a literal: bundlers must not treat the worker as a browser asset.
  const file = fromSource ? './presentation-worker.source.mjs' : './presentation-worker.js';
  const url = new URL(file, import.meta.url);
  // A bundle that left the worker file behind runs the presentation in-process (as in browsers) rather than fail.
  const [{ existsSync }, { fileURLToPath }] = await Promise.all([import('node:fs'), import('node:url')]);
  if (url.protocol !== 'file:' || !existsSync(fileURLToPath(url))) return undefined;
  const worker = new Worker(url);
  // Not unref'd: a CLI awaiting only this presentation must stay alive; close() always terminates the worker.
  let closed = false;
  let pending: { resolve: (reply: WorkerReply) => void; reject: (error: unknown) => void } | undefined;
  const fail = (error: unknown) => {
    pending?.reject(error);
    pending = undefined;
  };
  worker.on('message', (reply: WorkerReply) => {
    pending?.resolve(reply);
    pending = undefined;
  });
  worker.on('error', (error) => fail(error));
  worker.on('exit', (code) =>
    fail(
      closed
        ? (signal?.reason ?? new Error('the presentation was cancelled'))
        : new Error(`the presentation worker stopped (exit code ${code})`),
    ),
  );
  const close = () => {
    if (closed) return;
    closed = true;
    void worker.terminate();
  };
  const onAbort = () => {
    fail(signal!.reason);
    close();
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  const ask = (message: object): Promise<WorkerReply> => {
    if (closed) return Promise.reject(signal?.reason ?? new Error('the presentation run is closed'));
    return new Promise<WorkerReply>((resolve, reject) => {
      pending = { resolve, reject };
      worker.postMessage(message);
    });
  };
  const unwrap = <T>(reply: WorkerReply, pick: (r: WorkerReply) => T | undefined): T => {
    if ('error' in reply) throw new PresentationRunError(reply.error.stage, reply.error.message);
    const value = pick(reply);
    if (value === undefined) throw new Error('unexpected reply from the presentation worker');
    return value;
  };
  return {
    prepare: async (input) => unwrap(await ask({ prepare: input }), (r) => ('prepared' in r ? r.prepared : undefined)),
    finalize: async (signature) =>
      unwrap(await ask({ finalize: { signature } }), (r) => ('presentation' in r ? r.presentation : undefined)),
    close: () => {
      signal?.removeEventListener('abort', onAbort);
      close();
    },
  };
}
