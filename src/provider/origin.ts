/**
 * Origins. A provider is bound to one origin; every call is checked against the origin it comes from, and a
 * mismatch is refused before anything reaches the device.
 */
import { ErrorCode, ProviderError, invalidParams } from './errors.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Throws 20003 (field `origin`) unless `origin` is a bare https origin, or http on localhost / 127.0.0.1 / [::1]. */
export function checkSecureOrigin(origin: unknown): string {
  if (typeof origin !== 'string') throw invalidParams('origin', 'required outside browsers: the origin this provider serves');
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw invalidParams('origin', `not an origin: ${JSON.stringify(origin)}`);
  }
  if (url.origin !== origin) throw invalidParams('origin', `not a bare origin (scheme://host[:port]): ${origin}`);
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
  if (!secure) throw invalidParams('origin', `insecure origin ${origin}: use https (or http on localhost)`);
  return origin;
}

/** The page's origin now, in a browser; undefined elsewhere. */
export function browserOrigin(): string | undefined {
  const location = (globalThis as { location?: { origin?: unknown } }).location;
  return typeof location?.origin === 'string' && location.origin !== 'null' ? location.origin : undefined;
}

export function assertSameOrigin(bound: string, actual: string): void {
  if (actual !== bound) {
    throw new ProviderError(ErrorCode.OriginMismatch, { reason: `request from ${actual}, but this provider serves ${bound}` });
  }
}
