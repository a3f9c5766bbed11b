/**
 * mina-signer's `Client`s, one per signing domain, made on first use: importing a module that verifies signatures
 * does not load mina-signer (bench/import-cost.ts, test/package.test.ts). The one loader of the library's
 * host-side verifiers (messages, fields, payments and delegations, the credential store key).
 */
import type Client from 'mina-signer';

export type MinaSigners = Record<'mainnet' | 'testnet', Client>;

let signersLoading: Promise<MinaSigners> | undefined;

/** mina-signer clients for the mainnet and testnet domains, loaded once; a failed load is retried on the next call. */
export function minaSigners(): Promise<MinaSigners> {
  signersLoading ??= import('mina-signer').then(({ default: Signer }) => ({
    mainnet: new Signer({ network: 'mainnet' }),
    testnet: new Signer({ network: 'testnet' }),
  }));
  signersLoading.catch(() => (signersLoading = undefined));
  return signersLoading;
}

/**
 * A synchronous check of INS 05 signatures by `address` on network `networkId` (mina-signer, loaded first): what the
 * provider uses to verify every message signature the device returns.
 */
export async function accountMessageVerifier(
  address: string,
  networkId: 0 | 1,
): Promise<(signed: { field: string; scalar: string; signedMessage: string }) => boolean> {
  const signers = await minaSigners();
  const verifier = networkId === 1 ? signers.mainnet : signers.testnet;
  return (signed) =>
    verifier.verifyMessage({ data: signed.signedMessage, publicKey: address, signature: { field: signed.field, scalar: signed.scalar } });
}
