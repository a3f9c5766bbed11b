/**
 * The devices the Mina app v1.6.0 is built for, by Speculos's model names (`speculos -m nanosp|nanox|stax|flex`):
 * the screen size Speculos reports and draws (speculos/mcu/display.py, `MODELS`), whether the device has buttons or a
 * touch screen, and the target id its OS answers in GetOsVersion (DMK's `DeviceModelId` by target id:
 * 0x33100004 Nano S Plus, 0x33000004 Nano X, 0x33200004 Stax, 0x33300004 Flex).
 *
 * The Nano S Plus and the Nano X run the app's BAGL screens (src/*_bagl.c: the same flows, the same 128 x 64 layouts);
 * the Stax and the Flex run its NBGL use cases (src/*_nbgl.c), modelled in touch-flows.ts.
 */

/** Speculos's name of a device model. */
export type DeviceModel = 'nanosp' | 'nanox' | 'stax' | 'flex';

export interface DeviceModelInfo {
  /** The product's name. */
  name: string;
  /** The screen in pixels, as Speculos's `/screenshot` gives it. */
  width: number;
  height: number;
  /** A touch screen (NBGL use cases, `/finger`) rather than two buttons (BAGL flows, `/button`). */
  touch: boolean;
  /** The OS's target id (GetOsVersion). */
  targetId: number;
}

/** Each model: its name, screen size, buttons or touch screen, and OS target id. */
export const DEVICE_MODELS: Record<DeviceModel, DeviceModelInfo> = {
  nanosp: { name: 'Nano S Plus', width: 128, height: 64, touch: false, targetId: 0x33100004 },
  nanox: { name: 'Nano X', width: 128, height: 64, touch: false, targetId: 0x33000004 },
  stax: { name: 'Stax', width: 400, height: 672, touch: true, targetId: 0x33200004 },
  flex: { name: 'Flex', width: 480, height: 600, touch: true, targetId: 0x33300004 },
};

/** Whether `value` names a model. */
export const isDeviceModel = (value: unknown): value is DeviceModel => typeof value === 'string' && Object.hasOwn(DEVICE_MODELS, value);
