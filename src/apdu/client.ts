/**
 * `MinaLedgerApp`: the host-side client of the Mina Ledger app, over any structural transport.
 *
 * Every method validates its input before anything is sent, goes through the device's exclusive queue (one
 * exchange at a time), maps status words to the error classes of ./errors.ts, and validates the reply. Methods
 * that need a newer app read the version once (INS 01) and refuse with `LedgerAppVersionError` before sending.
 */
import { ExclusiveTransport } from '../transport/exclusive.js';
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
} from './codec.js';
import { CLA, SW_OK } from './constants.js';
import { LedgerAppVersionError, LedgerReplyError, isLedgerError, statusToError, toLedgerError } from './errors.js';
import {
  decodeCapabilities,
  decodeNullifierReply,
  encodeCreateNullifier,
  encodeGetCapabilities,
  encodeSignFields,
  type DeviceNullifier,
  type ExtensionCapabilities,
  type SignatureDomain,
} from './extension.js';
import type { MinaSignature } from './signature.js';
import { FEATURES, signedMessageText, supports, type AppVersion, type Feature } from './version.js';

export interface GetAddressOptions extends SendOptions {
  /** Show the address on the device and wait for the user's approval (default false: silent, app ≥ 1.4.1). */
  display?: boolean;
}

export class MinaLedgerApp {
  readonly transport: ExclusiveTransport;
  #version: Promise<AppVersion> | undefined;

  constructor(transport: ApduTransport) {
    this.transport = ExclusiveTransport.for(transport);
  }

  /** INS 01. The result is cached for later version gating. */
  async getAppVersion(options: SendOptions = {}): Promise<AppVersion> {
    const version = decodeVersion(await this.#exchange(encodeGetVersion(), options));
    this.#version = Promise.resolve(version);
    return version;
  }

  /** INS 02 with P1 = 0 (display) or 1 (silent). `account` is the unhardened index N of m/44'/12586'/N'/0/0. */
  async getAddress(account: number, options: GetAddressOptions = {}): Promise<string> {
    const request = encodeGetAddress(account, options.display === true);
    // Apps older than 1.4.1 ignore P1 and always ask the user: refuse a "silent" call rather than surprise them.
    if (!options.display) await this.#require('silentAddress', options);
    return decodeAddressReply(await this.#exchange(request, options));
  }

  /** INS 03: payment or stake delegation. Result in mina-signer's form, decimal strings. */
  async signTransaction(tx: PaymentOrDelegation, options: SendOptions = {}): Promise<MinaSignature> {
    const request = encodeSignTransaction(tx);
    return decodeSignatureReply(await this.#exchange(request, options));
  }

  /**
   * INS 05 (≥ 1.4.0). `signedMessage` is the text the device actually signed, which is what a verifier must check:
   * `"Message : " + message` on 1.4.2, 1.4.3 and ≥ 1.4.5, the raw message on 1.4.0, 1.4.1 and 1.4.4.
   */
  async signMessage(
    account: number,
    message: string,
    networkId: NetworkId,
    options: SendOptions = {},
  ): Promise<MinaSignature & { signedMessage: string }> {
    const request = encodeSignMessage(account, message, networkId);
    const version = await this.#require('signMessage', options);
    const signedText = signedMessageText(version, message);
    const reply = await this.#exchange(request, options);
    return decodeSignMessageReply(reply, signedText, supports(version, 'echoedMessage'));
  }

  /**
   * INS 06 (≥ 1.6.0): a Schnorr signature (kimchi Poseidon) over one field element, e.g. a zkApp commitment.
   * Needs "Blind signing" enabled in the app; with it off the device answers as a rejection.
   */
  async signFieldElement(account: number, field: bigint, networkId: NetworkId, options: SendOptions = {}): Promise<MinaSignature> {
    const request = encodeSignFieldElement(account, field, networkId);
    await this.#require('signFieldElement', options);
    return decodeSignFieldReply(await this.#exchange(request, options), field);
  }

  /**
   * The chain-ledger protocol extension (docs/apdu-extensions.md): what it supports, or null when the app does not
   * have it (it answers 0x6D00; no user interaction either way).
   */
  async getCapabilities(options: SendOptions = {}): Promise<ExtensionCapabilities | null> {
    try {
      return decodeCapabilities(await this.#exchange(encodeGetCapabilities(), options));
    } catch (error) {
      if (isLedgerError(error, 'LedgerUnsupportedInstructionError')) return null;
      throw error;
    }
  }

  /**
   * Extension SIGN_FIELDS: a kimchi Schnorr signature over 2–64 field elements, with the testnet domain (what o1js
   * `Signature.verify` and mina-attestations check, on every network) or the mainnet one.
   */
  async signFields(account: number, fields: bigint[], domain: SignatureDomain = 'testnet', options: SendOptions = {}): Promise<MinaSignature> {
    return decodeSignatureReply(await this.#exchangeChunks(encodeSignFields(account, fields, domain), options));
  }

  /**
   * Extension CREATE_NULLIFIER: the device computes H = hashToGroup(fields ‖ pk), the nullifier sk·H, and the proof
   * values c and s. The caller must check the result (see src/nullifier): the client only checks ranges.
   */
  async createNullifier(account: number, fields: bigint[], options: SendOptions = {}): Promise<DeviceNullifier> {
    return decodeNullifierReply(await this.#exchangeChunks(encodeCreateNullifier(account, fields), options));
  }

  /** The app version, read once per client (INS 01). */
  version(options: SendOptions = {}): Promise<AppVersion> {
    if (!this.#version) {
      this.#version = this.getAppVersion(options);
      // A failed read (device locked, app closed) must not be remembered.
      this.#version.catch(() => (this.#version = undefined));
    }
    return this.#version;
  }

  async #require(feature: Feature, options: SendOptions): Promise<AppVersion> {
    const version = await this.version(options);
    if (!supports(version, feature)) throw new LedgerAppVersionError(feature, FEATURES[feature], version.version);
    return version;
  }

  /**
   * Sends a chunked request; every chunk but the last must answer 0x9000 with no data. The chunks go out back to
   * back but each through the queue, so a cancelled call stops between chunks and the device discards the partial
   * request when the next first chunk arrives.
   */
  async #exchangeChunks(requests: ApduRequest[], options: SendOptions): Promise<Uint8Array> {
    let reply: Uint8Array = new Uint8Array(0);
    for (const [i, request] of requests.entries()) {
      reply = await this.#exchange(request, options);
      if (i < requests.length - 1 && reply.length !== 0) throw new LedgerReplyError('the device answered a middle chunk with data');
    }
    return reply;
  }

  /** Sends one request and returns the reply data; the only place status words are read. */
  async #exchange(request: ApduRequest, options: SendOptions): Promise<Uint8Array> {
    let reply: Uint8Array;
    try {
      reply = await this.transport.send(CLA, request.ins, request.p1, request.p2, request.data, [SW_OK], options);
    } catch (error) {
      throw toLedgerError(error, request.ins);
    }
    // A structural transport may ignore statusList; check the status word again.
    const { data, statusCode } = splitReply(reply);
    if (statusCode !== SW_OK) throw statusToError(statusCode, request.ins);
    return data;
  }
}
