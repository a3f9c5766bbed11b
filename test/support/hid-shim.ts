/**
 * A test-only `navigator.hid` (WebHID) backed by any APDU device, e.g. the software Ledger: one fake Ledger
 * Nano X that speaks the Ledger HID framing, so the real, unmodified `@ledgerhq/hw-transport-webhid` can run
 * against it.
 *
 * Only Web APIs are used here (EventTarget, Event, DOMException, DataView, Uint8Array, Promise), and there are no
 * imports, so the same file can be bundled (esbuild --format=iife) and injected into a Chromium page before its
 * scripts, with `device.exchange` bridged to Node (e.g. through Playwright's `page.exposeFunction`).
 *
 * Framing (both directions): 64-byte reports = channel (2 bytes BE) | tag 0x05 | sequence (2 bytes BE) | payload;
 * the first report of a message carries the message length (2 bytes BE) before its payload; the last is zero-padded.
 * The host's reports are reassembled into one APDU, `device.exchange` answers it, and the reply goes back as
 * "inputreport" events on the host's channel.
 *
 * Behaviour modelled on Chromium's:
 * - `getDevices()` lists the device only after a grant (and not while it is unplugged);
 * - `requestDevice()` needs `filters`; the chooser can select, be cancelled (resolves []) or be refused for lack of
 *   a user gesture (SecurityError);
 * - `sendReport` on a closed device rejects with InvalidStateError, on an unplugged one with NotAllowedError
 *   "Failed to write the report." (the transport turns a message containing "write" into a disconnect);
 * - `unplug()` closes the device, fires "disconnect" on `hid` with `{ device }`, and drops any reply still pending.
 *
 * NOT a security boundary and not a real device: tests only.
 */

/** What answers the APDUs: the software Ledger, a RecordStore replayer, a bridge to Node, … */
export interface ApduDevice {
  exchange(apdu: Uint8Array): Promise<Uint8Array>;
  /** When present (as on SoftwareLedger), a "disconnect" of the device itself unplugs the fake HID device. */
  on?(event: 'disconnect', listener: () => void): void;
}

/** What the device chooser does when `requestDevice` is called. */
export type ChooserAction = 'select' | 'cancel' | 'no-gesture';

export interface HidShimOptions {
  /** The device was granted to this origin before (default false): `getDevices()` lists it at once. */
  granted?: boolean;
  /** What the chooser does (default 'select'); a function is asked on every `requestDevice`. Mutable: `shim.chooser`. */
  chooser?: ChooserAction | ((options: HIDDeviceRequestOptions) => ChooserAction);
  vendorId?: number;
  /** Default 0x4011 (Nano X). */
  productId?: number;
  productName?: string;
  /** HID report size (default 64). */
  packetSize?: number;
  /** Send one report on a foreign channel before every reply (as when another app talks to the device). */
  foreignChannelNoise?: boolean;
}

/** One APDU as seen on the wire. */
export interface WireExchange {
  channel: number;
  request: Uint8Array;
  /** undefined while pending, or when the device failed or went away before answering. */
  reply?: Uint8Array;
  framesOut: number;
  framesIn: number;
  /** The reply was computed but never delivered (unplugged or closed meanwhile). */
  dropped?: boolean;
  error?: unknown;
}

export const LEDGER_VENDOR_ID = 0x2c97;
export const LEDGER_USAGE_PAGE = 0xffa0;
const TAG_APDU = 0x05;

// ---- framing (pure functions, reusable on both sides) ----

/** Splits a message into Ledger HID frames on `channel`. */
export function encodeFrames(channel: number, message: Uint8Array, packetSize = 64): Uint8Array[] {
  if (message.length > 0xffff) throw new RangeError(`message too long for HID framing: ${message.length} bytes`);
  const body = new Uint8Array(message.length + 2);
  body[0] = message.length >> 8;
  body[1] = message.length & 0xff;
  body.set(message, 2);
  const chunk = packetSize - 5;
  const frames: Uint8Array[] = [];
  for (let seq = 0, offset = 0; offset < body.length; seq++, offset += chunk) {
    const frame = new Uint8Array(packetSize);
    frame.set([(channel >> 8) & 0xff, channel & 0xff, TAG_APDU, (seq >> 8) & 0xff, seq & 0xff]);
    frame.set(body.subarray(offset, offset + chunk), 5);
    frames.push(frame);
  }
  return frames;
}

