/**
 * The credentials of a presentation: for each credential input of the request, the account's stored credentials that
 * fit it by mina-attestations' own matcher (the very check `Presentation.prepare` applies), listed for the holder's
 * review (`candidates`, no assertion evaluated), then the one the holder chose for each (or, approved with the
 * default choice: the only one, else `selectCredentials`, else the newest).
 */
import { ErrorCode, ProviderError, detailOf, withHostDetail } from '../errors/provider-error.js';
import type { AttestationsModules } from '../upstream/attestations.js';
import { escapeForDisplay } from '../apdu/display-text.js';
import type { CredentialEntry } from '../credentials/store.js';
import type { CredentialCandidate, PresentationContext } from './context.js';
import type { PrepareMessage } from './presentation-worker.js';
import type { ValidRequest } from './validate.js';

/** A stored credential that fits an input: its store entry and the credential read from it. */
export type Candidate = { entry: CredentialEntry; credential: unknown };

/** The candidates of each credential input, newest first, by input key. */
export type Candidates = Record<string, Candidate[]>;

/** A chosen credential: its input key, its stored JSON text (what the worker receives) and the credential read from it. */
export type ChosenCredential = PrepareMessage['credentials'][number] & { credential: unknown };

/**
 * The stored credentials that fit each credential input of `request` (the store unlocked through `storeSecret`, which
 * may ask the device). Nothing of the request's assertion is evaluated: this is what the holder chooses from.
 */
export async function findCandidates(
  ctx: Pick<PresentationContext, 'store' | 'address' | 'storeSecret'>,
  { attestations, credentialMatchesSpec }: AttestationsModules,
  { request }: ValidRequest,
): Promise<Candidates> {
  const entries = await ctx.store.list(ctx.address, await ctx.storeSecret());
  const stored = await Promise.all(entries.map(async (entry) => ({ entry, credential: await readStored(attestations, entry) })));
  stored.sort((a, b) => (a.entry.storedAt < b.entry.storedAt ? 1 : a.entry.storedAt > b.entry.storedAt ? -1 : 0));
  // mina-attestations' own test (program-spec.js isCredentialSpec): every input that is no claim or constant.
  const inputs = Object.entries(request.spec.inputs as Record<string, { type?: string }>).filter(
    ([, spec]) => spec !== undefined && spec.type !== 'claim' && spec.type !== 'constant',
  );
  return Object.fromEntries(inputs.map(([key, spec]) => [key, stored.filter((s) => credentialMatchesSpec(spec, s.credential))]));
}

/** A candidate as the holder is shown it: id, date, kind, issuer and data as text (mina-attestations' own simplification). */
export function candidateView({ PrettyPrinter }: AttestationsModules['attestations'], { entry }: Candidate): CredentialCandidate {
  const parsed = JSON.parse(entry.credential) as { witness?: { type?: unknown; issuer?: { value?: unknown } } };
  const credentialType = typeof parsed.witness?.type === 'string' ? parsed.witness.type : 'unknown';
  const issuer = credentialType === 'native' && typeof parsed.witness?.issuer?.value === 'string' ? parsed.witness.issuer.value : undefined;
  let simplified: unknown;
  try {
    simplified = PrettyPrinter.simplifyCredentialData(parsed as Parameters<typeof PrettyPrinter.simplifyCredentialData>[0]);
  } catch {
    simplified = {};
  }
  const data = Object.fromEntries(
    Object.entries(typeof simplified === 'object' && simplified !== null ? simplified : { value: simplified }).map(([key, value]) => [
      escapeForDisplay(key),
      escapeForDisplay(typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value))),
    ]),
  );
  return { id: entry.id, storedAt: entry.storedAt, credentialType, ...(issuer ? { issuer } : {}), data };
}

/**
 * The credential chosen for each input: `choice` names an id per input (each must be one of its candidates), or is
 * the default (`true`: the only candidate, else `selectCredentials`, else the newest). Resolves with why it cannot be
 * made, for the holder, when an input has no fitting candidate or the choice names none of them.
 */
export async function choose(
  ctx: Pick<PresentationContext, 'selectCredentials'>,
  requestType: ValidRequest['type'],
  candidates: Candidates,
  choice: true | Record<string, string>,
): Promise<ChosenCredential[] | { reason: string }> {
  for (const [key, list] of Object.entries(candidates)) {
    if (list.length === 0) return { reason: `no stored credential fits the input "${escapeForDisplay(key)}"` };
  }
  const picked = choice === true ? await defaultChoice(ctx, requestType, candidates) : choice;
  const chosen: ChosenCredential[] = [];
  for (const [key, list] of Object.entries(candidates)) {
    const id = picked?.[key];
    const found = id === undefined ? (choice === true ? list[0] : undefined) : list.find((c) => c.entry.id === id);
    if (!found) return { reason: `the credential chosen for the input "${escapeForDisplay(key)}" does not fit it` };
    chosen.push({ key, json: found.entry.credential, credential: found.credential });
  }
  return chosen;
}

/** `selectCredentials`' ids where several fit an input (none asked otherwise); its throw is the holder's refusal. */
async function defaultChoice(
  ctx: Pick<PresentationContext, 'selectCredentials'>,
  requestType: ValidRequest['type'],
  candidates: Candidates,
): Promise<Record<string, string> | undefined> {
  if (!ctx.selectCredentials || !Object.values(candidates).some((list) => list.length > 1)) return undefined;
  const inputs = Object.fromEntries(Object.entries(candidates).map(([key, list]) => [key, list.map((c) => c.entry)]));
  try {
    return await ctx.selectCredentials({ requestType, inputs });
  } catch (cause) {
    throw new SelectionCancelled(detailOf(cause));
  }
}

/** `selectCredentials` threw: the holder cancelled the choice (the page gets a refusal). */
export class SelectionCancelled extends Error {
  override readonly name = 'SelectionCancelled';
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
