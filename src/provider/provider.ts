/**
 * The `window.chain` provider backed by a Ledger. Every call goes through the same pipeline, in this order:
 *
 *   origin check (23001) → connected? (1001) → arguments (zod, 20003) → device capability (20006)
 *     → the device's method lock (one call at a time per device, cancellable) → device work → verification
 *
 * so a request from the wrong origin, with bad arguments, or for an instruction the app lacks never reaches the
 * device. Every promise rejects with a `ProviderError`, never anything else.
 */
import type Client from 'mina-signer';
import { MinaLedgerApp } from '../apdu/client.js';
import type { NetworkId } from '../apdu/codec.js';
import type { ExtensionCapabilities } from '../apdu/extension.js';
import { supports, type AppVersion } from '../apdu/version.js';
import { completeNullifier, type NullifierJson } from '../nullifier/complete.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { fromHex } from '../apdu/bytes.js';
import { signatureToRawHex } from '../apdu/signature.js';
import { requestPresentation, type SelectCredentials } from '../credentials/presentation.js';
import { storePrivateCredential } from '../credentials/store-credential.js';
import type { CredentialStore } from '../credentials/store.js';
import { ExclusiveTransport } from '../transport/exclusive.js';
import { FifoLock } from '../transport/lock.js';
import type { ApduTransport } from '../transport/types.js';
import type { Era } from '../crypto/mina-signer-internals.js';
import { createLocalChain, type LocalChain } from '../zkapp/local-chain.js';
import { NonceTracker } from '../zkapp/nonces.js';
import { sendTransaction, type SendTransactionResult } from '../zkapp/send-transaction.js';
import { ErrorCode, ProviderError, invalidParams, toProviderError } from './errors.js';
import { assertSameOrigin, browserOrigin, checkSecureOrigin } from './origin.js';
import {
  createNullifierParams,
  parseMina,
  parseParams,
  requestPresentationParams,
  sendTransactionParams,
  deleteCredentialParams,
  emptyParams,
  signMessageParams,
  storePrivateCredentialParams,
} from './schemas.js';

export type Network = 'mainnet' | 'devnet' | 'local';

/** Told to the page so it can say "Confirm on your Ledger…" while the device waits for the user. */
export interface DeviceAction {
  method: string;
  status: 'confirm' | 'done';
  /** What the user should do now, e.g. "Confirm the address on your Ledger". */
  prompt: string;
}

export interface LedgerProviderOptions {
  /** Any structural transport: a WebHID / node-hid / Speculos transport, or a `SoftwareLedger`. */
  transport: ApduTransport;
  network: Network;
  /** The origin this provider serves. Default in browsers: `window.location.origin`; required elsewhere. */
  origin?: string;
  /** Account N of m/44'/12586'/N'/0/0 (default 0). */
  accountIndex?: number;
  /** Mina daemon GraphQL endpoint, for nonces and broadcast (mainnet, devnet). */
  graphqlUrl?: string;
  /** The protocol era the network runs; a zkApp command of the other layout is refused. Default: follow the command. */
  era?: Era;
  /** Largest fee accepted for a zkApp command, in MINA (default 10, as Auro). */
  feeCap?: number | string;
  /** For `network: 'local'`: the in-process chain to use (default: a new o1js LocalBlockchain on first use). */
  localChain?: LocalChain;
  /**
   * Where private credentials live, encrypted with a key only the Ledger can re-derive. Default: files under
   * `$XDG_DATA_HOME/chain-ledger/credentials` (else `~/.local/share/…`) in Node, IndexedDB in browsers.
   */
  credentialStore?: CredentialStore;
  /** Chooses among stored credentials when several fit a presentation request (default: the newest). */
  selectCredentials?: SelectCredentials;
  onDeviceAction?: (action: DeviceAction) => void;
}

export interface CallOptions {
  signal?: AbortSignal;
}

/** Context of a `request(...)` call: the caller's origin as seen by a bridge or a Node host. */
export interface RequestContext extends CallOptions {
  origin?: string;
}

