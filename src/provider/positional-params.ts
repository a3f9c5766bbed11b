/**
 * `request()` params as dapps send them: an object (Auro's form), or positional, as Auro reads `params[0]` and
 * mina-js sends them. Turned here into the object form the method's schema reads.
 */
import { invalidParams } from './to-provider-error.js';

function unwrapParams(params: unknown): unknown {
  if (!Array.isArray(params)) return params;
  if (params.length !== 1) throw invalidParams('params', 'must be an object, or an array holding exactly one object');
  return params[0];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `params` as an object, or positional as Auro reads `params[0]` and mina-js sends them: `[credential]` means
 * `{ credential }`, `[{ presentationRequest }]` means `{ presentation: { presentationRequest } }`, `[[fields]]`
 * means `{ message: fields }`. A one-element array that already holds the object form is read as that object.
 */
export function positionalParams(method: string, params: unknown): unknown {
  if (!Array.isArray(params)) return params;
  const first = unwrapParams(params);
  const onlyKey = (key: string) => isObject(first) && Object.keys(first).length === 1 && Object.hasOwn(first, key);
  switch (method) {
    case 'storePrivateCredential':
      return onlyKey('credential') ? first : { credential: first };
    case 'requestPresentation':
      return isObject(first) && Object.hasOwn(first, 'presentation') ? first : { presentation: first };
    case 'createNullifier':
    case 'signFields':
      return Array.isArray(first) ? { message: first } : first;
    default:
      return first;
  }
}
