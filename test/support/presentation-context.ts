/**
 * What the presentation domain is called with, without a provider: a quiet software Ledger with the protocol
 * extension (every review approved and recorded), the holder approving every request, account 0 of the vectors, a
 * file credential store in a temporary
 * directory under a fixed test secret, and the stages the presentation reports recorded in order: what it tells
 * `progress`, and each `onConfirm` prompt as the stage `confirm-on-device` (as the provider's call context reports it).
 */
import { MinaLedgerApp } from '../../src/device/client.js';
import { FileCredentialStore } from '../../src/credentials-node.js';
import type { Review } from '../../src/emulator.js';
import type { PresentationContext } from '../../src/presentations/request-presentation.js';
import type { ProgressStage } from '../../src/util/progress.js';
import { ORIGIN, quietLedger } from './rig.js';
import { addressOf } from './vectors.js';

/** One stage as reported: its name, and its prompt or retry mark when it has one. */
export type Reported = { stage: ProgressStage; prompt?: string; retry?: boolean };

/**
 * A presentation context for account 0 at `ORIGIN`, its store in `dir` holding `credentials` (JSON text);
 * `reported` lists the stages in the order they were reported, `reviews` what the device showed.
 */
export async function presentationContext(dir: string, credentials: string[], more: Partial<PresentationContext> = {}) {
  const reviews: Review[] = [];
  const reported: Reported[] = [];
  const ledger = quietLedger({ extensions: true, approve: (review) => (reviews.push(review), true) });
  const address = addressOf(0);
  const secret = new Uint8Array(32).fill(7); // a test store's secret: the provider derives it from the device
  const store = new FileCredentialStore(dir);
  for (const credential of credentials) await store.add(address, secret, credential);
  const app = new MinaLedgerApp(ledger);
  const ctx: PresentationContext = {
    app,
    withDevice: (step) => app.exclusive(step),
    address,
    accountIndex: 0,
    networkId: 0,
    store,
    storeSecret: async () => secret,
    verifyMessage: () => {
      throw new Error('a presentation asks for no INS 05 signature');
    },
    origin: ORIGIN,
    clearSigning: true,
    confirmPresentation: () => true, // the holder approves every request (a test of the review passes its own)
    onConfirm: (prompt) => reported.push({ stage: 'confirm-on-device', prompt }),
    progress: (stage, extra) => reported.push({ stage, ...extra }),
    ...more,
  };
  return { ctx, reported, reviews };
}