export interface Capabilities {
  appVersion: AppVersion;
  silentAddress: boolean;
  signMessage: boolean;
  /** INS 06: zkApp commitments (blind signing). */
  signFieldElement: boolean;
  /**
   * The chain-ledger protocol extension (nullifiers, multi-field signing, docs/apdu-extensions.md), probed at
   * connect; null when the app lacks it (every released Mina app today).
   */
  extension: ExtensionCapabilities | null;
}

export interface SignedMessage {
  publicKey: string;
  /** The text the device signed (verify with mina-signer `verifyMessage` on the provider's network). */
  data: string;
  signature: { field: string; scalar: string };
}

interface EventMap {
  accountsChanged: [accounts: string[]];
  disconnect: [error: ProviderError];
  chainChanged: [chainId: string];
}
type EventName = keyof EventMap;
type Listener<E extends EventName> = (...args: EventMap[E]) => void;
type AnyListener = (...args: any[]) => void;

/** Wallet-side method names accepted by `request`. */
export const METHODS = {
  chain_requestAccounts: 'requestAccounts',
  chain_accounts: 'getAccounts',
  chain_sendTransaction: 'sendTransaction',
  chain_requestPresentation: 'requestPresentation',
  chain_createNullifier: 'createNullifier',
  chain_storePrivateCredential: 'storePrivateCredential',
  chain_signMessage: 'signMessage',
  chain_switchChain: 'switchChain',
  chain_listCredentials: 'listCredentials',
  chain_deleteCredential: 'deleteCredential',
} as const;
export type WalletMethod = keyof typeof METHODS;

const methodLocks = new WeakMap<ExclusiveTransport, FifoLock>();
/**
 * mina-signer's message verifiers, loaded on first use: importing the provider does not load mina-signer
 * (bench/import-cost.ts, test/package.test.ts).
 */
let verifiersLoading: Promise<Record<'mainnet' | 'testnet', Client>> | undefined;
function messageVerifiers(): Promise<Record<'mainnet' | 'testnet', Client>> {
  verifiersLoading ??= import('mina-signer').then(({ default: Signer }) => ({
    mainnet: new Signer({ network: 'mainnet' }),
    testnet: new Signer({ network: 'testnet' }),
  }));
  verifiersLoading.catch(() => (verifiersLoading = undefined));
  return verifiersLoading;
}

export class LedgerProvider {
  #network: Network;
  readonly origin: string;
  readonly accountIndex: number;
  /** True when the transport is the software Ledger (a software key): never hardware. */
  readonly isSoftwareLedger: boolean;
  readonly #options: LedgerProviderOptions;
  readonly #feeCap: bigint;
  readonly #nonces = new NonceTracker();
  #localChain: Promise<LocalChain> | undefined;
  #app: MinaLedgerApp | undefined;
  #connection: { address: string; capabilities: Capabilities; storeSecret?: Uint8Array } | undefined;
  #credentialStore: Promise<CredentialStore> | undefined;
  #connectedBefore = false;
  #listeners = new Map<EventName, Set<AnyListener>>();
  #onTransportDisconnect = () => this.#drop(new ProviderError(ErrorCode.NotConnected, { reason: 'the Ledger was disconnected' }));

