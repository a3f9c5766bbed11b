/**
 * The one table of wallet methods. Each wallet name gives the `LedgerProvider` method that serves it. A name is
 * `chain_X`, which Auro and mina-js call `mina_X` (the same method under both names), or `wallet_X`, the
 * wallet-level namespace (EIP-2255's `wallet_revokePermissions`, Auro's `wallet_info`) that every wallet spells the
 * same way. Each row is the whole method: whether it needs a connection (`onHost`: answered before or without one;
 * `onDevice`: the connected account, on the device), its params schema, how its positional params read, what the app
 * must be able to do, how long it holds the device, whether `wrapProvider({ whenUnsupported: 'delegate' })` may hand
 * it to the original wallet, and its body (`run`), whose return type is the method's result.
 *
 * Everything else derives from here: `METHODS`, the typed dapp API (`ChainRpcSchema` in ./rpc.ts), the provider's
 * direct methods (./provider.ts makes one per row; the documented `WalletMethods` of ./wallet-methods.ts must equal
 * the table), `request()`'s dispatch, the wrapper's delegation, the wallet host's list of methods that need no
 * connection (src/wallet/host.ts), and the connector's methods (src/connect/methods.ts, generated from this table:
 * `npm run methods:generate`). A method is a schema (./schemas.ts), a row here, its documented signature, and a test.
 *
 * Models: viem's `walletActions` (one line per action), mina-js's `validation.ts` (every method's params in one file).
 */
