/**
 * The one table of wallet methods. Each wallet name gives the `LedgerProvider` method that serves it. A name is
 * `chain_X`, which Auro and mina-js call `mina_X` (the same method under both names), or `wallet_X`, the
 * wallet-level namespace (EIP-2255's `wallet_revokePermissions`, Auro's `wallet_info`) that every wallet spells the
 * same way. Each row gives its params schema, how its positional params read, whether
 * `wrapProvider({ whenUnsupported: 'delegate' })` may hand it to the original wallet, and what it resolves (a type
 * only). Everything else derives from here: `METHODS`, the typed dapp API (`ChainRpcSchema` in ./rpc.ts), the methods
 * `LedgerProvider` must implement (`TableMethods`, which the documented `WalletMethods` of ./wallet-methods.ts must
 * equal), `request()`'s dispatch and the wrapper's delegation, so a method added here is a method everywhere (and a
 * compile error until the interface documents it and the provider has it).
 *
 * Models: viem's `walletActions` (one line per action), mina-js's `validation.ts` (every method's params in one file).
 */
import type { z } from 'zod';
import type { Capabilities } from '../device/capabilities.js';
import { fieldsRefusal, type SignedFields } from '../messages/sign-fields.js';
import { jsonMessageText, messageRefusal, type SignedMessage } from '../messages/sign-message.js';
import type { NullifierResult } from '../nullifier/create-nullifier.js';
import type { SendTransactionResult } from '../zkapp/send-transaction.js';
import { ErrorCode, ProviderError, invalidParams, needsExtension } from '../errors/provider-error.js';
import {
  addChainParams,
  createNullifierParams,
  deleteCredentialParams,
  emptyParams,
  requestPresentationParams,
  revokePermissionsParams,
  sendPaymentParams,
  sendStakeDelegationParams,
  sendTransactionParams,
  signFieldsParams,
  signJsonMessageParams,
  signMessageParams,
  storePrivateCredentialParams,
  switchChainParams,
  verifyFieldsParams,
  verifyMessageParams,
} from './schemas.js';

/**
 * How a one-element `params` array reads (Auro reads `params[0]`; mina-js and the mina-attestations demo send the
 * bare value): the element is the params object when `isObjectForm(element)`, else it is the value of `key`.
 */
export interface PositionalRule<K extends string = string> {
  key: K;
  isObjectForm(element: unknown): boolean;
}

/** One row of the table. */
export interface MethodSpec {
  /** The `LedgerProvider` method that serves it. */
  method: string;
  /** Its params' schema (zod); absent for a method without params. */
  params?: z.ZodType;
  /** Its positional form, where `[value]` is not simply the params object. */
  positional?: PositionalRule;
  /**
   * What the connected app must be able to do with these params: the error to refuse with before the device is
   * asked (or waited for), else undefined. Gets the params as the schema parsed them.
   */
  // biome-ignore lint/suspicious/noExplicitAny: each row's params are its own schema's output; the pipeline passes them as parsed.
  requires?: (capabilities: Capabilities, params: any) => ProviderError | undefined;
  /**
   * Whether it uses the credential store: its session then has the store, the store secret and a message verifier,
   * and the call is refused (20006) on an app before 1.4.5 or a transport that would log the store key.
   */
  store?: boolean;
  /**
   * Whether it holds the device only for its device steps (`session.withDevice`), not for its host work: set where
   * that work takes long (a presentation's compile and proof), so that one origin's compile never holds another's
   * prompt. Else the device is held for the whole call.
   */
  ownDeviceSteps?: boolean;
  /** Whether a wrapped provider may hand it to the original wallet when the Ledger cannot do it (20006). */
  delegate: boolean;
  /** What it resolves: a type only (undefined at run time, see `resolves`). */
  result: unknown;
}

/** A result type for the table: the value is undefined, the type is what the method resolves. */
const resolves = <T>(): T | undefined => undefined;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** INS 06 (Mina app 1.6.0) signs zkApp commitments. */
const zkappSigning = ({ signFieldElement, appVersion }: Capabilities) =>
  signFieldElement
    ? undefined
    : new ProviderError(ErrorCode.MethodNotSupported, {
        reason: `Mina app ${appVersion.version} cannot sign zkApp commands: update it to 1.6.0 or newer`,
      });

/** An instruction of the chain-ledger protocol extension (docs/apdu-extensions.md). */
const extension =
  (has: 'createNullifier' | 'signFields', what: string, instruction: string) =>
  ({ extension, appVersion }: Capabilities) =>
    extension?.[has] ? undefined : needsExtension(appVersion.version, what, instruction);

