/**
 * The software Ledger: a byte-exact model of the Mina Ledger app (v1.6.0 by default, older versions on request)
 * behind the same structural `send()` transport a real device has. Keys come from a BIP39 mnemonic, derived as the
 * device derives them; signatures come from mina-signer and equal the app's; validation order, status words and
 * reply layouts follow the app's C code (Zondax/ledger-mina src/main.c, parse_tx.c, sign_msg.c, get_address.c).
 *
 * IT IS NOT HARDWARE. Its keys live in this process's memory. Never use it with a mnemonic that holds real funds.
 */
import type { HDKey } from '@scure/bip32';
import { ByteReader, base58check, bytesToUintLE, concatBytes, fromHex, toHex, uintToBytesBE, utf8 } from '../apdu/bytes.js';
import { isPrintableMessageByte, readSignTxBody, type NetworkId } from '../apdu/codec.js';
import {
  CLA,
  CLA_BOLOS,
  INS_BOLOS_APP_INFO,
  INS_GET_ADDRESS,
  INS_GET_VERSION,
  INS_SIGN_FIELD_ELEMENT,
  INS_SIGN_MESSAGE,
  INS_SIGN_TX,
  MAX_APDU_DATA,
  MAX_APDU_LENGTH,
  MAX_U64,
  SIGNED_TEXT_MAX_BYTES,
  SW_APP_NOT_OPEN,
  SW_CLA_NOT_SUPPORTED,
  SW_EMPTY_APDU,
  SW_INS_NOT_SUPPORTED,
  SW_INVALID_DATA,
  SW_LOCKED,
  SW_OK,
  SW_REJECTED,
  TX_TAG_DELEGATION,
  TX_TAG_PAYMENT,
} from '../apdu/constants.js';
import {
  CAP_CREATE_NULLIFIER,
  CAP_SIGN_FIELDS,
  CAP_SIGN_PRESENTATION,
  CAP_SIGN_ZKAPP,
  DOMAIN_MAINNET,
  DOMAIN_TESTNET,
  INS_CREATE_NULLIFIER,
  INS_GET_CAPABILITIES,
  INS_SIGN_FIELDS,
  INS_SIGN_PRESENTATION,
  MAX_FIELDS,
  MAX_TEXT_BYTES,
  MIN_SIGN_FIELDS,
  P1_FIRST,
  P1_MORE,
  P2_LAST,
  P2_MORE,
  fieldsDigest,
} from '../apdu/extension.js';
import { INS_SIGN_ZKAPP, MAX_SIGN_ZKAPP_PAYLOAD, encodeZkappSignaturesReply } from '../apdu/sign-zkapp.js';
import { ZkappBodyError } from '../apdu/zkapp-body.js';
import { signatureToRawHex, type MinaSignature } from '../apdu/signature.js';
import { atLeast, parseVersion, signedMessageText, supports } from '../apdu/version.js';
import { isStoreKeyRequest } from '../apdu/store-key.js';
import type { ApduTransport } from '../transport/types.js';
import { deriveAccountKey, derivationPath, mnemonicToSeed, rootFromSeed, type AccountKey } from './keys.js';
import {
  addressReview,
  blindSigningDisabledNotice,
  fieldElementReview,
  messageReview,
  transactionReview,
  nullifierReview,
  presentationReview,
  signFieldsBlindDisabledNotice,
  signFieldsReview,
  zkappReview,
  type Approver,
  type Review,
} from './review.js';
import { createNullifier, signFieldElement, signFields, signLegacyMessage, signUserCommand, type DecodedPublicKey } from './signer.js';
import { describeUpdates, parseZkappRequest, valuesToSign } from './zkapp-device.js';
import { minaSignerInternals } from '../upstream/mina-signer-internals.js';
import { parsePresentationRequest } from './presentation-device.js';
import { cString } from './display.js';

export const SOFTWARE_LEDGER_WARNING =
  'WARNING: chain-ledger SoftwareLedger is a SOFTWARE EMULATION of a Ledger device, NOT HARDWARE. ' +
  'Its keys live in this process memory. Never use it with a mnemonic that holds real funds.';

