/**
 * The typed dapp API: for each wallet-side method, what `request({ method, params })` takes and returns, derived from
 * its row of the method table (./methods.ts). Params are the input of the zod schema that validates them at run time
 * (`z.input`), so the types and the checks cannot drift; results are what the row's body returns. Models: viem's
 * `EIP1193RequestFn<Schema>`, mina-js's method union.
 *
 * @example
 * ```ts
 * const { networkID } = await chain.request({ method: 'chain_requestNetwork' });
 * const [address] = await chain.request({ method: 'mina_requestAccounts' }); // Auro's name: the same method, typed alike
 * const { signedData } = await chain.request({ method: 'chain_sendTransaction', params: { transaction: tx.toJSON(), onlySign: true } });
 * ```
 */
import type { z } from 'zod';
import type { SendTransactionResult } from '../zkapp/send-transaction.js';
import type { METHOD_ALIASES, WalletMethod, WalletMethodTable } from './methods.js';

// The params of the methods by name, for the signatures of ./wallet-methods.ts and for dapps (a method added later
// needs no name of its own: `RpcParams<'chain_…'>` is its params).

/** `sendTransaction({ transaction, onlySign?, nonce?, feePayer?: { fee?, memo? } })` (Auro's shape). */
export type SendTransactionArgs = RpcParams<'chain_sendTransaction'>;
/** `createNullifier({ message })`: 0–64 field elements (text as `BigInt()` reads it, or integral numbers). */
export type CreateNullifierArgs = RpcParams<'chain_createNullifier'>;
/** `requestPresentation({ presentation: { presentationRequest, zkAppAccount? } })`. */
export type RequestPresentationArgs = RpcParams<'chain_requestPresentation'>;
/** `storePrivateCredential({ credential })`: the credential as an object or its JSON text. */
export type StorePrivateCredentialArgs = RpcParams<'chain_storePrivateCredential'>;
/** `signMessage({ message })`: 1–1024 bytes of UTF-8 with the extension's SIGN_TEXT (16384 on 1.4); 1–65 printable ASCII bytes on the released app. */
export type SignMessageArgs = RpcParams<'chain_signMessage'>;
/** `switchChain({ networkID })`: `'mina:mainnet'`, `'mina:devnet'`, `'mina:local'`, `'zeko:testnet'`, or one `addChain` added. */
export type SwitchChainArgs = RpcParams<'chain_switchChain'>;
/** `addChain({ url, name })`: a GraphQL endpoint (plain or percent-encoded, as Auro decodes it) and its name. */
export type AddChainArgs = RpcParams<'chain_addChain'>;
/** `revokePermissions(args?)`: ignored (every permission of the page is revoked); wagmina sends `{ mina_accounts: {} }`. */
export type RevokePermissionsArgs = RpcParams<'wallet_revokePermissions'>;
/** `signTransaction({ transaction: { from, to, fee, nonce?, memo?, validUntil?, amount? } })` or `({ command: { zkappCommand, feePayer? } })`, nanomina (mina-js). */
export type SignTransactionArgs = RpcParams<'chain_signTransaction'>;
/** `sendSignedTransaction({ signedTransaction, transactionType })`: mina-js's `mina_sendTransaction` of a signed one. */
export type SendSignedTransactionArgs = RpcParams<'chain_sendSignedTransaction'>;
/** `sendPayment({ to, amount, fee?, memo?, nonce? })`: amounts in MINA; empty fee, memo or nonce mean "not given". */
export type SendPaymentArgs = RpcParams<'chain_sendPayment'>;
/** `sendStakeDelegation({ to, fee?, memo?, nonce? })`: `to` is the block producer. */
export type SendStakeDelegationArgs = RpcParams<'chain_sendStakeDelegation'>;
/** `signFields({ message })`: one field (INS 06, blind) or several (extension SIGN_FIELDS, up to 64; more → 20006). */
export type SignFieldsArgs = RpcParams<'chain_signFields'>;
/** `verifyFields({ publicKey, data, signature })`. */
export type VerifyFieldsArgs = RpcParams<'chain_verifyFields'>;
/** `verifyMessage({ publicKey, data, signature: { field, scalar } })`, also for `verifyJsonMessage`. */
export type VerifyMessageArgs = RpcParams<'chain_verifyMessage'>;
/** `signJsonMessage({ message: [{ label, value }, …] })`. */
export type SignJsonMessageArgs = RpcParams<'chain_sign_JsonMessage'>;

/** Options of a call: an `AbortSignal` that rejects it (1002) while it waits for or runs on the device. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** Context of a `request(...)` call: the caller's origin as seen by a bridge or a Node host. */
export interface RequestContext extends CallOptions {
  origin?: string;
}

type ParamsOf<S> = S extends { params: infer P extends z.ZodType } ? z.input<P> : undefined;
type ResultOf<S> = S extends { run: (...args: never[]) => Promise<infer R> } ? R : never;
type PositionalOf<S> = S extends { positional?: { key: infer K } }
  ? [K] extends [never]
    ? never
    : K extends keyof ParamsOf<S>
      ? readonly [ParamsOf<S>[K]]
      : never
  : never;

/**
 * Each wallet-side method (the keys of `METHODS`): its params (`undefined` for none), its result, and where it has
 * one, the positional form whose one element is not the params object itself (`[credential]`,
 * `[{ presentationRequest }]`, `[[fields]]`, as mina-js and the mina-attestations demo send them; `never` for the
 * others). Derived from the method table (src/provider/methods.ts); the methods, their params and results are listed
 * in docs/provider.md.
 *
 * @example
 * ```ts
 * type SignMessage = ChainRpcSchema['chain_signMessage']; // { params: SignMessageArgs; result: SignedMessage; positional: never }
 * ```
 */
