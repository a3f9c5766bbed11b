/**
 * A context per call: one object, built once per call, that each domain reads through the narrow context type it
 * declares itself (`SendTransactionContext`, `LegacyCommandContext`, `MessageContext`, `NullifierContext`,
 * `CredentialContext`, `PresentationContext`). The provider hands the call's context over whole and never copies
 * fields for one method; a domain that needs something new declares it, and the call context supplies it here, once.
 *
 * `CallContexts` also holds what the calls of one provider share: the nonces it broadcast, its local chain and its
 * credential store, each made on first use.
 */
import type { NetworkId } from '../apdu/codec.js';
import { STORE_KEY_MESSAGE } from '../apdu/store-key.js';
import { supports } from '../apdu/version.js';
import type { Capabilities } from '../device/capabilities.js';
import type { MinaLedgerApp } from '../device/client.js';
import { defaultCredentialStore, deriveStoreSecret } from '../credentials/store-key.js';
import type { CredentialStore } from '../credentials/store.js';
import { ErrorCode, ProviderError, invalidParams } from '../errors/provider-error.js';
import type { ConfirmPresentation, PresentationNotSatisfied, SelectCredentials } from '../presentations/request-presentation.js';
import { DEFAULT_PRESENTATION_LIMITS, type PresentationLimits } from '../presentations/runner.js';
import { storeKeyRefusal } from '../transport/quiet-exchange.js';
import type { Era } from '../upstream/mina-signer-internals.js';
import { accountMessageVerifier } from '../upstream/mina-signers.js';
import type { ReportProgress } from '../util/progress.js';
import { createLocalChain, type LocalChain } from '../zkapp/local-chain.js';
import { NonceTracker } from '../zkapp/nonces.js';
import type { BeyondSpendCap } from '../zkapp/spend-cap.js';
import type { ZkappSummary } from '../zkapp/summary.js';
import type { ConnectedAccount, DeviceConnection } from './connection.js';
import type { CurrentNetwork } from './current-network.js';
import type { Endpoint } from './networks.js';
import type { CheckedOptions, LedgerProviderOptions, Network } from './options.js';
import type { CallReport } from './progress.js';

/**
 * What a method answered on the host is handed (no device held: ./methods.ts `onHost`): the provider's network and
 * connection as they are now, and the call's signal.
 */
export interface HostContext {
  network: CurrentNetwork;
  connection: DeviceConnection;
  /** Aborts when the caller's signal does; for a `pending` method also when `rejectPending()` runs. */
  signal: AbortSignal;
  /** `requestAccounts`: the account already connected, or a connect holding the device (the first shows the address). */
  connect(): Promise<string[]>;
}

/**
 * What one call brings to its context: the device it holds, the connected account, the network now (its kind and
 * the GraphQL endpoint used on it), its signal, its reports.
 */
export interface CallParts {
  app: MinaLedgerApp;
  /** Runs one device step holding the device (see `CallContext.withDevice`). */
  withDevice: WithDevice;
  account: ConnectedAccount;
  network: Network;
  /** The network's id and name (`zeko:testnet`, "Zeko Testnet"), as summaries name it. */
  chain: { id: string; name: string };
  endpoint: Endpoint | undefined;
  signal: AbortSignal;
  report: CallReport;
}

/** Runs `step` with the device held: no other call's exchange reaches the device until it settles. */
export type WithDevice = <T>(step: (app: MinaLedgerApp) => Promise<T>) => Promise<T>;

