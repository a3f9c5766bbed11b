/**
 * The wallet methods the connector forwards, and the direct method of each: the provider's own list (METHODS in
 * src/provider/provider.ts), repeated here because importing the provider would bring zod, mina-signer and the
 * rest into the dapp's bundle. test/connect/connector.test.ts keeps the two lists equal.
 */
import type { WalletMethod } from '../provider/rpc.js';

export const WALLET_METHODS = {
  chain_requestAccounts: 'requestAccounts',
  chain_accounts: 'getAccounts',
  chain_requestNetwork: 'requestNetwork',
  chain_sendPayment: 'sendPayment',
  chain_sendStakeDelegation: 'sendStakeDelegation',
  chain_signFields: 'signFields',
  chain_verifyFields: 'verifyFields',
  chain_verifyMessage: 'verifyMessage',
  chain_sign_JsonMessage: 'signJsonMessage',
  chain_verify_JsonMessage: 'verifyJsonMessage',
  chain_sendTransaction: 'sendTransaction',
  chain_requestPresentation: 'requestPresentation',
  chain_createNullifier: 'createNullifier',
  chain_storePrivateCredential: 'storePrivateCredential',
  chain_signMessage: 'signMessage',
  chain_switchChain: 'switchChain',
} as const satisfies Record<WalletMethod, string>;

/** A direct method of the provider that a wallet method runs (`sendTransaction` for `chain_sendTransaction`). */
export type DirectMethod = (typeof WALLET_METHODS)[WalletMethod];