export type ChainRpcSchema = {
  [M in keyof WalletMethodTable]: {
    params: ParamsOf<WalletMethodTable[M]>;
    result: ResultOf<WalletMethodTable[M]>;
    positional: PositionalOf<WalletMethodTable[M]>;
  };
};

/**
 * The methods the table asks of a provider, typed from it: `(args, context?)`, or `(context?)` for a method without
 * params. `WalletMethods` (./wallet-methods.ts), which declares the provider's methods, is checked against it, so the
 * table and the documented methods cannot part.
 */
export type TableMethods = {
  [M in keyof WalletMethodTable as WalletMethodTable[M]['method']]: ParamsOf<WalletMethodTable[M]> extends undefined
    ? (context?: RequestContext) => Promise<ResultOf<WalletMethodTable[M]>>
    : (args: ParamsOf<WalletMethodTable[M]>, context?: RequestContext) => Promise<ResultOf<WalletMethodTable[M]>>;
};

/**
 * Auro's (and mina-js's) name of a wallet method (`mina_requestAccounts` for `chain_requestAccounts`), served the same
 * way; `wallet_` names have no other spelling.
 */
export type AuroMethod<M extends WalletMethod = WalletMethod> = M extends `chain_${infer Rest}` ? `mina_${Rest}` : never;
type MethodAliases = typeof METHOD_ALIASES;
/** Other wallets' spellings (`mina_getAccounts`, `mina_sign`, …: `METHOD_ALIASES`), in both namespaces. */
export type AliasMethod =
  | keyof MethodAliases
  | (keyof MethodAliases extends infer K ? (K extends `chain_${infer Rest}` ? `mina_${Rest}` : never) : never);
/** Every name `request` serves: the `chain_` and `wallet_` names, the `mina_` names of the `chain_` methods, the aliases. */
export type RequestMethod = WalletMethod | AuroMethod | AliasMethod;
type Spelled<M> = M extends `mina_${infer Rest}` ? `chain_${Rest}` : M;
type Resolved<N> = N extends keyof MethodAliases ? MethodAliases[N] : N;
/** The `chain_` method a name stands for (itself, the `chain_` equivalent of a `mina_` name, or what an alias names). */
export type ChainMethod<M extends RequestMethod> = Extract<Resolved<Spelled<M>>, WalletMethod>;
export type RpcParams<M extends RequestMethod> = ChainRpcSchema[ChainMethod<M>]['params'];
export type RpcResult<M extends RequestMethod> = ChainRpcSchema[ChainMethod<M>]['result'];
type Positional<M extends RequestMethod> = ChainRpcSchema[ChainMethod<M>]['positional'];

/**
 * The argument of `request` for method `M` (a `chain_` name or Auro's `mina_` name): params as the object, as a
 * one-element array holding it, or the method's positional form; methods without params take none.
 */
export type RequestArguments<M extends RequestMethod = RequestMethod> = {
  [K in M]: RpcParams<K> extends undefined
    ? { method: K; params?: undefined | readonly [] }
    : { method: K; params: RpcParams<K> | readonly [RpcParams<K>] | Positional<K> | SignedSend<K> };
}[M];

/** `mina_sendTransaction` also takes a signed transaction to broadcast (mina-js), as `chain_sendSignedTransaction`. */
type SignedSend<K extends RequestMethod> =
  ChainMethod<K> extends 'chain_sendTransaction' ? SendSignedTransactionArgs | readonly [SendSignedTransactionArgs] : never;

/** `sendTransaction`'s `onlySign` as the caller's type says it: `true`, `false`, `boolean`, or `undefined` when left out. */
type OnlySign<A> = A extends { onlySign: infer O } ? O : 'onlySign' extends keyof A ? A[keyof A & 'onlySign'] : undefined;

/**
 * What `sendTransaction(args)` resolves, narrowed by `args.onlySign`: `{ signedData }` (the signed command, not
 * broadcast) when it is `true`, `{ hash, paymentId? }` when it is `false` or left out, either when the caller's type
 * says only `boolean`.
 *
 * @example
 * ```ts
 * const { hash } = await chain.sendTransaction({ transaction: tx.toJSON() });
 * const { signedData } = await chain.sendTransaction({ transaction: tx.toJSON(), onlySign: true });
 * ```
 */
export type SendTransactionResultFor<A> = [OnlySign<A>] extends [true]
  ? Extract<SendTransactionResult, { signedData: string }>
  : [OnlySign<A>] extends [false | undefined]
    ? Extract<SendTransactionResult, { hash: string }>
    : SendTransactionResult;

/** The params object of a `request` call: `params` itself, or the one element of `[params]`. */
type ParamsObject<A> = A extends { params: infer P } ? (P extends readonly [infer Only] ? Only : P) : undefined;

/**
 * What `request(args)` resolves: the method's result (`RpcResult`), and for `chain_sendTransaction` /
 * `mina_sendTransaction` the one `onlySign` chooses (`SendTransactionResultFor`).
 */
export type RequestResult<A> = A extends { method: infer M extends RequestMethod }
  ? ChainMethod<M> extends 'chain_sendTransaction'
    ? ParamsObject<A> extends { signedTransaction: unknown }
      ? { hash: string }
      : SendTransactionResultFor<ParamsObject<A>>
    : RpcResult<M>
  : never;