/** `[fields]` → `{ message: fields }` (a one-element array holding `{ message }` is that object). */
const fieldsFirst: PositionalRule<'message'> = { key: 'message', isObjectForm: (element) => !Array.isArray(element) };

/** What the device can sign of a message: refused before the device is asked (src/messages/sign-message.ts). */
const signableMessage = (capabilities: Capabilities, { message }: { message: string }) => messageRefusal(capabilities, message);
/** The same for the JSON text of a `signJsonMessage`. */
const signableJson = (capabilities: Capabilities, { message }: { message: Parameters<typeof jsonMessageText>[0] }) =>
  messageRefusal(capabilities, jsonMessageText(message), 'this JSON text');

/** The wallet methods: wallet name → what serves it. */
export const WALLET_METHODS = {
  chain_requestAccounts: { method: 'requestAccounts', delegate: false, result: resolves<string[]>() },
  chain_accounts: { method: 'getAccounts', delegate: false, result: resolves<string[]>() },
  chain_requestNetwork: { method: 'requestNetwork', delegate: false, result: resolves<{ networkID: string }>() },
  /** mina-js (Pallad): the network id as text, `'mina:devnet'`; wagmina asks every wallet but Auro for it. */
  chain_networkId: { method: 'getNetworkId', delegate: false, result: resolves<string>() },
  chain_switchChain: { method: 'switchChain', params: switchChainParams, delegate: false, result: resolves<{ networkID: string }>() },
  chain_addChain: { method: 'addChain', params: addChainParams, delegate: false, result: resolves<{ networkID: string }>() },
  wallet_info: { method: 'getWalletInfo', delegate: false, result: resolves<{ version: string; init: boolean }>() },
  wallet_revokePermissions: { method: 'revokePermissions', params: revokePermissionsParams, delegate: false, result: resolves<[]>() },
  chain_signMessage: {
    method: 'signMessage',
    params: signMessageParams,
    requires: signableMessage,
    delegate: true,
    result: resolves<SignedMessage>(),
  },
  chain_sign_JsonMessage: {
    method: 'signJsonMessage',
    params: signJsonMessageParams,
    requires: signableJson,
    delegate: true,
    result: resolves<SignedMessage>(),
  },
  chain_verifyMessage: { method: 'verifyMessage', params: verifyMessageParams, delegate: false, result: resolves<boolean>() },
  chain_verify_JsonMessage: { method: 'verifyJsonMessage', params: verifyMessageParams, delegate: false, result: resolves<boolean>() },
  chain_signFields: {
    method: 'signFields',
    params: signFieldsParams,
    positional: fieldsFirst,
    requires: (capabilities: Capabilities, { message }: { message: { fields: bigint[] } }) => fieldsRefusal(capabilities, message.fields),
    delegate: true,
    result: resolves<SignedFields>(),
  },
  chain_verifyFields: { method: 'verifyFields', params: verifyFieldsParams, delegate: false, result: resolves<boolean>() },
  chain_sendPayment: { method: 'sendPayment', params: sendPaymentParams, delegate: true, result: resolves<{ hash: string }>() },
  chain_sendStakeDelegation: {
    method: 'sendStakeDelegation',
    params: sendStakeDelegationParams,
    delegate: true,
    result: resolves<{ hash: string }>(),
  },
  chain_sendTransaction: {
    method: 'sendTransaction',
    params: sendTransactionParams,
    requires: zkappSigning,
    delegate: true,
    result: resolves<SendTransactionResult>(),
  },
  chain_createNullifier: {
    method: 'createNullifier',
    params: createNullifierParams,
    positional: fieldsFirst,
    requires: extension('createNullifier', 'nullifier', 'CREATE_NULLIFIER'),
    delegate: true,
    result: resolves<NullifierResult>(),
  },
  chain_requestPresentation: {
    method: 'requestPresentation',
    params: requestPresentationParams,
    requires: extension('signFields', 'multi-field signing (the presentation owner signature)', 'SIGN_FIELDS'),
    store: true,
    ownDeviceSteps: true,
    // `[{ presentationRequest }]` as the mina-attestations demo sends it.
    positional: { key: 'presentation', isObjectForm: (element: unknown) => isObject(element) && Object.hasOwn(element, 'presentation') },
    delegate: true,
    result: resolves<{ presentation: string }>(),
  },
  chain_storePrivateCredential: {
    method: 'storePrivateCredential',
    params: storePrivateCredentialParams,
    // `[credential]`; a stored credential has a `credential` key of its own, so only `{ credential }` alone is the object.
    positional: {
      key: 'credential',
      isObjectForm: (element: unknown) => isObject(element) && Object.keys(element).length === 1 && Object.hasOwn(element, 'credential'),
    },
    store: true,
    ownDeviceSteps: true,
    delegate: true,
    result: resolves<{ credential: string }>(),
  },
} as const satisfies Record<`chain_${string}` | `wallet_${string}`, MethodSpec>;

