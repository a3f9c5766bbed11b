/**
 * A test-only `navigator.hid` (WebHID) backed by any APDU device, e.g. the software Ledger: one fake Ledger
 * Nano X that speaks the Ledger HID framing, so the real, unmodified `@ledgerhq/hw-transport-webhid` can run
 * against it.
 *
 * Only Web APIs are used here and in the modules it imports (EventTarget, Event, DOMException, DataView, Uint8Array,
 * Promise), and it imports no package, so it can be bundled (esbuild --format=iife) and injected into a Chromium page
 * before its scripts, with `device.exchange` bridged to Node (e.g. through Playwright's `page.exposeFunction`).
 *
 * The Ledger HID framing is in hid-framing.ts, the fake device in hid-device.ts. The host's reports are reassembled
 * into one APDU, `device.exchange` answers it, and the reply goes back as "inputreport" events on the host's channel.
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
import { FakeHidDevice, type HidShimOptions, type ShimState, type WireExchange } from './hid-device.js';
import { ShimConnectionEvent, handlerSlot } from './hid-events.js';
import { FrameAssembler, encodeFrames } from './hid-framing.js';

/** What answers the APDUs: the software Ledger, a RecordStore replayer, a bridge to Node, … */
export interface ApduDevice {
  exchange(apdu: Uint8Array): Promise<Uint8Array>;
  /** When present (as on SoftwareLedger), a "disconnect" of the device itself unplugs the fake HID device. */
  on?(event: 'disconnect', listener: () => void): void;
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
