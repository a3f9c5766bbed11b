/**
 * `MinaLedgerApp`: the host-side client of the Mina Ledger app, over any structural transport.
 *
 * Every method validates its input before anything is sent, holds the device for the whole command (its version
 * read, every chunk of its request: another caller's exchanges wait in the device's queue), maps status words to
 * the error classes of ./errors.ts, and validates the reply. Methods that need a newer app read the version once
 * (INS 01) and refuse with `LedgerAppVersionError` before sending.
 */
import { ExclusiveTransport, type DeviceSession } from '../transport/exclusive.js';
import type { ApduTransport, SendOptions } from '../transport/types.js';
import {
  type ApduRequest,
  type NetworkId,
  type PaymentOrDelegation,
  decodeAddressReply,
  decodeSignFieldReply,
  decodeSignMessageReply,
  decodeSignatureReply,
  decodeVersion,
  encodeGetAddress,
  encodeGetVersion,
  encodeSignFieldElement,
  encodeSignMessage,
  encodeSignTransaction,
  splitReply,
} from '../apdu/codec.js';
import { CLA, CLA_BOLOS, SW_OK } from '../apdu/constants.js';
import { DASHBOARD_NAME, RUNNING_APP_REQUEST, decodeRunningApp } from '../apdu/os.js';
import {
  LedgerAppNotOpenError,
  LedgerAppVersionError,
  LedgerReplyError,
  isLedgerError,
  statusToError,
  toLedgerError,
} from '../apdu/errors.js';
import {
  decodeCapabilities,
  decodeNullifierReply,
  decodePresentationReply,
  encodeCreateNullifier,
  encodeGetCapabilities,
  encodeSignFields,
  encodeSignPresentation,
  type DeviceNullifier,
  type ExtensionCapabilities,
  type PresentationToSign,
  type SignatureDomain,
} from '../apdu/extension.js';
import { encodeSignText, type TextToSign } from '../apdu/sign-text.js';
import { encodeStoreKey, type StoreKeyRequest } from '../apdu/store-key.js';
import { decodeZkappSignaturesReply, encodeSignZkapp, type ZkappSignatures, type ZkappStream } from '../apdu/sign-zkapp.js';
import type { MinaSignature } from '../apdu/signature.js';
import { FEATURES, signedMessageText, supports, type AppVersion, type Feature } from '../apdu/version.js';

