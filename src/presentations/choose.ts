/**
 * The second stage of a presentation: for each credential input of the request, the account's stored credentials
 * that fit it by mina-attestations' own matcher (the very check `Presentation.prepare` applies), then one of each,
 * chosen by the page's `selectCredentials` where several fit, else the newest.
 */
import { ErrorCode, ProviderError, detailOf, invalidParams, withHostDetail } from '../errors/provider-error.js';
import type { AttestationsModules } from '../upstream/attestations.js';
import type { CredentialEntry } from '../credentials/store.js';
import { REQUEST_FIELD, type CredentialChoice, type PresentationContext } from './context.js';
import type { PrepareMessage } from './session.js';
import type { ValidRequest } from './validate.js';

type Candidate = { entry: CredentialEntry; credential: unknown };

/** A chosen credential: its input key, its stored JSON text (what the worker receives) and the credential read from it. */
export type ChosenCredential = PrepareMessage['credentials'][number] & { credential: unknown };

/**
 * The chosen credential per input. 20003 naming the input that no stored credential fits, before anything is signed;
 * 1002 when the page's chooser cancels.
 */
export async function chooseCredentials(
  ctx: Pick<PresentationContext, 'store' | 'address' | 'storeSecret' | 'selectCredentials'>,
  { attestations, credentialMatchesSpec }: AttestationsModules,
  { type, request }: ValidRequest,
): Promise<ChosenCredential[]> {
  const entries = await ctx.store.list(ctx.address, await ctx.storeSecret());
  const stored = await Promise.all(entries.map(async (entry) => ({ entry, credential: await readStored(attestations, entry) })));
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
  return Object.entries(chosen).map(([key, { entry, credential }]) => ({ key, json: entry.credential, credential }));
}

/** A stored credential, read with mina-attestations; a failure's text (it may quote private data) only for the host's log. */
async function readStored(attestations: AttestationsModules['attestations'], entry: CredentialEntry): Promise<unknown> {
  try {
    return await attestations.Credential.fromJSON(entry.credential);
  } catch (error) {
    throw withHostDetail(
      new ProviderError(ErrorCode.Internal, { reason: "a stored credential could not be read (the host's log has the details)" }),
      `stored credential ${entry.id}: ${detailOf(error)}`,
    );
  }
}

/** Unique candidates are taken as they are; otherwise the page's `selectCredentials`, else the newest. */
async function choose(
  ctx: Pick<PresentationContext, 'selectCredentials'>,
  requestType: CredentialChoice['requestType'],
  candidates: Record<string, Candidate[]>,
): Promise<Record<string, Candidate>> {
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
      return [key, choice];
    }),
  );
}

function newest(list: Candidate[]): Candidate {
  return list.reduce((a, b) => (b.entry.storedAt > a.entry.storedAt ? b : a));
}
