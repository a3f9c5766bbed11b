/**
 * chain_requestPresentation: prove, with mina-attestations, that stored credentials satisfy a verifier's request.
 * The proof runs on the host; the owner's signature over the request's message fields is made on the Ledger
 * (protocol extension SIGN_FIELDS, testnet domain, which is what mina-attestations verifies on every network) and
 * checked on the host before proving.
 *
 *   validate the request → choose credentials → Presentation.prepare → SIGN_FIELDS on the device
 *     → verify the owner signature → Presentation.finalize → { presentation }
 */
import { signatureToBase58 } from '../apdu/signature.js';
import { ErrorCode, ProviderError, invalidParams } from '../errors/provider-error.js';
import type { AttestationsModules } from '../upstream/attestations.js';
import { loadAttestations } from '#upstream/attestations';
import { openPresentationKeys } from '#presentations/prover-keys';
import { NO_PRESENTATION_KEYS, type PresentationKeys } from './prover-key-cache.js';
import { safeParseWithoutStacks } from '../upstream/parse-without-stacks.js';
import { schemaError, type CredentialContext } from '../credentials/store-credential.js';
import { checkPresentationSpec } from './request-bounds.js';
import { DEFAULT_O1JS_CACHE_BYTES, pruneO1jsCache } from './o1js-cache.js';
import { PresentationWorkerError, startPresentationRun, type PresentationRun } from './runner.js';
import { contextParts, type ContextParts, type Prepared, type PrepareMessage } from './session.js';
import type { PresentationToSign } from '../apdu/extension.js';
import type { CredentialEntry } from '../credentials/store.js';

/** What `selectCredentials` is asked: for each credential input of the request, the stored credentials that fit. */
export interface CredentialChoice {
  requestType: 'https' | 'zk-app' | 'no-context';
  inputs: Record<string, CredentialEntry[]>;
}
/** Returns the chosen credential id per input; may throw to cancel (→ 1002). */
export type SelectCredentials = (choice: CredentialChoice) => Promise<Record<string, string>> | Record<string, string>;

export interface PresentationContext extends CredentialContext {
  /** The provider's bound origin: the verifier identity of an https request. */
  origin: string;
  selectCredentials?: SelectCredentials;
  /** Cap of the presentation circuits in o1js's file cache (least recently used evicted). Default 1 GiB. */
  o1jsCacheBytes?: number;
  /**
   * The device has SIGN_PRESENTATION (extension 1.1): it shows the verifier and computes the context itself. Else
   * the owner signature is SIGN_FIELDS, blind.
   */
  clearSigning?: boolean;
}

/**
 * Settles with `work`, or rejects as soon as `signal` aborts (the work's late result is dropped). An aborted call
 * never gets a result: the signal is checked again when the work ends.
 */
async function unlessAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  signal?.throwIfAborted();
  if (!signal) return work;
  work.catch(() => undefined);
  let onAbort: () => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const result = await Promise.race([work, aborted]);
    signal.throwIfAborted();
    return result;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

const REQUEST_FIELD = 'presentation.presentationRequest';

