/**
 * A presentation request in words, for the holder's review (`PresentationReview`): the site asking, the verifier, the
 * action, the claims, each assertion, what is revealed and which credentials are asked for. Everything here is read
 * from the request alone (public); nothing of the store. Written from mina-attestations' serialized spec (the operation
 * nodes of `spec.assert`, as reveals.ts reads `spec.outputClaim`), every text the page chose escaped by the extension's
 * text rule (src/apdu/display-text.ts): the holder's screen shows no direction override, no invisible character.
 */
import { escapeForDisplay } from '../apdu/display-text.js';
import type { PresentationReview } from './context.js';
import { inputNodeText } from './reveals.js';
import type { ValidRequest } from './validate.js';

type SpecNode = Record<string, unknown> & { type?: unknown };
type Inputs = Record<string, { type?: unknown; credentialType?: unknown; data?: unknown; value?: unknown }>;

/** The public part of the review of `request`, asked by `origin` (the review adds its signal and `candidates`). */
export function describeRequest(origin: string, request: ValidRequest): Omit<PresentationReview, 'signal' | 'candidates'> {
  const { type, json, reveals } = request;
  const spec = (json.spec ?? {}) as { inputs?: Inputs; assert?: unknown };
  const inputs = spec.inputs ?? {};
  const claims = Object.entries((json.claims ?? {}) as Record<string, { value?: unknown }>).map(([name, claim]) => ({
    name: escapeForDisplay(name),
    value: valueText(claim?.value),
  }));
  const context = (json.inputContext ?? undefined) as { action?: unknown; verifierIdentity?: Record<string, unknown> } | undefined;
  const action = type === 'no-context' || typeof context?.action !== 'string' ? undefined : escapeForDisplay(context.action);
  const verifier = verifierText(type, origin, context?.verifierIdentity);
  const assertions = topLevel(spec.assert).map((node) => describe(node, inputs, json.claims));
  const asked = Object.entries(inputs)
    .filter(([, input]) => input.type !== 'claim' && input.type !== 'constant')
    .map(([key, input]) => ({
      key: escapeForDisplay(key),
      credentialType: escapeForDisplay(String(input.credentialType ?? input.type ?? 'credential')),
      fields: fieldsOf(input.data).map(escapeForDisplay),
    }));
  const shownOrigin = escapeForDisplay(origin);
  const lines = [
    `${shownOrigin} asks for a presentation of your credentials.`,
    `Verifier: ${verifier}`,
    ...(action === undefined ? [] : [`Action: ${action}`]),
    ...asked.map((input) => `Credential asked for: ${input.key} (${input.credentialType}; fields: ${input.fields.join(', ') || 'none'})`),
    ...(assertions.length === 0 ? ['It proves: nothing beyond holding the credentials'] : assertions.map((a) => `It proves: ${a}`)),
    `It reveals: ${reveals}`,
    ...claims.map((claim) => `Claim: ${claim.name} = ${claim.value}`),
  ];
  return { origin: shownOrigin, type, verifier, action, claims, assertions, reveals, inputs: asked, lines };
}

/** Whom the presentation is for, in words. */
function verifierText(type: ValidRequest['type'], origin: string, identity: Record<string, unknown> | undefined): string {
  if (type === 'https') return `${escapeForDisplay(origin)} (the site asking)`;
  if (type === 'no-context') return 'none: anyone who receives this presentation can reuse it';
  const key = valueText((identity?.publicKey as { value?: unknown } | undefined)?.value);
  const token = valueText((identity?.tokenId as { value?: unknown } | undefined)?.value);
  const network = valueText(identity?.network);
  return `the zkApp ${key} on ${network}${token === '1' ? '' : `, token ${token}`}`;
}

/** A value of the request (a claim, a constant) as text: strings as they are, anything else as JSON; escaped. */
function valueText(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return escapeForDisplay(text);
}

/** The field names a credential input's data type holds (a struct's properties, a dynamic record's known shape). */
function fieldsOf(data: unknown): string[] {
  if (typeof data !== 'object' || data === null) return [];
  const typed = data as { _type?: unknown; properties?: unknown; knownShape?: unknown };
  if (typed._type === 'Struct' && typeof typed.properties === 'object' && typed.properties !== null) return Object.keys(typed.properties);
  if (typed._type === 'DynamicRecord' && typeof typed.knownShape === 'object' && typed.knownShape !== null) {
    return Object.keys(typed.knownShape);
  }
  return typed._type === undefined ? Object.keys(data) : [];
}

