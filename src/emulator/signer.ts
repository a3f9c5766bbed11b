/**
 * The signatures the device computes, delegated to mina-signer (no hand-written Schnorr or Poseidon).
 *
 * Payments, delegations and messages use mina-signer's public `Client`. A single field element (INS 06) is
 * `signFieldElement(m, sk, network)`: on devnet that equals the public `Client.signFields([m])`, but `signFields`
 * is hard-wired to the devnet prefix, so the mainnet case needs mina-signer's own `signFieldElement`, which the
 * package does not export (loaded by src/crypto/mina-signer-internals.ts).
 */
import Client from 'mina-signer';
import { signatureFromBase58, type MinaSignature } from '../apdu/signature.js';
import type { NetworkId } from '../apdu/codec.js';
import { minaSignerInternals, type MinaSignerInternals } from '../crypto/mina-signer-internals.js';

const clients = {
  testnet: new Client({ network: 'testnet' }),
  devnet: new Client({ network: 'devnet' }),
  mainnet: new Client({ network: 'mainnet' }),
};

function clientFor(networkId: NetworkId): Client {
  return networkId === 1 ? clients.mainnet : clients.testnet;
}

export function derivePublicKey(privateKeyBase58: string): string {
  return clients.mainnet.derivePublicKey(privateKeyBase58);
}

export interface LegacyTx {
  txType: 'payment' | 'delegation';
  from: string;
  to: string;
  amount: bigint;
  fee: bigint;
  nonce: number;
  validUntil: number;
  memo: string;
}

export function signLegacyTransaction(tx: LegacyTx, privateKeyBase58: string, networkId: NetworkId): MinaSignature {
  const client = clientFor(networkId);
  const common = { from: tx.from, to: tx.to, fee: tx.fee, nonce: tx.nonce, memo: tx.memo, validUntil: tx.validUntil };
  const signed =
    tx.txType === 'payment'
      ? client.signPayment({ ...common, amount: tx.amount }, privateKeyBase58)
      : client.signStakeDelegation(common, privateKeyBase58);
  return signed.signature;
}

export function signLegacyMessage(text: string, privateKeyBase58: string, networkId: NetworkId): MinaSignature {
  return clientFor(networkId).signMessage(text, privateKeyBase58).signature;
}

export async function signFieldElement(
  field: bigint,
  secret: bigint,
  privateKeyBase58: string,
  networkId: NetworkId,
): Promise<MinaSignature> {
  if (networkId === 0) return signatureFromBase58(clients.devnet.signFields([field], privateKeyBase58).signature);
  let internals: MinaSignerInternals;
  try {
    // The single-field scheme is the same in both eras; the era only changes transaction layouts.
    internals = await minaSignerInternals('mesa');
  } catch (cause) {
    throw new Error('SoftwareLedger: mainnet field-element signing needs Node (mina-signer internals)', { cause });
  }
  const { r, s } = internals.signFieldElement(field, secret, 'mainnet');
  return { field: r.toString(), scalar: s.toString() };
}

/** Extension SIGN_FIELDS: testnet domain = mina-signer's public `signFields`; mainnet = its internal `sign`. */
export async function signFields(fields: bigint[], secret: bigint, privateKeyBase58: string, domain: 'testnet' | 'mainnet'): Promise<MinaSignature> {
  if (domain === 'testnet') return signatureFromBase58(clients.devnet.signFields(fields, privateKeyBase58).signature);
  const { r, s } = (await minaSignerInternals('mesa')).sign({ fields }, secret, 'mainnet');
  return { field: r.toString(), scalar: s.toString() };
}

/** Extension CREATE_NULLIFIER: mina-signer's PLUME nullifier (network-independent), of which the device returns x, y, c, s. */
export function createNullifier(fields: bigint[], privateKeyBase58: string): { x: bigint; y: bigint; c: bigint; s: bigint } {
  const n = clients.mainnet.createNullifier(fields, privateKeyBase58);
  return { x: BigInt(n.public.nullifier.x), y: BigInt(n.public.nullifier.y), c: BigInt(n.private.c), s: BigInt(n.public.s) };
}
