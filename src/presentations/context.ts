/**
 * What a presentation asks of its caller (the provider's session, or a test): the connected account and its store,
 * the verifier's origin, the page's credential chooser and the device's abilities, and where each stage is reported.
 * Shared by the stages (request-presentation.ts reads as their sequence), so it lives below them.
 */
import type { CredentialContext } from '../credentials/store-credential.js';
import type { CredentialEntry } from '../credentials/store.js';
import type { ReportProgress } from '../util/progress.js';
import type { PresentationLimits } from './runner.js';

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
  /** What each host step (compile, proof) may take: time, and in Node the worker's heap. Default 5 min, 2 GiB. */
  presentationLimits?: PresentationLimits;
  /**
   * The device has SIGN_PRESENTATION (extension 1.1): it shows the verifier and computes the context itself. Else
   * the owner signature is SIGN_FIELDS, blind.
   */
  clearSigning?: boolean;
  /**
   * Told as each stage on the host starts: `loading-prover` (only when o1js and mina-attestations are not loaded
   * yet), `compiling`, `proving`; a step run again in a fresh worker is told once more, with `retry: true`. The
   * device step between them is `onConfirm`'s, with its prompt (the provider's session tells it as the stage
   * `confirm-on-device` too, so it is not reported twice).
   */
  progress?: ReportProgress;
}

/** The parameter every refusal of a presentation request names. */
export const REQUEST_FIELD = 'presentation.presentationRequest';
