/**
 * The Mina signer on Ledger's Device Management Kit, shaped as Ledger's own signer kits are
 * (`new SignerSolanaBuilder({ dmk, sessionId }).build()`): each method returns DMK's `{ observable, cancel }` of a
 * device action that opens the Mina app for the user, then runs the instruction (device-action.ts). Input is checked
 * by the codec before anything reaches the device: a bad argument ends the action with a `MinaAppError` carrying the
 * `LedgerInputError`, and nothing is sent.
 */
import type { DeviceManagementKit, DeviceSessionId, UserInteractionRequired } from '@ledgerhq/device-management-kit';
import { encodeGetAddress, encodeSignFieldElement, encodeSignMessage, encodeSignTransaction } from '../apdu/codec.js';
import type { NetworkId, PaymentOrDelegation } from '../apdu/codec.js';
import {
  encodeCreateNullifier,
  encodeSignFields,
  encodeSignPresentation,
  type DeviceNullifier,
  type ExtensionCapabilities,
  type PresentationToSign,
  type SignatureDomain,
} from '../apdu/extension.js';
import { encodeSignZkapp, type ZkappSignatures, type ZkappStream } from '../apdu/sign-zkapp.js';
import type { MinaSignature } from '../apdu/signature.js';
import type { MinaLedgerApp } from '../device/client.js';
import { minaAppAction, type MinaActionOptions, type MinaDeviceAction } from './device-action.js';

export type { MinaDeviceAction };

/** The Mina app's version and the chain-ledger protocol extension it speaks (null: the released app). */
export interface MinaAppConfiguration {
  version: string;
  extension: ExtensionCapabilities | null;
}

export interface GetAddressActionOptions extends MinaActionOptions {
  /** Show the address on the device and wait for the user's approval (default false: read silently, app ≥ 1.4.1). */
  checkOnDevice?: boolean;
}

/** The Mina app's instructions (INS 01–06) and the chain-ledger protocol extension (INS 0xA0–0xA4) as device actions. */
export interface SignerMina {
  /** INS 01 and GET_CAPABILITIES (0xA0): the app's version and extension. */
  getAppConfiguration(options?: MinaActionOptions): MinaDeviceAction<MinaAppConfiguration>;
  /** INS 02: the address of account N (m/44'/12586'/N'/0/0), shown on the device with `checkOnDevice`. */
  getAddress(account: number, options?: GetAddressActionOptions): MinaDeviceAction<string>;
  /** INS 03: a payment or stake delegation, reviewed in clear; mina-signer's `{ field, scalar }`. */
  signTransaction(tx: PaymentOrDelegation, options?: MinaActionOptions): MinaDeviceAction<MinaSignature>;
  /** INS 05 (app ≥ 1.4.0): a message signature and the text the device signed. */
  signMessage(
    account: number,
    message: string,
    networkId: NetworkId,
    options?: MinaActionOptions,
  ): MinaDeviceAction<MinaSignature & { signedMessage: string }>;
  /** INS 06 (app ≥ 1.6.0): one field element, e.g. a zkApp commitment (blind signing). */
  signFieldElement(account: number, field: bigint, networkId: NetworkId, options?: MinaActionOptions): MinaDeviceAction<MinaSignature>;
  /** SIGN_FIELDS (0xA1, extension): 2–64 field elements. */
  signFields(account: number, fields: bigint[], domain?: SignatureDomain, options?: MinaActionOptions): MinaDeviceAction<MinaSignature>;
  /** CREATE_NULLIFIER (0xA2, extension): the nullifier and its proof values; the caller verifies them (src/nullifier). */
  createNullifier(account: number, fields: bigint[], options?: MinaActionOptions & { origin?: string }): MinaDeviceAction<DeviceNullifier>;
  /** SIGN_ZKAPP (0xA3, extension 1.1): a zkApp command in clear; the caller compares the commitments and verifies. */
  signZkapp(stream: ZkappStream, options?: MinaActionOptions): MinaDeviceAction<ZkappSignatures>;
  /** SIGN_PRESENTATION (0xA4, extension 1.1): a presentation's owner signature and the context the device computed. */
  signPresentation(
    presentation: PresentationToSign,
    options?: MinaActionOptions,
  ): MinaDeviceAction<{ context: bigint; r: bigint; s: bigint }>;
}

/** The user interactions of `UserInteractionRequired` the Mina signer reports (string values of DMK's enum). */
const NONE = 'none' as UserInteractionRequired.None;
const VERIFY_ADDRESS = 'verify-address' as UserInteractionRequired.VerifyAddress;
const SIGN_TRANSACTION = 'sign-transaction' as UserInteractionRequired.SignTransaction;
const SIGN_MESSAGE = 'sign-personal-message' as UserInteractionRequired.SignPersonalMessage;
const SIGN_TYPED_DATA = 'sign-typed-data' as UserInteractionRequired.SignTypedData;

