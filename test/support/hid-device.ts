/**
 * The fake Ledger Nano X of the test's `navigator.hid` (test/support/hid-shim.ts): a `HIDDevice` that takes the host's
 * reports, reassembles each APDU for the shim to answer, and delivers the reply's reports as "inputreport" events.
 * Its options and the state it shares with the shim are here too. Web APIs only.
 */
import { ShimInputReportEvent, handlerSlot } from './hid-events.js';
import { FrameAssembler } from './hid-framing.js';

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

function toBytes(data: BufferSource): Uint8Array {
  if (data instanceof ArrayBuffer) return new Uint8Array(data.slice(0));
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
  throw new TypeError('hid-shim: sendReport data must be a BufferSource');
}

/** The state the shim, its `navigator.hid` and its device share. */
export interface ShimState {
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
