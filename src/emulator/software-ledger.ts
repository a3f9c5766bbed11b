/**
 * The software Ledger: a byte-exact model of the Mina Ledger app (v1.6.0 by default, older versions on request)
 * behind the same structural `send()` transport a real device has. The app's instructions: app-instructions.ts; the
 * chain-ledger protocol extension: extension-instructions.ts; what it shows: review.ts, and on a Speculos-compatible
 * server with its menu and buttons: speculos-server.ts.
 *
 * IT IS NOT HARDWARE. Its keys live in this process's memory. Never use it with a mnemonic that holds real funds.
 */
import type { HDKey } from '@scure/bip32';
import { concatBytes, toHex } from '../apdu/bytes.js';
import {
  CLA,
  INS_GET_ADDRESS,
  INS_GET_VERSION,
  INS_SIGN_FIELD_ELEMENT,
  INS_SIGN_MESSAGE,
  INS_SIGN_TX,
  MAX_APDU_DATA,
  MAX_APDU_LENGTH,
  SW_APP_NOT_OPEN,
  SW_CLA_NOT_SUPPORTED,
  SW_EMPTY_APDU,
  SW_INS_NOT_SUPPORTED,
  SW_LOCKED,
  SW_OK,
  SW_REJECTED,
} from '../apdu/constants.js';
import { parseVersion, supports } from '../apdu/version.js';
import { isStoreKeyRequest } from '../apdu/store-key.js';
import type { ApduTransport } from '../transport/types.js';
import { getAddress, getVersion, signField, signMessage, signTx } from './app-instructions.js';
import { DisconnectedDeviceError, Rejected, TransportStatusError, fail } from './device-errors.js';
import {
  ChunkReceiver,
  EXTENSION_INSTRUCTIONS,
  extensionInstruction,
  type ExtensionDevice,
  type ExtensionVersion,
} from './extension-instructions.js';
import { Dashboard } from './dashboard.js';
import { isDeviceModel, type DeviceModel } from './device-models.js';
import { deriveAccountKey, mnemonicToSeed, rootFromSeed, type AccountKey } from './keys.js';
import type { Approver, Review } from './review.js';

export { DisconnectedDeviceError, TransportStatusError } from './device-errors.js';

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
  /**
   * Whether the Mina app is open (default true). When closed the dashboard answers (dashboard.ts): GetOsVersion,
   * OpenApp (the user confirms through `approve`), and `closedAppStatus` to the app's instructions.
   */
  appOpen?: boolean;
  /** What the dashboard answers to Mina APDUs when the app is closed (default 0x6E01; some firmware: 0x6511, 0x6E00). */
  closedAppStatus?: number;
  /** Whether the Mina app is installed, for the dashboard's OpenApp (default true; false answers 0x6807). */
  appInstalled?: boolean;
  /** Delay before each reply, to model a slow device (default 0). */
  latencyMs?: number;
  /** Where the not-hardware warning goes (default console.warn). It is always emitted once per instance. */
  warn?: (message: string) => void;
  /** BIP39 passphrase (default none, like the app's tests). */
  passphrase?: string;
  /**
   * The chain-ledger protocol extension (docs/apdu-extensions.md): default false, exactly like the released Mina app,
   * which answers 0x6D00 to it. true: the latest version, 1.4, INS 0xA0–0xA6 (nullifiers, multi-field signing, zkApp
   * commands and presentations in clear, messages of up to 16 KiB shown in pages or, past what a person pages through,
   * as their hash behind Blind signing, the credential store's key with the site asking); an earlier version by name:
   * '1.0' (0xA0–0xA2, a device that signs zkApps and presentations blind), '1.1' (0xA0–0xA4, no SIGN_TEXT), '1.2'
   * (0xA0–0xA5, the store key through INS 05, which does not name the site) or '1.3' (messages of up to 1024 bytes).
   * Say so wherever the device is shown.
   */
  extensions?: boolean | '1.0' | '1.1' | '1.2' | '1.3' | '1.4';
  /**
   * The device it is (Speculos's model names, default 'nanosp'): 'nanox' shows the same BAGL screens (the app's
   * bagl code serves both), 'stax' and 'flex' the app's NBGL reviews and settings on a touch screen (touch-flows.ts,
   * through `SpeculosDisplay` and the Speculos server's `/finger`); the OS's GetOsVersion names the model's target.
   */
  model?: DeviceModel;
}

