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
import { loadAttestations, type AttestationsModules } from './attestations.js';
import { NO_PRESENTATION_KEYS, type PresentationKeys } from './key-cache.js';
import { safeParseWithoutStacks } from './parse-without-stacks.js';
import { schemaError, type CredentialContext } from './store-credential.js';
import { checkPresentationSpec } from './request-bounds.js';
import { DEFAULT_O1JS_CACHE_BYTES, pruneO1jsCache } from './o1js-cache.js';
import { startPresentationRun, type PresentationRun } from './presentation-runner.js';
import type { CredentialEntry } from './store.js';

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

  // Compile and prove in a worker thread (Node), else in-process; either way the signal is honoured between steps.
  const run =
    (await startPresentationRun(ctx.signal)) ??
    inProcessRun(
      request,
      Object.entries(chosen).map(([key, s]) => ({ ...s.credential, key })),
      verifierIdentity,
      ctx.signal,
    );
  try {
    let prepared: { messageFields: string[]; tagName?: string };
    try {
      prepared = await run.prepare({
        type,
        request: JSON.stringify(requestJson),
        credentials: Object.entries(chosen).map(([key, s]) => ({ key, json: s.entry.credential })),
        verifierIdentity,
      });
    } catch (error) {
      if (ctx.signal?.aborted) throw ctx.signal.reason;
      throw invalidParams(REQUEST_FIELD, `cannot prepare a presentation for this request: ${(error as Error).message}`);
    }
    await pruneO1jsCache(prepared.tagName, ctx.o1jsCacheBytes ?? DEFAULT_O1JS_CACHE_BYTES);

    ctx.signal?.throwIfAborted(); // before the device step
    ctx.onConfirm?.('Review the presentation request on your Ledger and approve');
    const fields = prepared.messageFields.map((f: string) => BigInt(f));
    const raw = await ctx.app.signFields(ctx.accountIndex, fields, 'testnet', { signal: ctx.signal });
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
      presentation = await run.finalize(signatureBase58);
    } catch (error) {
      if (ctx.signal?.aborted) throw ctx.signal.reason;
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

/** The browser path (and the fallback): mina-attestations in this thread, the signal raced and checked per step. */
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
      const { attestations, openPresentationKeys } = await loadAttestations();
      const { Presentation, PresentationRequest } = attestations;
      const context = verifierIdentity === undefined ? undefined : { verifierIdentity };
      // Browser: the persistent key cache (browser-key-cache.ts) around both o1js phases; Node: o1js's file cache.
      keys =
        (await openPresentationKeys?.(PresentationRequest.toJSON(request as Parameters<typeof PresentationRequest.toJSON>[0]))) ??
        NO_PRESENTATION_KEYS;
      prepared = await unlessAborted(
        keys.compile(() => Presentation.prepare({ request, context, credentials } as Parameters<typeof Presentation.prepare>[0])),
        signal,
      );
      const { messageFields, compiledRequest } = prepared;
      return { messageFields, tagName: (compiledRequest as { tagName?: string }).tagName };
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
