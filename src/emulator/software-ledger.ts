/**
 * The software Ledger: a byte-exact model of the Mina Ledger app (v1.6.0 by default, older versions on request)
 * behind the same structural `send()` transport a real device has. Keys come from a BIP39 mnemonic, derived as the
 * device derives them; signatures come from mina-signer and equal the app's; validation order, status words and
 * reply layouts follow the app's C code (Zondax/ledger-mina src/main.c, parse_tx.c, sign_msg.c, get_address.c).
 *
 * IT IS NOT HARDWARE. Its keys live in this process's memory. Never use it with a mnemonic that holds real funds.
 */
import type { HDKey } from '@scure/bip32';
import { base58check, bytesToUintBE, bytesToUintLE, concatBytes, fromHex, toHex, uintToBytesBE, utf8 } from '../apdu/bytes.js';
import { isPrintableMessageByte, type NetworkId } from '../apdu/codec.js';
import {
  ADDRESS_LENGTH,
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
  MEMO_MAX_BYTES,
  PALLAS_P,
  SIGNED_TEXT_MAX_BYTES,
  SIGN_TX_BODY_LENGTH,
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
  DOMAIN_MAINNET,
  DOMAIN_TESTNET,
  INS_CREATE_NULLIFIER,
  INS_GET_CAPABILITIES,
  INS_SIGN_FIELDS,
  MAX_FIELDS,
  MIN_SIGN_FIELDS,
  P1_FIRST,
  P1_MORE,
  P2_LAST,
  P2_MORE,
  fieldsDigest,
} from '../apdu/extension.js';
import { signatureToRawHex, type MinaSignature } from '../apdu/signature.js';
import { atLeast, parseVersion, signedMessageText, supports } from '../apdu/version.js';
import type { ApduTransport } from '../transport/types.js';
import { deriveAccountKey, derivationPath, mnemonicToSeed, rootFromSeed, type AccountKey } from './keys.js';
import {
  addressReview,
  blindSigningDisabledNotice,
  fieldElementReview,
  messageReview,
  transactionReview,
  nullifierReview,
  signFieldsReview,
  type Approver,
  type Review,
} from './review.js';
import { createNullifier, signFieldElement, signFields, signLegacyMessage, signLegacyTransaction } from './signer.js';

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
   * The chain-ledger protocol extension, INS 0xA0–0xA2 (docs/apdu-extensions.md): default true. false behaves
   * exactly like the real Mina app, which answers 0x6D00 to them.
   */
  extensions?: boolean;
}

/** GET_CAPABILITIES: extension protocol version 1.0. */
const EXTENSION_VERSION = [1, 0] as const;
/** The largest chunked payload: account, domain, count and 64 fields. */
const MAX_EXTENSION_PAYLOAD = 6 + 32 * MAX_FIELDS;

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

export interface ExchangeRecord {
  request: string;
  reply: string;
}

export class SoftwareLedger implements ApduTransport {
  readonly isSoftwareLedger = true;
  /** Every exchange, in `@ledgerhq/hw-transport-mocker` RecordStore order (APDUs carry no secrets). */
  readonly exchanges: ExchangeRecord[] = [];

  approve: Approver;
  blindSigning: boolean;
  latencyMs: number;
  readonly version: string;
  readonly extensions: boolean;
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
    this.extensions = options.extensions ?? true;
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
    if (this.#current) throw Object.assign(new Error('An action was already pending on the Ledger device'), { name: 'TransportRaceCondition' });
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
    this.exchanges.push({ request: toHex(request), reply: toHex(reply) });
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
      case INS_GET_CAPABILITIES:
        if (!this.extensions) return fail(SW_INS_NOT_SUPPORTED);
        return Uint8Array.of(...EXTENSION_VERSION, CAP_SIGN_FIELDS | CAP_CREATE_NULLIFIER, MAX_FIELDS);
      case INS_SIGN_FIELDS:
      case INS_CREATE_NULLIFIER: {
        if (!this.extensions) return fail(SW_INS_NOT_SUPPORTED);
        const payload = this.#receiveChunk(ins, p1, p2, data);
        if (!payload) return new Uint8Array(0);
        return ins === INS_SIGN_FIELDS ? this.#signFields(payload) : this.#createNullifier(payload);
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
    const account = Number(bytesToUintBE(data));
    const { address } = this.#key(account);
    // Before 1.4.1 the app ignored P1 and always asked.
    if (p1 === 0 || !silentKnown) await this.#review(addressReview(derivationPath(account), address));
    return concatBytes(utf8.encode(address), Uint8Array.of(0));
  }

  async #signTx(data: Uint8Array): Promise<Uint8Array> {
    if (data.length !== SIGN_TX_BODY_LENGTH) fail(SW_INVALID_DATA);
    const account = Number(bytesToUintBE(data.subarray(0, 4)));
    const from = readAddress(data.subarray(4, 4 + ADDRESS_LENGTH));
    const to = readAddress(data.subarray(59, 59 + ADDRESS_LENGTH));
    const amount = bytesToUintBE(data.subarray(114, 122));
    const fee = bytesToUintBE(data.subarray(122, 130));
    const nonce = Number(bytesToUintBE(data.subarray(130, 134)));
    const validUntil = Number(bytesToUintBE(data.subarray(134, 138)));
    const memoBytes = data.subarray(138, 138 + MEMO_MAX_BYTES);
    const tag = data[170];
    const networkId = data[171];
    if (tag !== TX_TAG_PAYMENT && tag !== TX_TAG_DELEGATION) fail(SW_INVALID_DATA);
    if (networkId !== 0 && networkId !== 1) fail(SW_INVALID_DATA);
    if (amount + fee > MAX_U64) fail(SW_INVALID_DATA);
    const end = memoBytes.indexOf(0);
    const memo = decodeMemo(memoBytes.subarray(0, end < 0 ? MEMO_MAX_BYTES : end));
    const tx = { txType: tag === TX_TAG_PAYMENT ? 'payment' : 'delegation', from, to, amount, fee, nonce, validUntil, memo } as const;
    await this.#review(transactionReview({ ...tx, networkId: networkId! }, this.version));
    const key = this.#key(account);
    if (key.address !== from) fail(SW_INVALID_DATA);
    return rawSignature(signLegacyTransaction(tx, key.privateKeyBase58, networkId as NetworkId));
  }

