/**
 * The `window.chain` provider backed by a Ledger. Every call goes through the same pipeline, in this order:
 *
 *   origin check (23001) → connected? (1001) → arguments (zod, 20003) → device capability (20006)
 *     → the device, held for the whole call (one call at a time per device, cancellable) → device work → verification
 *
 * so a request from the wrong origin, with bad arguments, or for an instruction the app lacks never reaches the
 * device. Every promise rejects with a `ProviderError`, never anything else.
 */
import { MinaLedgerApp } from '../device/client.js';
import type { NetworkId } from '../apdu/codec.js';
import { supports } from '../apdu/version.js';
import { STORE_KEY_MESSAGE } from '../apdu/store-key.js';
import { defaultCredentialStore, deriveStoreSecret } from '../credentials/store-key.js';
import { accountMessageVerifier } from '../upstream/mina-signers.js';
import { completeNullifier } from '../nullifier/complete.js';
import { requestPresentation } from '../presentations/request-presentation.js';
import { deleteCredential, rekeyCredentials, storePrivateCredential } from '../credentials/store-credential.js';
import type { CredentialEntry, CredentialStore } from '../credentials/store.js';
import { createLocalChain, type LocalChain } from '../zkapp/local-chain.js';
import { NonceTracker } from '../zkapp/nonces.js';
import { sendTransaction, type SendTransactionResult } from '../zkapp/send-transaction.js';
import { sendLegacyCommand } from '../payments/send-payment.js';
import { ErrorCode, ProviderError, hostDetail, invalidParams, requireApproval, toProviderError } from './to-provider-error.js';
import type {
  CreateNullifierArgs,
  NullifierResult,
  RequestArguments,
  RequestMethod,
  RequestPresentationArgs,
  RpcResult,
  SendPaymentArgs,
  SendStakeDelegationArgs,
  SendTransactionArgs,
  SignedMessage,
  SignFieldsArgs,
  SignJsonMessageArgs,
  SignMessageArgs,
  StorePrivateCredentialArgs,
  SwitchChainArgs,
  VerifyFieldsArgs,
  VerifyMessageArgs,
  WalletMethod,
} from './rpc.js';
import { storeKeyStaysQuiet } from '../transport/quiet-exchange.js';
import { assertSameOrigin, bindOrigin, callerOrigin } from './origin.js';
import { PendingCalls } from './pending.js';
import { capabilitiesOf, type Capabilities } from '../device/capabilities.js';
import { positionalParams } from './positional-params.js';
import { ProviderEvents, type EventName, type Listener, type ProviderEventMap } from './events.js';
import { checkProviderOptions, type DeviceAction, type LedgerProviderOptions, type Network } from './options.js';
import {
  createNullifierParams,
  parseParams,
  requestPresentationParams,
  sendTransactionParams,
  deleteCredentialParams,
  emptyParams,
  signMessageParams,
  storePrivateCredentialParams,
  switchChainParams,
  sendPaymentParams,
  sendStakeDelegationParams,
  signFieldsParams,
  signJsonMessageParams,
  verifyFieldsParams,
  verifyMessageParams,
} from './schemas.js';
import { assertDeviceSignsMessage, jsonMessageText, signMessageOnLedger, verifyMessage } from '../messages/sign-message.js';
import { signFieldsOnLedger, verifyFields, type SignedFields } from '../messages/sign-fields.js';

/** Defined beside the provider (options.ts, capabilities.ts, events.ts); exported from here, where they always were. */
export type { Capabilities, DeviceAction, LedgerProviderOptions, Network, ProviderEventMap };

export interface CallOptions {
  signal?: AbortSignal;
}

/** Context of a `request(...)` call: the caller's origin as seen by a bridge or a Node host. */
export interface RequestContext extends CallOptions {
  origin?: string;
}

/** Wallet-side method names accepted by `request`, and the provider method each one runs. */
export const METHODS = {
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
} as const satisfies Record<WalletMethod, keyof LedgerProvider>;

/** Set by LedgerProvider's static block: the host-side credential methods (./credential-manager.ts). */
export let hostCredentialAccess: {
  list(provider: LedgerProvider, options: CallOptions): Promise<CredentialEntry[]>;
  delete(provider: LedgerProvider, id: unknown, options: CallOptions): Promise<boolean>;
  rekey(provider: LedgerProvider, options: CallOptions): Promise<boolean>;
};

export class LedgerProvider {
  #network: Network;
  readonly origin: string;
  readonly accountIndex: number;
  /** True when the transport is the software Ledger (a software key): never hardware. */
  readonly isSoftwareLedger: boolean;
  readonly #options: LedgerProviderOptions;
  readonly #bridge: boolean;
  readonly #pending: PendingCalls;
  readonly #feeCap: bigint;
  readonly #spendCap: bigint | undefined;
  readonly #nonces = new NonceTracker();
  #localChain: Promise<LocalChain> | undefined;
  #app: MinaLedgerApp | undefined;
  #connection: { address: string; capabilities: Capabilities; storeSecret?: Uint8Array } | undefined;
  #credentialStore: Promise<CredentialStore> | undefined;
  #connectedBefore = false;
  readonly #events = new ProviderEvents();
  #onTransportDisconnect = () => this.#drop(new ProviderError(ErrorCode.NotConnected, { reason: 'the Ledger was disconnected' }));

