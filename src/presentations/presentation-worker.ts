/**
 * One presentation's o1js work, as a worker runs it (worker.ts in Node, worker.browser.ts in
 * browsers; the same protocol, so runner.ts drives both alike). The device step (the owner signature)
 * stays with the caller, between the two messages:
 *
 *   caller → { precompile: { type, request } }                                 worker → { precompiled: { tagName } }
 *   caller → { prepare: { type, request, credentials, verifierIdentity } }   worker → { prepared: { messageFields, tagName } }
 *   caller → { finalize: { signature } }                                      worker → { presentation }
 *   caller → { close: true }                                                  worker → { closed: true }
 *
 * Any failure → { error: { stage, message } }. Nothing here touches the device or the credential store: the worker
 * receives the request (`precompile`: the request alone, while the holder reviews it), then the chosen credentials'
 * JSON, and returns fields and the presentation.
 *
 * `precompile` compiles the request's circuit, which depends on its spec alone (mina-attestations'
 * `Presentation.precompile`), so the caller can start it before the holder has approved anything: it starts a new
 * presentation, and the `prepare` of the same spec that follows takes its program instead of compiling again. A
 * `prepare` without one compiles as it always did.
 *
 * In a browser the key cache (indexeddb-key-cache.ts, reached through `openPresentationKeys`) wraps both o1js phases;
 * `close` persists what o1js wrote since the compile, so the caller asks for it before it terminates the worker.
 *
 * One worker may serve several presentations in turn (Node reuses a warm worker, runner.ts): each
 * `prepare` starts a new presentation, and `finalize` or `close` ends it. With `reuseCompiled` (Node only), the
 * compiled presentation program of a spec is kept for the next presentation of the same spec (see `reusingCompiled`).
 */
import { loadAttestations } from '#upstream/attestations';
import { openPresentationKeys } from '#presentations/prover-keys';
import { NO_PRESENTATION_KEYS, type PresentationKeys } from './prover-key-cache.js';

export interface PrepareMessage {
  type: 'https' | 'zk-app' | 'no-context';
  /** The request's JSON text. */
  request: string;
  /** The chosen credentials: input key and stored JSON text. */
  credentials: { key: string; json: string }[];
  verifierIdentity?: string;
  /**
   * A presentation prepared before, in a worker that died while proving: its client nonce and context (decimal), so
   * that this prepare yields the same context, the one the owner already signed on the device.
   */
  again?: { clientNonce: string; context: string };
  /** A second attempt, after the first worker failed (compiling or proving): marked on the key cache's reports. */
  retry?: boolean;
}

/** What `precompile` needs: the request alone (nothing of the holder's). */
export type PrecompileMessage = Pick<PrepareMessage, 'type' | 'request'>;

export type WorkerMessage =
  | { precompile: PrecompileMessage }
  | { prepare: PrepareMessage }
  | { finalize: { signature: string } }
  | { close: true };

/**
 * What a device needs to compute the presentation's context itself (SIGN_PRESENTATION), as decimal text: the parts of
 * mina-attestations' context that are no text the device shows. Absent for a presentation bound to no verifier.
 */
export interface ContextParts {
  vkHash: string;
  claimsHash: string;
  serverNonce: string;
  clientNonce: string;
  /** zk-app requests: the verifier zkApp (its network as mina-attestations names it). */
  zkapp?: { publicKey: string; tokenId: string; network: unknown };
}

export interface Prepared {
  messageFields: string[];
  tagName?: string;
  context?: ContextParts;
  /** mina-attestations' client nonce of this presentation (decimal): what a second prepare needs (`again`). */
  clientNonce: string;
}