/** The mnemonic of the Mina app's own functional tests (public; never use it for funds). */
export const TEST_MNEMONIC =
  'course grief vintage slim tell hospital car maze model style elegant kitchen state purpose matrix gas grid enable frown road goddess glove canyon key';

export interface SoftwareLedgerOptions {
  /** App version to behave as (default '1.6.0'). Older versions lack INS 05/06 and have the 1.4.x message quirks. */
  version?: string;
  /** The app's "Blind signing" setting (default false, like the real app): INS 06 then answers 0x6985. */
  blindSigning?: boolean;
  /** Decides each review (default: approve everything). `review.screens` holds what the device would show. */
  approve?: Approver;
  /** Start locked (every APDU answers 0x5515 until `unlock()`). */
  locked?: boolean;
  /** Whether the Mina app is open (default true); when closed the dashboard answers `closedAppStatus`. */
  appOpen?: boolean;
  /** What the dashboard answers to Mina APDUs when the app is closed (default 0x6E01; some firmware: 0x6511, 0x6E00). */
  closedAppStatus?: number;
  /** Delay before each reply, to model a slow device (default 0). */
  latencyMs?: number;
  /** Where the not-hardware warning goes (default console.warn). It is always emitted once per instance. */
  warn?: (message: string) => void;
  /** BIP39 passphrase (default none, like the app's tests). */
  passphrase?: string;
  /**
   * The chain-ledger protocol extension (docs/apdu-extensions.md): default false, exactly like the released Mina app,
   * which answers 0x6D00 to it. true: version 1.1, INS 0xA0–0xA4 (nullifiers, multi-field signing, zkApp commands and
   * presentations in clear); '1.0': the first version only (0xA0–0xA2, a device that signs zkApps and presentations
   * blind). Say so wherever the device is shown.
   */
  extensions?: boolean | '1.0';
}

/** GET_CAPABILITIES per extension version: 1.1 adds SIGN_ZKAPP, SIGN_PRESENTATION and the nullifier's origin. */
const EXTENSION_VERSIONS = {
  '1.0': { version: [1, 0], capabilities: CAP_SIGN_FIELDS | CAP_CREATE_NULLIFIER },
  '1.1': { version: [1, 1], capabilities: CAP_SIGN_FIELDS | CAP_CREATE_NULLIFIER | CAP_SIGN_ZKAPP | CAP_SIGN_PRESENTATION },
} as const;
/** The largest payload of each chunked instruction (docs/apdu-extensions.md). */
const MAX_EXTENSION_PAYLOAD: Record<number, number> = {
  [INS_SIGN_FIELDS]: 6 + 32 * MAX_FIELDS,
  [INS_CREATE_NULLIFIER]: 5 + 32 * MAX_FIELDS + 1 + MAX_TEXT_BYTES,
  [INS_SIGN_ZKAPP]: MAX_SIGN_ZKAPP_PAYLOAD,
  [INS_SIGN_PRESENTATION]: 4096,
};

type Listener = (...args: unknown[]) => void;

/** Errors thrown by `send()` mimic @ledgerhq/hw-transport's, matched by name as everywhere in this library. */
export class TransportStatusError extends Error {
  override readonly name = 'TransportStatusError';
  readonly statusCode: number;
  readonly statusText: string;
  constructor(statusCode: number) {
    super(`Ledger device: status 0x${statusCode.toString(16).padStart(4, '0')}`);
    this.statusCode = statusCode;
    this.statusText = 'UNKNOWN_ERROR';
  }
}

export class DisconnectedDeviceError extends Error {
  override readonly name: 'DisconnectedDevice' | 'DisconnectedDeviceDuringOperation';
  constructor(during: boolean) {
    super(during ? 'The device was disconnected during the exchange' : 'The device is disconnected');
    this.name = during ? 'DisconnectedDeviceDuringOperation' : 'DisconnectedDevice';
  }
}