  /** @throws `ProviderError` 20003 naming the bad option (see createLedgerProvider). */
  constructor(options: LedgerProviderOptions) {
    const checked = checkProviderOptions(options);
    this.#bridge = checked.bridge;
    this.origin = bindOrigin(options.origin, this.#bridge);
    this.#pending = new PendingCalls(checked.maxPendingCalls, checked.maxRequestsPerMinute);
    this.#network = checked.network;
    this.accountIndex = checked.accountIndex;
    this.isSoftwareLedger = (options.transport as { isSoftwareLedger?: unknown }).isSoftwareLedger === true;
    this.#feeCap = checked.feeCap;
    this.#spendCap = checked.spendCap;
    this.#options = options;
  }

  get network(): Network {
    return this.#network;
  }

  /** 0 (testnet/devnet; also the local chain) or 1 (mainnet). */
  get networkId(): NetworkId {
    return this.network === 'mainnet' ? 1 : 0;
  }

  get chainId(): string {
    return `mina:${this.network}`;
  }

  /**
   * Whether an account is connected (`requestAccounts()` succeeded and neither `disconnect()` nor an unplug has
   * dropped it since), as Auro's `isConnected()`; never touches the device.
   *
   * @returns `true` when connected, else `false`.
   */
  isConnected(): boolean {
    return this.#connection !== undefined;
  }

  /** What the connected app can do, read at connect; undefined before. */
  get capabilities(): Capabilities | undefined {
    return this.#connection?.capabilities;
  }

  // ---- connection ----

  /**
   * Connects: reads the app version and the account's address. The first connect shows the address on the device
   * for the user to confirm; later connects read it silently (app ≥ 1.4.1).
   *
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns The connected account's address, in a one-element array.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 1002 when the user rejects on the Ledger
   *   (or `rejectPending()`, the signal), 22001 when the device fails or its reply is malformed (the status word in
   *   `data.statusWord`).
   * @example
   * ```ts
   * const [address] = await chain.requestAccounts();
   * ```
   */
  async requestAccounts(context: RequestContext = {}): Promise<string[]> {
    return this.#guard(async () => {
      this.#checkOrigin(context);
      if (this.#connection) return [this.#connection.address];
      return this.#device('requestAccounts', context, async (app, signal) => {
        if (this.#connection) return [this.#connection.address];
        const appVersion = await app.getAppVersion({ signal });
        const extension = await app.getCapabilities({ signal });
        const display = !this.#connectedBefore || !supports(appVersion, 'silentAddress');
        if (display) this.#action('requestAccounts', 'confirm', 'Confirm the address on your Ledger');
        const address = await app.getAddress(this.accountIndex, { display, signal });
        this.#connection = { address, capabilities: capabilitiesOf(appVersion, extension) };
        this.#connectedBefore = true;
        this.#events.emit('accountsChanged', [address]);
        return [address];
      });
    });
  }

  /**
   * The connected account, or [] (never touches the device).
   *
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns `[address]` when connected, else `[]`.
   * @throws `ProviderError` 23001 when the call comes from another origin.
   */
  async getAccounts(context: RequestContext = {}): Promise<string[]> {
    return this.#guard(async () => {
      this.#checkOrigin(context);
      return this.#connection ? [this.#connection.address] : [];
    });
  }

  /**
   * Forgets the connection: emits `disconnect` (1001) and `accountsChanged` with `[]`. The next call needs
   * `requestAccounts()` again.
   * @returns Nothing; it never rejects.
   */
  async disconnect(): Promise<void> {
    this.#drop(new ProviderError(ErrorCode.NotConnected, { reason: 'disconnected by the page' }));
  }

  /**
   * Switches the network (`{ networkID: 'mina:mainnet' | 'mina:devnet' | 'mina:local' }`) and emits `chainChanged`,
   * once the integrator's `confirmSwitchChain` approved it; without that hook it is refused (1002) unless the
   * provider was created with `allowUnconfirmedSwitchChain: true`. The key is the same on every network; signatures
   * differ by network id.
   *
   * @param args - `{ networkID: 'mina:mainnet' | 'mina:devnet' | 'mina:local' }`.
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns The network now in use, `{ networkID }`.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 20003 for an unknown network id, 1002 when
   *   `confirmSwitchChain` refuses, or when there is no such hook and `allowUnconfirmedSwitchChain` is not set.
   * @example
   * ```ts
   * await chain.switchChain({ networkID: 'mina:devnet' });
   * ```
   */
  async switchChain(args: SwitchChainArgs, context: RequestContext = {}): Promise<{ networkID: string }> {
    return this.#guard(async () => {
      this.#checkOrigin(context);
      const network = parseParams(switchChainParams, args ?? {}).networkID.slice('mina:'.length);
      if (network !== this.#network) {
        const to = `mina:${network}`;
        const confirm = this.#options.confirmSwitchChain;
        // Secure default: the signing domain of every later call changes, so nobody switches it silently.
        if (!confirm && this.#options.allowUnconfirmedSwitchChain !== true) {
          throw new ProviderError(ErrorCode.UserRejected, {
            reason: `switching to ${to} needs the integrator's confirmation (the confirmSwitchChain option, or allowUnconfirmedSwitchChain: true)`,
          });
        }
        if (confirm)
          await requireApproval(() => confirm({ from: this.chainId, to, origin: this.origin }), `switching to ${to} was not approved`);
        this.#network = network as Network;
        this.#events.emit('chainChanged', { networkID: this.chainId });
      }
      return { networkID: this.chainId };
    });
  }

  /**
   * Rejects every call of this provider that waits for or runs on the Ledger (each → 1002 at once; a prompt already
   * on the device stays until the user answers there, and its answer is discarded). Returns how many were rejected.
   *
   * @returns How many calls were rejected.
   */
  rejectPending(): number {
    return this.#pending.rejectAll();
  }

  /**
   * The current network, `{ networkID: 'mina:…' }`, as Auro answers it; never touches the device.
   *
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns `{ networkID: 'mina:mainnet' | 'mina:devnet' | 'mina:local' }`.
   * @throws `ProviderError` 23001 when the call comes from another origin.
   */
  async requestNetwork(context: RequestContext = {}): Promise<{ networkID: string }> {
    return this.#guard(async () => {
      this.#checkOrigin(context);
      return { networkID: this.chainId };
    });
  }

  /**
   * Listens to `accountsChanged` (the account list), `chainChanged` (`{ networkID }`) or `disconnect` (a
   * `ProviderError`). Returns the provider, as Auro's EventEmitter does, so calls chain. As with an EventEmitter, the
   * same listener added twice is called twice.
   *
   * @param event - `accountsChanged`, `chainChanged` or `disconnect`.
   * @param listener - Called with the event's arguments; an error it throws is ignored.
   * @example
   * ```ts
   * chain.on('accountsChanged', ([address]) => show(address ?? 'disconnected'));
   * ```
   */
  on<E extends EventName>(event: E, listener: Listener<E>): this {
    this.#events.on(event, listener);
    return this;
  }

  /**
   * Like `on`, but `listener` runs at most once: it is removed before it is first called (Node's EventEmitter
   * `once`). `off(event, listener)` removes it before it fires. Returns the provider.
   *
   * @param event - `accountsChanged`, `chainChanged` or `disconnect`.
   * @param listener - Called with the event's arguments, once; an error it throws is ignored.
   * @example
   * ```ts
   * chain.once('chainChanged', ({ networkID }) => reload(networkID));
   * ```
   */
  once<E extends EventName>(event: E, listener: Listener<E>): this {
    this.#events.once(event, listener);
    return this;
  }

  /** Removes `listener` from `event` (its most recently added instance, as EventEmitter does). Returns the provider. */
  off<E extends EventName>(event: E, listener: Listener<E>): this {
    this.#events.off(event, listener);
    return this;
  }

  /** EventEmitter name of `off`. */
  removeListener<E extends EventName>(event: E, listener: Listener<E>): this {
    return this.off(event, listener);
  }

  /** Removes every listener of `event`, or of every event. */
  removeAllListeners(event?: EventName): this {
    this.#events.clear(event);
    return this;
  }

  // ---- methods ----

  /**
   * Legacy message signing (INS 05). The signature is verified on the host before it is returned.
   *
   * @param args - `{ message }`: 1–65 printable ASCII bytes (INS 05's limit).
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns `{ publicKey, data, signature: { field, scalar } }`, as Auro returns it; `data` is the text the device
   *   signed.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 1001 when not connected, 20003 for a bad or
   *   reserved message, 20006 for a text the device cannot sign (empty, over 65 bytes, not printable ASCII; the
   *   reason says which) or when the app lacks INS 05 (before 1.4.0), 1002 when the user rejects on the Ledger, 22001
   *   when the signature does not verify.
   * @example
   * ```ts
   * const { signature } = await chain.signMessage({ message: 'Sign in to example.com' });
   * ```
   */
  async signMessage(args: SignMessageArgs, context: RequestContext = {}): Promise<SignedMessage> {
    return this.#method('signMessage', args, context, signMessageParams, async (params, app, address, context) =>
      signMessageOnLedger(app, this.accountIndex, address, this.#connection!.capabilities, this.networkId, params.message, {
        signal: context.signal,
        onConfirm: (prompt) => this.#action('signMessage', 'confirm', prompt),
      }),
    );
  }

  /**
   * A nullifier for `message` (0–64 field elements) and the connected account, made on the Ledger (extension
   * CREATE_NULLIFIER), completed and verified on the host with o1js. `data` is the message as given.
   *
   * @param args - `{ message }`: 0–64 field elements (text as `BigInt()` reads it, or integral numbers).
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns The nullifier as `Nullifier.fromJSON` reads it, with `data` the message as given.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 1001 when not connected, 20003 for a bad
   *   field, 20006 when the app lacks the extension's CREATE_NULLIFIER (every released Mina app), 1002 when the user
   *   rejects, 22001 when the nullifier does not verify.
   * @example
   * ```ts
   * const nullifier = await chain.createNullifier({ message: ['1', '2'] });
   * ```
   */
  async createNullifier(args: CreateNullifierArgs, context: RequestContext = {}): Promise<NullifierResult> {
    return this.#method('createNullifier', args, context, createNullifierParams, async (params, app, address, context) => {
      if (!this.#connection!.capabilities.extension?.createNullifier) throw this.#needsExtension('nullifier', 'CREATE_NULLIFIER');
      this.#action('createNullifier', 'confirm', 'Review the nullifier request on your Ledger and approve');
      // The device shows the fields and, with extension 1.1, the origin asking (a nullifier is the same for every origin).
      const origin = this.#connection!.capabilities.extension?.nullifierOrigin ? this.origin : undefined;
      const device = await app.createNullifier(this.accountIndex, params.message, { ...context, origin });
      const nullifier = await completeNullifier(address, params.message, device);
      return { ...nullifier, data: [...(args as { message: unknown[] }).message] };
    });
  }

  /**
   * A presentation of stored credentials for a verifier's request (mina-attestations): the owner signature is made
   * on the Ledger (extension SIGN_FIELDS), the proof on the host. Result `{ presentation }`, JSON text.
   *
   * @param args - `{ presentation: { presentationRequest } }`, the verifier's request (mina-attestations JSON).
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns `{ presentation }`, the presentation as JSON text.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 1001 when not connected, 20003 for a
   *   malformed or oversized request, 20006 when the app lacks SIGN_FIELDS or is older than 1.4.5 (the store key), 1002
   *   when the user rejects or no stored credential fits, 22001 when the store or the proof fails.
   * @example
   * ```ts
   * const { presentation } = await chain.requestPresentation({ presentation: { presentationRequest } });
   * ```
   */
  async requestPresentation(args: RequestPresentationArgs, context: RequestContext = {}): Promise<{ presentation: string }> {
    return this.#method('requestPresentation', args, context, requestPresentationParams, async (params, app, address, context) => {
      if (!this.#connection!.capabilities.extension?.signFields) {
        throw this.#needsExtension('multi-field signing (the presentation owner signature)', 'SIGN_FIELDS');
      }
      const ctx = await this.#credentialContext('requestPresentation', app, address, context);
      return requestPresentation(
        {
          ...ctx,
          origin: this.origin,
          selectCredentials: this.#options.selectCredentials,
          o1jsCacheBytes: this.#options.o1jsCacheBytes,
          clearSigning: this.#connection!.capabilities.extension?.signPresentation === true,
        },
        params.presentation.presentationRequest,
      );
    });
  }

  /**
   * A zkApp command signed on the Ledger (INS 06, blind signing; the device shows only the commitment), verified on
   * the host, then broadcast (`{ hash }`) or returned (`onlySign: true` → `{ signedData }`). See docs/provider.md.
   *
   * @param args - `{ transaction, onlySign?, nonce?, feePayer?: { fee?, memo? } }`: the zkApp command (o1js `toJSON()`
   *   or its JSON text), fee in MINA.
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns `{ hash }` after the broadcast, or `{ signedData }` with `onlySign: true`.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 1001 when not connected, 20003 for a bad
   *   command or a fee over `feeCap`, 20006 when the app lacks INS 06 (before 1.6.0), 1002 when the user rejects, 21001
   *   when the node or the local chain refuses it, 22001 when a signature does not verify.
   * @example
   * ```ts
   * const { hash } = await chain.sendTransaction({ transaction: tx.toJSON(), feePayer: { fee: 0.1 } });
   * ```
   */
  async sendTransaction(args: SendTransactionArgs, context: RequestContext = {}): Promise<SendTransactionResult> {
    return this.#method('sendTransaction', args, context, sendTransactionParams, async (params, app, address, context) => {
      const version = this.#connection!.capabilities;
      if (!version.signFieldElement) {
        throw new ProviderError(ErrorCode.MethodNotSupported, {
          reason: `Mina app ${version.appVersion.version} cannot sign zkApp commands: update it to 1.6.0 or newer`,
        });
      }
      return sendTransaction(
        {
          app,
          address,
          accountIndex: this.accountIndex,
          network: this.network,
          era: this.#options.era,
          feeCap: this.#feeCap,
          graphqlUrl: this.#options.graphqlUrl,
          graphqlHeaders: this.#options.graphqlHeaders,
          localChain: this.network === 'local' ? () => this.localChain() : undefined,
          nonces: this.#nonces,
          signal: context.signal,
          clearSigning: version.extension?.signZkapp === true,
          spendCap: this.#spendCap,
          confirmZkapp: this.#options.confirmZkapp
            ? (summary) => this.#options.confirmZkapp!({ ...summary, origin: this.origin })
            : undefined,
          onConfirm: (prompt) => this.#action('sendTransaction', 'confirm', prompt),
        },
        params,
      );
    });
  }

  /**
   * A payment signed on the Ledger with INS 03 (the device shows amount, fee, receiver, memo, nonce and network in
   * clear), verified on the host and broadcast with the node's `sendPayment` → `{ hash }`. Amount and fee in MINA,
   * as Auro takes them. `network: 'local'` → 20006 (the o1js LocalBlockchain has no signed payments).
   *
   * @param args - `{ to, amount, fee?, memo?, nonce? }`, amount and fee in MINA.
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns `{ hash }` of the broadcast payment.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 1001 when not connected, 20003 for a bad
   *   argument or a fee over `feeCap`, 20006 on `network: 'local'`, 1002 when the user rejects, 21001 when the node
   *   refuses it, 22001 when the signature does not verify.
   * @example
   * ```ts
   * const { hash } = await chain.sendPayment({ to: 'B62q…', amount: 1.5, fee: 0.01, memo: 'rent' });
   * ```
   */
  async sendPayment(args: SendPaymentArgs, context: RequestContext = {}): Promise<{ hash: string }> {
    return this.#method('sendPayment', args, context, sendPaymentParams, async (params, app, address, context) =>
      sendLegacyCommand('payment', this.#legacyContext('sendPayment', app, address, context), params),
    );
  }

  /**
   * A stake delegation to `to`, signed on the Ledger with INS 03 as `sendPayment`; result `{ hash }`.
   *
   * @param args - `{ to, fee?, memo?, nonce? }`: `to` is the block producer.
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns `{ hash }` of the broadcast delegation.
   * @throws `ProviderError` as `sendPayment`.
   * @example
   * ```ts
   * const { hash } = await chain.sendStakeDelegation({ to: 'B62q…' });
   * ```
   */
  async sendStakeDelegation(args: SendStakeDelegationArgs, context: RequestContext = {}): Promise<{ hash: string }> {
    return this.#method('sendStakeDelegation', args, context, sendStakeDelegationParams, async (params, app, address, context) =>
      sendLegacyCommand('delegation', this.#legacyContext('sendStakeDelegation', app, address, context), params),
    );
  }

  #legacyContext(method: string, app: MinaLedgerApp, address: string, context: RequestContext) {
    return {
      app,
      address,
      accountIndex: this.accountIndex,
      network: this.network,
      feeCap: this.#feeCap,
      graphqlUrl: this.#options.graphqlUrl,
      graphqlHeaders: this.#options.graphqlHeaders,
      nonces: this.#nonces,
      signal: context.signal,
      onConfirm: () => this.#action(method, 'confirm', 'Review the amount, fee and receiver on your Ledger and approve'),
    };
  }

  /**
   * Auro's `signFields`: `{ message: fields }` → `{ data, publicKey, signature }` (base58), mina-signer's scheme.
   * One field: INS 06 (app ≥ 1.6.0, blind signing); several: extension SIGN_FIELDS; else 20006 with the reason.
   *
   * @param args - `{ message }`: 1–64 field elements (text as `BigInt()` reads it, or integral numbers); more → 20006.
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns `{ data, publicKey, signature }`, the signature in base58 as mina-signer's `signFields`.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 1001 when not connected, 20003 for a bad
   *   field, 20006 when the app cannot sign that many fields (the reason says why), 1002 when the user rejects, 22001
   *   when the signature does not verify.
   * @example
   * ```ts
   * const { signature } = await chain.signFields({ message: ['1', '2', '3'] });
   * ```
   */
  async signFields(args: SignFieldsArgs, context: RequestContext = {}): Promise<SignedFields> {
    return this.#method('signFields', args, context, signFieldsParams, async (params, app, address, context) =>
      signFieldsOnLedger(
        app,
        this.accountIndex,
        address,
        this.#connection!.capabilities,
        params.message,
        (args as { message: (string | number)[] }).message,
        {
          signal: context.signal,
          onConfirm: (prompt) => this.#action('signFields', 'confirm', prompt),
        },
      ),
    );
  }

  /**
   * mina-signer `verifyFields` on the host (no device, no connection needed): true or false.
   *
   * @param args - `{ publicKey, data, signature }` as `signFields` returns it.
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns Whether the signature verifies.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 20003 for a malformed argument (a signature
   *   that is merely wrong is `false`).
   * @example
   * ```ts
   * const ok = await chain.verifyFields(await chain.signFields({ message: ['1', '2'] }));
   * ```
   */
  async verifyFields(args: VerifyFieldsArgs, context: RequestContext = {}): Promise<boolean> {
    return this.#guard(async () => {
      this.#checkOrigin(context);
      return verifyFields(parseParams(verifyFieldsParams, args));
    });
  }

  /**
   * mina-signer `verifyMessage` on the provider's network, on the host: true or false.
   *
   * @param args - `{ publicKey, data, signature: { field, scalar } }` as `signMessage` returns it.
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns Whether the signature verifies on the provider's network.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 20003 for a malformed argument.
   * @example
   * ```ts
   * const ok = await chain.verifyMessage(await chain.signMessage({ message: 'hello' }));
   * ```
   */
  async verifyMessage(args: VerifyMessageArgs, context: RequestContext = {}): Promise<boolean> {
    return this.#guard(async () => {
      this.#checkOrigin(context);
      return verifyMessage(parseParams(verifyMessageParams, args), this.networkId === 1);
    });
  }

  /**
   * Auro's `signJsonMessage`: `{ message: [{ label, value }, …] }`, signed as its JSON text with INS 05, whose limit
   * is 65 printable ASCII bytes (a longer text → 20006 saying so). Result as `signMessage`.
   *
   * @param args - `{ message: [{ label, value }, …] }`.
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @throws `ProviderError` as `signMessage`; 20006 when the JSON text is over 65 bytes or not printable ASCII.
   * @example
   * ```ts
   * await chain.signJsonMessage({ message: [{ label: 'action', value: 'login' }] });
   * ```
   */
  async signJsonMessage(args: SignJsonMessageArgs, context: RequestContext = {}): Promise<SignedMessage> {
    return this.#guard(async () => {
      this.assertCaller(context);
      const { message } = parseParams(signJsonMessageParams, args);
      const text = jsonMessageText(message);
      // What the device cannot sign (over 65 bytes, not printable ASCII) is 20006 with the reason, as for signMessage.
      assertDeviceSignsMessage(text, 'this JSON text');
      return this.signMessage({ message: text }, context);
    });
  }

  /**
   * `verifyMessage` for a `signJsonMessage` result.
   *
   * @param args - A `signJsonMessage` result.
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns Whether the signature verifies.
   * @throws `ProviderError` as `verifyMessage`.
   */
  async verifyJsonMessage(args: VerifyMessageArgs, context: RequestContext = {}): Promise<boolean> {
    return this.verifyMessage(args, context);
  }

  /**
   * The in-process chain of `network: 'local'` (created on first use).
   *
   * @throws `ProviderError` 20003 (as a rejected promise) when the provider's network is not `local`.
   */
  localChain(): Promise<LocalChain> {
    if (this.network !== 'local') return Promise.reject(invalidParams('network', 'only a "local" provider has a local chain'));
    this.#localChain ??= this.#options.localChain ? Promise.resolve(this.#options.localChain) : createLocalChain();
    return this.#localChain;
  }

  /**
   * Validates a private credential (mina-attestations), checks that it belongs to the connected account, asks the
   * user to approve it on the Ledger, and stores it encrypted. Result `{ credential }`, JSON text.
   *
   * @param args - `{ credential }`: a mina-attestations stored credential (object or JSON text).
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns `{ credential }`: the stored credential, JSON text.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 1001 when not connected, 20003 for an
   *   invalid credential or one of another account, 20006 on a Mina app older than 1.4.5, 1002 when the user rejects on
   *   the Ledger, 22001 when the store fails (details to `onHostLog`).
   * @example
   * ```ts
   * await chain.storePrivateCredential({ credential: Credential.toJSON(stored) });
   * ```
   */
  async storePrivateCredential(args: StorePrivateCredentialArgs, context: RequestContext = {}): Promise<{ credential: string }> {
    return this.#method('storePrivateCredential', args, context, storePrivateCredentialParams, async (params, app, address, context) =>
      storePrivateCredential(await this.#credentialContext('storePrivateCredential', app, address, context), params.credential),
    );
  }

  /**
   * Host-side only (never a page method, never served by `request()`): reached through `credentialManager(provider)`
   * in ./credential-manager.ts, which the host application (the CLI, a wallet UI) holds and a page does not.
   */
  static {
    hostCredentialAccess = {
      list: (provider, context) => provider.#listCredentials(context),
      delete: (provider, id, context) => provider.#deleteCredential(id, context),
      rekey: (provider, context) => provider.#rekeyCredentials(context),
    };
  }

  async #listCredentials(context: CallOptions): Promise<CredentialEntry[]> {
    return this.#method('listCredentials', {}, context, emptyParams, async (_params, app, address, context) => {
      const ctx = await this.#credentialContext('listCredentials', app, address, context);
      return ctx.store.list(address, await ctx.storeSecret());
    });
  }

  async #deleteCredential(id: unknown, context: CallOptions): Promise<boolean> {
    return this.#method('deleteCredential', { id }, context, deleteCredentialParams, async (params, app, address, context) =>
      deleteCredential(await this.#credentialContext('deleteCredential', app, address, context), params.id),
    );
  }

  async #rekeyCredentials(context: CallOptions): Promise<boolean> {
    return this.#method('rekeyCredentials', {}, context, emptyParams, async (_params, app, address, context) =>
      rekeyCredentials(await this.#credentialContext('rekeyCredentials', app, address, context)),
    );
  }

  async #credentialContext(method: string, app: MinaLedgerApp, address: string, context: RequestContext) {
    const connection = this.#connection!;
    // The store key is a device reply: refused, before anything is asked, where @ledgerhq/logs would publish it.
    if (!storeKeyStaysQuiet(app.transport)) {
      throw new ProviderError(ErrorCode.MethodNotSupported, {
        reason:
          'this transport would log the credential store key on @ledgerhq/logs: open the Ledger with openWebHid, openNodeHid or openSpeculos (or pass a @ledgerhq WebHID, node-hid or Speculos transport)',
      });
    }
    const { appVersion } = connection.capabilities;
    // The store key comes from a deterministic INS 05 signature; 1.4.0–1.4.4 sign other texts than later apps.
    if (!supports(appVersion, 'echoedMessage')) {
      throw new ProviderError(ErrorCode.MethodNotSupported, {
        reason: `the credential store needs Mina app 1.4.5 or newer (its key comes from a signed message); the device runs ${appVersion.version}`,
      });
    }
    const verifyMessage = await accountMessageVerifier(address, this.networkId);
    return {
      app,
      address,
      accountIndex: this.accountIndex,
      networkId: this.networkId,
      store: await this.#store(),
      signal: context.signal,
      onConfirm: (prompt: string) => this.#action(method, 'confirm', prompt),
      verifyMessage,
      storeSecret: async () => {
        if (!connection.storeSecret) {
          this.#action(method, 'confirm', `Approve "${STORE_KEY_MESSAGE}" on your Ledger to unlock your credentials`);
          connection.storeSecret = await deriveStoreSecret(app, this.accountIndex, address, { signal: context.signal });
        }
        return connection.storeSecret;
      },
    };
  }

  #store(): Promise<CredentialStore> {
    this.#credentialStore ??= this.#options.credentialStore ? Promise.resolve(this.#options.credentialStore) : defaultCredentialStore();
    return this.#credentialStore;
  }

  /**
   * The wallet-side entry point: `{ method: 'chain_…', params }`, params as an object or a one-element array. Auro's
   * names (`mina_…`, as a dapp written for `window.mina` calls them) are served exactly as their `chain_`
   * equivalents. Typed per method (`ChainRpcSchema`): the params a method takes and the result it resolves; the
   * arguments are still validated at run time exactly as the direct methods validate them.
   *
   * @param args - `{ method, params }`; `params` as the method of the same name takes them (see each method).
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @returns What the method resolves, typed by `method`.
   * @throws `ProviderError`: 23001 another origin, 20003 without `{ method }`, 20006 an unknown method, and each
   *   method's own errors.
   * @example
   * ```ts
   * const [address] = await chain.request({ method: 'chain_requestAccounts' });
   * const { networkID } = await chain.request({ method: 'mina_requestNetwork' }); // Auro's name, same method
   * const result = await chain.request({ method: 'chain_sendTransaction', params: { transaction, onlySign: true } });
   * ```
   */
  async request<M extends RequestMethod>(args: RequestArguments<M>, context: RequestContext = {}): Promise<RpcResult<M>> {
    return this.#guard(async (): Promise<RpcResult<M>> => {
      // The origin first, for every method (known or not): nothing from another origin is even looked at.
      this.#checkOrigin(context);
      if (typeof args !== 'object' || args === null || typeof args.method !== 'string') {
        throw invalidParams('method', 'request needs { method, params }');
      }
      // Auro's names (`mina_requestAccounts`, `mina_sign_JsonMessage`, …) are served as their `chain_` equivalents.
      const method = args.method.startsWith('mina_') ? `chain_${args.method.slice('mina_'.length)}` : args.method;
      if (!Object.hasOwn(METHODS, method)) {
        throw new ProviderError(ErrorCode.MethodNotSupported, { reason: `unknown method ${JSON.stringify(args.method.slice(0, 64))}` });
      }
      const name = METHODS[method as WalletMethod];
      if (name === 'requestAccounts' || name === 'getAccounts' || name === 'requestNetwork')
        return this[name](context) as Promise<RpcResult<M>>;
      // Runtime validation is each method's own: the params are unknown until its schema has parsed them.
      const run = this[name] as (params: unknown, context: RequestContext) => Promise<unknown>;
      return run.call(this, positionalParams(name, args.params), context) as Promise<RpcResult<M>>;
    });
  }

  // ---- pipeline ----

  async #method<S extends Parameters<typeof parseParams>[0], T>(
    method: string,
    args: unknown,
    context: RequestContext,
    schema: S,
    body: (params: ReturnType<typeof parseParams<S>>, app: MinaLedgerApp, address: string, context: RequestContext) => Promise<T>,
  ): Promise<T> {
    return this.#guard(async () => {
      this.assertCaller(context);
      const connection = this.#connection!;
      const params = parseParams(schema, args);
      return this.#device(method, context, async (app, signal) => {
        // The connection may have gone (an unplug, disconnect()) while this call waited for the device.
        if (this.#connection !== connection) {
          throw new ProviderError(ErrorCode.NotConnected, { reason: 'the Ledger was disconnected while this call waited: connect again' });
        }
        return body(params, app, connection.address, { ...context, signal });
      });
    });
  }

  /**
   * Runs device work holding the device for the whole method (the transport's queue, shared by every client and
   * provider of that device, so the prompts of one call never interleave with another's); reports to
   * `onDeviceAction` when it ends. The call counts as pending (bounded, rejectable with `rejectPending()`) until it
   * settles; `work` gets the signal to pass on to the device.
   */
  async #device<T>(method: string, context: CallOptions, work: (app: MinaLedgerApp, signal: AbortSignal) => Promise<T>): Promise<T> {
    const pending = this.#pending.enter(context?.signal);
    try {
      return await this.#client().exclusive(
        async (app) => {
          try {
            pending.signal.throwIfAborted();
            return await work(app, pending.signal);
          } finally {
            this.#action(method, 'done', '');
          }
        },
        { ...context, signal: pending.signal },
      );
    } finally {
      pending.leave();
    }
  }

  /** The device client; a new one after the transport reported a disconnect (a replugged device). */
  #client(): MinaLedgerApp {
    if (!this.#app || this.#app.transport.disconnected) {
      this.#app?.transport.off('disconnect', this.#onTransportDisconnect);
      this.#app = new MinaLedgerApp(this.#options.transport);
      this.#app.transport.on('disconnect', this.#onTransportDisconnect);
    }
    return this.#app;
  }

  #checkOrigin(context: RequestContext): void {
    assertSameOrigin(this.origin, callerOrigin(this.origin, this.#bridge, context?.origin));
  }

  /**
   * For wrappers (wrapProvider): 23001 unless the call comes from the bound origin, 1001 unless connected. Checked
   * before anything is handed to another provider.
   *
   * @param context - The caller's origin (a bridge or a Node host passes the page's) and an `AbortSignal`.
   * @throws `ProviderError`: 23001 when the call comes from another origin, 1001 when not connected.
   */
  assertCaller(context: RequestContext = {}): void {
    this.#checkOrigin(context);
    if (!this.#connection) throw new ProviderError(ErrorCode.NotConnected, { reason: 'not connected: call requestAccounts() first' });
  }

  #needsExtension(what: string, instruction: string): ProviderError {
    const version = this.#connection!.capabilities.appVersion.version;
    return new ProviderError(ErrorCode.MethodNotSupported, {
      reason: `Mina app ${version} has no ${what} instruction: it needs ${instruction} of the chain-ledger protocol extension`,
    });
  }

  async #guard<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      const detail = hostDetail(error);
      if (detail !== undefined) this.#hostLog(detail);
      throw toProviderError(error);
    }
  }

  #hostLog(message: string): void {
    try {
      (this.#options.onHostLog ?? console.warn)(`chain-ledger: ${message}`);
    } catch {
      // A failing log hook must not break the call.
    }
  }

  #drop(reason: ProviderError): void {
    if (!this.#connection) return;
    this.#connection = undefined;
    this.#events.emit('disconnect', reason);
    this.#events.emit('accountsChanged', []);
  }

  #action(method: string, status: DeviceAction['status'], prompt: string): void {
    try {
      this.#options.onDeviceAction?.({ method, status, prompt });
    } catch {
      // A failing UI hook must not break the call.
    }
  }
}

