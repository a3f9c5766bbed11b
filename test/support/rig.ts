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
import { SoftwareLedger, type Review, type SoftwareLedgerOptions } from '../../src/emulator/index.js';
import { createLedgerProvider, type DeviceAction, type LedgerProviderOptions } from '../../src/index.js';
import { vectors } from './vectors.js';

/** The origin of the page in most provider tests. */
export const ORIGIN = 'https://dapp.example';

/** A software Ledger on the vectors' mnemonic, without its not-hardware console warning. */
export function quietLedger(options: SoftwareLedgerOptions = {}): SoftwareLedger {
  return SoftwareLedger.fromMnemonic(vectors.mnemonic, { warn: () => {}, ...options });
}

/**
 * A provider on a quiet software Ledger: devnet, origin `ORIGIN`, every review approved and recorded in `reviews`
 * (unless `device.approve` says otherwise), every device action recorded in `actions`. Not connected yet.
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
    ...provider,
  });
  return { ledger, chain, reviews, actions };
}

/** `providerRig`, connected (requestAccounts has run). */
export async function connectedProvider(device: SoftwareLedgerOptions = {}, provider: Partial<LedgerProviderOptions> = {}) {
  const rig = providerRig(device, provider);
  await rig.chain.requestAccounts();
  return rig;
}

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