  constructor(options: LedgerProviderOptions) {
    if (typeof options !== 'object' || options === null) throw invalidParams('options', 'must be an object');
    if (typeof options.transport?.send !== 'function') throw invalidParams('transport', 'must have a send() method');
    if (!['mainnet', 'devnet', 'local'].includes(options.network)) {
      throw invalidParams('network', 'must be "mainnet", "devnet" or "local"');
    }
    const accountIndex = options.accountIndex ?? 0;
    if (!Number.isInteger(accountIndex) || accountIndex < 0 || accountIndex > 0x7fffffff) {
      throw invalidParams('accountIndex', 'must be an integer from 0 to 2^31 - 1');
    }
    this.origin = checkSecureOrigin(options.origin ?? browserOrigin());
    this.#network = options.network;
    this.accountIndex = accountIndex;
    this.isSoftwareLedger = (options.transport as { isSoftwareLedger?: unknown }).isSoftwareLedger === true;
    const feeCap = parseMina(options.feeCap ?? 10);
    if (feeCap === undefined || feeCap <= 0n) throw invalidParams('feeCap', 'must be a positive amount of MINA');
    this.#feeCap = feeCap;
    if (options.era !== undefined && options.era !== 'berkeley' && options.era !== 'mesa') {
      throw invalidParams('era', 'must be "berkeley" or "mesa"');
    }
    if (options.graphqlUrl !== undefined && !/^https?:\/\//.test(String(options.graphqlUrl))) {
      throw invalidParams('graphqlUrl', 'must be an http(s) URL');
    }
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

  /** What the connected app can do, read at connect; undefined before. */
  get capabilities(): Capabilities | undefined {
    return this.#connection?.capabilities;
  }

  // ---- connection ----

  /**
   * Connects: reads the app version and the account's address. The first connect shows the address on the device
   * for the user to confirm; later connects read it silently (app ≥ 1.4.1).
   */
  async requestAccounts(context: RequestContext = {}): Promise<string[]> {
    return this.#guard(async () => {
      this.#checkOrigin(context);
      if (this.#connection) return [this.#connection.address];
      return this.#device('requestAccounts', context, async (app) => {
        if (this.#connection) return [this.#connection.address];
        const appVersion = await app.getAppVersion(context);
        const extension = await app.getCapabilities(context);
        const display = !this.#connectedBefore || !supports(appVersion, 'silentAddress');
        if (display) this.#action('requestAccounts', 'confirm', 'Confirm the address on your Ledger');
        const address = await app.getAddress(this.accountIndex, { display, signal: context.signal });
        const capabilities: Capabilities = {
          appVersion,
          silentAddress: supports(appVersion, 'silentAddress'),
          signMessage: supports(appVersion, 'signMessage'),
          signFieldElement: supports(appVersion, 'signFieldElement'),
          extension,
        };
        this.#connection = { address, capabilities };
        this.#connectedBefore = true;
        this.#emit('accountsChanged', [address]);
        return [address];
      });
    });
  }

  /** The connected account, or [] (never touches the device). */
  async getAccounts(context: RequestContext = {}): Promise<string[]> {
    return this.#guard(async () => {
      this.#checkOrigin(context);
      return this.#connection ? [this.#connection.address] : [];
    });
  }

  async disconnect(): Promise<void> {
    this.#drop(new ProviderError(ErrorCode.NotConnected, { reason: 'disconnected by the page' }));
  }

  /**
   * Switches the network (`{ networkID: 'mina:mainnet' | 'mina:devnet' | 'mina:local' }`) and emits `chainChanged`.
   * The key is the same on every network; signatures differ by network id.
   */
  async switchChain(args: unknown, context: RequestContext = {}): Promise<{ networkID: string }> {
    return this.#guard(async () => {
      this.#checkOrigin(context);
      const networkID = (args as { networkID?: unknown } | null)?.networkID;
      const network = typeof networkID === 'string' ? /^mina:(mainnet|devnet|local)$/.exec(networkID)?.[1] : undefined;
      if (!network) throw invalidParams('networkID', 'must be "mina:mainnet", "mina:devnet" or "mina:local"');
      if (network !== this.#network) {
        this.#network = network as Network;
        this.#emit('chainChanged', this.chainId);
      }
      return { networkID: this.chainId };
    });
  }

  on<E extends EventName>(event: E, listener: Listener<E>): void {
    if (!this.#listeners.has(event)) this.#listeners.set(event, new Set());
    this.#listeners.get(event)!.add(listener as AnyListener);
  }

  off<E extends EventName>(event: E, listener: Listener<E>): void {
    this.#listeners.get(event)?.delete(listener as AnyListener);
  }

  // ---- methods ----

  /** Legacy message signing (INS 05). The signature is verified on the host before it is returned. */
  async signMessage(args: unknown, options: RequestContext = {}): Promise<SignedMessage> {
    return this.#method('signMessage', args, options, signMessageParams, async (params, app, address) => {
      if (params.message.startsWith('chain-ledger credential store')) {
        throw invalidParams('message', 'reserved: this text keys the credential store and is never signed for a page');
      }
      this.#action('signMessage', 'confirm', 'Review the message on your Ledger and approve');
      const signed = await app.signMessage(this.accountIndex, params.message, this.networkId, options);
      const result = { publicKey: address, data: signed.signedMessage, signature: { field: signed.field, scalar: signed.scalar } };
      const verifiers = await messageVerifiers();
      const verifier = this.networkId === 1 ? verifiers.mainnet : verifiers.testnet;
      if (!verifier.verifyMessage(result)) {
        throw new ProviderError(ErrorCode.Internal, { reason: 'the Ledger returned a message signature that does not verify for this account' });
      }
      return result;
    });
  }

  /**
   * A nullifier for `message` (1–64 field elements) and the connected account, made on the Ledger (extension
   * CREATE_NULLIFIER), completed and verified on the host with o1js. `data` is the message as given.
   */
  async createNullifier(args: unknown, options: RequestContext = {}): Promise<NullifierJson & { data: unknown[] }> {
    return this.#method('createNullifier', args, options, createNullifierParams, async (params, app, address) => {
      if (!this.#connection!.capabilities.extension?.createNullifier) throw this.#needsExtension('nullifier', 'CREATE_NULLIFIER');
      this.#action('createNullifier', 'confirm', 'Review the nullifier request on your Ledger and approve');
      const device = await app.createNullifier(this.accountIndex, params.message, options);
      const nullifier = await completeNullifier(address, params.message, device);
      return { ...nullifier, data: [...(args as { message: unknown[] }).message] };
    });
  }

  /**
   * A presentation of stored credentials for a verifier's request (mina-attestations): the owner signature is made
   * on the Ledger (extension SIGN_FIELDS), the proof on the host. Result `{ presentation }`, JSON text.
   */
  async requestPresentation(args: unknown, options: RequestContext = {}): Promise<{ presentation: string }> {
    return this.#method('requestPresentation', args, options, requestPresentationParams, async (params, app, address) => {
      if (!this.#connection!.capabilities.extension?.signFields) {
        throw this.#needsExtension('multi-field signing (the presentation owner signature)', 'SIGN_FIELDS');
      }
      const ctx = await this.#credentialContext('requestPresentation', app, address, options);
      return requestPresentation(
        { ...ctx, origin: this.origin, selectCredentials: this.#options.selectCredentials },
        params.presentation.presentationRequest,
      );
    });
  }

  /**
   * A zkApp command signed on the Ledger (INS 06, blind signing; the device shows only the commitment), verified on
   * the host, then broadcast (`{ hash }`) or returned (`onlySign: true` → `{ signedData }`). See docs/provider.md.
   */
  async sendTransaction(args: unknown, options: RequestContext = {}): Promise<SendTransactionResult> {
    return this.#method('sendTransaction', args, options, sendTransactionParams, async (params, app, address) => {
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
          localChain: this.network === 'local' ? () => this.localChain() : undefined,
          nonces: this.#nonces,
          signal: options.signal,
          onConfirm: (i, n) =>
            this.#action('sendTransaction', 'confirm', `Blind-sign the zkApp commitment on your Ledger (${i} of ${n})`),
        },
        params,
      );
    });
  }

  /** The in-process chain of `network: 'local'` (created on first use). */
  localChain(): Promise<LocalChain> {
    if (this.network !== 'local') return Promise.reject(invalidParams('network', 'only a "local" provider has a local chain'));
    this.#localChain ??= this.#options.localChain ? Promise.resolve(this.#options.localChain) : createLocalChain();
    return this.#localChain;
  }

  /**
   * Validates a private credential (mina-attestations), checks that it belongs to the connected account, asks the
   * user to approve it on the Ledger, and stores it encrypted. Result `{ credential }`, JSON text.
   */
  async storePrivateCredential(args: unknown, options: RequestContext = {}): Promise<{ credential: string }> {
    return this.#method('storePrivateCredential', args, options, storePrivateCredentialParams, async (params, app, address) =>
      storePrivateCredential(await this.#credentialContext('storePrivateCredential', app, address, options), params.credential),
    );
  }

  /** The credentials stored for the connected account (the store key is derived on the device once per connection). */
  async listCredentials(args: unknown = {}, options: RequestContext = {}) {
    return this.#method('listCredentials', args, options, emptyParams, async (_params, app, address) => {
      const ctx = await this.#credentialContext('listCredentials', app, address, options);
      return ctx.store.list(address, await ctx.storeSecret());
    });
  }

  /** Deletes a stored credential of the connected account by id; false if it was not there. */
  async deleteCredential(args: unknown, options: RequestContext = {}) {
    return this.#method('deleteCredential', args, options, deleteCredentialParams, async (params, app, address) => {
      const ctx = await this.#credentialContext('deleteCredential', app, address, options);
      return ctx.store.remove(address, await ctx.storeSecret(), params.id);
    });
  }

  async #credentialContext(method: string, app: MinaLedgerApp, address: string, options: RequestContext) {
    const connection = this.#connection!;
    const { appVersion } = connection.capabilities;
    // The store key comes from a deterministic INS 05 signature; 1.4.0–1.4.4 sign other texts than later apps.
    if (!supports(appVersion, 'echoedMessage')) {
      throw new ProviderError(ErrorCode.MethodNotSupported, {
        reason: `the credential store needs Mina app 1.4.5 or newer (its key comes from a signed message); the device runs ${appVersion.version}`,
      });
    }
    const verifiers = await messageVerifiers();
    const verifier = this.networkId === 1 ? verifiers.mainnet : verifiers.testnet;
    return {
      app,
      address,
      accountIndex: this.accountIndex,
      networkId: this.networkId,
      store: await this.#store(),
      signal: options.signal,
      onConfirm: (prompt: string) => this.#action(method, 'confirm', prompt),
      verifyMessage: (signed: { field: string; scalar: string; signedMessage: string }) =>
        verifier.verifyMessage({ data: signed.signedMessage, publicKey: address, signature: { field: signed.field, scalar: signed.scalar } }),
      storeSecret: async () => {
        if (!connection.storeSecret) {
          this.#action(method, 'confirm', `Approve "${STORE_KEY_MESSAGE}" on your Ledger to unlock your credentials`);
          const signed = await app.signMessage(this.accountIndex, STORE_KEY_MESSAGE, 1, { signal: options.signal });
          const signature = { field: signed.field, scalar: signed.scalar };
          if (!verifiers.mainnet.verifyMessage({ data: signed.signedMessage, publicKey: address, signature })) {
            throw new ProviderError(ErrorCode.Internal, { reason: 'the Ledger returned a store-key signature that does not verify' });
          }
          connection.storeSecret = sha256(fromHex(signatureToRawHex(signature)));
        }
        return connection.storeSecret;
      },
    };
  }

  #store(): Promise<CredentialStore> {
    this.#credentialStore ??= this.#options.credentialStore ? Promise.resolve(this.#options.credentialStore) : defaultCredentialStore();
    return this.#credentialStore;
  }

  /** The wallet-side entry point: `{ method: 'chain_…', params }`, params as an object or a one-element array. */
  async request(args: { method: string; params?: unknown }, context: RequestContext = {}): Promise<unknown> {
    return this.#guard(async () => {
      if (typeof args !== 'object' || args === null || typeof args.method !== 'string') {
        throw invalidParams('method', 'request needs { method, params }');
      }
      if (!Object.hasOwn(METHODS, args.method)) {
        throw new ProviderError(ErrorCode.MethodNotSupported, { reason: `unknown method ${JSON.stringify(args.method.slice(0, 64))}` });
      }
      const name = METHODS[args.method as WalletMethod];
      if (name === 'requestAccounts' || name === 'getAccounts') return this[name](context);
      return this[name](unwrapParams(args.params), context);
    });
  }

  // ---- pipeline ----

  async #method<S extends Parameters<typeof parseParams>[0], T>(
    method: string,
    args: unknown,
    options: RequestContext,
    schema: S,
    body: (params: ReturnType<typeof parseParams<S>>, app: MinaLedgerApp, address: string) => Promise<T>,
  ): Promise<T> {
    return this.#guard(async () => {
      this.#checkOrigin(options);
      const connection = this.#connection;
      if (!connection) throw new ProviderError(ErrorCode.NotConnected, { reason: 'not connected: call requestAccounts() first' });
      const params = parseParams(schema, args);
      return this.#device(method, options, async (app) => {
        // The connection may have gone (an unplug, disconnect()) while this call waited for the device.
        if (this.#connection !== connection) {
          throw new ProviderError(ErrorCode.NotConnected, { reason: 'the Ledger was disconnected while this call waited: connect again' });
        }
        return body(params, app, connection.address);
      });
    });
  }

  /** Runs device work holding the device's method lock; reports to `onDeviceAction` when it ends. */
  async #device<T>(method: string, options: CallOptions, work: (app: MinaLedgerApp) => Promise<T>): Promise<T> {
    const app = this.#client();
    let lock = methodLocks.get(app.transport);
    if (!lock) methodLocks.set(app.transport, (lock = new FifoLock()));
    return lock.run(async () => {
      try {
        return await work(app);
      } finally {
        this.#action(method, 'done', '');
      }
    }, options.signal);
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
    assertSameOrigin(this.origin, context.origin ?? browserOrigin() ?? this.origin);
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
      throw toProviderError(error);
    }
  }

  #drop(reason: ProviderError): void {
    if (!this.#connection) return;
    this.#connection = undefined;
    this.#emit('disconnect', reason);
    this.#emit('accountsChanged', []);
  }

  #action(method: string, status: DeviceAction['status'], prompt: string): void {
    try {
      this.#options.onDeviceAction?.({ method, status, prompt });
    } catch {
      // A failing UI hook must not break the call.
    }
  }

  #emit<E extends EventName>(event: E, ...args: EventMap[E]): void {
    for (const listener of [...(this.#listeners.get(event) ?? [])]) {
      try {
        listener(...args);
      } catch {
        // A page's listener error is the page's; it must not break the provider.
      }
    }
  }
}

function unwrapParams(params: unknown): unknown {
  if (!Array.isArray(params)) return params;
  if (params.length !== 1) throw invalidParams('params', 'must be an object, or an array holding exactly one object');
  return params[0];
}

/**
 * The message whose (deterministic) Ledger signature keys the credential store, on network id 1 whatever the
 * provider's network, so one key serves every network. `signMessage` refuses to sign it for a page.
 */
export const STORE_KEY_MESSAGE = 'chain-ledger credential store key v1';

async function defaultCredentialStore(): Promise<CredentialStore> {
  if (typeof indexedDB !== 'undefined' && typeof process === 'undefined') {
    const { IndexedDbCredentialStore } = await import('../credentials/index.js');
    return new IndexedDbCredentialStore();
  }
  const [{ FileCredentialStore }, { homedir }, { join }] = await Promise.all([
    import('../credentials/node.js'),
    import('node:os'),
    import('node:path'),
  ]);
  const base = process.env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return new FileCredentialStore(join(base, 'chain-ledger', 'credentials'));
}

export function createLedgerProvider(options: LedgerProviderOptions): LedgerProvider {
  return new LedgerProvider(options);
}
