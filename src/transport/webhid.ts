/**
 * WebHID (Chromium browsers, secure contexts). `request: true` shows the browser's device chooser and must run
 * inside a user gesture (a click handler); without it, only devices the user granted before are reopened, with no
 * prompt. The `@ledgerhq/hw-transport-webhid` package is loaded on first use (bundlers resolve it); it expects a
 * global `Buffer`, which a browser lacks, so the page gets the `buffer` package's first (nothing for the dapp to set up).
 */
import { LedgerNotFoundError } from '../apdu/errors.js';
import { installQuietRoute, type HidFraming } from './quiet-exchange.js';
import { ExclusiveTransport } from './exclusive.js';

/** Ledger's USB vendor id (the filter `TransportWebHID.request()` uses). */
const LEDGER_VENDOR_ID = 0x2c97;

export interface OpenWebHidOptions {
  /** Show the device chooser (default false: reopen a device granted earlier). Must be called from a user gesture. */
  request?: boolean;
}

export function isWebHidAvailable(): boolean {
  return typeof navigator !== 'undefined' && 'hid' in navigator && navigator.hid != null;
}

/**
 * Opens a Ledger over WebHID (Chromium, a secure context). `request: true` shows the browser's chooser and must run
 * in a user gesture; without it only a device granted before is reopened, silently.
 *
 * @example
 * ```ts
 * button.onclick = async () => {
 *   const chain = createLedgerProvider({ transport: await openWebHid({ request: true }), network: 'mainnet' });
 * };
 * ```
 * @throws `LedgerNotFoundError`: no WebHID here, the chooser was cancelled or not opened from a gesture, no device
 *   was granted before (without `request`), or the device is held by another tab or Ledger Live.
 */
export async function openWebHid(options: OpenWebHidOptions = {}): Promise<ExclusiveTransport> {
  if (!isWebHidAvailable()) {
    throw new LedgerNotFoundError('WebHID is not available here: use a Chromium-based browser on https or localhost');
  }
  await provideBuffer();
  const module = (await import('@ledgerhq/hw-transport-webhid')) as { default: unknown };
  const TransportWebHID = unwrapDefault(module) as {
    open(device: HIDDevice): Promise<object>;
    openConnected(): Promise<object | null>;
  };
  let transport: object | null;
  try {
    transport = options.request ? await requestAndOpen(TransportWebHID) : await TransportWebHID.openConnected();
  } catch (cause) {
    const name = (cause as { name?: string }).name;
    const reason =
      name === 'TransportOpenUserCancelled'
        ? 'no device was chosen'
        : name === 'SecurityError'
          ? 'the device chooser must be opened from a user gesture (a click)'
          : 'the device could not be opened (is another tab or Ledger Live using it?)';
    throw new LedgerNotFoundError(`No Ledger opened: ${reason}`, { cause });
  }
  if (!transport) {
    throw new LedgerNotFoundError('No Ledger was authorised on this site yet: call openWebHid({ request: true }) from a click');
  }
  const framing = unwrapDefault((await import('@ledgerhq/hw-transport-webhid/hid-framing')) as { default: unknown });
  // The store-key reply never reaches `@ledgerhq/logs` (quiet-exchange.ts): TransportWebHID's own steps without its log.
  installQuietRoute(transport as never, framing as HidFraming);
  return ExclusiveTransport.for(transport as never);
}

/**
 * The `@ledgerhq` transports use the global `Buffer` of Node; in a browser, the `buffer` package (Node's API, for
 * browsers) stands in, set before they load. A page that set its own keeps it.
 */
async function provideBuffer(): Promise<void> {
  const global = globalThis as { Buffer?: unknown };
  if (global.Buffer !== undefined) return;
  const { Buffer } = await import('buffer');
  global.Buffer ??= Buffer;
}

/**
 * What `TransportWebHID.request()` does (same filter), except that a cancelled chooser is reported as such: WebHID
 * resolves `requestDevice` with [] on cancel, and `request()` would then fail on `open(undefined)` with a TypeError.
 */
async function requestAndOpen(TransportWebHID: { open(device: HIDDevice): Promise<object> }): Promise<object> {
  const chosen: HIDDevice[] | HIDDevice = await navigator.hid.requestDevice({ filters: [{ vendorId: LEDGER_VENDOR_ID }] });
  const device = Array.isArray(chosen) ? chosen[0] : chosen;
  if (!device) throw Object.assign(new Error('No device was chosen'), { name: 'TransportOpenUserCancelled' });
  return TransportWebHID.open(device);
}

/** CommonJS packages seen through ESM interop may nest their default export once more. */
export function unwrapDefault(module: { default: unknown }): unknown {
  const first = module.default as { default?: unknown } | undefined;
  return first && typeof first === 'function' ? first : (first?.default ?? first);
}
