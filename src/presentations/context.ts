/**
 * What a presentation asks of its caller (the provider's call context, or a test): the connected account and its store,
 * the verifier's origin, the holder's review (`confirmPresentation`) and the device's abilities, and where each stage
 * is reported. Shared by the stages (request-presentation.ts reads as their sequence), so it lives below them; the
 * review's types are here too, since the provider's options name them.
 */
import type { CredentialContext } from '../credentials/store-credential.js';
import { ErrorCode, ProviderError, withHostDetail } from '../errors/provider-error.js';
import type { CredentialEntry } from '../credentials/store.js';
import type { ReportProgress } from '../util/progress.js';
import type { PresentationLimits } from './runner.js';

/** What `selectCredentials` is asked: for each credential input of the request, the stored credentials that fit. */
export interface CredentialChoice {
  requestType: 'https' | 'zk-app' | 'no-context';
  inputs: Record<string, CredentialEntry[]>;
}
/**
 * Returns the chosen credential id per input; may throw to cancel (→ the holder's refusal). Asked only after the holder
 * approved the request (`confirmPresentation` answered `true`), where several stored credentials fit an input.
 */
export type SelectCredentials = (choice: CredentialChoice) => Promise<Record<string, string>> | Record<string, string>;

/** A stored credential that could serve an input of a request, as the holder is shown it (never the page). */
export interface CredentialCandidate {
  /** The store's id (64 hex digits): what `confirmPresentation` answers to choose it. */
  id: string;
  /** When it was stored (ISO 8601). */
  storedAt: string;
  /** `native` (signed by an issuer key), `imported` (from a zk proof) or `unsigned`. */
  credentialType: string;
  /** The issuer's address of a native credential (B62…); absent for the other kinds. */
  issuer?: string;
  /** Its data, each field as text (mina-attestations' `PrettyPrinter.simplifyCredentialData`), escaped as the device shows text. */
  data: Record<string, string>;
}

/**
 * A presentation request as the holder reviews it before anything is read from the store or computed on it: only
 * what the request itself says (all public), in words, and a way to list the stored credentials that could serve it.
 * Every text the page chose (names, the action, values) is escaped by the extension's text rule (`\u202e`): no
 * direction override or invisible character reaches the holder's screen unescaped.
 */
export interface PresentationReview {
  /** The site asking: the provider's bound origin (in the wallet page, the origin the browser reported). */
  origin: string;
  type: 'https' | 'zk-app' | 'no-context';
  /**
   * Whom the presentation is for, in words: the asking site's origin (https), the zkApp (its address, network and
   * token), or that it is bound to no verifier (anyone could reuse it).
   */
  verifier: string;
  /** The verifier's action (https, zk-app), signed into the presentation; absent for no-context. */
  action?: string;
  /** The request's claims (values the verifier fixed), by name. */
  claims: { name: string; value: string }[];
  /** What must hold of the credentials, one line per assertion (`c.salary < limit (100000)`). */
  assertions: string[];
  /** What the presentation reveals to the verifier (the device's "Reveals (per host)" text). */
  reveals: string;
  /** The credentials asked for: each input's key, its kind (native, imported), the fields it holds. */
  inputs: { key: string; credentialType: string; fields: string[] }[];
  /** All of the above as lines of text, for a host that shows text (the CLI, `npm start`). */
  lines: string[];
  /** Aborts when the request ends before the holder answered (the page cancelled or left, the compile failed). */
  signal: AbortSignal;
  /**
   * The stored credentials of the account that fit each input (mina-attestations' own matcher; no assertion is
   * evaluated), newest first, by input key. Unlocks the store on first use in a connection: the device asks for the
   * store key (naming the site on a device with STORE_KEY). Rejects as a store or device call does.
   */
  candidates(): Promise<Record<string, CredentialCandidate[]>>;
}

/**
 * The holder's answer to a presentation request: `false` refuses; `true` approves with the default choice (per input:
 * the one candidate, else `selectCredentials`, else the newest); an object approves with the chosen credential id per
 * input key (each must be one of `candidates()`).
 */
export type PresentationAnswer = boolean | Record<string, string>;

/** The host's question to the holder (see `LedgerProviderOptions.confirmPresentation`). */
export type ConfirmPresentation = (review: PresentationReview) => PresentationAnswer | Promise<PresentationAnswer>;

/**
 * Told after the holder approved when the presentation cannot be made of what they chose (no stored credential fits an
 * input, or the chosen ones do not satisfy the request): `reason` is for the holder (it names no private value). The
 * page gets the same answer as a refusal, once this resolves.
 */
export type PresentationNotSatisfied = (notice: { review: PresentationReview; reason: string }) => void | Promise<void>;

export interface PresentationContext extends CredentialContext {
  /** The provider's bound origin: the verifier identity of an https request. */
  origin: string;
  /** The holder's review, asked before anything is read from the store (see `PresentationReview`). */
  confirmPresentation?: ConfirmPresentation;
  /** The holder is told why an approved request cannot be presented (see `PresentationNotSatisfied`). */
  onPresentationNotSatisfied?: PresentationNotSatisfied;
  /**
   * Present without asking anyone (the default choice, as an approval): the host then answers for the holder, and a
   * page it serves can probe the store. Without it and without `confirmPresentation`, 20006.
   */
  allowUnreviewedPresentations?: boolean;
  /** Chooses among several fitting credentials after an approval with the default choice. */
  selectCredentials?: SelectCredentials;
  /**
   * Runs `step` with the call's stages kept from `progress`'s listeners (device prompts still go to the host): the
   * store's unlocking during the review is the host's to show, never the page's. Absent: `step` runs as it is.
   */
  privately?: <T>(step: () => Promise<T>) => Promise<T>;
  /** Cap of the presentation circuits in o1js's file cache (least recently used evicted). Default 1 GiB. */
  o1jsCacheBytes?: number;
  /** What each host step (compile, proof) may take: time, and in Node the worker's heap. Default 5 min, 2 GiB. */
  presentationLimits?: PresentationLimits;
  /**
   * The device has SIGN_PRESENTATION (extension 1.1): it shows the verifier and computes the context itself. Else
   * the owner signature is SIGN_FIELDS, blind.
   */
  clearSigning?: boolean;
  /**
   * Told as each stage on the host starts: `loading-prover` (only when o1js and mina-attestations are not loaded
   * yet), `awaiting-approval` (the holder's review), then, once approved, `compiling`, `proving`; a step run again in
   * a fresh worker is told once more, with `retry: true`. The device step between them is `onConfirm`'s, with its
   * prompt (the provider's call context tells it as the stage `confirm-on-device` too, so it is not reported twice).
   */
  progress?: ReportProgress;
}

/** The parameter every refusal of a presentation request names. */
export const REQUEST_FIELD = 'presentation.presentationRequest';

/** The one reason every declined presentation request is given, whatever declined it. */
export const DECLINED = 'the presentation request was declined';

/**
 * The one answer a page gets for a refusal, a cancel, no fitting credential, or credentials that do not satisfy the
 * request (1002, `DECLINED`); `detail` for the host's log only.
 */
export function declined(detail?: string): ProviderError {
  const error = new ProviderError(ErrorCode.UserRejected, { reason: DECLINED });
  return detail === undefined ? error : withHostDetail(error, detail);
}

/** Whether `error` is `declined()`'s answer. */
export function isDeclined(error: unknown): boolean {
  return error instanceof ProviderError && error.code === ErrorCode.UserRejected && error.data?.reason === DECLINED;
}