class Rejected {
  constructor(readonly statusCode: number) {}
}
const fail = (statusCode: number): never => {
  throw new Rejected(statusCode);
};
/** What a request parser throws on a read past the end of the data: the app's 0x6802. */
const invalidData = (): Rejected => new Rejected(SW_INVALID_DATA);

export interface ExchangeRecord {
  request: string;
  /** The reply, hex; for a store-key request only its status word (the signature is the store key). */
  reply: string;
  /** Set when the reply data was withheld because it is the credential store's key. */
  redacted?: true;
}

export class SoftwareLedger implements ApduTransport {
  readonly isSoftwareLedger = true;
  /**
   * Every exchange, in `@ledgerhq/hw-transport-mocker` RecordStore order. APDUs carry no secrets except the reply to
   * the store-key message, whose data is withheld (`redacted`).
   */
  readonly exchanges: ExchangeRecord[] = [];

  approve: Approver;
  blindSigning: boolean;
  latencyMs: number;
  readonly version: string;
  /** The extension version this device speaks, or false (the released app). */
  readonly extensions: false | '1.0' | '1.1';
  #root: HDKey;
  /** A chunked extension request being received. */
  #pending: { ins: number; parts: Uint8Array[]; size: number } | undefined;
  #keys = new Map<number, AccountKey>();
  #locked: boolean;
  #appOpen: boolean;
  #closedAppStatus: number;
  #unplugged = false;
  #failNext: 'disconnect' | undefined;
  #current: { abort: (error: Error) => void } | undefined;
  #listeners = new Map<string, Set<Listener>>();

  /**
   * A software Ledger (NOT hardware: the key is in this process) holding the BIP39 seed of `mnemonic`, running the
   * Mina app `options.version` (default 1.6.0). It warns once through `options.warn` (default `console.warn`) that
   * it is not a hardware wallet.
   *
   * @param mnemonic - A BIP39 mnemonic (English wordlist); `options.passphrase` is the optional BIP39 passphrase.
   * @param options - The app version, the approver that stands for the user's buttons, blind signing, the protocol
   *   extension (`extensions`, default false as on the released app), device states and the warning sink.
   * @returns A device that is also an `ApduTransport`: pass it as `transport` to `createLedgerProvider` or
   *   `MinaLedgerApp`.
   * @throws `Error` when the mnemonic is not a valid BIP39 mnemonic; `RangeError` when `options.version` is not
   *   `major.minor.patch`.
   * @example
   * ```ts
   * import { SoftwareLedger } from 'chain-ledger/emulator';
   * import { createLedgerProvider } from 'chain-ledger';
   *
   * const ledger = SoftwareLedger.fromMnemonic(mnemonic, { warn: () => {}, extensions: true });
   * const chain = createLedgerProvider({ transport: ledger, network: 'devnet', origin: 'http://localhost:5173' });
   * const [address] = await chain.requestAccounts();
   * ```
   */
  static fromMnemonic(mnemonic: string, options: SoftwareLedgerOptions = {}): SoftwareLedger {
    return new SoftwareLedger(rootFromSeed(mnemonicToSeed(mnemonic, options.passphrase)), options);
  }

  private constructor(root: HDKey, options: SoftwareLedgerOptions) {
    this.version = parseVersion(options.version ?? '1.6.0').version;
    this.#root = root;
    this.approve = options.approve ?? (() => true);
    this.blindSigning = options.blindSigning ?? false;
    this.latencyMs = options.latencyMs ?? 0;
    this.#locked = options.locked ?? false;
    this.#appOpen = options.appOpen ?? true;
    this.#closedAppStatus = options.closedAppStatus ?? SW_APP_NOT_OPEN;
    this.extensions = options.extensions === true ? '1.1' : options.extensions === '1.0' ? '1.0' : false;
    (options.warn ?? console.warn)(SOFTWARE_LEDGER_WARNING);
  }

  // ---- device state (what a person does to a real device) ----