export async function requestPresentation(
  ctx: PresentationContext,
  requestJson: Record<string, unknown>,
): Promise<{ presentation: string }> {
  const { o1js, attestations, validation, credentialMatchesSpec } = await loadAttestations();
  const { PresentationRequest, Credential } = attestations;

  const checked = safeParseWithoutStacks(validation.PresentationRequestSchema, requestJson);
  if (!checked.success) throw schemaError(REQUEST_FIELD, checked.error.issues);
  // The circuit is bounded before anything else happens (no store access, no compile, no device).
  checkPresentationSpec(requestJson.spec, `${REQUEST_FIELD}.spec`);
  const type = checked.data.type;
  let request: ReturnType<typeof PresentationRequest.fromJSON>;
  try {
    request = PresentationRequest.fromJSON(type, JSON.stringify(requestJson));
  } catch (error) {
    throw invalidParams(REQUEST_FIELD, `not a valid presentation request: ${(error as Error).message}`);
  }

  // Candidates per credential input, with mina-attestations' own matching.
  const entries = await ctx.store.list(ctx.address, await ctx.storeSecret());
  const stored = await Promise.all(entries.map(async (entry) => ({ entry, credential: await Credential.fromJSON(entry.credential) })));
  // mina-attestations' own test (program-spec.js isCredentialSpec): every input that is no claim or constant.
  const inputs = Object.entries(request.spec.inputs as Record<string, { type?: string }>).filter(
    ([, spec]) => spec !== undefined && spec.type !== 'claim' && spec.type !== 'constant',
  );
  const candidates = Object.fromEntries(
    inputs.map(([key, spec]) => [key, stored.filter((s) => credentialMatchesSpec(spec, s.credential))]),
  );
  for (const [key, list] of Object.entries(candidates)) {
    if (list.length === 0) throw invalidParams(REQUEST_FIELD, `no stored credential of this account matches the input "${key}"`);
  }
  const chosen = await choose(ctx, type, candidates);
  // https: the verifier is the page the provider serves; zk-app: the request names it; no-context: none.
  const verifierIdentity = type === 'https' ? ctx.origin : undefined;

  // Compile and prove in a worker (a Node worker thread, a browser Worker), else in-process; the signal is honoured either way.
  const input: PrepareMessage = {
    type,
    request: JSON.stringify(requestJson),
    credentials: Object.entries(chosen).map(([key, s]) => ({ key, json: s.entry.credential })),
    verifierIdentity,
  };
  const startRun = async () =>
    (await startPresentationRun(ctx.signal)) ??
    inProcessRun(
      request,
      Object.entries(chosen).map(([key, s]) => ({ ...s.credential, key })),
      verifierIdentity,
      ctx.signal,
    );
  let run = await startRun();
  try {
    let prepared: Prepared;
    try {
      prepared = await run.prepare(input).catch(async (error: unknown) => {
        // The worker itself failed while compiling (not the request: that is a PresentationRunError): nothing is
        // signed yet, so the whole prepare runs once more in a fresh worker.
        if (ctx.signal?.aborted || !(error instanceof PresentationWorkerError)) throw error;
        run.close();
        warnRetry(error, 'compiling');
        run = await startRun();
        return await run.prepare({ ...input, retry: true });
      });
    } catch (error) {
      if (ctx.signal?.aborted) throw ctx.signal.reason;
      if (error instanceof PresentationWorkerError) throw workerFailed(error); // twice: not the request's fault
      throw invalidParams(REQUEST_FIELD, `cannot prepare a presentation for this request: ${(error as Error).message}`);
    }
    await pruneO1jsCache(prepared.tagName, ctx.o1jsCacheBytes ?? DEFAULT_O1JS_CACHE_BYTES);

    ctx.signal?.throwIfAborted(); // before the device step
    const fields = prepared.messageFields.map((f: string) => BigInt(f));
    let raw: { field: string; scalar: string };
    const inClear = ctx.clearSigning ? toSign(ctx, type, requestJson, fields, prepared.context, verifierIdentity, o1js) : undefined;
    if (inClear) {
      ctx.onConfirm?.('Check the verifier and what is shared on your Ledger, and approve');
      const reply = await ctx.app.signPresentation(inClear, { signal: ctx.signal });
      // The device computed the context from what it showed; it must be the one the proof will carry.
      if (reply.context !== fields[0]) {
        throw new ProviderError(ErrorCode.Internal, {
          reason: 'the Ledger computed another presentation context than the host: it did not sign for this verifier',
        });
      }
      raw = { field: reply.r.toString(), scalar: reply.s.toString() };
    } else {
      ctx.onConfirm?.('Blind-sign the presentation on your Ledger (it shows a digest of the fields) and approve');
      raw = await ctx.app.signFields(ctx.accountIndex, fields, 'testnet', { signal: ctx.signal });
    }
    const signatureBase58 = signatureToBase58(raw);
    const signature = o1js.Signature.fromBase58(signatureBase58);
    const owner = o1js.PublicKey.fromBase58(ctx.address);
    if (
      !signature
        .verify(
          owner,
          fields.map((f) => o1js.Field(f)),
        )
        .toBoolean()
    ) {
      throw new ProviderError(ErrorCode.Internal, { reason: 'the Ledger returned an owner signature that does not verify' });
    }
    let presentation: string;
    try {
      ctx.signal?.throwIfAborted(); // before proving
      presentation = await run.finalize(signatureBase58).catch(async (error: unknown) => {
        // The worker itself died while proving (o1js's wasm has failed that way in browsers, o1js#2870's family:
        // "unaligned accesses", "memory access out of bounds"), not the presentation: the owner has signed already,
        // so prove once more in a fresh worker, prepared with the same client nonce and context. Once.
        if (ctx.signal?.aborted || !(error instanceof PresentationWorkerError)) throw error;
        run.close(); // the failed worker is gone before a fresh one starts
        warnRetry(error, 'proving');
        const again = await startPresentationRun(ctx.signal);
        if (again === undefined)
          throw new ProviderError(ErrorCode.Internal, { reason: `no fresh worker could start after: ${error.message}` });
        try {
          await again.prepare({
            ...input,
            retry: true,
            again: { clientNonce: prepared.clientNonce, context: prepared.messageFields[0]! },
          });
          return await again.finalize(signatureBase58);
        } finally {
          again.close();
        }
      });
    } catch (error) {
      if (ctx.signal?.aborted) throw ctx.signal.reason;
      if (error instanceof ProviderError) throw error;
      if (error instanceof PresentationWorkerError) throw workerFailed(error); // twice: not the request's fault
      // mina-attestations matches a credential to a request loosely (e.g. a data shape it cannot check before
      // proving); the proof is where a credential that does not satisfy the request finally fails.
      throw invalidParams(REQUEST_FIELD, `the chosen credentials do not satisfy the request: ${(error as Error).message}`);
    }
    ctx.signal?.throwIfAborted(); // an aborted call never gets a result
    return { presentation };
  } finally {
    run.close();
  }
}