/** The assertion's parts: an `and` at the top is one line per operand. */
function topLevel(node: unknown): SpecNode[] {
  const n = (typeof node === 'object' && node !== null ? node : {}) as SpecNode;
  if (n.type === 'and' && Array.isArray(n.inputs)) {
    return (n.inputs as unknown[]).flatMap(topLevel);
  }
  if (n.type === 'constant' && (n.data as { value?: unknown } | undefined)?.value === true) return []; // "true": no condition
  return node === undefined ? [] : [n];
}

const INFIX: Record<string, string> = {
  equals: '=',
  lessThan: '<',
  lessThanEq: '≤',
  add: '+',
  sub: '−',
  mul: '×',
  div: '÷',
  or: 'or',
  and: 'and',
};

/** One operation node in words: `c.salary < limit (100000)`, `hash(c.name) = 0x…`, `the issuer of c`. */
function describe(value: unknown, inputs: Inputs, claims: unknown): string {
  const node = (typeof value === 'object' && value !== null ? value : {}) as SpecNode;
  const of = (inner: unknown) => describe(inner, inputs, claims);
  const type = typeof node.type === 'string' ? node.type : '';
  const named = inputNodeText(type, () => escapeForDisplay(String(node.credentialKey)));
  if (named !== undefined) return named;
  if (type in INFIX && node.left !== undefined) return `${group(node.left, of)} ${INFIX[type]} ${group(node.right, of)}`;
  switch (type) {
    case 'and':
    case 'or':
      return `(${list(node.inputs, of).join(` ${type} `)})`;
    case 'not': {
      const inner = (node.inner ?? {}) as SpecNode;
      if (inner.type === 'equals') return `${group(inner.left, of)} ≠ ${group(inner.right, of)}`;
      return `not ${group(node.inner, of)}`;
    }
    case 'equalsOneOf':
      return `${of(node.input)} is one of ${Array.isArray(node.options) ? `[${list(node.options, of).join(', ')}]` : of(node.options)}`;
    case 'ifThenElse':
      return `if ${of(node.condition)} then ${of(node.thenNode)} else ${of(node.elseNode)}`;
    case 'property':
      return propertyText(node, inputs, claims, of);
    case 'constant':
      return valueText((node.data as { value?: unknown } | undefined)?.value);
    case 'hash':
      return `hash(${list(node.inputs, of).join(', ')})`;
    case 'record':
      return `{ ${Object.entries((node.data ?? {}) as Record<string, unknown>)
        .map(([key, inner]) => `${escapeForDisplay(key)}: ${of(inner)}`)
        .join(', ')} }`;
    default:
      return `${escapeForDisplay(type || 'an operation')}(…)`;
  }
}

/** An operand in brackets when it is an operation of its own (so `a − b < c` reads one way). */
function group(value: unknown, of: (inner: unknown) => string): string {
  const type = (value as SpecNode | undefined)?.type;
  const text = of(value);
  return typeof type === 'string' && type in INFIX && !text.startsWith('(') ? `(${text})` : text;
}

function list(values: unknown, of: (inner: unknown) => string): string[] {
  return (Array.isArray(values) ? values : []).map(of);
}

/**
 * A property path: `c.salary` for a credential's field, `createdAt (1712…)` for a claim (with the value the
 * request fixes), `limit (= 5)` for a constant input.
 */
function propertyText(node: SpecNode, inputs: Inputs, claims: unknown, of: (inner: unknown) => string): string {
  const key = escapeForDisplay(String(node.key));
  const inner = (node.inner ?? {}) as SpecNode;
  if (inner.type === 'credential') return `${escapeForDisplay(String(inner.credentialKey))}.${key}`;
  if (inner.type !== 'root') return `${of(inner)}.${key}`;
  const input = inputs[String(node.key)];
  if (input?.type === 'claim') {
    const claim = (claims as Record<string, { value?: unknown }> | undefined)?.[String(node.key)];
    return `${key} (${valueText(claim?.value)})`;
  }
  if (input?.type === 'constant') return `${key} (= ${valueText(input.value)})`;
  return key;
}
