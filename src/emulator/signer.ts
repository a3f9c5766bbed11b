/**
 * The signatures the device computes, delegated to mina-signer (no hand-written Schnorr or Poseidon).
 *
 * Messages use mina-signer's public `Client`. Payments and delegations (INS 03) and single field elements (INS 06)
 * use mina-signer's own unexported functions (loaded by src/upstream/mina-signer-internals.ts), because the app signs
 * what it decodes and the public `Client` refuses or normalises some of it (recorded on the real app, see
 * test/fixtures/mina-ledger-app-speculos.json): a field element ≥ p is signed as the raw 256-bit value, a
 * delegation's amount field is signed, a receiver's parity byte is taken as it is, and memo bytes that are not
 * UTF-8 are signed as bytes.
 */
import Client from 'mina-signer';
import { signatureFromBase58, type MinaSignature } from '../apdu/signature.js';
import type { NetworkId } from '../apdu/codec.js';
import type { LegacyHashInput, MinaSignerInternals } from '../upstream/mina-signer-modules.js';
import { minaSignerInternals } from '#upstream/mina-signer-internals';

type SignerNetworkName = 'testnet' | 'devnet' | 'mainnet';
const clientCache = new Map<SignerNetworkName, Client>();

/** mina-signer's public client for a network, made on first use (importing this module does no work). */
function client(network: SignerNetworkName): Client {
  let made = clientCache.get(network);
  if (!made) {
    made = new Client({ network });
    clientCache.set(network, made);
  }
  return made;
}

function clientFor(networkId: NetworkId): Client {
  return client(networkId === 1 ? 'mainnet' : 'testnet');
}

export function derivePublicKey(privateKeyBase58: string): string {
  return client('mainnet').derivePublicKey(privateKeyBase58);
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

/**
 * INS 06: mina-signer's `signFieldElement`, given the value as the app reads it (32 bytes little-endian, not
 * reduced mod p: the app signs the raw value, which changes the nonce, so a value ≥ p gets its own signature).
 */
export async function signFieldElement(field: bigint, secret: bigint, networkId: NetworkId): Promise<MinaSignature> {
  const { r, s } = (await internals()).signFieldElement(field, secret, networkId === 1 ? 'mainnet' : 'devnet');
  return { field: r.toString(), scalar: s.toString() };
}

/** A public key as the app decodes it from base58check: x and the parity byte, both unchecked. */
export interface DecodedPublicKey {
  x: bigint;
  isOdd: boolean;
}

/** An INS 03 body as the app decodes it, field by field. */
export interface DecodedUserCommand {
  txType: 'payment' | 'delegation';
  source: DecodedPublicKey;
  receiver: DecodedPublicKey;
  /** Signed for delegations too: the app does not zero it. */
  amount: bigint;
  fee: bigint;
  nonce: number;
  validUntil: number;
  /** The memo bytes up to the first NUL (at most 32), signed as they are, UTF-8 or not. */
  memo: Uint8Array;
}

/**
 * INS 03: mina-signer's legacy signature (`signLegacy`) over the legacy hash input of the user command, assembled
 * from mina-signer's own pieces in the order of its `toInputLegacy` (sign-legacy.js: common, then body). For the
 * inputs the public `Client` accepts this equals `signPayment` / `signStakeDelegation` (tested), and it also signs
 * what the `Client` cannot express: a delegation's amount, an odd parity byte, memo bytes that are not UTF-8.
 */
export async function signUserCommand(command: DecodedUserCommand, secret: bigint, networkId: NetworkId): Promise<MinaSignature> {
  const signer = await internals();
  const { HashInputLegacy, UInt64, UInt32 } = signer;
  const bits = HashInputLegacy.bits;
  const publicKey = ({ x, isOdd }: DecodedPublicKey): LegacyHashInput => ({ fields: [x], bits: [isOdd] });
  // The legacy token id 1 as 64 bits, and the tag (Payment 0, StakeDelegation 1) as 3 bits, as mina-signer has them.
  const legacyTokenId = [true, ...Array<boolean>(63).fill(false)];
  const tag = command.txType === 'payment' ? 0 : 1;
  // The 34-byte memo as mina-signer's Memo.toBits has it (0x01, length, bytes, zero padding), from the raw bytes:
  // Memo.toBits takes a string and UTF-8-encodes it, which cannot express bytes that are not UTF-8.
  const memo = [0x01, command.memo.length, ...command.memo, ...Array<number>(32 - command.memo.length).fill(0)];
  const input = [
    bits(UInt64.toBits(command.fee)),
    bits(legacyTokenId),
    publicKey(command.source),
    bits(UInt32.toBits(BigInt(command.nonce))),
    bits(UInt32.toBits(BigInt(command.validUntil))),
    bits(signer.bytesToBits(memo)),
    bits([tag & 4, tag & 2, tag & 1].map(Boolean)),
    publicKey(command.source),
    publicKey(command.receiver),
    bits(legacyTokenId),
    bits(UInt64.toBits(command.amount)),
    bits([false]), // token_locked
  ].reduce(HashInputLegacy.append);
  const { r, s } = signer.signLegacy(input, secret, networkId === 1 ? 'mainnet' : 'testnet');
  return { field: r.toString(), scalar: s.toString() };
}

function internals(): Promise<MinaSignerInternals> {
  // The signing schemes are the same in both eras; the era only changes zkApp transaction layouts.
  return minaSignerInternals('mesa').catch((cause: unknown) => {
    throw new Error('SoftwareLedger: signing needs mina-signer internals (Node, or a bundle built with chain-ledger/vite)', { cause });
  });
}

/** Extension SIGN_FIELDS: testnet domain = mina-signer's public `signFields`; mainnet = its internal `sign`. */
export async function signFields(
  fields: bigint[],
  secret: bigint,
  privateKeyBase58: string,
  domain: 'testnet' | 'mainnet',
): Promise<MinaSignature> {
  if (domain === 'testnet') return signatureFromBase58(client('devnet').signFields(fields, privateKeyBase58).signature);
  const { r, s } = (await minaSignerInternals('mesa')).sign({ fields }, secret, 'mainnet');
  return { field: r.toString(), scalar: s.toString() };
}

/** Extension CREATE_NULLIFIER: mina-signer's PLUME nullifier (network-independent), of which the device returns x, y, c, s. */
export function createNullifier(fields: bigint[], privateKeyBase58: string): { x: bigint; y: bigint; c: bigint; s: bigint } {
  const n = client('mainnet').createNullifier(fields, privateKeyBase58);
  return { x: BigInt(n.public.nullifier.x), y: BigInt(n.public.nullifier.y), c: BigInt(n.private.c), s: BigInt(n.public.s) };
}