class DefaultSignerMina implements SignerMina {
  constructor(
    private readonly dmk: DeviceManagementKit,
    private readonly sessionId: DeviceSessionId,
  ) {}

  getAppConfiguration(options?: MinaActionOptions): MinaDeviceAction<MinaAppConfiguration> {
    return this.#run(
      () => {},
      async (app) => ({ version: (await app.getAppVersion()).version, extension: await app.getCapabilities() }),
      NONE,
      options,
    );
  }

  getAddress(account: number, options: GetAddressActionOptions = {}): MinaDeviceAction<string> {
    const display = options.checkOnDevice === true;
    return this.#run(
      () => encodeGetAddress(account, display),
      (app) => app.getAddress(account, { display }),
      display ? VERIFY_ADDRESS : NONE,
      options,
    );
  }

  signTransaction(tx: PaymentOrDelegation, options?: MinaActionOptions): MinaDeviceAction<MinaSignature> {
    return this.#run(
      () => encodeSignTransaction(tx),
      (app) => app.signTransaction(tx),
      SIGN_TRANSACTION,
      options,
    );
  }

  signMessage(account: number, message: string, networkId: NetworkId, options?: MinaActionOptions) {
    return this.#run(
      () => encodeSignMessage(account, message, networkId),
      (app) => app.signMessage(account, message, networkId),
      SIGN_MESSAGE,
      options,
    );
  }

  signFieldElement(account: number, field: bigint, networkId: NetworkId, options?: MinaActionOptions): MinaDeviceAction<MinaSignature> {
    return this.#run(
      () => encodeSignFieldElement(account, field, networkId),
      (app) => app.signFieldElement(account, field, networkId),
      SIGN_TRANSACTION,
      options,
    );
  }

  signFields(
    account: number,
    fields: bigint[],
    domain: SignatureDomain = 'testnet',
    options?: MinaActionOptions,
  ): MinaDeviceAction<MinaSignature> {
    return this.#run(
      () => encodeSignFields(account, fields, domain),
      (app) => app.signFields(account, fields, domain),
      SIGN_TYPED_DATA,
      options,
    );
  }

  createNullifier(
    account: number,
    fields: bigint[],
    options: MinaActionOptions & { origin?: string } = {},
  ): MinaDeviceAction<DeviceNullifier> {
    const { origin } = options;
    return this.#run(
      () => encodeCreateNullifier(account, fields, origin),
      (app) => app.createNullifier(account, fields, origin === undefined ? {} : { origin }),
      SIGN_TYPED_DATA,
      options,
    );
  }

  signZkapp(stream: ZkappStream, options?: MinaActionOptions): MinaDeviceAction<ZkappSignatures> {
    return this.#run(
      () => encodeSignZkapp(stream),
      (app) => app.signZkapp(stream),
      SIGN_TRANSACTION,
      options,
    );
  }

  signPresentation(presentation: PresentationToSign, options?: MinaActionOptions) {
    return this.#run(
      () => encodeSignPresentation(presentation),
      (app) => app.signPresentation(presentation),
      SIGN_TYPED_DATA,
      options,
    );
  }

  /**
   * Executes the device action of `task`, after `check` (the codec's encoder, which refuses bad input naming the
   * field). A refused input runs an action that opens nothing and fails at once: the caller sees the same handle and
   * states either way, and the device sees nothing.
   */
  #run<Output>(
    check: () => unknown,
    task: (app: MinaLedgerApp) => Promise<Output>,
    interaction: UserInteractionRequired,
    options: MinaActionOptions = {},
  ): MinaDeviceAction<Output> {
    let deviceAction = minaAppAction(task, interaction, options);
    try {
      check();
    } catch (error) {
      deviceAction = minaAppAction<Output>(() => Promise.reject(error), NONE, { skipOpenApp: true });
    }
    return this.dmk.executeDeviceAction({ sessionId: this.sessionId, deviceAction });
  }
}

/**
 * Builds the Mina signer for one DMK session, as Ledger's signer kits are built.
 *
 * @example
 * ```ts
 * import { SignerMinaBuilder, toPromise } from 'chain-ledger/dmk';
 * const signer = new SignerMinaBuilder({ dmk, sessionId }).build();
 * const { observable, cancel } = signer.getAddress(0, { checkOnDevice: true });
 * observable.subscribe((state) => console.log(state.status)); // pending (confirm-open-app, verify-address) → completed
 * const address = await toPromise(signer.getAddress(0)); // or as a promise
 * ```
 */
export class SignerMinaBuilder {
  readonly #dmk: DeviceManagementKit;
  readonly #sessionId: DeviceSessionId;

  /**
   * @param args - The Device Management Kit and a connected session (`dmk.connect({ device })`).
   */
  constructor(args: { dmk: DeviceManagementKit; sessionId: DeviceSessionId }) {
    this.#dmk = args.dmk;
    this.#sessionId = args.sessionId;
  }

  /** The signer of that session. */
  build(): SignerMina {
    return new DefaultSignerMina(this.#dmk, this.#sessionId);
  }
}
