/** The events of the test's `navigator.hid` and its device, and the `on<event>` attribute slot (Web APIs only). */

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
export function handlerSlot<T extends EventTarget>(target: T, type: string) {
  let current: ((ev: Event) => unknown) | null = null;
  const listener = (ev: Event) => current?.call(target, ev);
  target.addEventListener(type, listener);
  return {
    get: () => current,
    set: (value: ((ev: Event) => unknown) | null) => (current = typeof value === 'function' ? value : null),
  };
}
