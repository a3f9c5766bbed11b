/**
 * chain_createNullifier: the device (extension CREATE_NULLIFIER) makes the part that needs the secret key, the host
 * completes it and checks it with o1js (./complete.ts). The result carries the message as the caller spelled it.
 */
import type { MinaLedgerApp } from '../device/client.js';
import type { Capabilities } from '../device/capabilities.js';
import type { ReportProgress } from '../util/progress.js';
import { completeNullifier, type NullifierJson } from './complete.js';

/** A nullifier (o1js / mina-signer JSON, decimal strings) and the message as given. */
export type NullifierResult = NullifierJson & { data: unknown[] };

/** What one nullifier call needs from the provider (its call context satisfies it). */
export interface NullifierContext {
  app: MinaLedgerApp;
  accountIndex: number;
  address: string;
  /** What the connected app can do: with extension 1.1 the device shows the origin asking. */
  capabilities: Capabilities;
  /** The provider's bound origin: shown on the device with extension 1.1 (the nullifier is the same for every origin). */
  origin: string;
  signal?: AbortSignal;
  /** Called before the device request with what the user is asked to check on the device. */
  onConfirm?: (prompt: string) => void;
  progress?: ReportProgress;
}

/**
 * A nullifier for `message` and the connected account, verified on the host. The caller has checked that the app has
 * CREATE_NULLIFIER (the method table's requirement).
 * @throws `ProviderError` 22001 when the device's part does not verify.
 */
export async function createNullifier(
  ctx: NullifierContext,
  message: { fields: bigint[]; given: (string | number)[] },
): Promise<NullifierResult> {
  ctx.onConfirm?.('Review the nullifier request on your Ledger and approve');
  const origin = ctx.capabilities.extension?.nullifierOrigin ? ctx.origin : undefined;
  const device = await ctx.app.createNullifier(ctx.accountIndex, message.fields, { signal: ctx.signal, origin });
  return { ...(await completeNullifier(ctx.address, message.fields, device)), data: message.given };
}