  async #signMessage(data: Uint8Array): Promise<Uint8Array> {
    if (data.length <= 5) fail(SW_INVALID_DATA);
    const account = Number(bytesToUintBE(data.subarray(0, 4)));
    const networkId = data[4];
    if (networkId !== 0 && networkId !== 1) fail(SW_INVALID_DATA);
    const messageBytes = data.subarray(5);
    const message = String.fromCharCode(...messageBytes);
    const signedText = signedMessageText(this.version, message);
    // 1.4.2 and 1.4.3 also displayed the prefix; later versions show the message only.
    const shown = atLeast(this.version, '1.4.5') ? message : signedText;
    await this.#review(messageReview(shown, networkId!));
    const signedBytes = Uint8Array.from(signedText, (c) => c.charCodeAt(0));
    if (signedBytes.length > SIGNED_TEXT_MAX_BYTES || !signedBytes.every(isPrintableMessageByte)) fail(SW_INVALID_DATA);
    const key = this.#key(account);
    const signature = rawSignature(signLegacyMessage(signedText, key.privateKeyBase58, networkId as NetworkId));
    if (!supports(this.version, 'echoedMessage')) return signature;
    return concatBytes(signature, Uint8Array.of(signedBytes.length), signedBytes);
  }

  async #signField(data: Uint8Array): Promise<Uint8Array> {
    if (data.length !== 37) fail(SW_INVALID_DATA);
    const account = Number(bytesToUintBE(data.subarray(0, 4)));
    const networkId = data[4];
    if (networkId !== 0 && networkId !== 1) fail(SW_INVALID_DATA);
    const fieldBytes = data.subarray(5, 37);
    // The app does no range check; a non-canonical value is reduced here (the host never sends one).
    const field = bytesToUintLE(fieldBytes) % PALLAS_P;
    if (!this.blindSigning) {
      await this.approve(blindSigningDisabledNotice());
      return fail(SW_REJECTED);
    }
    await this.#review(fieldElementReview(field, networkId!));
    const key = this.#key(account);
    const signature = await signFieldElement(field, key.secret, key.privateKeyBase58, networkId as NetworkId);
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
    if (pending.size > MAX_EXTENSION_PAYLOAD) {
      this.#pending = undefined;
      return fail(SW_INVALID_DATA);
    }
    if (p2 === P2_MORE) return undefined;
    this.#pending = undefined;
    return concatBytes(...pending.parts);
  }

  /** N field elements after a header, each 32 bytes little-endian and < p; anything else is 0x6802. */
  #readFields(payload: Uint8Array, offset: number, min: number): bigint[] {
    const count = payload[offset - 1]!;
    if (count < min || count > MAX_FIELDS || payload.length !== offset + 32 * count) fail(SW_INVALID_DATA);
    const fields = Array.from({ length: count }, (_, i) => bytesToUintLE(payload.subarray(offset + 32 * i, offset + 32 * (i + 1))));
    if (fields.some((f) => f >= PALLAS_P)) fail(SW_INVALID_DATA);
    return fields;
  }

  async #signFields(payload: Uint8Array): Promise<Uint8Array> {
    if (payload.length < 6) fail(SW_INVALID_DATA);
    const account = Number(bytesToUintBE(payload.subarray(0, 4)));
    const domainByte = payload[4];
    if (domainByte !== DOMAIN_TESTNET && domainByte !== DOMAIN_MAINNET) fail(SW_INVALID_DATA);
    // N ≥ 2: a one-field kimchi signature is exactly what authorises a zkApp transaction (INS 06).
    const fields = this.#readFields(payload, 6, MIN_SIGN_FIELDS);
    const domain = domainByte === DOMAIN_MAINNET ? 'mainnet' : 'testnet';
    await this.#review(signFieldsReview(fields.length, fieldsDigest(fields), domain));
    const key = this.#key(account);
    return rawSignature(await signFields(fields, key.secret, key.privateKeyBase58, domain));
  }

  async #createNullifier(payload: Uint8Array): Promise<Uint8Array> {
    if (payload.length < 5) fail(SW_INVALID_DATA);
    const account = Number(bytesToUintBE(payload.subarray(0, 4)));
    const fields = this.#readFields(payload, 5, 1);
    await this.#review(nullifierReview(fields.length, fieldsDigest(fields)));
    const { x, y, c, s } = createNullifier(fields, this.#key(account).privateKeyBase58);
    return concatBytes(...[x, y, c, s].map((v) => uintToBytesBE(v, 32)));
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

/** The app checks addresses by base58check only (src/parse_tx.c); anything else is 0x6802. */
function readAddress(bytes: Uint8Array): string {
  const text = String.fromCharCode(...bytes);
  try {
    base58check.decode(text);
  } catch {
    fail(SW_INVALID_DATA);
  }
  return text;
}

/** mina-signer takes the memo as a string; bytes that are not UTF-8 cannot be given to it, so they are refused. */
function decodeMemo(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return fail(SW_INVALID_DATA);
  }
}

function rawSignature(signature: MinaSignature): Uint8Array {
  return fromHex(signatureToRawHex(signature));
}
