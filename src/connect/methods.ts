/**
 * The wallet methods the connector forwards, and the direct method of each: the provider's method table
 * (src/provider/methods.ts, `METHODS`), repeated here because importing the table would bring its zod schemas into
 * the dapp's bundle. test/connect/connector.test.ts keeps the two equal, and checks that each direct method of the
 * connector sends its wallet name.
 */
import type { ProviderMethod, WalletMethod } from '../provider/methods.js';

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
  chain_networkId: 'getNetworkId',
  chain_addChain: 'addChain',
  wallet_info: 'getWalletInfo',
  wallet_revokePermissions: 'revokePermissions',
} as const satisfies { [M in WalletMethod]: ProviderMethod<M> };

/** The wallet name of each direct method (`chain_sendTransaction` for `sendTransaction`), what the connector sends. */
export const WALLET_NAME = Object.fromEntries(Object.entries(WALLET_METHODS).map(([wallet, direct]) => [direct, wallet])) as {
  readonly [M in WalletMethod as (typeof WALLET_METHODS)[M]]: M;
};