  lock(): void {
    this.#locked = true;
  }
  unlock(): void {
    this.#locked = false;
  }
  get locked(): boolean {
    return this.#locked;
  }
  openApp(): void {
    this.#appOpen = true;
  }
  closeApp(): void {
    this.#appOpen = false;
  }
  get appOpen(): boolean {
    return this.#appOpen;
  }
  get connected(): boolean {
    return !this.#unplugged;
  }

  /** Pulls the cable: an exchange in progress fails, later ones fail, and "disconnect" is emitted once. */
  unplug(): void {
    if (this.#unplugged) return;
    this.#unplugged = true;
    this.#current?.abort(new DisconnectedDeviceError(true));
    this.#emit('disconnect', new DisconnectedDeviceError(false));
  }

  /** Plugs the device back in (a new transport session would be opened on real hardware). */
  plug(): void {
    this.#unplugged = false;
  }

  /** The next exchange is cut off by a disconnect after the request reached the device. */
  failNextExchange(fault: 'disconnect'): void {
    this.#failNext = fault;
  }

  /** The address of an account, without an exchange (for tests and demos). */
  addressOf(account: number): string {
    return this.#key(account).address;
  }

  // ---- transport surface ----

  on(event: string, listener: Listener): void {
    if (!this.#listeners.has(event)) this.#listeners.set(event, new Set());
    this.#listeners.get(event)!.add(listener);
  }

  off(event: string, listener: Listener): void {
    this.#listeners.get(event)?.delete(listener);
  }

  /** The `@ledgerhq/hw-transport` `send` contract: Lc always present, reply data ‖ SW, SW checked against statusList. */
  async send(
    cla: number,
    ins: number,
    p1: number,
    p2: number,
    data: Uint8Array = new Uint8Array(0),
    statusList: readonly number[] = [SW_OK],
  ): Promise<Uint8Array> {
    if (data.length > MAX_APDU_DATA) {
      throw Object.assign(new Error(`data.length exceed ${MAX_APDU_DATA} bytes limit. Got: ${data.length}`), {
        name: 'TransportError',
        id: 'DataLengthTooBig',
      });
    }
    const reply = await this.exchange(concatBytes(Uint8Array.of(cla, ins, p1, p2, data.length), data));
    const statusCode = (reply[reply.length - 2]! << 8) | reply[reply.length - 1]!;
    if (!statusList.includes(statusCode)) throw new TransportStatusError(statusCode);
    return reply;
  }

  /** One raw APDU in, the full reply (data ‖ status word) out — exactly what the app answers. */
  async exchange(apdu: Uint8Array): Promise<Uint8Array> {
    if (this.#unplugged) throw new DisconnectedDeviceError(false);
    if (this.#current)
      throw Object.assign(new Error('An action was already pending on the Ledger device'), { name: 'TransportRaceCondition' });
    const request = Uint8Array.from(apdu);
    let reply: Uint8Array;
    const aborted = new Promise<never>((_, reject) => (this.#current = { abort: reject }));
    try {
      if (this.#failNext === 'disconnect') {
        this.#failNext = undefined;
        queueMicrotask(() => this.unplug());
      }
      reply = await Promise.race([this.#answer(request), aborted]);
    } finally {
      this.#current = undefined;
    }
    // The store-key reply is the credential store's key: never kept (apdu/store-key.ts).
    this.exchanges.push(
      isStoreKeyRequest(request)
        ? { request: toHex(request), reply: toHex(reply.subarray(-2)), redacted: true }
        : { request: toHex(request), reply: toHex(reply) },
    );
    if (this.exchanges.length > 10_000) this.exchanges.splice(0, this.exchanges.length - 10_000);
    return reply;
  }

  async close(): Promise<void> {}

  /** Never reveal keys through inspection or serialisation. */
  toJSON(): object {
    return { SoftwareLedger: SOFTWARE_LEDGER_WARNING, version: this.version };
  }
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `SoftwareLedger { version: '${this.version}', NOT HARDWARE }`;
  }

  // ---- the app ----

  async #answer(apdu: Uint8Array): Promise<Uint8Array> {
    if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
    try {
      const data = await this.#dispatch(apdu);
      return concatBytes(data, Uint8Array.of(SW_OK >> 8, SW_OK & 0xff));
    } catch (error) {
      if (error instanceof Rejected) return Uint8Array.of(error.statusCode >> 8, error.statusCode & 0xff);
      throw error;
    }
  }

  async #dispatch(apdu: Uint8Array): Promise<Uint8Array> {
    if (apdu.length === 0) fail(SW_EMPTY_APDU);
    if (this.#locked) fail(SW_LOCKED);
    if (apdu[0] === CLA_BOLOS && apdu[1] === INS_BOLOS_APP_INFO) return this.#appInfo();
    if (!this.#appOpen) fail(this.#closedAppStatus);
    // src/main.c: CLA, then Lc against the received length, before looking at INS.
    if (apdu.length > MAX_APDU_LENGTH || apdu.length < 5 || apdu[0] !== CLA) fail(SW_CLA_NOT_SUPPORTED);
    if (apdu[4]! + 5 !== apdu.length) fail(SW_CLA_NOT_SUPPORTED);
    const [, ins, p1, p2] = apdu as unknown as [number, number, number, number];
    const data = apdu.subarray(5);
    // Any other instruction abandons a chunked request in progress.
    if (this.#pending && this.#pending.ins !== ins) this.#pending = undefined;
    switch (ins) {
      case INS_GET_VERSION: {
        const v = parseVersion(this.version);
        return Uint8Array.of(v.major, v.minor, v.patch);
      }
      case INS_GET_ADDRESS:
        return this.#getAddress(p1, data);
      case INS_SIGN_TX:
        return this.#signTx(data);
      case INS_SIGN_MESSAGE:
        if (!supports(this.version, 'signMessage')) return fail(SW_INS_NOT_SUPPORTED);
        return this.#signMessage(data);
      case INS_SIGN_FIELD_ELEMENT:
        if (!supports(this.version, 'signFieldElement')) return fail(SW_INS_NOT_SUPPORTED);
        return this.#signField(data);
      case INS_GET_CAPABILITIES: {
        if (!this.extensions) return fail(SW_INS_NOT_SUPPORTED);
        const { version, capabilities } = EXTENSION_VERSIONS[this.extensions];
        return Uint8Array.of(...version, capabilities, MAX_FIELDS);
      }
      case INS_SIGN_FIELDS:
      case INS_CREATE_NULLIFIER:
      case INS_SIGN_ZKAPP:
      case INS_SIGN_PRESENTATION: {
        if (!this.extensions) return fail(SW_INS_NOT_SUPPORTED);
        if (this.extensions === '1.0' && (ins === INS_SIGN_ZKAPP || ins === INS_SIGN_PRESENTATION)) return fail(SW_INS_NOT_SUPPORTED);
        const payload = this.#receiveChunk(ins, p1, p2, data);
        if (!payload) return new Uint8Array(0);
        if (ins === INS_SIGN_FIELDS) return this.#signFields(payload);
        if (ins === INS_CREATE_NULLIFIER) return this.#createNullifier(payload);
        // A malformed or inconsistent stream is 0x6802, and leaves nothing behind (the request is over).
        try {
          return await (ins === INS_SIGN_ZKAPP ? this.#signZkapp(payload) : this.#signPresentation(payload));
        } catch (error) {
          if (error instanceof ZkappBodyError) return fail(SW_INVALID_DATA);
          throw error;
        }
      }
      default:
        return fail(SW_INS_NOT_SUPPORTED);
    }
  }

  /** BOLOS app info: format 1, name, version, flags. The dashboard reports itself as "BOLOS". */
  #appInfo(): Uint8Array {
    const [name, version] = this.#appOpen ? ['Mina', this.version] : ['BOLOS', '2.2.3'];
    const n = utf8.encode(name);
    const v = utf8.encode(version);
    return concatBytes(Uint8Array.of(1, n.length), n, Uint8Array.of(v.length), v, Uint8Array.of(1, 0));
  }

  async #review(review: Review): Promise<void> {
    const approved = await this.approve(review);
    if (!approved || !review.approvable) fail(SW_REJECTED);
  }

  async #getAddress(p1: number, data: Uint8Array): Promise<Uint8Array> {
    if (data.length !== 4) fail(SW_INVALID_DATA);
    const silentKnown = supports(this.version, 'silentAddress');
    if (silentKnown && p1 > 1) fail(SW_INVALID_DATA);
    const account = new ByteReader(data, invalidData).u32be();
    const { address } = this.#key(account);
    // Before 1.4.1 the app ignored P1 and always asked.
    if (p1 === 0 || !silentKnown) await this.#review(addressReview(derivationPath(account), address));
    return concatBytes(utf8.encode(address), Uint8Array.of(0));
  }

  async #signTx(data: Uint8Array): Promise<Uint8Array> {
    // Exactly SIGN_TX_BODY_LENGTH bytes: anything shorter or longer is 0x6802 (readSignTxBody's overrun).
    const body = readSignTxBody(data, invalidData);
    const { account, amount, fee, nonce, validUntil, tag, networkId } = body;
    const source = readAddress(body.from);
    const receiver = readAddress(body.to);
    if (tag !== TX_TAG_PAYMENT && tag !== TX_TAG_DELEGATION) fail(SW_INVALID_DATA);
    if (networkId !== 0 && networkId !== 1) fail(SW_INVALID_DATA);
    if (amount + fee > MAX_U64) fail(SW_INVALID_DATA);
    const memo = Uint8Array.from(cString(body.memo));
    const txType = tag === TX_TAG_PAYMENT ? 'payment' : 'delegation';
    const from = latin1(body.from);
    const shown = { txType, from, to: latin1(body.to), amount, fee, nonce, validUntil, memo, networkId } as const;
    await this.#review(transactionReview(shown, this.version));
    const key = this.#key(account);
    if (key.address !== from) fail(SW_INVALID_DATA);
    const command = { txType, source, receiver, amount, fee, nonce, validUntil, memo } as const;
    return rawSignature(await signUserCommand(command, key.secret, networkId as NetworkId));
  }

  async #signMessage(data: Uint8Array): Promise<Uint8Array> {
    if (data.length <= 5) fail(SW_INVALID_DATA);
    // account u32 ‖ network id u8 ‖ message
    const reader = new ByteReader(data, invalidData);
    const account = reader.u32be();
    const networkId = reader.u8();
    if (networkId !== 0 && networkId !== 1) fail(SW_INVALID_DATA);
    const messageBytes = Uint8Array.from(reader.rest());
    const message = latin1(messageBytes);
    const signedText = signedMessageText(this.version, message);
    // 1.4.2 and 1.4.3 also displayed the prefix; later versions show the message only.
    const shown = atLeast(this.version, '1.4.5') ? messageBytes : signedText;
    await this.#review(messageReview(shown, networkId));
    const signedBytes = Uint8Array.from(signedText, (c) => c.charCodeAt(0));
    if (signedBytes.length > SIGNED_TEXT_MAX_BYTES || !signedBytes.every(isPrintableMessageByte)) fail(SW_INVALID_DATA);
    const key = this.#key(account);
    const signature = rawSignature(signLegacyMessage(signedText, key.privateKeyBase58, networkId as NetworkId));
    if (!supports(this.version, 'echoedMessage')) return signature;
    return concatBytes(signature, Uint8Array.of(signedBytes.length), signedBytes);
  }

  async #signField(data: Uint8Array): Promise<Uint8Array> {
    if (data.length !== 37) fail(SW_INVALID_DATA);
    // account u32 ‖ network id u8 ‖ field (32 bytes little-endian)
    const reader = new ByteReader(data, invalidData);
    const account = reader.u32be();
    const networkId = reader.u8();
    if (networkId !== 0 && networkId !== 1) fail(SW_INVALID_DATA);
    const fieldBytes = reader.bytes(32);
    // The app does no range check and signs the raw 256-bit value (recorded: p and 2^255 - 1 are not reduced).
    const field = bytesToUintLE(fieldBytes);
    if (!this.blindSigning) {
      await this.#review(blindSigningDisabledNotice());
      return fail(SW_REJECTED);
    }
    await this.#review(fieldElementReview(field, networkId));
    const key = this.#key(account);
    const signature = await signFieldElement(field, key.secret, networkId as NetworkId);
    return concatBytes(rawSignature(signature), Uint8Array.of(0x20), fieldBytes);
  }

  /** Collects a chunked request; returns the whole payload on the last chunk, undefined before it. */
  #receiveChunk(ins: number, p1: number, p2: number, data: Uint8Array): Uint8Array | undefined {
    if ((p1 !== P1_FIRST && p1 !== P1_MORE) || (p2 !== P2_MORE && p2 !== P2_LAST)) {
      this.#pending = undefined;
      return fail(SW_INVALID_DATA);
    }
    if (p1 === P1_FIRST) this.#pending = { ins, parts: [], size: 0 };
    const pending = this.#pending;
    if (!pending) return fail(SW_INVALID_DATA); // a continuation without a first chunk
    pending.parts.push(Uint8Array.from(data));
    pending.size += data.length;
    if (pending.size > (MAX_EXTENSION_PAYLOAD[ins] ?? 0)) {
      this.#pending = undefined;
      return fail(SW_INVALID_DATA);
    }
    if (p2 === P2_MORE) return undefined;
    this.#pending = undefined;
    return concatBytes(...pending.parts);
  }

  /** N u8 ‖ N field elements, each 32 bytes little-endian and < p; anything else is 0x6802 (`reader`'s overrun). */
  #readFields(reader: ByteReader, min: number): bigint[] {
    const count = reader.u8();
    if (count < min || count > MAX_FIELDS) fail(SW_INVALID_DATA);
    return Array.from({ length: count }, () => reader.fieldLE());
  }

  async #signFields(payload: Uint8Array): Promise<Uint8Array> {
    // account u32 ‖ domain u8 ‖ N u8 ‖ N × field (docs/apdu-extensions.md)
    const reader = new ByteReader(payload, invalidData);
    const account = reader.u32be();
    const domainByte = reader.u8();
    if (domainByte !== DOMAIN_TESTNET && domainByte !== DOMAIN_MAINNET) fail(SW_INVALID_DATA);
    // N ≥ 2: a one-field kimchi signature is exactly what authorises a zkApp transaction (INS 06).
    const fields = this.#readFields(reader, MIN_SIGN_FIELDS);
    reader.end();
    const domain = domainByte === DOMAIN_MAINNET ? 'mainnet' : 'testnet';
    // Blind signing (zkApps act on such signatures; the device cannot tell what they mean): behind the setting, as INS 06.
    if (!this.blindSigning) {
      await this.#review(signFieldsBlindDisabledNotice());
      return fail(SW_REJECTED);
    }
    await this.#review(signFieldsReview(fields.length, fieldsDigest(fields), domain));
    const key = this.#key(account);
    return rawSignature(await signFields(fields, key.secret, key.privateKeyBase58, domain));
  }