/** Re-exported where it always was; defined with the reserved-text rules in apdu/store-key.ts. */
export { STORE_KEY_MESSAGE };

/**
 * A `window.chain` provider backed by a Ledger (or the software Ledger). Nothing touches the device until
 * `requestAccounts()`.
 *
 * @param options - The transport and the network (required); the origin it serves (required outside a web page,
 *   where it is `location.origin`); `bridge`, `accountIndex`, the GraphQL endpoint and headers, `era`, `feeCap`, the
 *   credential store and the host hooks (`onDeviceAction`, `confirmSwitchChain`, `onHostLog`): see
 *   `LedgerProviderOptions`.
 * @returns The provider; every method's promise rejects only with `ProviderError`.
 * @throws `ProviderError` 20003 naming the bad option in `data.field` (`options`, `transport`, `network`,
 *   `accountIndex`, `bridge`, `maxPendingCalls`, `feeCap`, `era`, `graphqlUrl`, `graphqlHeaders`,
 *   `confirmSwitchChain`, `allowUnconfirmedSwitchChain`, `origin`).
 * @example
 * ```ts
 * import { createLedgerProvider, install } from 'chain-ledger';
 * import { openWebHid } from 'chain-ledger/transport';
 *
 * const chain = createLedgerProvider({ transport: await openWebHid({ request: true }), network: 'mainnet' });
 * install(chain);
 * const [address] = await chain.requestAccounts(); // the Ledger shows the address to confirm
 * ```
 */
export function createLedgerProvider(options: LedgerProviderOptions): LedgerProvider {
  return new LedgerProvider(options);
}
