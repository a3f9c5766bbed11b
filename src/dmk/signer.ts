/**
 * The Mina signer on Ledger's Device Management Kit, shaped as Ledger's own signer kits are
 * (`new SignerSolanaBuilder({ dmk, sessionId }).build()`): each method returns DMK's `{ observable, cancel }` of a
 * device action that opens the Mina app for the user, then runs one command of src/device/commands.ts — the command
 * `MinaLedgerApp`'s method of the same name runs, with the same arguments and errors (device-action.ts). Input is
 * checked before anything reaches the device: a bad argument ends the action with a `MinaAppError` carrying the
 * `LedgerInputError`, and nothing is sent.
 */
import type { DeviceManagementKit, DeviceSessionId, InternalApi } from '@ledgerhq/device-management-kit';
import type { AccountOrPath } from '../apdu/arguments.js';
import type { NetworkId, PaymentOrDelegation } from '../apdu/codec.js';
import type { DeviceNullifier, PresentationToSign, SignatureDomain } from '../apdu/extension.js';
import type { TextToSign } from '../apdu/sign-text.js';
import type { ZkappSignatures, ZkappStream } from '../apdu/sign-zkapp.js';
import type { MinaSignature } from '../apdu/signature.js';
import { prepareCommand, type PreparedCommand } from '../device/command-runner.js';
import type { AddressOptions, MinaAddress, MinaAppConfiguration } from '../device/commands.js';
import { DMK_STORE_KEY_REFUSAL, internalApiChannel } from './apdu-transport.js';
import { MinaCommandAction, type MinaActionOptions, type MinaDeviceAction } from './device-action.js';

export type { MinaAddress, MinaAppConfiguration, MinaDeviceAction };

export interface GetAddressActionOptions extends MinaActionOptions, AddressOptions {}

/**
 * The Mina app's instructions (INS 01–06) and the chain-ledger protocol extension (INS 0xA0–0xA5) as device actions,
 * one per command of `MinaLedgerApp` (same names, arguments and errors; see its methods for each one's details). An
 * account is its index N or its derivation path `"44'/12586'/N'/0/0"`; any other path is refused before the device.
 */
export interface SignerMina {
  /** INS 01 and GET_CAPABILITIES (0xA0): the version and extension (`blindSigningEnabled` is absent: no app reports it). */
  getAppConfiguration(options?: MinaActionOptions): MinaDeviceAction<MinaAppConfiguration>;
  /** INS 02: the account's address and public key, shown on the device with `checkOnDevice`. */
  getAddress(derivationPath: AccountOrPath, options?: GetAddressActionOptions): MinaDeviceAction<MinaAddress>;
  /** INS 03: a payment or stake delegation, reviewed in clear; mina-signer's `{ field, scalar }`. */
  signTransaction(tx: PaymentOrDelegation, options?: MinaActionOptions): MinaDeviceAction<MinaSignature>;
  /** INS 05 (app ≥ 1.4.0): 1–65 printable ASCII characters, as text or bytes; the signature and the text signed. */
  signMessage(
    derivationPath: AccountOrPath,
    message: string | Uint8Array,
    networkId: NetworkId,
    options?: MinaActionOptions,
  ): MinaDeviceAction<MinaSignature & { signedMessage: string }>;
  /** INS 06 (app ≥ 1.6.0): one field element, e.g. a zkApp commitment (blind signing). */
  signFieldElement(
    derivationPath: AccountOrPath,
    field: bigint,
    networkId: NetworkId,
    options?: MinaActionOptions,
  ): MinaDeviceAction<MinaSignature>;
  /** SIGN_FIELDS (0xA1, extension): 2–64 field elements. */
  signFields(
    derivationPath: AccountOrPath,
    fields: bigint[],
    domain?: SignatureDomain,
    options?: MinaActionOptions,
  ): MinaDeviceAction<MinaSignature>;
  /** CREATE_NULLIFIER (0xA2, extension): the nullifier and its proof values; the caller verifies them (src/nullifier). */
  createNullifier(
    derivationPath: AccountOrPath,
    fields: bigint[],
    options?: MinaActionOptions & { origin?: string },
  ): MinaDeviceAction<DeviceNullifier>;
  /** SIGN_ZKAPP (0xA3, extension 1.1): a zkApp command in clear; the caller compares the commitments and verifies. */
  signZkapp(stream: ZkappStream, options?: MinaActionOptions): MinaDeviceAction<ZkappSignatures>;
  /** SIGN_PRESENTATION (0xA4, extension 1.1): a presentation's owner signature and the context the device computed. */
  signPresentation(
    presentation: PresentationToSign,
    options?: MinaActionOptions,
  ): MinaDeviceAction<{ context: bigint; r: bigint; s: bigint }>;
  /** SIGN_TEXT (0xA5, extension 1.2): a message of up to 1024 bytes of UTF-8, shown with the origin asking. */
  signText(text: TextToSign, options?: MinaActionOptions): MinaDeviceAction<MinaSignature>;
}