type Listener = (...args: unknown[]) => void;

export interface ExchangeRecord {
  request: string;
  /** The reply, hex; for a store-key request only its status word (the signature is the store key). */
  reply: string;
  /** Set when the reply data was withheld because it is the credential store's key. */
  redacted?: true;
}

/**
 * A software Ledger running the Mina app: NOT hardware, a byte-exact model of the released app (v1.6.0 by default)
 * that holds a BIP39 seed in this process and answers APDUs as the device does, reply bytes and status words
 * included. It is an `ApduTransport`, so it stands wherever a device does (`createLedgerProvider({ transport })`,
 * `new MinaLedgerApp(ledger)`). `approve` plays the user: it sees each review's screens, as the Nano S Plus draws
 * them, and answers. `blindSigning` is the app's setting (its menu toggles it on the Speculos-compatible server).
 * `lock()`, `closeApp()`, `unplug()` and `failNextExchange()` model what a person or a cable does to a device;
 * `extensions` turns on the chain-ledger protocol extension (off by default, like the released app). Create one with
 * `SoftwareLedger.fromMnemonic`.
 */
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
  readonly extensions: ExtensionVersion;
  /** The device model it behaves as (`model` option). */
  readonly model: DeviceModel;
  #root: HDKey;
  /** A chunked extension request being received. */
  #chunks = new ChunkReceiver();
  /** What the instructions read of the device and ask of it. */
  #device: ExtensionDevice;
  #keys = new Map<number, AccountKey>();
  #locked: boolean;
  #appOpen: boolean;
  /** The OS: the dashboard while the app is closed, and the SDK's own APDUs (dashboard.ts). */
  #os: Dashboard;
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
    const model = options.model ?? 'nanosp';
    if (!isDeviceModel(model)) throw new TypeError(`model must be one of nanosp, nanox, stax, flex (got ${String(model)})`);
    this.model = model;
    this.#os = new Dashboard(this, { closedAppStatus: options.closedAppStatus ?? SW_APP_NOT_OPEN, appInstalled: options.appInstalled });
    const named: readonly unknown[] = ['1.0', '1.1', '1.2', '1.3', '1.4'];
    this.extensions =
      options.extensions === true ? '1.4' : named.includes(options.extensions) ? (options.extensions as ExtensionVersion) : false;
    const ledger = this;
    this.#device = {
      get version() {
        return ledger.version;
      },
      get blindSigning() {
        return ledger.blindSigning;
      },
      get extensions() {
        return ledger.extensions;
      },
      key: (account) => this.#key(account),
      review: (review) => this.#review(review),
    };
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
  // ---- the app ----

  async #answer(apdu: Uint8Array): Promise<Uint8Array> {
    if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
    const os = await this.#os.answer(apdu);
    if (os) return os;
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
    // src/main.c: CLA, then Lc against the received length, before looking at INS.
    if (apdu.length > MAX_APDU_LENGTH || apdu.length < 5 || apdu[0] !== CLA) fail(SW_CLA_NOT_SUPPORTED);
    if (apdu[4]! + 5 !== apdu.length) fail(SW_CLA_NOT_SUPPORTED);
    const [, ins, p1, p2] = apdu as unknown as [number, number, number, number];
    const data = apdu.subarray(5);
    this.#chunks.interrupt(ins);
    const device = this.#device;
    if (ins === INS_GET_VERSION) return getVersion(device);
    if (ins === INS_GET_ADDRESS) return getAddress(device, p1, data);
    if (ins === INS_SIGN_TX) return signTx(device, data);
    if (ins === INS_SIGN_MESSAGE && supports(this.version, 'signMessage')) return signMessage(device, data);
    if (ins === INS_SIGN_FIELD_ELEMENT && supports(this.version, 'signFieldElement')) return signField(device, data);
    if (EXTENSION_INSTRUCTIONS.has(ins)) return extensionInstruction(device, this.#chunks, [ins, p1, p2], data);
    return fail(SW_INS_NOT_SUPPORTED);
  }

  /** Shows a review; anything but an approval of an approvable review ends the instruction with 0x6985. */
  async #review(review: Review): Promise<void> {
    const answer = await this.approve(review);
    if (answer !== true || !review.approvable) fail(SW_REJECTED);
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
