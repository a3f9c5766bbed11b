/**
 * The one test rig: the software Ledger, a provider on it, and small waits, so that a new option or default is one
 * edit here instead of one per test file. Every helper keeps the options its caller gives exactly: the software
 * Ledger's `extensions` defaults to false (the released app), so callers that need INS 0xA0–0xA2 say
 * `extensions: true`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { SoftwareLedger, type Review, type SoftwareLedgerOptions } from '../../src/emulator.js';
import { FileCredentialStore } from '../../src/credentials-node.js';
import { createLedgerProvider, type DeviceAction, type LedgerProviderOptions } from '../../src/index.js';
import type { ApduTransport } from '../../src/transport.js';
import { vectors } from './vectors.js';

/** The origin of the page in most provider tests. */
export const ORIGIN = 'https://dapp.example';

/** Another valid mnemonic (BIP39's all-"abandon" test vector): a device holding other keys than the vectors'. */
export const OTHER_MNEMONIC = `${'abandon '.repeat(11)}about`;

/** A software Ledger on the vectors' mnemonic (or `mnemonic`), without its not-hardware console warning. */
export function quietLedger(options: SoftwareLedgerOptions = {}, mnemonic = vectors.mnemonic): SoftwareLedger {
  return SoftwareLedger.fromMnemonic(mnemonic, { warn: () => {}, ...options });
}

/**
 * The holder's review of presentation requests in the rigs: every request approved with the default choice (as a
 * holder who reads and approves each). A test of the review itself passes its own `confirmPresentation`.
 */
export const HOLDER_APPROVES: Pick<LedgerProviderOptions, 'confirmPresentation'> = { confirmPresentation: () => true };

/**
 * A provider on a quiet software Ledger: devnet, origin `ORIGIN`, presentation requests approved (`HOLDER_APPROVES`),
 * every review approved and recorded in `reviews`
 * (unless `device.approve` says otherwise), every device action recorded in `actions`; `requests('e005')` counts the
 * APDUs sent to that device so far whose hex starts so (CLA and INS: e005 = SIGN_MSG, e006 = SIGN_FIELD_ELEMENT).
 * `provider.transport` puts another transport in front of the provider (the rig's `ledger` is then unused).
 * Not connected yet.
 */
export function providerRig(device: SoftwareLedgerOptions = {}, provider: Partial<LedgerProviderOptions> = {}) {
  const reviews: Review[] = [];
  const actions: DeviceAction[] = [];
  const ledger = quietLedger({ approve: (r) => (reviews.push(r), true), ...device });
  const chain = createLedgerProvider({
    transport: ledger,
    network: 'devnet',
    origin: ORIGIN,
    onDeviceAction: (a) => actions.push(a),
    ...HOLDER_APPROVES,
    ...provider,
  });
  const requests = (prefix: string) => ledger.exchanges.filter((e) => e.request.startsWith(prefix)).length;
  return { ledger, chain, reviews, actions, requests };
}

/** `providerRig`, connected (requestAccounts has run). */
export async function connectedProvider(device: SoftwareLedgerOptions = {}, provider: Partial<LedgerProviderOptions> = {}) {
  const rig = providerRig(device, provider);
  await rig.chain.requestAccounts();
  return rig;
}

/** Provider options, or a function that makes them per call (values made after the file's `beforeAll`). */
type ProviderDefaults = Partial<LedgerProviderOptions> | (() => Partial<LedgerProviderOptions>);

/**
 * `providerRig` with a test file's own defaults, each call's options given on top: `device` for the software Ledger,
 * `provider` for the provider (a function when its values are made per call, such as a credential store in a
 * temporary directory made before the tests).
 */
export function providerRigWith(device: SoftwareLedgerOptions, provider: ProviderDefaults = {}) {
  return (more: SoftwareLedgerOptions = {}, moreProvider: Partial<LedgerProviderOptions> = {}) =>
    providerRig({ ...device, ...more }, { ...(typeof provider === 'function' ? provider() : provider), ...moreProvider });
}

/** `providerRigWith`, connected (requestAccounts has run). */
export function connectedWith(device: SoftwareLedgerOptions, provider: ProviderDefaults = {}) {
  const rig = providerRigWith(device, provider);
  return async (more: SoftwareLedgerOptions = {}, moreProvider: Partial<LedgerProviderOptions> = {}) => {
    const made = rig(more, moreProvider);
    await made.chain.requestAccounts();
    return made;
  };
}

/**
 * A devnet provider at `ORIGIN` on `transport` (a software Ledger or a raw `@ledgerhq` transport) with a file
 * credential store in `dir`, presentation requests approved (`HOLDER_APPROVES`); not connected yet.
 */
export function storeProvider(transport: ApduTransport, dir: string, provider: Partial<LedgerProviderOptions> = {}) {
  return createLedgerProvider({
    transport,
    network: 'devnet',
    origin: ORIGIN,
    credentialStore: new FileCredentialStore(dir),
    ...HOLDER_APPROVES,
    ...provider,
  });
}

/**
 * A devnet provider with a file credential store in `dir` on a software Ledger with the extension (the current
 * version, or `'1.0'`: SIGN_FIELDS, behind the Blind signing setting, then on), every review recorded in `reviews`
 * and approved until the test calls `reject()` (`reject(false)` approves again); at `ORIGIN` unless `origin` is
 * given, a bridge when `bridge` is true. Not connected yet.
 */
export function storeRig(dir: string, options: { origin?: string; bridge?: boolean; version?: string; extensions?: true | '1.0' } = {}) {
  const reviews: Review[] = [];
  let answer = true;
  const ledger = quietLedger({
    extensions: options.extensions ?? true,
    blindSigning: options.extensions === '1.0',
    version: options.version,
    approve: (review) => (reviews.push(review), answer),
  });
  const chain = storeProvider(ledger, dir, { origin: options.origin ?? ORIGIN, ...(options.bridge ? { bridge: true } : {}) });
  return { ledger, chain, reviews, reject: (no = true) => (answer = !no) };
}

/**
 * Runs a call on a provider over `ledger`: what it settled with (`value` or `error`), and the APDUs that reached the
 * device meanwhile (`sent`: CLA and INS as 4 hex digits each).
 */
export async function outcome(ledger: SoftwareLedger, call: () => Promise<unknown>) {
  const before = ledger.exchanges.length;
  const settled = await call().then(
    (value) => ({ value, error: undefined as any }),
    (error: any) => ({ value: undefined, error }),
  );
  return { ...settled, sent: ledger.exchanges.slice(before).map((e) => e.request.slice(0, 4)) };
}

/** A promise that never settles: an `approve` hook of a user who never answers. */
export const never = () => new Promise<boolean>(() => {});

/** Bounds a wait: rejects, naming `what`, when `promise` has not settled after `ms`; a hang fails the test instead of stalling it. */
export function within<T>(promise: Promise<T>, what = 'operation', ms = 10_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Temporary directories `chain-ledger-<prefix>-…` for one test file: each call makes a new one, and all of them are
 * removed after the file's tests.
 */
export function tempDirs(prefix: string): () => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), `chain-ledger-${prefix}-`));
    dirs.push(dir);
    return dir;
  };
}

/** One temporary directory `chain-ledger-<prefix>-…` for a test file, removed after the file's tests. */
export function tempDir(prefix: string): string {
  return tempDirs(prefix)();
}
