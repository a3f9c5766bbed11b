/**
 * mina-signer's own single-field verifier. `Client.verifyFields` is hard-wired to the devnet prefix, so this is how a
 * mainnet INS 06 signature is checked.
 */
import { minaSignerInternals } from '../../src/upstream/mina-signer-internals.js';

const internals = await minaSignerInternals('mesa');

export function verifyFieldElement(
  sig: { field: string; scalar: string },
  field: bigint,
  address: string,
  network: 'mainnet' | 'devnet',
): boolean {
  const publicKey = internals.PublicKey.toGroup(internals.PublicKey.fromBase58(address));
  return internals.verifyFieldElement({ r: BigInt(sig.field), s: BigInt(sig.scalar) }, field, publicKey, network);
}

/** mina-signer's multi-field verifier, for either domain. */
export function verifyFields(
  sig: { field: string; scalar: string },
  fields: bigint[],
  address: string,
  network: 'mainnet' | 'devnet',
): boolean {
  const publicKey = internals.PublicKey.toGroup(internals.PublicKey.fromBase58(address));
  return internals.verify({ r: BigInt(sig.field), s: BigInt(sig.scalar) }, { fields }, publicKey, network);
}