/** A presentation worker that failed on the retry too: an internal error (22001), with the worker's own message. */
function workerFailed(error: PresentationWorkerError): ProviderError {
  return new ProviderError(ErrorCode.Internal, { reason: `the presentation worker failed twice: ${error.message}` });
}

function warnRetry(error: unknown, step: 'compiling' | 'proving'): void {
  console.warn(
    `chain-ledger: the presentation worker failed while ${step} (${(error as Error)?.message ?? error}); ${step} once more in a fresh worker`,
  );
}

/** The fallback where no worker can start: mina-attestations in this thread, the signal raced and checked per step. */
function inProcessRun(
  request: unknown,
  credentials: object[],
  verifierIdentity: string | undefined,
  signal: AbortSignal | undefined,
): PresentationRun {
  let prepared: Awaited<ReturnType<AttestationsModules['attestations']['Presentation']['prepare']>> | undefined;
  let keys: PresentationKeys = NO_PRESENTATION_KEYS;
  return {
    async prepare() {
      const { o1js, attestations, hashClaims } = await loadAttestations();
      const { Presentation, PresentationRequest } = attestations;
      const context = verifierIdentity === undefined ? undefined : { verifierIdentity };
      // Browser: the persistent key cache around both o1js phases; Node: o1js's file cache (prover-keys.ts).
      keys = await openPresentationKeys(o1js, PresentationRequest.toJSON(request as Parameters<typeof PresentationRequest.toJSON>[0]));
      prepared = await unlessAborted(
        keys.compile(() => Presentation.prepare({ request, context, credentials } as Parameters<typeof Presentation.prepare>[0])),
        signal,
      );
      const { messageFields, compiledRequest } = prepared;
      return {
        messageFields,
        tagName: (compiledRequest as { tagName?: string }).tagName,
        context: contextParts(request as Parameters<typeof contextParts>[0], prepared, hashClaims),
        clientNonce: String(prepared.clientNonce),
      };
    },
    async finalize(signatureBase58) {
      const { o1js, attestations } = await loadAttestations();
      const { Presentation } = attestations;
      const proved = await unlessAborted(
        keys.prove(() =>
          Presentation.finalize(
            request as Parameters<typeof Presentation.finalize>[0],
            o1js.Signature.fromBase58(signatureBase58),
            prepared!,
          ),
        ),
        signal,
      );
      return Presentation.toJSON(proved);
    },
    close() {
      void keys.close().catch(() => {}); // persists what o1js wrote and drops the in-memory keys
    },
  };
}

type Candidate = { entry: CredentialEntry; credential: unknown };