export type WorkerReply =
  | { precompiled: { tagName?: string } }
  | { prepared: Prepared }
  | { presentation: string }
  | { closed: true }
  | {
      error: {
        stage: 'precompile' | 'prepare' | 'finalize' | 'close';
        message: string;
        /**
         * o1js's wasm trapped (a `WebAssembly.RuntimeError`: "unreachable", "memory access out of bounds", "operation
         * does not support unaligned accesses"): a failure of this worker's o1js instance, not of the presentation.
         * The worker must not be used again; the step may run again in a fresh one.
         */
        trapped?: true;
      };
    };

export interface PresentationWorkerOptions {
  /**
   * Keep the compiled program of the last specs for later presentations in this worker (Node's reused worker).
   * Not in browsers, where each presentation has a fresh Worker (o1js#2870: a second proof in one o1js instance with
   * a populated cache can hang there).
   */
  reuseCompiled?: boolean;
}

/** How many specs' compiled programs a reusing worker keeps (each holds its prover keys once it has proved). */
export const COMPILED_SPECS_KEPT = 2;

/** The state of a worker's presentations: feed it the caller's messages in order, post back what it returns. */
export function presentationWorker(options: PresentationWorkerOptions = {}): (message: WorkerMessage) => Promise<WorkerReply> {
  const current: CurrentPresentation = { keys: NO_PRESENTATION_KEYS, finalize: undefined, precompiled: undefined };
  // The compiled programs by spec: the one a precompile made (for its prepare), and in a reusing worker the last specs.
  const compiled = new Map<string, Promise<unknown>>();
  const reuse = options.reuseCompiled === true;
  return async (message) => {
    const stage = stageOf(message);
    try {
      if ('close' in message) {
        await endPresentation(current, compiled, reuse);
        return { closed: true };
      }
      const loaded = await loadAttestations();
      if ('precompile' in message)
        return { precompiled: await precompilePresentation(current, message.precompile, loaded, compiled, reuse) };
      if ('prepare' in message) return { prepared: await preparePresentation(current, message.prepare, loaded, compiled, reuse) };
      if (!current.finalize) throw new Error('finalize before prepare');
      const presentation = await current.finalize(message.finalize.signature);
      await endPresentation(current, compiled, reuse); // persisted before the caller reads the result (and terminates or reuses this worker)
      return { presentation };
    } catch (error) {
      const message = (error as Error)?.message ?? String(error);
      return { error: { stage, message, ...(isWasmTrap(error) ? { trapped: true } : {}) } };
    }
  };
}

function stageOf(message: WorkerMessage): 'precompile' | 'prepare' | 'finalize' | 'close' {
  if ('precompile' in message) return 'precompile';
  if ('prepare' in message) return 'prepare';
  return 'finalize' in message ? 'finalize' : 'close';
}

/**
 * A worker's current presentation: its key cache (none between presentations), the spec it precompiled (until its
 * prepare), and its proof once prepared.
 */
interface CurrentPresentation {
  keys: PresentationKeys;
  precompiled: string | undefined;
  finalize: ((signatureBase58: string) => Promise<string>) | undefined;
}

/**
 * Ends the current presentation, if any: its key cache persisted and dropped; a worker that does not reuse programs
 * forgets the one it precompiled.
 */
async function endPresentation(current: CurrentPresentation, compiled: Map<string, Promise<unknown>>, reuse: boolean): Promise<void> {
  current.finalize = undefined;
  current.precompiled = undefined;
  if (!reuse) compiled.clear();
  const open = current.keys;
  current.keys = NO_PRESENTATION_KEYS;
  await open.close();
}

type Loaded = Awaited<ReturnType<typeof loadAttestations>>;

/** The spec as mina-attestations serializes it: the program (its name is a hash of this text) depends on it alone. */
const specKey = (requestJson: string) => JSON.stringify((JSON.parse(requestJson) as { spec: unknown }).spec);

/**
 * Compiles the request's circuit (its spec alone) as a new presentation of this worker, through its key cache; the
 * program is kept for the `prepare` of the same spec that follows.
 */