/** The table's type, for the types derived from it (./rpc.ts). */
export type WalletMethodTable = typeof WALLET_METHODS;
/** Wallet-side method names accepted by `request`. */
export type WalletMethod = keyof WalletMethodTable;
/** The `LedgerProvider` method serving wallet method `M`. */
export type ProviderMethod<M extends WalletMethod = WalletMethod> = WalletMethodTable[M]['method'];

/** Wallet-side method names accepted by `request`, and the provider method each one runs. */
export const METHODS = Object.freeze(
  Object.fromEntries(Object.entries(WALLET_METHODS).map(([name, spec]) => [name, spec.method])) as {
    [M in WalletMethod]: ProviderMethod<M>;
  },
);

/**
 * Methods only the host reaches, through `credentialManager(provider)` (./credential-manager.ts): never a page
 * method, never served by `request()`.
 */
export const HOST_METHODS = {
  listCredentials: { params: emptyParams, store: true },
  deleteCredential: { params: deleteCredentialParams, store: true },
  rekeyCredentials: { params: emptyParams, store: true },
} as const;

type Rows = { [M in WalletMethod as ProviderMethod<M>]: WalletMethodTable[M] } & typeof HOST_METHODS;
/** Every provider method with a row: the wallet methods and the host methods. */
export type MethodName = keyof Rows;
/** Whether method `P` uses the credential store (see `MethodSpec.store`). */
export type UsesStore<P extends MethodName> = Rows[P] extends { store: true } ? true : false;
/** What method `P`'s schema makes of its arguments. */
export type ParsedParams<P extends MethodName> = Rows[P] extends { params: infer S extends z.ZodType } ? z.output<S> : undefined;

/** A provider method's row, as the pipeline reads it: the wallet name (for a wallet method) beside the spec. */
export type Row = Omit<MethodSpec, 'method' | 'result' | 'delegate'> & { delegate?: boolean; walletMethod?: WalletMethod };

/** Each provider method's row (`signMessage` → its schema, requirement, delegation, wallet name). */
export const ROWS: Readonly<Record<MethodName, Row>> = { ...walletRows(), ...HOST_METHODS };

function walletRows(): Record<ProviderMethod, Row> {
  const rows: Partial<Record<ProviderMethod, Row>> = {};
  for (const [name, spec] of Object.entries(WALLET_METHODS)) rows[spec.method] = { ...spec, walletMethod: name as WalletMethod };
  return rows as Record<ProviderMethod, Row>;
}

/**
 * The row `request({ method })` names: a `chain_` or `wallet_` name, or Auro's (and mina-js's) `mina_` name of a
 * `chain_` method.
 * @throws `ProviderError` 20003 when `args` is no `{ method }`, 20006 for a name that is no wallet method.
 */
export function specOfRequest(args: unknown): WalletMethodTable[WalletMethod] & { walletMethod: WalletMethod } {
  const method = (args as { method?: unknown } | null)?.method;
  if (typeof args !== 'object' || args === null || typeof method !== 'string')
    throw invalidParams('method', 'request needs { method, params }');
  const name = method.startsWith('mina_') ? `chain_${method.slice('mina_'.length)}` : method;
  if (!Object.hasOwn(WALLET_METHODS, name)) {
    throw new ProviderError(ErrorCode.MethodNotSupported, { reason: `unknown method ${JSON.stringify(method.slice(0, 64))}` });
  }
  return { ...WALLET_METHODS[name as WalletMethod], walletMethod: name as WalletMethod };
}

/**
 * `request()` params in the object form the method's schema reads: an object as given (Auro's form); a one-element
 * array as its element, or, for a method with a positional rule, `{ [key]: element }` when the element is not the
 * object form (`[credential]`, `[{ presentationRequest }]`, `[[fields]]`).
 * @throws `ProviderError` 20003 for an array of another length.
 */
export function paramsOf(spec: MethodSpec, params: unknown): unknown {
  if (!Array.isArray(params)) return params;
  if (params.length !== 1) throw invalidParams('params', 'must be an object, or an array holding exactly one object');
  const [element] = params;
  return !spec.positional || spec.positional.isObjectForm(element) ? element : { [spec.positional.key]: element };
}