class DefaultSignerMina implements SignerMina {
  constructor(
    private readonly dmk: DeviceManagementKit,
    private readonly sessionId: DeviceSessionId,
    private readonly storeKeyRefusal: string | undefined,
  ) {}

  getAppConfiguration(options?: MinaActionOptions) {
    return this.#run(() => prepareCommand('getAppConfiguration'), options);
  }

  getAddress(derivationPath: AccountOrPath, options: GetAddressActionOptions = {}) {
    return this.#run(() => prepareCommand('getAddress', derivationPath, options), options);
  }

  signTransaction(tx: PaymentOrDelegation, options?: MinaActionOptions) {
    return this.#run(() => prepareCommand('signTransaction', tx), options);
  }

  signMessage(derivationPath: AccountOrPath, message: string | Uint8Array, networkId: NetworkId, options?: MinaActionOptions) {
    return this.#run(() => prepareCommand('signMessage', derivationPath, message, networkId), options);
  }

  signFieldElement(derivationPath: AccountOrPath, field: bigint, networkId: NetworkId, options?: MinaActionOptions) {
    return this.#run(() => prepareCommand('signFieldElement', derivationPath, field, networkId), options);
  }

  signFields(derivationPath: AccountOrPath, fields: bigint[], domain: SignatureDomain = 'testnet', options?: MinaActionOptions) {
    return this.#run(() => prepareCommand('signFields', derivationPath, fields, domain), options);
  }

  createNullifier(derivationPath: AccountOrPath, fields: bigint[], options: MinaActionOptions & { origin?: string } = {}) {
    return this.#run(() => prepareCommand('createNullifier', derivationPath, fields, options.origin), options);
  }

  signZkapp(stream: ZkappStream, options?: MinaActionOptions) {
    return this.#run(() => prepareCommand('signZkapp', stream), options);
  }

  signPresentation(presentation: PresentationToSign, options?: MinaActionOptions) {
    return this.#run(() => prepareCommand('signPresentation', presentation), options);
  }

  signText(text: TextToSign, options?: MinaActionOptions) {
    return this.#run(() => prepareCommand('signText', text), options);
  }

  /**
   * Executes the device action of a command, once `prepare` checked and encoded its arguments. A refused input runs
   * an action that opens nothing and fails at once: the caller sees the same handle and states either way, and the
   * device sees nothing.
   */
  #run<Output>(prepare: () => PreparedCommand<Output>, options: MinaActionOptions = {}): MinaDeviceAction<Output> {
    let command: PreparedCommand<Output>;
    let skipOpenApp = options.skipOpenApp;
    try {
      command = prepare();
    } catch (error) {
      command = { run: () => Promise.reject(error) };
      skipOpenApp = true;
    }
    const channelOf = (api: InternalApi) => internalApiChannel(api, () => this.storeKeyRefusal);
    const deviceAction = new MinaCommandAction(command, channelOf, { skipOpenApp });
    return this.dmk.executeDeviceAction({ sessionId: this.sessionId, deviceAction });
  }
}

/**
 * Builds the Mina signer for one DMK session, as Ledger's signer kits are built.
 *
 * @example
 * ```ts
 * import { SignerMinaBuilder, minaSignerSteps, toPromise } from 'chain-ledger/dmk';
 * const signer = new SignerMinaBuilder({ dmk, sessionId }).build();
 * const { observable, cancel } = signer.getAddress("44'/12586'/0'/0/0", { checkOnDevice: true });
 * observable.subscribe((state) => console.log(state.status)); // pending (openApp, getAddress: verify-address) → completed
 * const { address, publicKey } = await toPromise(signer.getAddress(0)); // or as a promise
 * ```
 */
export class SignerMinaBuilder {
  readonly #dmk: DeviceManagementKit;
  readonly #sessionId: DeviceSessionId;
  readonly #noDebugLogger: boolean;

  /**
   * @param args - The Device Management Kit and a connected session (`dmk.connect({ device })`). `noDebugLogger:
   *   true` states that no logger at `LogLevel.Debug` is added to the kit: only then does the signer send the
   *   credential store's key request (DMK logs every reply at that level; docs/transports.md).
   */
  constructor(args: { dmk: DeviceManagementKit; sessionId: DeviceSessionId; noDebugLogger?: boolean }) {
    this.#dmk = args.dmk;
    this.#sessionId = args.sessionId;
    this.#noDebugLogger = args.noDebugLogger === true;
  }

  /** The signer of that session. */
  build(): SignerMina {
    return new DefaultSignerMina(this.#dmk, this.#sessionId, this.#noDebugLogger ? undefined : DMK_STORE_KEY_REFUSAL);
  }
}
