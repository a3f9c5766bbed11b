/**
 * The rig of the device-fault suites (test/reliability/device-faults.test.ts, confirmation-faults.test.ts): a
 * connected provider on a software Ledger with extension 1.0 (zkApp commands and presentations signed blind, Blind
 * signing on) and a file credential store in a temporary directory, every review approved and recorded; and the
 * faults' building blocks: approving again after a fault, unplugging while a review is on screen.
 */
import { readdirSync } from 'node:fs';
import type { Review, ReviewKind, SoftwareLedger, SoftwareLedgerOptions } from '../../src/emulator.js';
import { FileCredentialStore } from '../../src/credentials-node.js';
import type { DeviceAction, LedgerProvider } from '../../src/index.js';
import type { LocalChain } from '../../src/zkapp/local-chain.js';
import type { PublicKey } from 'o1js';
import { connectedProvider, never, tempDirs } from './rig.js';

export interface Rig {
  ledger: SoftwareLedger;
  chain: LedgerProvider;
  reviews: Review[];
  actions: DeviceAction[];
  dir: string;
  /** The recipient of the last payment built by the broadcast method. */
  recipient?: PublicKey;
}

/** Every review approved and recorded again (after a fault's own answer). */
export const approveAll = (rig: Rig) => (rig.ledger.approve = (r) => (rig.reviews.push(r), true));

/**
 * A file's `rig(network, device)`: a connected provider (every review approved and recorded, as `approveAll` does
 * again after a fault), its store directory removed after the file's tests; on network 'local', `localChain()`'s.
 */
export function faultRigs(localChain: () => LocalChain | undefined = () => undefined) {
  const tempDir = tempDirs('faults');
  return async function rig(network: 'devnet' | 'local', device: SoftwareLedgerOptions = {}): Promise<Rig> {
    const dir = tempDir();
    const { ledger, chain, reviews, actions } = await connectedProvider(
      { extensions: '1.0', blindSigning: true, ...device },
      // Extension 1.0 signs zkApp commands blind: the integrator's opt-in (the faults are what is tested, not the review).
      {
        network,
        localChain: network === 'local' ? localChain() : undefined,
        credentialStore: new FileCredentialStore(dir),
        allowUnreviewedBlindSigning: true,
      },
    );
    return { ledger, chain, reviews, actions, dir };
  };
}

/** The account files of a store directory (a failed first store leaves none). */
export const accountFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.json'));

/** Approves every review until one of `kind` is on screen, and pulls the cable then. */
export const unplugAt = (rig: Rig, kind: ReviewKind) =>
  (rig.ledger.approve = (review) => {
    rig.reviews.push(review);
    if (review.kind !== kind) return true;
    rig.ledger.unplug(); // the cable is pulled while the review is on screen
    return never();
  });
