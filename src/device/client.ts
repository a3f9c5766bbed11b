/**
 * `MinaLedgerApp`: the host-side client of the Mina Ledger app, over any structural transport.
 *
 * Each method runs one command of ./commands.ts (the DMK signer kit runs the same ones): its input validated before
 * anything is sent, the device held for the whole command (its version read, every chunk of its request: another
 * caller's exchanges wait in the device's queue), status words mapped to the error classes of src/apdu/errors.ts,
 * the reply validated. Methods that need a newer app read the version once (INS 01) and refuse with
 * `LedgerAppVersionError` before sending.
 */
import type { AccountOrPath } from '../apdu/arguments.js';
import type { NetworkId, PaymentOrDelegation } from '../apdu/codec.js';
import type { DeviceNullifier, ExtensionCapabilities, PresentationToSign, SignatureDomain } from '../apdu/extension.js';
import type { TextToSign } from '../apdu/sign-text.js';
import type { ZkappSignatures, ZkappStream } from '../apdu/sign-zkapp.js';
import type { MinaSignature } from '../apdu/signature.js';
import type { AppVersion } from '../apdu/version.js';
import { ExclusiveTransport, type HeldDevice } from '../transport/exclusive.js';
import type { ApduTransport, SendOptions } from '../transport/types.js';
import { channelOver, prepareCommand, type PreparedCommand } from './command-runner.js';
import type { AddressOptions, CommandChannel, MinaAppConfiguration } from './commands.js';
import type { StoreKeyRequest } from '../apdu/store-key.js';

export interface GetAddressOptions extends SendOptions, AddressOptions {}

/**
 * The Mina Ledger app's client: one small class over a pure codec. Errors have a fixed `name`
 * (`LedgerUserRejectedError`, …): match on it, not with `instanceof`.
 *
 * @example
 * ```ts
 * import { MinaLedgerApp } from 'chain-ledger/apdu';
 * import { openNodeHid } from 'chain-ledger/transport/node';
 * const app = new MinaLedgerApp(await openNodeHid());
 * const address = await app.getAddress(0, { display: true });
 * ```
 */
export class MinaLedgerApp {
  readonly transport: ExclusiveTransport;
  /** The app version, read once per client and shared with the clients `exclusive()` hands out. */
  #versionCache: { version: Promise<AppVersion> | undefined } = { version: undefined };
  /** Set on a client handed out by `exclusive()`: its exchanges use the held device instead of queueing. */
  #held: HeldDevice | undefined;

  constructor(transport: ApduTransport) {
    this.transport = ExclusiveTransport.for(transport);
  }