export interface GetAddressOptions extends SendOptions {
  /** Show the address on the device and wait for the user's approval (default false: silent, app ≥ 1.4.1). */
  display?: boolean;
}

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
  #session: DeviceSession | undefined;

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
    if (this.#session) return task(this);
    return this.transport.exclusive((session) => {
      const bound = new MinaLedgerApp(this.transport);
      bound.#session = session;
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
    return this.exclusive(async (device) => {
      const reply = await device.#exchange(encodeGetVersion(), options);
      let version: AppVersion;
      try {
        version = decodeVersion(reply);
      } catch (error) {
        // The same bytes mean GetOsVersion on the dashboard, which answers 0x9000 (src/apdu/os.ts): ask what runs.
        throw (await device.#otherApp(options)) ?? error;
      }
      this.#versionCache.version = Promise.resolve(version);
      return version;
    }, options);
  }

  /**
   * INS 02: the address of account N (key path m/44'/12586'/N'/0/0). With `display: true` the device shows it and
   * waits for the user's approval (P1 = 0); otherwise it is read silently (P1 = 1, app ≥ 1.4.1).
   *
   * @param account - the unhardened index N, 0 ≤ N < 2^31.
   * @example
   * ```ts
   * const address = await app.getAddress(0, { display: true }); // 'B62q…', confirmed on the device
   * ```
   * @throws `LedgerInputError` (bad account), `LedgerAppVersionError` (a silent read on an app < 1.4.1),
   *   `LedgerUserRejectedError` (rejected on the device), and the device-state errors of `getAppVersion`.
   */
  async getAddress(account: number, options: GetAddressOptions = {}): Promise<string> {
    const request = encodeGetAddress(account, options.display === true);
    return this.exclusive(async (device) => {
      // Apps older than 1.4.1 ignore P1 and always ask the user: refuse a "silent" call rather than surprise them.
      if (!options.display) await device.#require('silentAddress', options);
      return decodeAddressReply(await device.#exchange(request, options));
    }, options);
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
    const request = encodeSignTransaction(tx);
    return this.exclusive(async (device) => decodeSignatureReply(await device.#exchange(request, options)), options);
  }

  /**
   * INS 05 (≥ 1.4.0): a legacy message signature. `signedMessage` is the text the device actually signed, which is
   * what a verifier must check: `"Message : " + message` on 1.4.2, 1.4.3 and ≥ 1.4.5, the raw message on 1.4.0,
   * 1.4.1 and 1.4.4.
   *
   * @param message - 1–65 printable ASCII bytes (CR and LF allowed).
   * @example
   * ```ts
   * const { field, scalar, signedMessage } = await app.signMessage(0, 'Hello Mina!', 0);
   * ```
   * @throws `LedgerInputError` (message, account, network), `LedgerAppVersionError` (app < 1.4.0),
   *   `LedgerUserRejectedError`, `LedgerReplyError` (the device echoed another text).
   */
  async signMessage(
    account: number,
    message: string,
    networkId: NetworkId,
    options: SendOptions = {},
  ): Promise<MinaSignature & { signedMessage: string }> {
    const request = encodeSignMessage(account, message, networkId);
    return this.exclusive(async (device) => {
      const version = await device.#require('signMessage', options);
      const signedText = signedMessageText(version, message);
      const reply = await device.#exchange(request, options);
      return decodeSignMessageReply(reply, signedText, supports(version, 'echoedMessage'));
    }, options);
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
  async signFieldElement(account: number, field: bigint, networkId: NetworkId, options: SendOptions = {}): Promise<MinaSignature> {
    const request = encodeSignFieldElement(account, field, networkId);
    return this.exclusive(async (device) => {
      await device.#require('signFieldElement', options);
      return decodeSignFieldReply(await device.#exchange(request, options), field);
    }, options);
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
    try {
      return decodeCapabilities(await this.exclusive((device) => device.#exchange(encodeGetCapabilities(), options), options));
    } catch (error) {
      if (isLedgerError(error, 'LedgerUnsupportedInstructionError')) return null;
      throw error;
    }
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
    account: number,
    fields: bigint[],
    domain: SignatureDomain = 'testnet',
    options: SendOptions = {},
  ): Promise<MinaSignature> {
    const requests = encodeSignFields(account, fields, domain);
    return decodeSignatureReply(await this.exclusive((device) => device.#exchangeChunks(requests, options), options));
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
  async createNullifier(account: number, fields: bigint[], options: SendOptions & { origin?: string } = {}): Promise<DeviceNullifier> {
    const requests = encodeCreateNullifier(account, fields, options.origin);
    return decodeNullifierReply(await this.exclusive((device) => device.#exchangeChunks(requests, options), options));
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
    const requests = encodeSignZkapp(stream);
    return decodeZkappSignaturesReply(await this.exclusive((device) => device.#exchangeChunks(requests, options), options));
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
    const requests = encodeSignPresentation(presentation);
    return decodePresentationReply(await this.exclusive((device) => device.#exchangeChunks(requests, options), options));
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
    const requests = encodeSignText(text);
    return decodeSignatureReply(await this.exclusive((device) => device.#exchangeChunks(requests, options), options));
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
    const requests = encodeStoreKey(request);
    return decodeSignatureReply(await this.exclusive((device) => device.#exchangeChunks(requests, options), options));
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

  async #require(feature: Feature, options: SendOptions): Promise<AppVersion> {
    const version = await this.version(options);
    if (!supports(version, feature)) throw new LedgerAppVersionError(feature, FEATURES[feature], version.version);
    return version;
  }

  /** `LedgerAppNotOpenError` naming what runs instead of the Mina app (B0 01), or undefined when Mina runs or nobody says. */
  async #otherApp(options: SendOptions): Promise<LedgerAppNotOpenError | undefined> {
    let running: string;
    try {
      running = decodeRunningApp(await this.#exchange(RUNNING_APP_REQUEST, options, CLA_BOLOS)).name;
    } catch {
      return undefined;
    }
    if (running === 'Mina') return undefined;
    const what = running === DASHBOARD_NAME ? 'the dashboard is open' : `${JSON.stringify(running.slice(0, 32))} is open`;
    return new LedgerAppNotOpenError(`The Mina app is not open (${what}): open it on the device`);
  }

  /**
   * Sends a chunked request; every chunk but the last must answer 0x9000 with no data. The command holds the device
   * for all its chunks, so no other caller's chunk lands in between; a cancelled call stops between chunks and the
   * device discards the partial request when the next first chunk arrives.
   */
  async #exchangeChunks(requests: ApduRequest[], options: SendOptions): Promise<Uint8Array> {
    let reply: Uint8Array = new Uint8Array(0);
    for (const [i, request] of requests.entries()) {
      reply = await this.#exchange(request, options);
      if (i < requests.length - 1 && reply.length !== 0) throw new LedgerReplyError('the device answered a middle chunk with data');
    }
    return reply;
  }

  /** Sends one request on the held device and returns the reply data; the only place status words are read. */
  async #exchange(request: ApduRequest, options: SendOptions, cla: number = CLA): Promise<Uint8Array> {
    const device = this.#session;
    if (!device) throw new Error('MinaLedgerApp: an exchange outside a command (a bug in this class)');
    let reply: Uint8Array;
    try {
      reply = await device.send(cla, request.ins, request.p1, request.p2, request.data, [SW_OK], options);
    } catch (error) {
      throw toLedgerError(error, request.ins);
    }
    // A structural transport may ignore statusList; check the status word again.
    const { data, statusCode } = splitReply(reply);
    if (statusCode !== SW_OK) throw statusToError(statusCode, request.ins);
    return data;
  }
}
