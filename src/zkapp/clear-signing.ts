/**
 * zkApp commands in clear (extension SIGN_ZKAPP, docs/apdu-extensions.md): the host streams the command's fee payer,
 * memo and account-update bodies in the era's byte layout; the device shows them, computes both commitments itself
 * and signs the ones the account owes. The host then requires the device's commitments to equal its own (computed
 * with the era's mina-signer) before it even looks at the signatures, which it verifies like any other.
 */
import type { ZkappCommitmentKind, ZkappSignatures, ZkappStream } from '../apdu/sign-zkapp.js';
import type { Era, MinaSignerInternals, SignerNetwork } from '../upstream/mina-signer-modules.js';
import type { ParsedZkappCommand, ZkappCommandJson } from './command.js';

/** The SIGN_ZKAPP stream of a command (its JSON) whose fee payer, fee, nonce and memo are final. */
export function zkappStreamOf(
  command: ZkappCommandJson,
  internals: MinaSignerInternals,
  era: Era,
  network: SignerNetwork,
  account: number,
): ZkappStream {
  return zkappStream(internals.ZkappCommand.fromJSON(command) as ParsedZkappCommand, internals, era, network, account);
}

/** The SIGN_ZKAPP stream of a command mina-signer has parsed (`checkWithLibrary`, `withFeePayer`): nothing parsed again. */
export function zkappStream(
  parsed: ParsedZkappCommand,
  internals: MinaSignerInternals,
  era: Era,
  network: SignerNetwork,
  account: number,
): ZkappStream {
  const { publicKey, fee, nonce, validUntil } = parsed.feePayer.body;
  const memoBytes = internals.Memo.toBytes(internals.Memo.fromBase58(parsed.memo));
  return {
    account,
    network: network === 'mainnet' ? 'mainnet' : 'testnet',
    era,
    feePayer: { publicKey, fee, nonce, validUntil: validUntil ?? undefined },
    memo: Uint8Array.from(memoBytes),
    updates: parsed.accountUpdates.map(({ body }) => ({ callDepth: body.callDepth, body })),
  };
}

/** Why the device's answer cannot be used, or undefined: its commitments must be the host's, and nothing else signed. */
export function clearSigningMismatch(
  reply: ZkappSignatures,
  host: { commitment: bigint; fullCommitment: bigint },
  needed: ZkappCommitmentKind[],
): string | undefined {
  if (reply.commitment !== host.commitment || reply.fullCommitment !== host.fullCommitment) {
    return 'the Ledger computed other commitments for this command than the host: it did not sign what the page sent';
  }
  const got = reply.signatures.map((s) => s.kind).sort();
  if (got.join() !== [...needed].sort().join()) return `the Ledger signed ${got.join(', ') || 'nothing'}, not ${needed.join(', ')}`;
  return undefined;
}
