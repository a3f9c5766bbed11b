/**
 * The software Ledger's OS: what a Nano S Plus answers besides the Mina app (docs/software-ledger.md "The
 * dashboard"). While no app runs, the dashboard answers every APDU; while the Mina app runs, the SDK's default APDUs
 * (CLA 0xB0) are answered before the app sees them. Byte layouts are in src/apdu/os.ts.
 *
 * - B0 01 00 00: the running app. The dashboard says "BOLOS" and its OS version; the app says "Mina" and its version;
 *   both add one flags byte (ledger-secure-sdk `os_io_seproxyhal_get_app_name_and_version`).
 * - B0 A7 00 00 in the app: 0x9000, then the app quits to the dashboard (`io_process_default_apdus`). Other P1/P2 go
 *   to the app, which refuses CLA 0xB0 (0x6E00).
 * - E0 01 00 00 on the dashboard: GetOsVersion (a Nano S Plus on OS 1.1.1, the bytes of DMK's own test of
 *   `GetOsVersionCommand`), its flags saying "onboarded", which DMK checks before it opens an app.
 * - E0 D8 00 00 Lc name on the dashboard: OpenApp. No name: 0x670A; not installed: 0x6807 (DMK `OpenAppCommand`).
 *   Otherwise the device asks the user (an `open-app` review through the approver, or the Speculos buttons):
 *   approved → 0x9000 and the app runs; refused → 0x5501 (DMK's global "Action refused on device").
 * - Anything else on the dashboard: `closedAppStatus` (0x6E01 by default; firmware-dependent, see the option).
 *
 * ListApps (E0 DE / E0 DF) is not modelled: DMK's OpenAppDeviceAction does not send it, and real devices answer it
 * only over Ledger's secure channel.
 */
import { fromHex } from '../apdu/bytes.js';
import { CLA, CLA_BOLOS, INS_BOLOS_APP_INFO, SW_CLA_NOT_SUPPORTED, SW_OK, SW_USER_REFUSED_OS } from '../apdu/constants.js';
import {
  DASHBOARD_NAME,
  INS_BOLOS_QUIT_APP,
  INS_OPEN_APP,
  INS_OS_VERSION,
  SW_APP_NOT_INSTALLED,
  SW_NO_APP_NAME,
  encodeOsVersion,
  encodeRunningApp,
  openAppName,
  type OsVersion,
} from '../apdu/os.js';
import { DEVICE_MODELS, type DeviceModel } from './device-models.js';
import { APPROVE, REJECT, bn, pb, type Approver, type Review } from './review.js';

/**
 * The OS of a Nano S Plus on firmware 1.1.1, as DMK's `GetOsVersionCommand.test.ts` (LNSP_REPONSE_DATA_GOOD) has it:
 * `33100004 05 312e312e31 04 e6000000 04 342e3033 04 332e3132 01 00 01 00`. Flags 0xE6: PIN validated, MCU serial,
 * certificate, onboarded, MCU code signed.
 */
export const NANO_S_PLUS_OS: OsVersion = {
  targetId: 0x33100004,
  seVersion: '1.1.1',
  seFlags: fromHex('e6000000'),
  mcuSephVersion: '4.03',
  mcuBootloaderVersion: '3.12',
  langId: 0,
  recoverState: 0,
};

/** The one flags byte the SDK appends to B0 01 (`os_flags()`; 0 on the recorded Mina app). */
const OS_FLAGS = Uint8Array.of(0);

/** What the OS reads and changes on the device. */
export interface DashboardDevice {
  readonly locked: boolean;
  readonly appOpen: boolean;
  /** The Mina app's version (its B0 01 answer). */
  readonly version: string;
  /** The device model: GetOsVersion's target id is the model's (default the Nano S Plus). */
  readonly model?: DeviceModel;
  /** Asked to confirm an OpenApp, at the time of the request (the Speculos server swaps it for its buttons). */
  readonly approve: Approver;
  openApp(): void;
  closeApp(): void;
}

export interface DashboardOptions {
  /** Whether the Mina app is installed (default true); the dashboard knows no other app, so any other name is 0x6807. */
  appInstalled?: boolean;
  /** What the dashboard answers to an app's instruction (the software Ledger's `closedAppStatus`). */
  closedAppStatus: number;
}

const reply = (data: Uint8Array, statusCode: number = SW_OK) => {
  const out = new Uint8Array(data.length + 2);
  out.set(data);
  out.set([statusCode >> 8, statusCode & 0xff], data.length);
  return out;
};
const status = (statusCode: number) => reply(new Uint8Array(0), statusCode);

/**
 * The OpenApp confirmation, drawn with the Mina app's own layouts (a title over a value, then Approve and Reject):
 * its texts and layout are a model, no recording of a device's dashboard exists in this repository.
 */
export function openAppReview(name: string): Review {
  return {
    ins: INS_OPEN_APP,
    kind: 'open-app',
    approvable: true,
    screens: [bn('Open application', name), pb('validate', APPROVE), pb('crossmark', REJECT)],
  };
}

export class Dashboard {
  readonly #device: DashboardDevice;
  readonly #installed: boolean;
  readonly #closedAppStatus: number;

  constructor(device: DashboardDevice, options: DashboardOptions) {
    this.#device = device;
    this.#installed = options.appInstalled ?? true;
    this.#closedAppStatus = options.closedAppStatus;
  }

  /**
   * The OS's whole reply (data ‖ status word) to `apdu`, or undefined when the Mina app answers it (and when the
   * device is locked or the APDU empty: the app's dispatch answers 0x5515 / 0x6982 for the OS too).
   */
  async answer(apdu: Uint8Array): Promise<Uint8Array | undefined> {
    const device = this.#device;
    if (device.locked || apdu.length < 4) return undefined;
    const [cla, ins, p1, p2] = apdu as unknown as [number, number, number, number];
    const defaultApdu = cla === CLA_BOLOS && p1 === 0 && p2 === 0;
    if (defaultApdu && ins === INS_BOLOS_APP_INFO) {
      const running = device.appOpen
        ? { name: 'Mina', version: device.version }
        : { name: DASHBOARD_NAME, version: NANO_S_PLUS_OS.seVersion };
      return reply(encodeRunningApp({ ...running, flags: OS_FLAGS }));
    }
    if (device.appOpen) {
      if (!defaultApdu || ins !== INS_BOLOS_QUIT_APP) return undefined;
      device.closeApp();
      return status(SW_OK);
    }
    if (cla === CLA && ins === INS_OS_VERSION && p1 === 0 && p2 === 0) {
      // The other fields stay the Nano S Plus's (a model: no other device's reply was recorded).
      return reply(encodeOsVersion({ ...NANO_S_PLUS_OS, targetId: DEVICE_MODELS[device.model ?? 'nanosp'].targetId }));
    }
    if (cla === CLA && ins === INS_OPEN_APP) return this.#openApp(apdu);
    if (cla === CLA_BOLOS) return status(SW_CLA_NOT_SUPPORTED);
    return status(this.#closedAppStatus);
  }

  async #openApp(apdu: Uint8Array): Promise<Uint8Array> {
    const name = openAppName(apdu);
    if (!name) return status(SW_NO_APP_NAME);
    if (name !== 'Mina' || !this.#installed) return status(SW_APP_NOT_INSTALLED);
    const approved = (await this.#device.approve(openAppReview(name))) === true;
    if (!approved) return status(SW_USER_REFUSED_OS);
    this.#device.openApp();
    return status(SW_OK);
  }
}