  async #createNullifier(payload: Uint8Array): Promise<Uint8Array> {
    // account u32 ‖ N u8 ‖ N × field (docs/apdu-extensions.md)
    const reader = new ByteReader(payload, invalidData);
    const account = reader.u32be();
    const fields = this.#readFields(reader, 0); // N = 0 is valid: H = hashToGroup(pk)
    // Version 1.1: the origin the host says asked for it (u8 length ‖ UTF-8), shown, not signed.
    let origin: string | undefined;
    if (reader.remaining > 0) {
      if (this.extensions === '1.0') fail(SW_INVALID_DATA);
      origin = reader.text(); // a short text, one that is not UTF-8 or bytes after it: 0x6802
    }
    reader.end();
    await this.#review(nullifierReview(fields, origin));
    const { x, y, c, s } = createNullifier(fields, this.#key(account).privateKeyBase58);
    return concatBytes(...[x, y, c, s].map((v) => uintToBytesBE(v, 32)));
  }

  /** SIGN_ZKAPP: rebuild, hash, show, then sign each value this account owes (docs/apdu-extensions.md). */
  async #signZkapp(payload: Uint8Array): Promise<Uint8Array> {
    const key = this.#key(new ByteReader(payload, invalidData).u32be());
    const mine = readAddress(utf8.encode(key.address));
    const zkapp = await parseZkappRequest(payload, mine);
    const values = valuesToSign(zkapp);
    if (values.length === 0) fail(SW_INVALID_DATA); // nothing in this command for this account to sign
    const updates = await describeUpdates(zkapp);
    const { stream } = zkapp;
    const feePayer = (await minaSignerInternals(stream.era)).PublicKey.toBase58(stream.feePayer.publicKey);
    await this.#review(
      zkappReview({
        network: stream.network,
        feePayer,
        feePayerIsMine: zkapp.signs.feePayer,
        fee: stream.feePayer.fee,
        nonce: stream.feePayer.nonce,
        validUntil: stream.feePayer.validUntil,
        memo: stream.memo.subarray(2, 2 + stream.memo[1]!),
        updates,
        signs: zkapp.signs,
      }),
    );
    const networkId: NetworkId = stream.network === 'mainnet' ? 1 : 0;
    const signatures = [];
    for (const { kind, value } of values) {
      const { field, scalar } = await signFieldElement(value, key.secret, networkId);
      signatures.push({ kind, r: BigInt(field), s: BigInt(scalar) });
    }
    return encodeZkappSignaturesReply({ commitment: zkapp.commitment, fullCommitment: zkapp.fullCommitment, signatures });
  }

  /** SIGN_PRESENTATION: show the verifier, compute the context, sign [context, credential hashes and issuers]. */
  async #signPresentation(payload: Uint8Array): Promise<Uint8Array> {
    const presentation = await parsePresentationRequest(payload);
    await this.#review(presentationReview(presentation.view));
    const key = this.#key(presentation.account);
    const { field, scalar } = await signFields(presentation.fields, key.secret, key.privateKeyBase58, 'testnet');
    return concatBytes(...[presentation.context, BigInt(field), BigInt(scalar)].map((v) => uintToBytesBE(v, 32)));
  }

  #key(account: number): AccountKey {
    const hardened = (account & 0x7fffffff) >>> 0;
    let key = this.#keys.get(hardened);
    if (!key) {
      key = deriveAccountKey(this.#root, hardened);
      this.#keys.set(hardened, key);
    }
    return key;
  }

  #emit(event: string, ...args: unknown[]): void {
    for (const listener of [...(this.#listeners.get(event) ?? [])]) listener(...args);
  }
}

/** Address payload: version byte 0xCB, two binable version bytes, x (32 bytes little-endian), parity byte. */
const ADDRESS_PAYLOAD_LENGTH = 36;

/**
 * The app checks an address by its base58check checksum only (src/parse_tx.c): whatever the version bytes, x and
 * the parity byte are, it signs them as decoded (recorded: x altered and parity byte 2 both signed). A checksum
 * that fails, or a payload that is not 36 bytes, is 0x6802.
 */
function readAddress(bytes: Uint8Array): DecodedPublicKey {
  let payload: Uint8Array;
  try {
    payload = base58check.decode(latin1(bytes));
  } catch {
    return fail(SW_INVALID_DATA);
  }
  if (payload.length !== ADDRESS_PAYLOAD_LENGTH) fail(SW_INVALID_DATA);
  return { x: bytesToUintLE(payload.subarray(3, 35)), isOdd: payload[35] !== 0 };
}

/** Bytes as one character each (the app's C strings are bytes, not UTF-8). */
function latin1(bytes: Uint8Array): string {
  return String.fromCharCode(...bytes);
}

function rawSignature(signature: MinaSignature): Uint8Array {
  return fromHex(signatureToRawHex(signature));
}