/** Everything a domain may read during one call. */
export interface CallContext {
  app: MinaLedgerApp;
  /**
   * Runs a device step (one or more prompts that belong together) holding the device. For most methods the whole
   * call holds it already and this runs the step at once; a method whose row says `hold: 'steps'` (a presentation,
   * whose compile and proof take minutes) holds it only here, so another call's prompt is served meanwhile. Nested
   * steps run inside the outer one.
   */
  withDevice: WithDevice;
  address: string;
  accountIndex: number;
  /** The provider's bound origin. */
  origin: string;
  network: Network;
  /** The network's id and name, as summaries name it. */
  chain: { id: string; name: string };
  /** 1 on mainnet, else 0. */
  networkId: NetworkId;
  /** What the connected app can do, read at connect. */
  capabilities: Capabilities;
  /** Aborts when the caller's signal does or `rejectPending()` runs. */
  signal: AbortSignal;
  /** Before each device review: tells `onDeviceAction` (`confirm`) and `onProgress` (`confirm-on-device`). */
  onConfirm: (prompt: string) => void;
  /** The stages of the call, for `onProgress`. */
  progress: ReportProgress;
  /** Runs a step whose stages are kept from `onProgress` (device prompts still go to `onDeviceAction`). */
  privately: <T>(step: () => Promise<T>) => Promise<T>;
  nonces: NonceTracker;
  graphqlUrl?: string;
  graphqlHeaders?: Record<string, string>;
  era?: Era;
  /** Largest fee, nanomina. */
  feeCap: bigint;
  /** Largest amount a zkApp command may take from the account, nanomina. */
  spendCap?: bigint;
  /** The integrator's look at a zkApp command, with the origin added. */
  confirmZkapp?: (summary: ZkappSummary) => boolean | Promise<boolean>;
  /** The holder's confirmation, by name, of a change beyond the spend cap, with the origin added. */
  confirmBeyondSpendCap?: (change: BeyondSpendCap) => boolean | Promise<boolean>;
  /** The integrator's opt-in to blind signing that nothing on the host reviews (zkApp commands, one-field signFields). */
  allowUnreviewedBlindSigning: boolean;
  /** On `network: 'local'`: the in-process chain. */
  localChain?: () => Promise<LocalChain>;
  /** The holder's review of a presentation request, with the origin it serves (the provider's). */
  confirmPresentation?: ConfirmPresentation;
  onPresentationNotSatisfied?: PresentationNotSatisfied;
  allowUnreviewedPresentations: boolean;
  selectCredentials?: SelectCredentials;
  o1jsCacheBytes?: number;
  /** What each host step of a presentation may take (the defaults filled in). */
  presentationLimits: PresentationLimits;
}

/** The context of a call that uses the credential store. */
export interface StoreCallContext extends CallContext {
  store: CredentialStore;
  /** The account's store secret: asks the device for the store-key approval once per connection. */
  storeSecret: () => Promise<Uint8Array>;
  /** Verifies an INS 05 signature of the connected account on the provider's network. */
  verifyMessage: (signed: { field: string; scalar: string; signedMessage: string }) => boolean;
}

/** The call contexts of one provider, and what its calls share. */
export class CallContexts {
  readonly #options: LedgerProviderOptions;
  readonly #checked: CheckedOptions;
  readonly #origin: string;
  readonly #nonces = new NonceTracker();
  #localChain: Promise<LocalChain> | undefined;
  #store: Promise<CredentialStore> | undefined;

  constructor(options: LedgerProviderOptions, checked: CheckedOptions, origin: string) {
    this.#options = options;
    this.#checked = checked;
    this.#origin = origin;
  }

  /** The context of one call; `withStore`: of a call that uses the credential store (its checks: `#openWithStore`). */
  open(call: CallParts, withStore = false): CallContext | Promise<StoreCallContext> {
    return withStore ? this.#openWithStore(call) : this.#open(call);
  }

