/**
 * What the device's OS answers besides the Mina app (docs/software-ledger.md "The dashboard"): the SDK's default
 * APDUs every app answers (CLA 0xB0: the running app's name and version, quit the app) and the dashboard's requests
 * that Ledger's Device Management Kit sends to open an app for the user (GetOsVersion, OpenApp). Byte layouts only,
 * written once here: the host reads them, the software Ledger's dashboard writes them. No I/O.
 *
 * Sources: LedgerHQ/ledger-secure-sdk `src/os_io_seproxyhal.c` (`os_io_seproxyhal_get_app_name_and_version`,
 * `io_process_default_apdus`); LedgerHQ/device-sdk-ts `packages/device-management-kit/src/api/command/os/`
 * (`GetAppAndVersionCommand.ts`, `GetOsVersionCommand.ts`, `OpenAppCommand.ts`, `CloseAppCommand.ts`).
 */
import { ByteReader, asciiDecode, concatBytes, utf8 } from './bytes.js';
import { CLA, CLA_BOLOS, INS_BOLOS_APP_INFO } from './constants.js';
import { LedgerReplyError } from './errors.js';

/** B0 A7 00 00: quit the running app (the SDK answers 0x9000, then the app exits to the dashboard). */
export const INS_BOLOS_QUIT_APP = 0xa7;
/** E0 01 00 00 on the dashboard: the OS version (in the Mina app the same bytes are GET_VERSION). */
export const INS_OS_VERSION = 0x01;
/** E0 D8 00 00 Lc name: open the installed app `name` (ASCII), after the user confirms on the device. */
export const INS_OPEN_APP = 0xd8;

/** OpenApp: no app of that name is installed. */
export const SW_APP_NOT_INSTALLED = 0x6807;
/** OpenApp without a name. */
export const SW_NO_APP_NAME = 0x670a;

/** The name the dashboard reports in B0 01 (Ledger OS's internal name). */
export const DASHBOARD_NAME = 'BOLOS';

/** The running app, as B0 01 reports it. */
export interface RunningApp {
  /** "Mina", or "BOLOS" on the dashboard. */
  name: string;
  version: string;
  /** The OS flags byte(s) after the version (the SDK sends one byte). */
  flags: Uint8Array;
}

/** B0 01 reply: format 0x01 ‖ u8 length ‖ name ‖ u8 length ‖ version ‖ u8 length ‖ flags. */
export function encodeRunningApp(app: RunningApp): Uint8Array {
  const name = utf8.encode(app.name);
  const version = utf8.encode(app.version);
  return concatBytes(
    Uint8Array.of(1, name.length),
    name,
    Uint8Array.of(version.length),
    version,
    Uint8Array.of(app.flags.length),
    app.flags,
  );
}

/** Reads a B0 01 reply (the flags are optional, as in old firmware). */
export function decodeRunningApp(reply: Uint8Array): RunningApp {
  const reader = new ByteReader(reply, (message) => new LedgerReplyError(`malformed app-and-version reply: ${message}`));
  if (reader.u8() !== 1) throw new LedgerReplyError('app-and-version reply of an unknown format');
  const name = asciiDecode(reader.bytes(reader.u8()));
  const version = asciiDecode(reader.bytes(reader.u8()));
  const flags = reader.remaining > 0 ? reader.bytes(reader.u8()) : new Uint8Array(0);
  reader.end();
  if (name === undefined || version === undefined)
    throw new LedgerReplyError('app-and-version reply with a name or version that is not ASCII');
  return { name, version, flags: Uint8Array.from(flags) };
}

/** The B0 01 request, as the SDK expects it (P1 = P2 = 0, no data). */
export const RUNNING_APP_REQUEST = { cla: CLA_BOLOS, ins: INS_BOLOS_APP_INFO, p1: 0, p2: 0, data: new Uint8Array(0) } as const;

/** What the dashboard tells about the device in GetOsVersion (the fields DMK reads). */
export interface OsVersion {
  /** The device family: 0x33100004 Nano S Plus, 0x33000004 Nano X, 0x33200004 Stax. */
  targetId: number;
  /** The Secure Element's OS version, the one B0 01 reports on the dashboard. */
  seVersion: string;
  /** Secure Element flags (4 bytes; byte 0 bit 0x04 = onboarded, which DMK requires before opening an app). */
  seFlags: Uint8Array;
  mcuSephVersion: string;
  mcuBootloaderVersion: string;
  /** The installed language pack (0 English). */
  langId: number;
  /** Ledger Recover's state (0 none). */
  recoverState: number;
}

/**
 * GetOsVersion reply: targetId u32 BE ‖ LV seVersion ‖ LV seFlags ‖ LV mcuSephVersion ‖ LV mcuBootloaderVersion ‖
 * LV langId ‖ LV recoverState (the Nano S Plus layout from OS 1.1: DMK `GetOsVersionCommand.parseResponse`).
 */
export function encodeOsVersion(os: OsVersion): Uint8Array {
  const lv = (bytes: Uint8Array) => concatBytes(Uint8Array.of(bytes.length), bytes);
  const target = Uint8Array.of(os.targetId >>> 24, (os.targetId >>> 16) & 0xff, (os.targetId >>> 8) & 0xff, os.targetId & 0xff);
  return concatBytes(
    target,
    lv(utf8.encode(os.seVersion)),
    lv(os.seFlags),
    lv(utf8.encode(os.mcuSephVersion)),
    lv(utf8.encode(os.mcuBootloaderVersion)),
    lv(Uint8Array.of(os.langId)),
    lv(Uint8Array.of(os.recoverState)),
  );
}

/** The app name of an OpenApp request (E0 D8 00 00 Lc name), or undefined when the request is not one. */
export function openAppName(apdu: Uint8Array): string | undefined {
  if (apdu.length < 5 || apdu[0] !== CLA || apdu[1] !== INS_OPEN_APP || apdu[4]! + 5 !== apdu.length) return undefined;
  return asciiDecode(apdu.subarray(5)) ?? '';
}