async function precompilePresentation(
  current: CurrentPresentation,
  { type, request: text }: PrecompileMessage,
  { o1js, attestations }: Loaded,
  compiled: Map<string, Promise<unknown>>,
  reuse: boolean,
): Promise<{ tagName?: string }> {
  await endPresentation(current, compiled, reuse); // a previous presentation of this worker that was neither finalized nor closed
  const { Presentation, PresentationRequest } = attestations;
  const request = PresentationRequest.fromJSON(type, text);
  const requestJson = PresentationRequest.toJSON(request);
  current.keys = await openPresentationKeys(o1js, requestJson, {});
  const key = specKey(requestJson);
  const program = await current.keys.compile(() => compiledProgram(compiled, Presentation, request.spec, key));
  current.precompiled = key;
  return { tagName: programName(program) };
}

/**
 * Compiles and prepares a presentation, which becomes the worker's current one: its key cache is the current one
 * from before the compile (a close persists what o1js wrote even if the compile fails), its proof kept for `finalize`.
 * After a precompile of the same spec, its program and key cache serve: nothing is compiled again.
 */
async function preparePresentation(
  current: CurrentPresentation,
  input: PrepareMessage,
  { o1js, attestations, hashClaims }: Loaded,
  compiled: Map<string, Promise<unknown>>,
  reuse: boolean,
): Promise<Prepared> {
  const { Presentation, PresentationRequest, Credential } = attestations;
  const { type, request: text, credentials, verifierIdentity, again, retry } = input;
  const request = PresentationRequest.fromJSON(type, text);
  const requestJson = PresentationRequest.toJSON(request);
  const key = specKey(requestJson);
  const precompiled = current.precompiled === key;
  current.precompiled = undefined;
  if (!precompiled) {
    await endPresentation(current, compiled, reuse); // a previous presentation of this worker that was neither finalized nor closed
    // Browser: the persistent key cache around both o1js phases; Node: o1js's own file cache (prover-keys.ts).
    current.keys = await openPresentationKeys(o1js, requestJson, { retry: retry === true });
  }
  const opened = current.keys;
  const chosen = await Promise.all(credentials.map(async ({ key, json }) => ({ ...(await Credential.fromJSON(json)), key })));
  const context = verifierIdentity === undefined ? undefined : { verifierIdentity };
  const prepare = () =>
    withCompiled(compiled, Presentation, request.spec, key, () =>
      Presentation.prepare({ request, context, credentials: chosen } as Parameters<typeof Presentation.prepare>[0]),
    );
  // The compile happened in the precompile (through the key cache); else it happens here, through it.
  const prepared = precompiled ? await prepare() : await opened.compile(prepare);
  if (again !== undefined) {
    // The same presentation once more: mina-attestations drew a new client nonce, hence a new context; the
    // proof must carry the ones the owner signed (the context is fixed by the nonce and the request).
    prepared.clientNonce = o1js.Field(again.clientNonce);
    prepared.context = o1js.Field(again.context);
    prepared.messageFields[0] = again.context;
  }
  current.finalize = async (signatureBase58) => {
    const proved = await opened.prove(() => Presentation.finalize(request, o1js.Signature.fromBase58(signatureBase58), prepared));
    return Presentation.toJSON(proved);
  };
  const tagName = programName(prepared.compiledRequest);
  return {
    messageFields: prepared.messageFields,
    tagName,
    context: contextParts(request, prepared, hashClaims),
    clientNonce: String(prepared.clientNonce),
  };
}

/**
 * The compiled program of `spec` (mina-attestations' `Presentation.precompile`), from `compiled` when this worker
 * compiled it before, else compiled now and kept (the last COMPILED_SPECS_KEPT specs, least recently used first; a
 * failed compile is not kept). `Presentation.precompile` builds a new ZkProgram, rebuilds its constraint systems,
 * reads and checks its keys and analyses its methods for the feature flags (≈ 1–3 s of a warm process, tens of
 * seconds cold), although the result depends on the spec alone.
 */
