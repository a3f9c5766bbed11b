/**
 * mina-signer's own single-field verifier (not exported by the package: loaded by path, like src/emulator/signer.ts).
 * `Client.verifyFields` is hard-wired to the devnet prefix, so this is how a mainnet INS 06 signature is checked.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = dirname(createRequire(import.meta.url).resolve('mina-signer'));
const signature = await import(pathToFileURL(join(dir, 'src', 'signature.js')).href);
const curve = await import(pathToFileURL(join(dir, 'src', 'curve-bigint.js')).href);

export function verifyFieldElement(
  sig: { field: string; scalar: string },
  field: bigint,
  address: string,
  network: 'mainnet' | 'devnet',
): boolean {
  const publicKey = curve.PublicKey.toGroup(curve.PublicKey.fromBase58(address));
  return signature.verifyFieldElement({ r: BigInt(sig.field), s: BigInt(sig.scalar) }, field, publicKey, network);
}