/** Unique candidates are taken as they are; otherwise the page's `selectCredentials`, else the newest. */
async function choose(
  ctx: PresentationContext,
  requestType: CredentialChoice['requestType'],
  candidates: Record<string, Candidate[]>,
): Promise<Record<string, Candidate & { credential: object }>> {
  const ambiguous = Object.values(candidates).some((list) => list.length > 1);
  let picked: Record<string, string> | undefined;
  if (ambiguous && ctx.selectCredentials) {
    try {
      picked = await ctx.selectCredentials({
        requestType,
        inputs: Object.fromEntries(Object.entries(candidates).map(([k, list]) => [k, list.map((c) => c.entry)])),
      });
    } catch (cause) {
      throw new ProviderError(ErrorCode.UserRejected, { reason: `credential selection cancelled: ${(cause as Error)?.message ?? cause}` });
    }
  }
  return Object.fromEntries(
    Object.entries(candidates).map(([key, list]) => {
      const id = picked?.[key];
      const choice = id === undefined ? newest(list) : list.find((c) => c.entry.id === id);
      if (!choice) throw invalidParams(REQUEST_FIELD, `selectCredentials chose ${id} for "${key}", which does not fit it`);
      return [key, choice as Candidate & { credential: object }];
    }),
  );
}

function newest(list: Candidate[]): Candidate {
  return list.reduce((a, b) => (b.entry.storedAt > a.entry.storedAt ? b : a));
}

/**
 * SIGN_PRESENTATION's request: the verifier (the page's origin for https, the zkApp for zk-app requests, none), the
 * context parts the device hashes with the text it shows, the credentials' hashes and issuers, and a description of
 * what the presentation reveals. Undefined where the device cannot compute the context (a zkApp on a custom network):
 * the owner signature is then SIGN_FIELDS, blind.
 */
function toSign(
  ctx: PresentationContext,
  type: CredentialChoice['requestType'],
  requestJson: Record<string, unknown>,
  fields: bigint[],
  parts: ContextParts | undefined,
  origin: string | undefined,
  o1js: AttestationsModules['o1js'],
): PresentationToSign | undefined {
  const credentials = [];
  for (let i = 1; i + 1 < fields.length; i += 2) credentials.push({ hash: fields[i]!, issuer: fields[i + 1]! });
  const reveals = describeOutput((requestJson.spec as { outputClaim?: unknown } | undefined)?.outputClaim);
  const base = {
    account: ctx.accountIndex,
    credentials,
    reveals,
    vkHash: 0n,
    claimsHash: 0n,
    serverNonce: 0n,
    clientNonce: 0n,
    action: '',
  };
  if (type === 'no-context' || parts === undefined) return { ...base, verifier: { type: 'no-context' } };
  const action = String((requestJson.inputContext as { action?: unknown } | undefined)?.action ?? '');
  const common = {
    ...base,
    vkHash: BigInt(parts.vkHash),
    claimsHash: BigInt(parts.claimsHash),
    serverNonce: BigInt(parts.serverNonce),
    clientNonce: BigInt(parts.clientNonce),
    action,
  };
  if (type === 'https') return { ...common, verifier: { type: 'https', origin: origin ?? '' } };
  const zkapp = parts.zkapp;
  if (!zkapp || (zkapp.network !== 'mainnet' && zkapp.network !== 'devnet')) return undefined;
  const pk = o1js.PublicKey.fromBase58(zkapp.publicKey);
  return {
    ...common,
    verifier: {
      type: 'zk-app',
      network: zkapp.network,
      publicKey: { x: pk.x.toBigInt(), isOdd: pk.isOdd.toBoolean() },
      tokenId: BigInt(zkapp.tokenId),
    },
  };
}

/** What the request's output claim reveals, in words (mina-attestations' serialized operation nodes), ≤ 200 ASCII characters. */
export function describeOutput(node: unknown): string {
  const describe = (n: unknown, depth: number): string => {
    const v = (n ?? {}) as { type?: string; key?: string; inner?: unknown; data?: Record<string, unknown>; credentialKey?: string };
    if (depth > 4) return '...';
    switch (v.type) {
      case 'issuer':
        return `the issuer of ${v.credentialKey ?? 'a credential'}`;
      case 'owner':
        return `the owner of ${v.credentialKey ?? 'a credential'}`;
      case 'property':
        return `${describe(v.inner, depth + 1)}.${v.key}`.replace(/^the root\./, '');
      case 'root':
        return 'the root';
      case 'record':
        return Object.entries(v.data ?? {})
          .map(([key, inner]) => `${key}: ${describe(inner, depth + 1)}`)
          .join(', ');
      case 'constant':
        return 'a constant';
      case 'hash':
        return 'a hash of the inputs';
      case undefined:
        return 'nothing';
      default:
        return v.type;
    }
  };
  const text = describe(node, 0);
  return text.length > 200 ? `${text.slice(0, 197)}...` : text; // ASCII: the device's font has nothing else
}