function compiledProgram(
  compiled: Map<string, Promise<unknown>>,
  Presentation: { precompile: (spec: never) => Promise<unknown> },
  spec: unknown,
  key: string,
): Promise<unknown> {
  let program = compiled.get(key);
  compiled.delete(key); // re-inserted last: the map's order is least recently used first
  if (program === undefined) {
    program = Presentation.precompile(spec as never);
    program.catch(() => compiled.get(key) === program && compiled.delete(key));
  }
  compiled.set(key, program);
  for (const oldest of compiled.keys()) if (compiled.size > COMPILED_SPECS_KEPT) compiled.delete(oldest);
  return program;
}

/**
 * Runs `prepare` (mina-attestations' `Presentation.prepare`, which compiles on every call) with the program of this
 * spec from `compiledProgram`: for the duration of this call, `precompile` of exactly this spec object answers from
 * it; any other call goes to mina-attestations' own. If mina-attestations stops calling `precompile` through its
 * `Presentation` object, nothing is reused, and nothing breaks. Only in a worker of ours, where no other code uses
 * mina-attestations meanwhile (one message at a time).
 */
async function withCompiled<T>(
  compiled: Map<string, Promise<unknown>>,
  Presentation: { precompile: (spec: never) => Promise<unknown> },
  spec: unknown,
  key: string,
  prepare: () => Promise<T>,
): Promise<T> {
  const original = Presentation.precompile;
  const program = compiledProgram(compiled, { precompile: (asked: never) => original.call(Presentation, asked) }, spec, key);
  Presentation.precompile = (asked: never) => (asked === spec ? program : original.call(Presentation, asked));
  try {
    return await prepare();
  } finally {
    Presentation.precompile = original;
  }
}

/** The ZkProgram's name (`credential-<hex>`) of a compiled request (mina-attestations' `Presentation.precompile`). */
function programName(compiled: unknown): string | undefined {
  return (compiled as { program?: { program?: { name?: string } } } | undefined)?.program?.program?.name;
}

/** The context's parts of a prepared presentation (see ContextParts); undefined for no-context requests. */
export function contextParts(
  request: { type: string; claims: unknown; inputContext?: unknown },
  prepared: { clientNonce: unknown; serverNonce: unknown; compiledRequest: unknown },
  hashClaims: (claims: unknown) => bigint,
): ContextParts | undefined {
  if (request.type === 'no-context') return undefined;
  const text = (v: unknown) => String(v);
  const vk = (prepared.compiledRequest as { verificationKey: { hash: unknown } }).verificationKey;
  const parts: ContextParts = {
    vkHash: text(vk.hash),
    claimsHash: hashClaims(request.claims).toString(),
    serverNonce: text(prepared.serverNonce),
    clientNonce: text(prepared.clientNonce),
  };
  if (request.type === 'zk-app') {
    const identity = (
      request.inputContext as { verifierIdentity: { publicKey: { toBase58(): string }; tokenId: unknown; network: unknown } }
    ).verifierIdentity;
    parts.zkapp = { publicKey: identity.publicKey.toBase58(), tokenId: text(identity.tokenId), network: identity.network };
  }
  return parts;
}

/** V8's messages for the wasm traps o1js has hit in browsers, should a layer rethrow one as a plain Error. */
const TRAP_MESSAGE = /^(?:RuntimeError: )?(?:operation does not support unaligned accesses|memory access out of bounds)$/;

/**
 * A trap of o1js's wasm: a `WebAssembly.RuntimeError` (also another realm's, by name: o1js may load its wasm in a
 * context of its own), or a plain error with a trap's message.
 */
export function isWasmTrap(error: unknown): boolean {
  if (typeof WebAssembly !== 'undefined' && error instanceof WebAssembly.RuntimeError) return true;
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
  return name === 'RuntimeError' || (typeof message === 'string' && TRAP_MESSAGE.test(message));
}