  #open({ app, withDevice, account, network, chain, endpoint, signal, report }: CallParts): CallContext {
    const { era, confirmZkapp, confirmBeyondSpendCap, selectCredentials, o1jsCacheBytes, presentationLimits } = this.#options;
    const { confirmPresentation, onPresentationNotSatisfied } = this.#options;
    const origin = this.#origin;
    return {
      app,
      withDevice,
      address: account.address,
      accountIndex: this.#checked.accountIndex,
      origin,
      network,
      chain,
      networkId: network === 'mainnet' ? 1 : 0,
      capabilities: account.capabilities,
      signal,
      onConfirm: report.confirm,
      progress: report.progress,
      privately: report.privately,
      nonces: this.#nonces,
      graphqlUrl: endpoint?.url,
      graphqlHeaders: endpoint?.headers,
      era,
      feeCap: this.#checked.feeCap,
      spendCap: this.#checked.spendCap,
      confirmZkapp: confirmZkapp && ((summary) => confirmZkapp({ ...summary, origin })),
      confirmBeyondSpendCap: confirmBeyondSpendCap && ((change) => confirmBeyondSpendCap({ ...change, origin })),
      allowUnreviewedBlindSigning: this.#options.allowUnreviewedBlindSigning === true,
      localChain: network === 'local' ? () => this.localChain(network) : undefined,
      confirmPresentation: confirmPresentation ?? undefined,
      onPresentationNotSatisfied: onPresentationNotSatisfied ?? undefined,
      allowUnreviewedPresentations: this.#options.allowUnreviewedPresentations === true,
      selectCredentials: selectCredentials ?? undefined,
      o1jsCacheBytes,
      presentationLimits: { ...DEFAULT_PRESENTATION_LIMITS, ...presentationLimits },
    };
  }

  /**
   * A call that uses the credential store is refused (20006) on a transport that would publish the store key (on
   * @ledgerhq/logs, or in a DMK session's debug log): checked before the call holds the device, which on DMK would
   * already open the Mina app.
   */
  checkStoreKeyCarried(transport: object): void {
    const refusal = storeKeyRefusal(transport);
    if (refusal !== undefined) throw new ProviderError(ErrorCode.MethodNotSupported, { reason: refusal });
  }

  /**
   * The context of a call that uses the credential store (its transport checked before: `checkStoreKeyCarried`).
   * Refused (20006) on apps before 1.4.5: the key is a deterministic INS 05 signature, and 1.4.0–1.4.4 sign other
   * texts than later apps.
   */
  async #openWithStore(call: CallParts): Promise<StoreCallContext> {
    const { appVersion } = call.account.capabilities;
    if (!supports(appVersion, 'echoedMessage')) {
      throw new ProviderError(ErrorCode.MethodNotSupported, {
        reason: `the credential store needs Mina app 1.4.5 or newer (its key comes from a signed message); the device runs ${appVersion.version}`,
      });
    }
    const context = this.#open(call);
    const verifyMessage = await accountMessageVerifier(context.address, context.networkId);
    return { ...context, store: await this.#openStore(), verifyMessage, storeSecret: () => this.#storeSecret(context, call) };
  }

  /**
   * The in-process chain of `network: 'local'` (created on first use).
   * @throws `ProviderError` 20003 (as a rejected promise) on any other network.
   */
  localChain(network: Network): Promise<LocalChain> {
    if (network !== 'local') return Promise.reject(invalidParams('network', 'only a "local" provider has a local chain'));
    this.#localChain ??= this.#options.localChain ? Promise.resolve(this.#options.localChain) : createLocalChain();
    return this.#localChain;
  }

  #openStore(): Promise<CredentialStore> {
    this.#store ??= this.#options.credentialStore ? Promise.resolve(this.#options.credentialStore) : defaultCredentialStore();
    return this.#store;
  }

  async #storeSecret(context: CallContext, { account, report }: CallParts): Promise<Uint8Array> {
    if (account.storeSecret) return account.storeSecret;
    const { accountIndex, address, signal, origin } = context;
    const { appVersion, extension } = account.capabilities;
    // The extension's STORE_KEY shows the site asking; the released app's INS 05 shows only the text.
    const storeKey = extension?.storeKey ? { origin, appVersion } : undefined;
    return context.withDevice(async (app) => {
      // Another call of this connection may have derived it while this one waited for the device.
      if (account.storeSecret) return account.storeSecret;
      report.confirm(
        storeKey
          ? `Approve "Unlock credentials" for ${origin} on your Ledger`
          : `Approve "${STORE_KEY_MESSAGE}" on your Ledger to unlock your credentials`,
      );
      account.storeSecret = await deriveStoreSecret(app, accountIndex, address, { signal, storeKey });
      return account.storeSecret;
    });
  }
}
