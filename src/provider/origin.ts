/**
 * Origins. A provider is bound to one origin; every call is checked against the origin it comes from, and a
 * mismatch is refused before anything reaches the device.
 */
import { ErrorCode, ProviderError, invalidParams } from './to-provider-error.js';

/**
 * Hosts a browser treats as this machine, so that plain http on them is a secure context ("potentially trustworthy"
 * in the W3C Secure Contexts spec): `localhost` and `*.localhost`, the whole of 127.0.0.0/8, and [::1]. Distinct
 * loopback addresses are distinct sites, which is how a wallet page and the dapps it serves are tried on one machine.
 */
function isLoopbackHost(hostname: string): boolean {
  if (hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '[::1]') return true;
  const octets = hostname.split('.');
  return octets.length === 4 && octets[0] === '127' && octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255);
}

/** Throws 20003 (field `origin`) unless `origin` is a bare https origin, or http on a loopback host (isLoopbackHost). */
export function checkSecureOrigin(origin: unknown): string {
  if (typeof origin !== 'string') throw invalidParams('origin', 'required outside browsers: the origin this provider serves');
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw invalidParams('origin', `not an origin: ${JSON.stringify(origin)}`);
  }
  if (url.origin !== origin) throw invalidParams('origin', `not a bare origin (scheme://host[:port]): ${origin}`);
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
  if (!secure) throw invalidParams('origin', `insecure origin ${origin}: use https (or http on localhost)`);
  return origin;
}

/**
 * The page's origin now, in a browser page (http(s), or "null" for an opaque origin: a sandboxed iframe, a data: or
 * file: page); undefined outside web pages (Node, and an extension's own pages and background, whose callers are
 * the pages it serves: those are bridges).
 */
export function browserOrigin(): string | undefined {
  const location = (globalThis as { location?: { origin?: unknown } }).location;
  if (typeof location?.origin !== 'string') return undefined;
  return EXTENSION_SCHEMES.some((scheme) => (location.origin as string).startsWith(scheme)) ? undefined : location.origin;
}

const EXTENSION_SCHEMES = ['chrome-extension:', 'moz-extension:', 'safari-web-extension:', 'ms-browser-extension:'];

/** True only while `asWalletPage` creates a provider (see there). */
let creatingForWalletPage = false;

/**
 * Runs `create` (which constructs a bridge provider, synchronously) as the wallet page: a first-party page at the
 * wallet's own origin that serves the dapp which opened it, each call bound to the origin the browser reported for
 * that dapp's messages (src/wallet). It is the one web page allowed to be a bridge. No entry point of the package
 * exports it: only the wallet page's host, built from this repository, calls it, so a dapp's own origin stays its own.
 *
 * @internal
 */
export function asWalletPage<T>(create: () => T): T {
  creatingForWalletPage = true;
  try {
    return create();
  } finally {
    creatingForWalletPage = false;
  }
}

/**
 * Chooses the origin a provider is bound to:
 * - in a web page, `location.origin`, full stop: another `origin` option is refused, and so is an opaque origin;
 * - a bridge (an extension's background, a local server, the wallet page) names the origin it serves; no other web
 *   page can be a bridge;
 * - elsewhere (Node), the `origin` option is required.
 */
export function bindOrigin(option: unknown, bridge: boolean): string {
  const page = browserOrigin();
  if (bridge) {
    if (page !== undefined && !creatingForWalletPage)
      throw invalidParams('bridge', `a web page (${page}) cannot be a bridge: its origin is its own`);
    return checkSecureOrigin(option);
  }
  if (page === undefined) return checkSecureOrigin(option);
  if (page === 'null') throw invalidParams('origin', 'an opaque origin (sandboxed iframe, data: or file: page) cannot use the wallet');
  if (option !== undefined && option !== page) {
    throw invalidParams('origin', `in a browser the origin is the page's own (${page}); another one cannot be chosen`);
  }
  return checkSecureOrigin(page);
}

/**
 * The origin a call comes from: in a web page `location.origin` now (a `context.origin` that differs from it is
 * refused); for a bridge, `context.origin`, which its trusted messaging layer must supply (none → 23001); in Node
 * without a bridge, `context.origin`, else the bound origin (the host calls for itself).
 */
export function callerOrigin(bound: string, bridge: boolean, claimed: unknown): string {
  if (bridge) {
    if (claimed === undefined) {
      throw new ProviderError(ErrorCode.OriginMismatch, {
        reason: 'a bridge must pass the origin of every call (request(args, { origin }))',
      });
    }
    return claimed as string;
  }
  const page = browserOrigin();
  if (page !== undefined) {
    if (claimed !== undefined && claimed !== page) {
      throw new ProviderError(ErrorCode.OriginMismatch, {
        reason: `request from ${shown(claimed)}, but this page is ${page}: a page cannot claim another origin`,
      });
    }
    return page;
  }
  return claimed === undefined ? bound : (claimed as string);
}

export function assertSameOrigin(bound: string, actual: string): void {
  if (actual !== bound) {
    throw new ProviderError(ErrorCode.OriginMismatch, { reason: `request from ${shown(actual)}, but this provider serves ${bound}` });
  }
}

/** An origin as given, for a reason: quoted (control characters visible) and cut at 100 characters. */
function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value.slice(0, 100)) : typeof value;
}
