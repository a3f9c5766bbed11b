/**
 * What a presentation reveals, in words for the Ledger's "Reveals (per host)" screen: written from the output
 * claim's leaves (credential property paths such as `passport.passportNo`, issuers, constants), never from the names
 * the page chose for them. A record's keys are the page's words ("nothing", a long harmless sentence), so they are
 * not shown; every name that is shown, or that the verifier reads back (record keys, credential and property keys),
 * must be plain (`[A-Za-z0-9_]`, at most 64 characters), and a description too long for the screen is refused, never
 * cut: a NUL, a look-alike letter or an ellipsis could otherwise hide what is revealed.
 */
import { invalidParams } from '../errors/provider-error.js';

/** Longest description sent to the device (the extension's text field holds 255 bytes). */
export const MAX_REVEALS_LENGTH = 200;
const PLAIN_NAME = /^[A-Za-z0-9_]{1,64}$/;

type OutputNode = {
  type?: unknown;
  key?: unknown;
  inner?: unknown;
  data?: unknown;
  credentialKey?: unknown;
  inputs?: unknown;
  left?: unknown;
  right?: unknown;
  input?: unknown;
  options?: unknown;
  condition?: unknown;
  thenNode?: unknown;
  elseNode?: unknown;
};

/**
 * The description of `outputClaim` (mina-attestations' serialized operation nodes); `field` names the output claim
 * in errors. 20003 naming the field at fault for a name that is not plain, and for a description over 200 characters.
 */
export function describeReveals(outputClaim: unknown, field: string): string {
  const text = describe(outputClaim, field);
  if (text.length > MAX_REVEALS_LENGTH) {
    throw invalidParams(
      field,
      `what this request reveals takes ${text.length} characters to describe, more than the Ledger shows (${MAX_REVEALS_LENGTH}): ask for less at once`,
    );
  }
  return text;
}

/** A name the device shows or the verifier reads back: plain, or 20003 naming where it is. */
function plainName(name: unknown, field: string): string {
  if (typeof name === 'string' && PLAIN_NAME.test(name)) return name;
  throw invalidParams(field, `the name ${escaped(name)} is not shown on the Ledger: names must be 1 to 64 letters, digits or _`);
}

/** A name quoted for a reason: JSON, with every character outside printable ASCII as \uXXXX. */
function escaped(name: unknown): string {
  const text = typeof name === 'string' ? name.slice(0, 80) : String(name);
  return JSON.stringify(text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The words for a node that names an input of the request (all inputs, the owner, a credential or one of its parts),
 * as the device shows them and the holder's review reads them; undefined for any other node. `credential` gives the
 * credential's name, checked as the caller needs.
 */
export function inputNodeText(type: unknown, credential: () => string): string | undefined {
  switch (type) {
    case 'root':
      return 'all inputs';
    case 'owner':
      return 'the owner (your key)';
    case 'credential':
      return `all of ${credential()}`;
    case 'issuer':
      return `the issuer of ${credential()}`;
    case 'issuerPublicKey':
      return `the issuer key of ${credential()}`;
    case 'verificationKeyHash':
      return `the verification key of ${credential()}`;
    case 'publicInput':
      return `the public input of ${credential()}`;
    default:
      return undefined;
  }
}

function describe(value: unknown, field: string): string {
  const node = (typeof value === 'object' && value !== null ? value : {}) as OutputNode;
  const of = (inner: unknown, name: string) => describe(inner, `${field}.${name}`);
  const named = inputNodeText(node.type, () => plainName(node.credentialKey, `${field}.credentialKey`));
  if (named !== undefined) return named;
  switch (node.type) {
    case 'constant':
      return 'a constant';
    case 'property':
      return propertyPath(node, field);
    case 'record': {
      const data = (typeof node.data === 'object' && node.data !== null ? node.data : {}) as Record<string, unknown>;
      const parts = Object.entries(data).map(([key, inner]) => {
        plainName(key, `${field}.data`);
        return of(inner, `data.${key}`);
      });
      return parts.length === 0 ? 'nothing' : [...new Set(parts)].join(', ');
    }
    case 'hash':
      return `a hash of ${list(node.inputs, `${field}.inputs`)}`;
    case undefined:
      return 'nothing';
    default: {
      // An operation on other values (a comparison, arithmetic, a choice): its name and what it reads.
      const name = plainName(node.type, `${field}.type`);
      const operands = (['left', 'right', 'input', 'options', 'inputs', 'inner', 'condition', 'thenNode', 'elseNode'] as const)
        .filter((key) => node[key] !== undefined)
        .map((key) => (Array.isArray(node[key]) ? list(node[key], `${field}.${key}`) : of(node[key], key)));
      return `${name}(${operands.join(', ')})`;
    }
  }
}

function list(values: unknown, field: string): string {
  return (Array.isArray(values) ? values : []).map((inner, i) => describe(inner, `${field}[${i}]`)).join(', ');
}

/** `passport.passportNo` for a property of a credential, `createdAt` for one of the root (a claim). */
function propertyPath(node: OutputNode, field: string): string {
  const key = plainName(node.key, `${field}.key`);
  const inner = (typeof node.inner === 'object' && node.inner !== null ? node.inner : {}) as OutputNode;
  if (inner.type === 'root') return key;
  if (inner.type === 'credential') return `${plainName(inner.credentialKey, `${field}.inner.credentialKey`)}.${key}`;
  if (inner.type === 'property') return `${propertyPath(inner, `${field}.inner`)}.${key}`;
  return `${describe(inner, `${field}.inner`)}.${key}`;
}