/** Reassembles one message from Ledger HID frames; throws on a wrong channel, tag or sequence. */
export class FrameAssembler {
  channel: number | undefined;
  #length = 0;
  #data: number[] = [];
  #sequence = 0;
  frames = 0;

  /** Adds a frame; returns the whole message once complete, else undefined. */
  push(frame: Uint8Array): Uint8Array | undefined {
    if (frame.length < 5) throw new Error(`hid-shim: frame of ${frame.length} bytes`);
    const channel = (frame[0]! << 8) | frame[1]!;
    const tag = frame[2]!;
    const sequence = (frame[3]! << 8) | frame[4]!;
    if (tag !== TAG_APDU) throw new Error(`hid-shim: unexpected tag 0x${tag.toString(16)}`);
    if (sequence !== this.#sequence) throw new Error(`hid-shim: sequence ${sequence}, expected ${this.#sequence}`);
    let payload: Uint8Array;
    if (sequence === 0) {
      if (frame.length < 7) throw new Error('hid-shim: first frame without a length');
      this.channel = channel;
      this.#length = (frame[5]! << 8) | frame[6]!;
      payload = frame.subarray(7);
    } else {
      if (channel !== this.channel)
        throw new Error(`hid-shim: channel 0x${channel.toString(16)} inside a message on 0x${this.channel!.toString(16)}`);
      payload = frame.subarray(5);
    }
    this.#sequence++;
    this.frames++;
    for (const byte of payload.subarray(0, this.#length - this.#data.length)) this.#data.push(byte);
    return this.#data.length === this.#length ? Uint8Array.from(this.#data) : undefined;
  }
}

function toBytes(data: BufferSource): Uint8Array {
  if (data instanceof ArrayBuffer) return new Uint8Array(data.slice(0));
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
  throw new TypeError('hid-shim: sendReport data must be a BufferSource');
}

// ---- events ----

export class ShimConnectionEvent extends Event {
  readonly device: HIDDevice;
  constructor(type: 'connect' | 'disconnect', init: { device: HIDDevice }) {
    super(type);
    this.device = init.device;
  }
}

export class ShimInputReportEvent extends Event {
  readonly device: HIDDevice;
  readonly reportId: number;
  readonly data: DataView;
  constructor(init: { device: HIDDevice; reportId: number; data: DataView }) {
    super('inputreport');
    this.device = init.device;
    this.reportId = init.reportId;
    this.data = init.data;
  }
}

/** The `on<event>` attribute of an EventTarget: one listener slot beside addEventListener. */
function handlerSlot<T extends EventTarget>(target: T, type: string) {
  let current: ((ev: Event) => unknown) | null = null;
  const listener = (ev: Event) => current?.call(target, ev);
  target.addEventListener(type, listener);
  return {
    get: () => current,
    set: (value: ((ev: Event) => unknown) | null) => (current = typeof value === 'function' ? value : null),
  };
}

// ---- the fake device ----

export class FakeHidDevice extends EventTarget implements HIDDevice {
  readonly vendorId: number;
  readonly productId: number;
  readonly productName: string;
  readonly collections: HIDCollectionInfo[];
  #opened = false;
  #oninputreport = handlerSlot(this, 'inputreport');
  readonly #shim: ShimState;

  /** @internal */
  constructor(shim: ShimState, options: HidShimOptions) {
    super();
    this.#shim = shim;
    this.vendorId = options.vendorId ?? LEDGER_VENDOR_ID;
    this.productId = options.productId ?? 0x4011;
    this.productName = options.productName ?? 'Nano X';
    const size = shim.packetSize;
    const report = (reportId: number): HIDReportInfo[] => [
      {
        reportId,
        items: [{ reportSize: 8, reportCount: size, usages: [LEDGER_USAGE_PAGE * 0x10000 + 1], logicalMinimum: 0, logicalMaximum: 255 }],
      },
    ];
    this.collections = [
      {
        usagePage: LEDGER_USAGE_PAGE,
        usage: 0x01,
        type: 1,
        children: [],
        inputReports: report(0),
        outputReports: report(0),
        featureReports: [],
      },
    ];
  }

  get oninputreport(): ((this: HIDDevice, ev: HIDInputReportEvent) => any) | null {
    return this.#oninputreport.get() as never;
  }
  set oninputreport(value: ((this: HIDDevice, ev: HIDInputReportEvent) => any) | null) {
    this.#oninputreport.set(value as never);
  }

  // The typed overloads of the HIDDevice interface, over the plain EventTarget methods.
  override addEventListener(
    type: 'inputreport',
    listener: (this: this, ev: HIDInputReportEvent) => any,
    options?: boolean | AddEventListenerOptions,
  ): void;
  override addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | AddEventListenerOptions,
  ): void;
  override addEventListener(type: string, listener: any, options?: boolean | AddEventListenerOptions): void {
    super.addEventListener(type, listener, options);
  }
  override removeEventListener(
    type: 'inputreport',
    listener: (this: this, ev: HIDInputReportEvent) => any,
    options?: boolean | EventListenerOptions,
  ): void;
  override removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | EventListenerOptions,
  ): void;
  override removeEventListener(type: string, listener: any, options?: boolean | EventListenerOptions): void {
    super.removeEventListener(type, listener, options);
  }

  get opened(): boolean {
    return this.#opened;
  }

  async open(): Promise<void> {
    if (this.#shim.unplugged) throw new DOMException('Failed to open the device.', 'NotAllowedError');
    if (this.#opened) throw new DOMException('The device is already open.', 'InvalidStateError');
    this.#opened = true;
    this.#shim.session++;
    this.#shim.assembler = new FrameAssembler();
  }

  async close(): Promise<void> {
    if (this.#opened) this.#shim.session++;
    this.#opened = false;
  }

  async forget(): Promise<void> {
    await this.close();
    this.#shim.granted = false;
  }

  async sendReport(reportId: number, data: BufferSource): Promise<void> {
    const shim = this.#shim;
    if (shim.unplugged) throw new DOMException('Failed to write the report.', 'NotAllowedError');
    if (!this.#opened)
      throw new DOMException("Failed to execute 'sendReport' on 'HIDDevice': The device must be opened first.", 'InvalidStateError');
    if (reportId !== 0) throw new DOMException(`hid-shim: report id ${reportId}, the Ledger uses 0`, 'NotSupportedError');
    const frame = toBytes(data);
    if (frame.length !== shim.packetSize) {
      throw new DOMException(`hid-shim: report of ${frame.length} bytes, expected ${shim.packetSize}`, 'NotSupportedError');
    }
    shim.frames.out++;
    let apdu: Uint8Array | undefined;
    try {
      apdu = shim.assembler.push(frame);
    } catch (error) {
      shim.assembler = new FrameAssembler();
      shim.protocolErrors.push(error);
      throw error;
    }
    if (!apdu) return;
    const channel = shim.assembler.channel!;
    const framesOut = shim.assembler.frames;
    shim.assembler = new FrameAssembler();
    // The report is written; the device answers later, like a real one.
    shim.answer({ channel, request: apdu, framesOut, framesIn: 0 }, this);
  }

  async sendFeatureReport(): Promise<void> {
    throw new DOMException('hid-shim: no feature reports', 'NotSupportedError');
  }

  async receiveFeatureReport(): Promise<DataView> {
    throw new DOMException('hid-shim: no feature reports', 'NotSupportedError');
  }

  /** @internal Delivers one report to the host. */
  deliver(frame: Uint8Array): void {
    const buffer = new ArrayBuffer(frame.length);
    new Uint8Array(buffer).set(frame);
    this.dispatchEvent(new ShimInputReportEvent({ device: this, reportId: 0, data: new DataView(buffer) }));
  }

  /** @internal */
  markUnplugged(): void {
    this.#opened = false;
  }
}

// ---- navigator.hid ----

export class FakeHid extends EventTarget implements HID {
  #onconnect = handlerSlot(this, 'connect');
  #ondisconnect = handlerSlot(this, 'disconnect');
  readonly #shim: ShimState;

  /** @internal */
  constructor(shim: ShimState) {
    super();
    this.#shim = shim;
  }

  get onconnect(): ((this: HID, ev: Event) => any) | null {
    return this.#onconnect.get() as never;
  }
  set onconnect(value: ((this: HID, ev: Event) => any) | null) {
    this.#onconnect.set(value as never);
  }
  get ondisconnect(): ((this: HID, ev: Event) => any) | null {
    return this.#ondisconnect.get() as never;
  }
  set ondisconnect(value: ((this: HID, ev: Event) => any) | null) {
    this.#ondisconnect.set(value as never);
  }

  // The typed overloads of the HID interface, over the plain EventTarget methods.
  override addEventListener(
    type: 'connect' | 'disconnect',
    listener: (this: this, ev: HIDConnectionEvent) => any,
    options?: boolean | AddEventListenerOptions,
  ): void;
  override addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | AddEventListenerOptions,
  ): void;
  override addEventListener(type: string, listener: any, options?: boolean | AddEventListenerOptions): void {
    super.addEventListener(type, listener, options);
  }
  override removeEventListener(
    type: 'connect' | 'disconnect',
    listener: (this: this, ev: HIDConnectionEvent) => any,
    options?: boolean | EventListenerOptions,
  ): void;
  override removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | EventListenerOptions,
  ): void;
  override removeEventListener(type: string, listener: any, options?: boolean | EventListenerOptions): void {
    super.removeEventListener(type, listener, options);
  }

  async getDevices(): Promise<HIDDevice[]> {
    const shim = this.#shim;
    shim.calls.getDevices++;
    return shim.granted && !shim.unplugged ? [shim.device] : [];
  }

  async requestDevice(options?: HIDDeviceRequestOptions): Promise<HIDDevice[]> {
    const shim = this.#shim;
    shim.calls.requestDevice++;
    if (!options || !Array.isArray(options.filters)) {
      throw new TypeError("Failed to execute 'requestDevice' on 'HID': required member filters is undefined.");
    }
    const action = typeof shim.chooser === 'function' ? shim.chooser(options) : shim.chooser;
    if (action === 'no-gesture') {
      throw new DOMException(
        "Failed to execute 'requestDevice' on 'HID': Must be handling a user gesture to show a permission request.",
        'SecurityError',
      );
    }
    // The chooser lists only matching, connected devices; picking none is the same as cancelling.
    if (action === 'cancel' || shim.unplugged || !matches(shim.device, options.filters)) return [];
    shim.granted = true;
    return [shim.device];
  }
}

function matches(device: HIDDevice, filters: HIDDeviceFilter[]): boolean {
  if (filters.length === 0) return true;
  return filters.some(
    (f) =>
      (f.vendorId === undefined || f.vendorId === device.vendorId) &&
      (f.productId === undefined || f.productId === device.productId) &&
      (f.usagePage === undefined || device.collections.some((c) => c.usagePage === f.usagePage)) &&
      (f.usage === undefined || device.collections.some((c) => c.usage === f.usage)),
  );
}

// ---- shared state and the shim ----

interface ShimState {
  packetSize: number;
  granted: boolean;
  unplugged: boolean;
  chooser: NonNullable<HidShimOptions['chooser']>;
  /** Incremented on every open/close/unplug: a reply computed for an older session is dropped. */
  session: number;
  assembler: FrameAssembler;
  frames: { out: number; in: number };
  calls: { getDevices: number; requestDevice: number };
  exchanges: WireExchange[];
  protocolErrors: unknown[];
  device: FakeHidDevice;
  answer(entry: WireExchange, device: FakeHidDevice): void;
}

export interface HidShim {
  /** Install as `navigator.hid`. */
  readonly hid: FakeHid;
  readonly device: FakeHidDevice;
  /** Whether the origin holds a grant for the device (set by a selecting chooser; writable). */
  granted: boolean;
  readonly unplugged: boolean;
  /** What the next chooser does. */
  chooser: NonNullable<HidShimOptions['chooser']>;
  /** Reports written by the host (out) and delivered to it on its channel (in), in total; foreign-channel noise is not counted. */
  readonly frames: { readonly out: number; readonly in: number };
  readonly calls: { readonly getDevices: number; readonly requestDevice: number };
  /** Every APDU seen on the wire, oldest first. */
  readonly exchanges: readonly WireExchange[];
  /** Malformed reports the host sent (each also rejected its sendReport). */
  readonly protocolErrors: readonly unknown[];
  /** Pulls the cable: fires "disconnect" on `hid`; later sendReport calls reject; a pending reply is dropped. */
  unplug(): void;
  /** Resolves once no APDU is being answered (e.g. after an unplug, for the device's work to finish). */
  idle(): Promise<void>;
}

export function createHidShim(device: ApduDevice, opts: HidShimOptions = {}): HidShim {
  let pending: Promise<void> = Promise.resolve();
  const state = {
    packetSize: opts.packetSize ?? 64,
    granted: opts.granted ?? false,
    unplugged: false,
    chooser: opts.chooser ?? 'select',
    session: 0,
    assembler: new FrameAssembler(),
    frames: { out: 0, in: 0 },
    calls: { getDevices: 0, requestDevice: 0 },
    exchanges: [],
    protocolErrors: [],
    device: undefined as unknown as FakeHidDevice,
    answer(entry: WireExchange, fake: FakeHidDevice) {
      state.exchanges.push(entry);
      const session = state.session;
      const run = async () => {
        let reply: Uint8Array;
        try {
          reply = await device.exchange(entry.request);
        } catch (error) {
          // A device that throws has gone away (SoftwareLedger unplugged, bridge lost): the host sees a disconnect.
          entry.error = error;
          unplug();
          return;
        }
        if (state.unplugged || state.session !== session || !fake.opened) {
          entry.dropped = true;
          return;
        }
        entry.reply = Uint8Array.from(reply);
        if (opts.foreignChannelNoise) fake.deliver(encodeFrames(entry.channel ^ 0x5a5a, Uint8Array.of(0x6f, 0x00), state.packetSize)[0]!);
        for (const frame of encodeFrames(entry.channel, reply, state.packetSize)) {
          // Each report is its own task, as USB interrupt transfers arrive.
          await Promise.resolve();
          if (state.unplugged || state.session !== session) {
            entry.dropped = true;
            return;
          }
          state.frames.in++;
          entry.framesIn++;
          fake.deliver(frame);
        }
      };
      pending = pending.then(run);
    },
  } satisfies ShimState as ShimState;
  const fake = new FakeHidDevice(state, opts);
  state.device = fake;
  const hid = new FakeHid(state);

  function unplug(): void {
    if (state.unplugged) return;
    state.unplugged = true;
    state.session++;
    fake.markUnplugged();
    hid.dispatchEvent(new ShimConnectionEvent('disconnect', { device: fake }));
  }
  device.on?.('disconnect', unplug);

  return {
    hid,
    device: fake,
    get granted() {
      return state.granted;
    },
    set granted(value: boolean) {
      state.granted = value;
    },
    get unplugged() {
      return state.unplugged;
    },
    get chooser() {
      return state.chooser;
    },
    set chooser(value) {
      state.chooser = value;
    },
    frames: state.frames,
    calls: state.calls,
    exchanges: state.exchanges,
    protocolErrors: state.protocolErrors,
    unplug,
    idle: () => pending,
  };
}