  /**
   * Runs `task` with the device held for all of it: no other caller's exchange reaches the device until the task
   * settles, so several commands (the prompts of one provider method) stay together. Each method of this class
   * already holds the device for its own exchanges; `task` gets a client whose methods use the held device.
   *
   * @example
   * ```ts
   * const [a, b] = await app.exclusive(async (device) => [
   *   await device.signFieldElement(0, commitment, 1),
   *   await device.signFieldElement(0, fullCommitment, 1),
   * ]);
   * ```
   * @throws `LedgerDisconnectedError` when the device goes away; the signal's reason when `options.signal` aborts.
   */
  async exclusive<T>(task: (app: MinaLedgerApp) => Promise<T>, options: SendOptions = {}): Promise<T> {
    if (this.#held) return task(this);
    return this.transport.exclusive((held) => {
      const bound = new MinaLedgerApp(this.transport);
      bound.#held = held;
      bound.#versionCache = this.#versionCache;
      return task(bound);
    }, options);
  }

  /**
   * INS 01: the Mina app's version. The result is cached for later version gating.
   *
   * @example
   * ```ts
   * const { version } = await app.getAppVersion(); // '1.6.0'
   * ```
   * @throws `LedgerDisconnectedError` (device gone), `LedgerDeviceLockedError`, `LedgerAppNotOpenError`; the signal's reason when aborted.
   */
  async getAppVersion(options: SendOptions = {}): Promise<AppVersion> {
    const version = await this.#run(prepareCommand('getAppVersion'), options);
    this.#versionCache.version = Promise.resolve(version);
    return version;
  }

  /**
   * INS 01 and GET_CAPABILITIES (0xA0): the app's version and the protocol extension it speaks (null on the released
   * app), with no user interaction. `blindSigningEnabled` is absent: no Mina app reports that setting.
   *
   * @example
   * ```ts
   * const { version, extension } = await app.getAppConfiguration(); // { version: '1.6.0', extension: null }
   * ```
   * @throws the device-state errors of `getAppVersion`; `LedgerReplyError` for a malformed answer.
   */
  async getAppConfiguration(options: SendOptions = {}): Promise<MinaAppConfiguration> {
    return this.#run(prepareCommand('getAppConfiguration'), options);
  }

  /**
   * INS 02: the address of account N (key path m/44'/12586'/N'/0/0). With `checkOnDevice: true` (or `display: true`)
   * the device shows it and waits for the user's approval (P1 = 0); otherwise it is read silently (P1 = 1, app ≥
   * 1.4.1). The DMK signer kit's `getAddress` runs the same command and resolves `{ address, publicKey }`.
   *
   * @param account - the index N, 0 ≤ N < 2^31, or its path `"44'/12586'/N'/0/0"` (any other path is refused).
   * @example
   * ```ts
   * const address = await app.getAddress(0, { display: true }); // 'B62q…', confirmed on the device
   * ```
   * @throws `LedgerInputError` (bad account or path), `LedgerAppVersionError` (a silent read on an app < 1.4.1),
   *   `LedgerUserRejectedError` (rejected on the device), and the device-state errors of `getAppVersion`.
   */
  async getAddress(account: AccountOrPath, options: GetAddressOptions = {}): Promise<string> {
    return (await this.#run(prepareCommand('getAddress', account, options), options)).address;
  }

  /**
   * INS 03: a payment or a stake delegation, reviewed in clear on the device (amount, fee, receiver or delegate,
   * memo). The result is mina-signer's `{ field, scalar }` (decimal strings).
   *
   * @example
   * ```ts
   * const signature = await app.signTransaction({ txType: 'payment', account: 0, from, to, amount: 1_000_000_000n,
   *   fee: 10_000_000n, nonce: 0, memo: 'hi', networkId: 1 });
   * ```
   * @throws `LedgerInputError` naming the bad field (nothing is sent), `LedgerUserRejectedError`,
   *   `LedgerInvalidDataError` (the app refused the data), and the device-state errors of `getAppVersion`.
   */
  async signTransaction(tx: PaymentOrDelegation, options: SendOptions = {}): Promise<MinaSignature> {
    return this.#run(prepareCommand('signTransaction', tx), options);
  }

  /**
   * INS 05 (≥ 1.4.0): a legacy message signature. `signedMessage` is the text the device actually signed, which is
   * what a verifier must check: `"Message : " + message` on 1.4.2, 1.4.3 and ≥ 1.4.5, the raw message on 1.4.0,
   * 1.4.1 and 1.4.4.
   *
   * @param account - the index N, or its path `"44'/12586'/N'/0/0"`.
   * @param message - 1–65 printable ASCII characters (CR and LF allowed), as text or as its bytes.
   * @example
   * ```ts
   * const { field, scalar, signedMessage } = await app.signMessage(0, 'Hello Mina!', 0);
   * ```
   * @throws `LedgerInputError` (message, account, network; bytes that are not such text), `LedgerAppVersionError` (app < 1.4.0),
   *   `LedgerUserRejectedError`, `LedgerReplyError` (the device echoed another text).
   */
  async signMessage(
    account: AccountOrPath,
    message: string | Uint8Array,
    networkId: NetworkId,
    options: SendOptions = {},
  ): Promise<MinaSignature & { signedMessage: string }> {
    return this.#run(prepareCommand('signMessage', account, message, networkId), options);
  }

  /**
   * INS 06 (≥ 1.6.0): a Schnorr signature (kimchi Poseidon) over one field element, e.g. a zkApp commitment. Blind
   * signing: the device shows only the value. Needs "Blind signing" enabled in the app; with it off the device
   * answers as a rejection.
   *
   * @param field - a canonical Pallas field element, 0 ≤ x < p.
   * @example
   * ```ts
   * const signature = await app.signFieldElement(0, fullCommitment, 1);
   * ```
   * @throws `LedgerInputError` (x ≥ p, account, network), `LedgerAppVersionError` (app < 1.6.0),
   *   `LedgerUserRejectedError` (rejected, or Blind signing off), `LedgerReplyError` (a different value echoed).
   */
  async signFieldElement(account: AccountOrPath, field: bigint, networkId: NetworkId, options: SendOptions = {}): Promise<MinaSignature> {
    return this.#run(prepareCommand('signFieldElement', account, field, networkId), options);
  }

  /**
   * The chain-ledger protocol extension (docs/apdu-extensions.md): what it supports, or null when the app does not
   * have it (it answers 0x6D00; no user interaction either way).
   *
   * @example
   * ```ts
   * const extension = await app.getCapabilities(); // null on the released Mina app
   * ```
   * @throws the device-state errors of `getAppVersion`; `LedgerReplyError` for a malformed answer.
   */
  async getCapabilities(options: SendOptions = {}): Promise<ExtensionCapabilities | null> {
    return this.#run(prepareCommand('getCapabilities'), options);
  }

  /**
   * Extension SIGN_FIELDS: a kimchi Schnorr signature over 2–64 field elements, with the testnet domain (what o1js
   * `Signature.verify` and mina-attestations check, on every network) or the mainnet one. The whole chunked request
   * holds the device: concurrent callers never interleave their chunks.
   *
   * @example
   * ```ts
   * const signature = await app.signFields(0, prepared.messageFields.map(BigInt)); // testnet domain
   * ```
   * @throws `LedgerInputError` (fields, domain, account), `LedgerUnsupportedInstructionError` (no extension),
   *   `LedgerUserRejectedError`.
   */
  async signFields(
    account: AccountOrPath,
    fields: bigint[],
    domain: SignatureDomain = 'testnet',
    options: SendOptions = {},
  ): Promise<MinaSignature> {
    return this.#run(prepareCommand('signFields', account, fields, domain), options);
  }

  /**
   * Extension CREATE_NULLIFIER: the device computes H = hashToGroup(fields ‖ pk), the nullifier sk·H, and the proof
   * values c and s. The caller must check the result (see src/nullifier): the client only checks ranges.
   *
   * @example
   * ```ts
   * const { nullifier, c, s } = await app.createNullifier(0, [1n, 2n]);
   * ```
   * @throws `LedgerInputError` (fields, account), `LedgerUnsupportedInstructionError` (no extension),
   *   `LedgerUserRejectedError`.
   */
  async createNullifier(
    account: AccountOrPath,
    fields: bigint[],
    options: SendOptions & { origin?: string } = {},
  ): Promise<DeviceNullifier> {
    return this.#run(prepareCommand('createNullifier', account, fields, options.origin), options);
  }

  /**
   * Extension SIGN_ZKAPP (version 1.1): the zkApp command in clear. The device parses each body, shows what the
   * command does, computes the commitments itself and signs the ones this account owes. The caller must compare the
   * returned commitments with its own and verify each signature (src/zkapp does).
   *
   * @example
   * ```ts
   * const { commitment, fullCommitment, signatures } = await app.signZkapp(stream); // stream: src/zkapp/clear-signing.ts
   * ```
   * @throws `LedgerInputError` (a value outside its range, naming the field), `LedgerUnsupportedInstructionError`
   *   (no extension), `LedgerInvalidDataError` (the device refused the stream), `LedgerUserRejectedError`.
   */
  async signZkapp(stream: ZkappStream, options: SendOptions = {}): Promise<ZkappSignatures> {
    return this.#run(prepareCommand('signZkapp', stream), options);
  }

  /**
   * Extension SIGN_PRESENTATION (version 1.1): the device shows the verifier, computes the presentation's context
   * itself and signs `[context, credential hash, issuer, …]` (testnet domain). The caller compares the context with
   * its own and verifies the signature.
   *
   * @example
   * ```ts
   * const { context, r, s } = await app.signPresentation({ account: 0, verifier: { type: 'https', origin }, ... });
   * ```
   * @throws `LedgerInputError`, `LedgerUnsupportedInstructionError`, `LedgerInvalidDataError`, `LedgerUserRejectedError`.
   */
  async signPresentation(presentation: PresentationToSign, options: SendOptions = {}): Promise<{ context: bigint; r: bigint; s: bigint }> {
    return this.#run(prepareCommand('signPresentation', presentation), options);
  }

  /**
   * Extension SIGN_TEXT (version 1.2): a message of 1–1024 bytes of UTF-8, shown on the device in pages (escaped
   * where the font cannot draw it) with the origin asking, and signed as mina-signer's `signMessage` signs it: the
   * text itself, no "Message : " prefix. The caller verifies the signature (src/messages does).
   *
   * @example
   * ```ts
   * const { field, scalar } = await app.signText({ account: 0, networkId: 1, origin: 'https://dapp.example', message: text });
   * ```
   * @throws `LedgerInputError` (a message or origin outside the rule, naming it; nothing is sent),
   *   `LedgerUnsupportedInstructionError` (no extension, or one before 1.2), `LedgerInvalidDataError`,
   *   `LedgerUserRejectedError`.
   */
  async signText(text: TextToSign, options: SendOptions = {}): Promise<MinaSignature> {
    return this.#run(prepareCommand('signText', text), options);
  }

  /**
   * Extension SIGN_TEXT for long texts (version 1.4): a message of 1–16384 bytes of UTF-8, in the same request as
   * `signText` (a text of at most 1024 bytes is sent exactly as `signText` sends it). The device shows it in pages,
   * or, past `MAX_PAGED_TEXT_CHARS` shown characters (`textShownAsHash`), its SHA-256 (`textHash`) behind its Blind
   * signing setting (off: a notice, then 0x6985). Signed as mina-signer's `signMessage` signs it.
   *
   * @example
   * ```ts
   * const { field, scalar } = await app.signLongText({ account: 0, networkId: 0, origin: 'https://socialcap.app', message: votesJson });
   * ```
   * @throws `LedgerInputError` (nothing is sent), `LedgerUnsupportedInstructionError` (no SIGN_TEXT),
   *   `LedgerInvalidDataError` (a device before 1.4 and a text over 1024 bytes), `LedgerUserRejectedError`.
   */
  async signLongText(text: TextToSign, options: SendOptions = {}): Promise<MinaSignature> {
    return this.#run(prepareCommand('signLongText', text), options);
  }

  /**
   * Extension STORE_KEY (version 1.3): the credential store's key, the signature INS 05 gives over the store-key text
   * (network id 1), with the site asking shown on the device. The caller verifies it (src/credentials/store-key.ts).
   *
   * @example
   * ```ts
   * const { field, scalar } = await app.storeKey({ account: 0, origin: 'https://dapp.example' });
   * ```
   * @throws `LedgerInputError` (an origin outside the text rule; nothing is sent), `LedgerUnsupportedInstructionError`
   *   (no extension, or one before 1.3), `LedgerInvalidDataError`, `LedgerUserRejectedError`.
   */
  async storeKey(request: StoreKeyRequest, options: SendOptions = {}): Promise<MinaSignature> {
    return this.#run(prepareCommand('storeKey', request), options);
  }

  /** The app version, read once per client (INS 01). */
  version(options: SendOptions = {}): Promise<AppVersion> {
    const cache = this.#versionCache;
    if (!cache.version) {
      const reading = this.getAppVersion(options);
      cache.version = reading;
      // A failed read (device locked, app closed) must not be remembered.
      reading.catch(() => {
        if (cache.version === reading) cache.version = undefined;
      });
    }
    return cache.version;
  }

  /** Runs a prepared command on the held device (its arguments were checked before it waited for the device). */
  #run<Output>(command: PreparedCommand<Output>, options: SendOptions): Promise<Output> {
    return this.exclusive((device) => command.run(device.#channel(options)), options);
  }

  /** The held device as a command's channel; its version is this client's (read once). */
  #channel(options: SendOptions): CommandChannel {
    const held = this.#held;
    if (!held) throw new Error('MinaLedgerApp: an exchange outside a command (a bug in this class)');
    return channelOver(
      (cla, ins, p1, p2, data, statusList) => held.send(cla, ins, p1, p2, data, statusList, options),
      () => this.version(options),
    );
  }
}
