/**
 * App versions and what each one can do (Zondax/ledger-mina history, docs/apdu.md "Feature gating").
 */
import { MESSAGE_PREFIX } from './constants.js';

export interface AppVersion {
  version: string;
  major: number;
  minor: number;
  patch: number;
}

export function parseVersion(version: string): AppVersion {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(version);
  if (!m) throw new RangeError(`not a version "major.minor.patch": ${JSON.stringify(version)}`);
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (major > 255 || minor > 255 || patch > 255) throw new RangeError(`version parts must fit a byte: ${version}`);
  return { version, major, minor, patch };
}

export function compareVersions(a: AppVersion | string, b: AppVersion | string): number {
  const x = typeof a === 'string' ? parseVersion(a) : a;
  const y = typeof b === 'string' ? parseVersion(b) : b;
  return x.major - y.major || x.minor - y.minor || x.patch - y.patch;
}

export function atLeast(v: AppVersion | string, min: string): boolean {
  return compareVersions(v, min) >= 0;
}

/** Minimum app version of each feature. */
export const FEATURES = {
  signMessage: '1.4.0',
  silentAddress: '1.4.1',
  /** The INS 05 reply carries the signed text after the signature. */
  echoedMessage: '1.4.5',
  /** Zero amounts are displayed as "MINA 0". */
  zeroAmountDisplay: '1.4.7',
  signFieldElement: '1.6.0',
} as const;
export type Feature = keyof typeof FEATURES;

export function supports(v: AppVersion | string, feature: Feature): boolean {
  return atLeast(v, FEATURES[feature]);
}

/**
 * The text INS 05 actually signs for a message, by version: 1.4.0/1.4.1 and 1.4.4 sign the raw message;
 * 1.4.2/1.4.3 and ≥ 1.4.5 sign "Message : " + message.
 */
export function signedMessageText(v: AppVersion | string, message: string): string {
  const version = typeof v === 'string' ? parseVersion(v) : v;
  const raw = compareVersions(version, '1.4.2') < 0 || (version.major === 1 && version.minor === 4 && version.patch === 4);
  return raw ? message : MESSAGE_PREFIX + message;
}