import type { z } from 'zod';
import type { Capabilities } from '../device/capabilities.js';
import { deleteCredential, rekeyCredentials, storePrivateCredential } from '../credentials/store-credential.js';
import { fieldsRefusal, signFieldsOnLedger, verifyFields } from '../messages/sign-fields.js';
import { jsonMessageText, messageRefusal, signMessageOnLedger, verifyMessage } from '../messages/sign-message.js';
import { createNullifier } from '../nullifier/create-nullifier.js';
import { sendLegacyCommand } from '../payments/send-payment.js';
import { balanceOnNode, sendSignedTransaction, signTransactionOnLedger } from './sign-only.js';
import { requestPresentation } from '../presentations/request-presentation.js';
import { sendTransaction } from '../zkapp/send-transaction.js';
import { ErrorCode, ProviderError, invalidParams, needsExtension } from '../errors/provider-error.js';
import { WALLET_VERSION } from './discovery.js';
import type { CallContext, StoreCallContext, HostContext } from './call-context.js';
import {
  addChainParams,
  createNullifierParams,
  deleteCredentialParams,
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
import { sendSignedTransactionParams, signTransactionParams } from './sign-only-schemas.js';

/**
 * How a one-element `params` array reads (Auro reads `params[0]`; mina-js and the mina-attestations demo send the
 * bare value): the element is the params object when `isObjectForm(element)`, else it is the value of `key`.
 */
export interface PositionalRule<K extends string = string> {
  key: K;
  isObjectForm(element: unknown): boolean;
  /** mina-js's tuples (`[sendable, 'payment']`): an array of exactly this many elements, read as these keys. */
  tuple?: readonly string[];
}

/** What a schema makes of a method's arguments (`undefined` for a method without params). */
type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/** The columns every row has. */
interface RowBase<M extends string, S extends z.ZodType | undefined, K extends string = string> {
  /** The `LedgerProvider` method that serves it. */
  method: M;
  /** Its params' schema (zod); absent for a method without params. */
  params?: S;
  /** Its positional form, where `[value]` is not simply the params object. */
  positional?: PositionalRule<K>;
  /** Whether a wrapped provider may hand it to the original wallet when the Ledger cannot do it (20006). */
  delegate: boolean;
}

/** A method answered on the host, before or without a connection: no device, but `requestAccounts`'s connect. */
interface HostRow<M extends string, S extends z.ZodType | undefined, R, K extends string> extends RowBase<M, S, K> {
  /** Needs the connected account (1001 before `requestAccounts`), though not the device: the node's view of it. */
  account?: true;
  /**
   * Counted as a pending call while it runs (bounded by `maxPendingCalls`, ended by `rejectPending()`): set where it
   * waits on the integrator's question (`confirmSwitchChain`, `confirmAddChain`).
   */
  pending?: true;
  /** The body: the provider's network and connection, and the call's signal (`HostContext`), with the parsed params. */
  run: (host: HostContext, params: Parsed<S>) => Promise<R>;
}

/** A method of the connected account (1001 before `requestAccounts`), on the device. */
interface DeviceRow<M extends string, S extends z.ZodType | undefined, R, Store extends boolean, K extends string>
  extends RowBase<M, S, K> {
  /**
   * What the connected app must be able to do with these params: the error to refuse with before the device is
   * asked (or waited for), else undefined. Gets the params as the schema parsed them.
   */
  requires?: (capabilities: Capabilities, params: Parsed<S>) => ProviderError | undefined;
  /**
   * Whether it uses the credential store: its call then has the store, the store secret and a message verifier,
   * and the call is refused (20006) on an app before 1.4.5 or a transport that would log the store key.
   */
  store?: Store;
  /**
   * `'steps'`: it holds the device only for its device steps (`call.withDevice`), not for its host work: set where
   * that work takes long (a presentation's compile and proof), so that one origin's compile never holds another's
   * prompt. Else the device is held for the whole call.
   */
  hold?: 'steps';
  /** The body: the call (the device held, the account, the network, the hooks: ./call-context.ts) and the parsed params. */
  run: (call: Store extends true ? StoreCallContext : CallContext, params: Parsed<S>) => Promise<R>;
}

/** A row as the table holds it: `params` present in its type (undefined for none), and its `connection`. */
type Built<Row, S, C extends 'none' | 'account'> = Omit<Row, 'params'> & { params: S; connection: C };

/** A row of a method answered on the host (`connection: 'none'`). */
const onHost = <const M extends string, R, S extends z.ZodType | undefined = undefined, const K extends string = never>(
  row: HostRow<M, S, R, K>,
) => ({ ...row, connection: 'none' }) as Built<HostRow<M, S, R, K>, S, 'none'>;

/** A row of a method of the connected account, on the device (`connection: 'account'`). */
const onDevice = <
  const M extends string,
  R,
  S extends z.ZodType | undefined = undefined,
  const Store extends boolean = false,
  const K extends string = never,
>(
  row: DeviceRow<M, S, R, Store, K>,
) => ({ ...row, connection: 'account' }) as Built<DeviceRow<M, S, R, Store, K>, S, 'account'>;

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

/** The network now, as Auro's network methods answer it. */
const networkNow = async ({ network }: HostContext) => ({ networkID: network.chainId });

/** The wallet methods: wallet name → its row. */
export const WALLET_METHODS = {
  chain_requestAccounts: onHost({ method: 'requestAccounts', delegate: false, run: (host) => host.connect() }),
  chain_accounts: onHost({
    method: 'getAccounts',
    delegate: false,
    run: async ({ connection }) => (connection.account ? [connection.account.address] : []),
  }),
  chain_requestNetwork: onHost({ method: 'requestNetwork', delegate: false, run: networkNow }),
  /** mina-js (Pallad): the network id as text, `'mina:devnet'`; wagmina asks every wallet but Auro for it. */
  chain_networkId: onHost({ method: 'getNetworkId', delegate: false, run: async ({ network }) => network.chainId }),
  chain_switchChain: onHost({
    method: 'switchChain',
    params: switchChainParams,
    // `['mina:devnet']`, as mina-js (and wagmina, for every wallet but Auro) sends it.
    positional: { key: 'networkID', isObjectForm: isObject },
    pending: true,
    delegate: false,
    run: async (host, { networkID }) => {
      await host.network.switchTo(networkID, host.signal);
      return networkNow(host);
    },
  }),
  chain_addChain: onHost({
    method: 'addChain',
    params: addChainParams,
    pending: true,
    delegate: false,
    run: async (host, { url, name }) => {
      await host.network.add(url, name, host.signal);
      return networkNow(host);
    },
  }),
  wallet_info: onHost({
    method: 'getWalletInfo',
    delegate: false,
    run: async (): Promise<{ version: string; init: boolean }> => ({ version: WALLET_VERSION, init: true }),
  }),
  wallet_revokePermissions: onHost({
    method: 'revokePermissions',
    params: revokePermissionsParams,
    delegate: false,
    run: async ({ connection }): Promise<[]> => {
      connection.drop('permissions revoked by the page');
      return [];
    },
  }),
  chain_signMessage: onDevice({
    method: 'signMessage',
    params: signMessageParams,
    // `[text]`, as mina-js's `mina_sign` sends it.
    positional: { key: 'message', isObjectForm: isObject },
    requires: (capabilities, { message }) => messageRefusal(capabilities, message),
    delegate: true,
    run: (call, { message }) => signMessageOnLedger(call, message),
  }),
  chain_sign_JsonMessage: onDevice({
    method: 'signJsonMessage',
    params: signJsonMessageParams,
    requires: (capabilities, { message }) => messageRefusal(capabilities, jsonMessageText(message), 'this JSON text'),
    delegate: true,
    run: (call, { message }) => signMessageOnLedger(call, jsonMessageText(message), 'this JSON text'),
  }),
  chain_verifyMessage: onHost({
    method: 'verifyMessage',
    params: verifyMessageParams,
    delegate: false,
    run: ({ network }, params) => verifyMessage(params, network.networkId === 1),
  }),
  chain_verify_JsonMessage: onHost({
    method: 'verifyJsonMessage',
    params: verifyMessageParams,
    delegate: false,
    run: ({ network }, params) => verifyMessage(params, network.networkId === 1),
  }),
  chain_signFields: onDevice({
    method: 'signFields',
    params: signFieldsParams,
    positional: fieldsFirst,
    requires: (capabilities, { message }) => fieldsRefusal(capabilities, message.fields),
    delegate: true,
    run: (call, { message }) => signFieldsOnLedger(call, message),
  }),
  chain_verifyFields: onHost({
    method: 'verifyFields',
    params: verifyFieldsParams,
    delegate: false,
    run: (_, params) => verifyFields(params),
  }),
  chain_sendPayment: onDevice({
    method: 'sendPayment',
    params: sendPaymentParams,
    delegate: true,
    run: (call, params) => sendLegacyCommand('payment', call, params),
  }),
  chain_sendStakeDelegation: onDevice({
    method: 'sendStakeDelegation',
    params: sendStakeDelegationParams,
    delegate: true,
    run: (call, params) => sendLegacyCommand('delegation', call, params),
  }),
  chain_sendTransaction: onDevice({
    method: 'sendTransaction',
    params: sendTransactionParams,
    requires: zkappSigning,
    delegate: true,
    run: (call, params) => sendTransaction(call, params),
  }),
  /** mina-js (Pallad): a payment, delegation (INS 03, as sendPayment) or zkApp command (as onlySign) signed, not sent. */
  chain_signTransaction: onDevice({
    method: 'signTransaction',
    params: signTransactionParams,
    requires: (capabilities, { command }) => (command ? zkappSigning(capabilities) : undefined),
    delegate: true,
    run: (call, params) => signTransactionOnLedger(call, params),
  }),
  /** mina-js's `mina_sendTransaction({ signedTransaction, transactionType })`: verified, then broadcast (no device). */
  chain_sendSignedTransaction: onHost({
    method: 'sendSignedTransaction',
    params: sendSignedTransactionParams,
    positional: {
      key: 'signedTransaction',
      isObjectForm: (element: unknown) => isObject(element) && Object.hasOwn(element, 'signedTransaction'),
      tuple: ['signedTransaction', 'transactionType'],
    },
    account: true,
    delegate: false,
    run: sendSignedTransaction,
  }),
  /** mina-js (Pallad): the connected account's balance from the node, nanomina as text (no device). */
  chain_getBalance: onHost({ method: 'getBalance', account: true, delegate: false, run: balanceOnNode }),
  chain_createNullifier: onDevice({
    method: 'createNullifier',
    params: createNullifierParams,
    positional: fieldsFirst,
    requires: extension('createNullifier', 'nullifier', 'CREATE_NULLIFIER'),
    delegate: true,
    run: (call, { message }) => createNullifier(call, message),
  }),
  chain_requestPresentation: onDevice({
    method: 'requestPresentation',
    params: requestPresentationParams,
    requires: extension('signFields', 'multi-field signing (the presentation owner signature)', 'SIGN_FIELDS'),
    store: true,
    hold: 'steps',
    // `[{ presentationRequest }]` as the mina-attestations demo sends it.
    positional: { key: 'presentation', isObjectForm: (element: unknown) => isObject(element) && Object.hasOwn(element, 'presentation') },
    delegate: true,
    // SIGN_PRESENTATION (extension 1.1): the device shows the verifier and computes the context itself.
    run: (call, { presentation }) =>
      requestPresentation(
        { ...call, clearSigning: call.capabilities.extension?.signPresentation === true },
        presentation.presentationRequest,
      ),
  }),
  chain_storePrivateCredential: onDevice({
    method: 'storePrivateCredential',
    params: storePrivateCredentialParams,
    // `[credential]`; a stored credential has a `credential` key of its own, so only `{ credential }` alone is the object.
    positional: {
      key: 'credential',
      isObjectForm: (element: unknown) => isObject(element) && Object.keys(element).length === 1 && Object.hasOwn(element, 'credential'),
    },
    store: true,
    hold: 'steps',
    delegate: true,
    run: (call, { credential }) => storePrivateCredential(call, credential),
  }),
} satisfies Record<`chain_${string}` | `wallet_${string}`, Row>;

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
export const HOST_ONLY_METHODS = {
  listCredentials: onDevice({
    method: 'listCredentials',
    store: true,
    delegate: false,
    run: async (call) => call.store.list(call.address, await call.storeSecret()),
  }),
  deleteCredential: onDevice({
    method: 'deleteCredential',
    params: deleteCredentialParams,
    store: true,
    delegate: false,
    run: (call, { id }) => deleteCredential(call, id),
  }),
  rekeyCredentials: onDevice({ method: 'rekeyCredentials', store: true, delegate: false, run: (call) => rekeyCredentials(call) }),
} satisfies Record<string, Row>;

type Rows = { [M in WalletMethod as ProviderMethod<M>]: WalletMethodTable[M] } & typeof HOST_ONLY_METHODS;
/** Every provider method with a row: the wallet methods and the host methods. */
export type MethodName = keyof Rows;
/** What method `P` resolves: what its body returns. */
export type MethodResult<P extends MethodName> = Rows[P] extends { run: (...args: never[]) => Promise<infer R> } ? R : never;

/** A row as the pipeline reads it, whichever its kind, with its wallet name (for a wallet method). */
export interface Row extends RowBase<string, z.ZodType | undefined> {
  connection: 'none' | 'account';
  account?: true;
  pending?: true;
  // biome-ignore lint/suspicious/noExplicitAny: each row's params are its own schema's output; the pipeline passes them as parsed.
  requires?: (capabilities: Capabilities, params: any) => ProviderError | undefined;
  store?: boolean;
  hold?: 'steps';
  // biome-ignore lint/suspicious/noExplicitAny: each row's call and params are its kind's and its schema's; the pipeline builds them.
  run: (call: any, params: any) => Promise<unknown>;
  walletMethod?: WalletMethod;
}

/** Each provider method's row (`signMessage` → its schema, requirement, body, wallet name). */
export const ROWS: Readonly<Record<MethodName, Row>> = { ...walletRows(), ...HOST_ONLY_METHODS };

function walletRows(): Record<ProviderMethod, Row> {
  const rows: Partial<Record<ProviderMethod, Row>> = {};
  for (const [name, spec] of Object.entries(WALLET_METHODS)) rows[spec.method] = { ...spec, walletMethod: name as WalletMethod };
  return rows as Record<ProviderMethod, Row>;
}

/**
 * Other wallets' spellings of a method of the table (mina-js's and Clorio's), served as the method they name: each
 * is a `request()` name only (`mina_…` or `chain_…`), never a direct method or a row of its own.
 */
export const METHOD_ALIASES = {
  chain_getAccounts: 'chain_accounts',
  chain_getWalletInfo: 'wallet_info',
  chain_revokePermissions: 'wallet_revokePermissions',
  chain_sign: 'chain_signMessage',
} as const satisfies Record<`chain_${string}`, WalletMethod>;

/** mina-js's `mina_sendTransaction` of a signed transaction (`{ signedTransaction }`, `[sendable, type]`). */
function isSignedSendable(params: unknown): boolean {
  if (Array.isArray(params) && params.length === 2) return typeof params[1] === 'string';
  const element = Array.isArray(params) && params.length === 1 ? params[0] : params;
  return isObject(element) && Object.hasOwn(element, 'signedTransaction');
}

/**
 * The row `request({ method })` names: a `chain_` or `wallet_` name, Auro's (and mina-js's) `mina_` name of a
 * `chain_` method, or an alias (`METHOD_ALIASES`); `sendTransaction` of a signed transaction is
 * `chain_sendSignedTransaction`.
 * @throws `ProviderError` 20003 when `args` is no `{ method }`, 20006 for a name that is no wallet method.
 */
export function specOfRequest(args: unknown): Row & { walletMethod: WalletMethod } {
  const method = (args as { method?: unknown } | null)?.method;
  if (typeof args !== 'object' || args === null || typeof method !== 'string')
    throw invalidParams('method', 'request needs { method, params }');
  const spelled = method.startsWith('mina_') ? `chain_${method.slice('mina_'.length)}` : method;
  let name = Object.hasOwn(METHOD_ALIASES, spelled) ? METHOD_ALIASES[spelled as keyof typeof METHOD_ALIASES] : spelled;
  if (name === 'chain_sendTransaction' && isSignedSendable((args as { params?: unknown }).params)) name = 'chain_sendSignedTransaction';
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
export function paramsOf(spec: Pick<Row, 'positional'>, params: unknown): unknown {
  if (!Array.isArray(params)) return params;
  const tuple = spec.positional?.tuple;
  if (tuple && params.length === tuple.length) return Object.fromEntries(tuple.map((key, i) => [key, params[i]]));
  if (params.length !== 1) throw invalidParams('params', 'must be an object, or an array holding exactly one object');
  const [element] = params;
  return !spec.positional || spec.positional.isObjectForm(element) ? element : { [spec.positional.key]: element };
}
