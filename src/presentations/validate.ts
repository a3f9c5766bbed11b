/**
 * The first stage of a presentation: the verifier's request, checked with mina-attestations' own schema, bounded
 * (request-bounds.ts), its action checked by the device's text rule (src/apdu/display-text.ts) and what it reveals
 * described from its output claim (reveals.ts) before the store, a compile or the device is reached, and read as a
 * `PresentationRequest`.
 */
import { displayTextProblem } from '../apdu/display-text.js';
import { detailOf, invalidParams, withHostDetail } from '../errors/provider-error.js';
import type { AttestationsModules } from '../upstream/attestations.js';
import { safeParseWithoutStacks } from '../upstream/parse-without-stacks.js';
import { schemaError } from '../credentials/store-credential.js';
import { REQUEST_FIELD, type PresentationContext } from './context.js';
import { checkPresentationSpec } from './request-bounds.js';
import { describeReveals } from './reveals.js';

type PresentationRequest = ReturnType<AttestationsModules['attestations']['PresentationRequest']['fromJSON']>;

/** A request that passed validation: as the page sent it, as text, and as mina-attestations reads it. */
export interface ValidRequest {
  type: 'https' | 'zk-app' | 'no-context';
  /** The request's JSON value, as the page sent it. */
  json: Record<string, unknown>;
  /** The same, as JSON text (what the worker reads it from). */
  text: string;
  /** mina-attestations' `PresentationRequest`. */
  request: PresentationRequest;
  /** Whom the presentation is for: the provider's origin for https; the request names a zkApp; none for no-context. */
  verifierIdentity: string | undefined;
  /** What it reveals, in words from the output claim's leaves (reveals.ts): what the device shows. */
  reveals: string;
}

/** Validates the page's request (20003 naming the path at fault), bounding its circuit before anything else. */
export function validateRequest(
  ctx: Pick<PresentationContext, 'origin'>,
  { attestations, validation }: AttestationsModules,
  json: Record<string, unknown>,
): ValidRequest {
  const checked = safeParseWithoutStacks(validation.PresentationRequestSchema, json);
  if (!checked.success) throw schemaError(REQUEST_FIELD, checked.error.issues);
  // The circuit is bounded before anything else happens (no store access, no compile, no device).
  checkPresentationSpec(json.spec, `${REQUEST_FIELD}.spec`);
  // The action is shown on the device and signed into the context: a control character would hide part of it.
  const action = (json.inputContext as { action?: unknown } | null | undefined)?.action;
  const actionProblem = typeof action === 'string' ? displayTextProblem(action) : undefined;
  if (actionProblem) throw invalidParams(`${REQUEST_FIELD}.inputContext.action`, actionProblem);
  const reveals = describeReveals((json.spec as { outputClaim?: unknown }).outputClaim, `${REQUEST_FIELD}.spec.outputClaim`);
  const type = checked.data.type;
  const text = JSON.stringify(json);
  let request: PresentationRequest;
  try {
    request = attestations.PresentationRequest.fromJSON(type, text);
  } catch (error) {
    // mina-attestations' own text: for the host's log, not the page (nothing of a library's internals reaches a page).
    throw withHostDetail(
      invalidParams(REQUEST_FIELD, 'not a valid presentation request'),
      `PresentationRequest.fromJSON: ${detailOf(error)}`,
    );
  }
  // https: the verifier is the page the provider serves, never what the page says; zk-app: the request names it.
  const verifierIdentity = type === 'https' ? ctx.origin : undefined;
  return { type, json, text, request, verifierIdentity, reveals };
}
