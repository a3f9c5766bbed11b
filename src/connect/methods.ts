/**
 * The wallet methods the connector forwards: each wallet name, the direct method that sends it, and whether that
 * method takes params (`(args, context?)`) or not (`(context?)`). Generated from the provider's method table
 * (src/provider/methods.ts) by `npm run methods:generate`: importing the table would bring its zod schemas into the
 * dapp's bundle. Do not edit; test/connect/methods.test.ts checks that it is what the table makes.
 */
import type { ProviderMethod, WalletMethod } from '../provider/methods.js';
import type { RpcParams } from '../provider/rpc.js';

export const WALLET_METHODS = {
  chain_requestAccounts: { method: 'requestAccounts', params: false },
  chain_accounts: { method: 'getAccounts', params: false },
  chain_requestNetwork: { method: 'requestNetwork', params: false },
  chain_networkId: { method: 'getNetworkId', params: false },
  chain_switchChain: { method: 'switchChain', params: true },
  chain_addChain: { method: 'addChain', params: true },
  wallet_info: { method: 'getWalletInfo', params: false },
  wallet_revokePermissions: { method: 'revokePermissions', params: true },
  chain_signMessage: { method: 'signMessage', params: true },
  chain_sign_JsonMessage: { method: 'signJsonMessage', params: true },
  chain_verifyMessage: { method: 'verifyMessage', params: true },
  chain_verify_JsonMessage: { method: 'verifyJsonMessage', params: true },
  chain_signFields: { method: 'signFields', params: true },
  chain_verifyFields: { method: 'verifyFields', params: true },
  chain_sendPayment: { method: 'sendPayment', params: true },
  chain_sendStakeDelegation: { method: 'sendStakeDelegation', params: true },
  chain_sendTransaction: { method: 'sendTransaction', params: true },
  chain_signTransaction: { method: 'signTransaction', params: true },
  chain_sendSignedTransaction: { method: 'sendSignedTransaction', params: true },
  chain_getBalance: { method: 'getBalance', params: false },
  chain_createNullifier: { method: 'createNullifier', params: true },
  chain_requestPresentation: { method: 'requestPresentation', params: true },
  chain_storePrivateCredential: { method: 'storePrivateCredential', params: true },
} as const satisfies { [M in WalletMethod]: { method: ProviderMethod<M>; params: [RpcParams<M>] extends [undefined] ? false : true } };
