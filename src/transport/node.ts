/**
 * Device openers for Node — USB HID (node-hid), Speculos over HTTP, and recorded APDU transcripts (the package entry
 * `chain-ledger/transport/node` is src/transport-node.ts).
 *
 * `@ledgerhq/*` packages cannot be imported under native Node ESM (their `lib-es` builds use extensionless
 * relative imports), so their CommonJS builds are loaded with `createRequire`; types come from type-only imports.
 * Each package is an optional peer dependency, loaded only when its opener runs.
 */

import { createRequire } from 'node:module';
import { LedgerNotFoundError } from '../apdu/errors.js';
import { ExclusiveTransport } from './exclusive.js';
import { installQuietRoute, type HidFraming } from './quiet-exchange.js';
import type { ApduTransport } from './types.js';

const require = createRequire(import.meta.url);

function load<T>(name: string): T {
  try {
    const module = require(name) as { default?: T } & T;
    return module.default ?? module;
  } catch (cause) {
    if ((cause as { code?: string }).code === 'MODULE_NOT_FOUND') {
      throw new LedgerNotFoundError(`This transport needs the package ${name}: npm install ${name}`, { cause });
    }
    throw cause;
  }
}

interface TransportStatics {
  open(...args: unknown[]): Promise<ApduTransport>;
  create(openTimeout?: number, listenTimeout?: number): Promise<ApduTransport>;
}

export interface OpenNodeHidOptions {
  /** A HID path from `listNodeHidDevices()`; default: the first Ledger found. */
  path?: string;
  /** How long to wait for a device to appear (default 3000 ms). */
  listenTimeoutMs?: number;
}

/**
 * USB HID in Node through `@ledgerhq/hw-transport-node-hid` (with node-hid ≥ 3.4, which ships prebuilt binaries).
 *
 * @example
 * ```ts
 * const app = new MinaLedgerApp(await openNodeHid({ listenTimeoutMs: 30_000 }));
 * ```
 * @throws `LedgerNotFoundError`: the package is not installed, node-hid's native module cannot load (the message
 *   says which library is missing), or no Ledger appeared in time.
 */
export async function openNodeHid(options: OpenNodeHidOptions = {}): Promise<ExclusiveTransport> {
  const TransportNodeHid = load<TransportStatics>('@ledgerhq/hw-transport-node-hid');
  try {
    const transport = options.path
      ? await TransportNodeHid.open(options.path)
      : await TransportNodeHid.create(3000, options.listenTimeoutMs ?? 3000);
    quietNodeHid(transport as unknown as NodeHidInternals);
    return ExclusiveTransport.for(transport);
  } catch (cause) {
    throw (
      nativeLoadError(cause) ?? new LedgerNotFoundError('No Ledger found on USB: plug it in, unlock it and open the Mina app', { cause })
    );
  }
}

/** The parts of a TransportNodeHid(-noevents) instance its own `exchange` uses (lib/TransportNodeHid.js, 6.x). */
export interface NodeHidInternals {
  exchange(apdu: Uint8Array): Promise<Uint8Array>;
  exchangeAtomicImpl<T>(f: () => Promise<T>): Promise<T>;
  writeHID(block: Uint8Array): Promise<void>;
  readHID(): Promise<Uint8Array>;
  channel: number;
  packetSize: number;
}

/**
 * node-hid's transport traces every reply on `@ledgerhq/logs`: the store-key reply goes through its own steps
 * without the trace (quiet-exchange.ts). Exported for the tests, which drive it over a simulated HID device.
 */
export function quietNodeHid(transport: NodeHidInternals): void {
  let framing: HidFraming | undefined;
  try {
    framing = load<HidFraming>('@ledgerhq/hw-transport-node-hid-noevents/lib/hid-framing');
  } catch {
    framing = undefined; // store-key requests are then refused, never logged
  }
  installQuietRoute(transport, framing);
}

export async function listNodeHidDevices(): Promise<string[]> {
  const TransportNodeHid = load<{ list(): Promise<string[]> }>('@ledgerhq/hw-transport-node-hid');
  try {
    return await TransportNodeHid.list();
  } catch (cause) {
    throw nativeLoadError(cause) ?? cause;
  }
}

/**
 * node-hid loads its native binding on first use; its Linux prebuilds link against the system's libusb-1.0, so on a
 * machine without it every call fails with ERR_DLOPEN_FAILED. That is not "no Ledger plugged in": say what it is.
 */
function nativeLoadError(cause: unknown): LedgerNotFoundError | undefined {
  if ((cause as { code?: unknown } | null)?.code !== 'ERR_DLOPEN_FAILED') return undefined;
  const detail = cause instanceof Error ? cause.message : String(cause);
  const hint = /libusb/.test(detail) ? ' (on Debian/Ubuntu: apt-get install libusb-1.0-0)' : '';
  return new LedgerNotFoundError(`USB HID is unavailable: node-hid could not load its native module: ${detail}${hint}`, { cause });
}

export interface OpenSpeculosOptions {
  /** Default http://127.0.0.1 (no port here: the transport appends `apiPort`). */
  baseURL?: string;
  /** Default 5000, Speculos' default API port. */
  apiPort?: number;
}

/**
 * Speculos' REST API (or `startSpeculosServer`) through `@ledgerhq/hw-transport-node-speculos-http`. `speculos` on
 * the result presses buttons and streams the screen's text.
 *
 * @example
 * ```ts
 * const transport = await openSpeculos({ apiPort: 5000 });
 * const app = new MinaLedgerApp(transport);
 * ```
 * @throws `LedgerNotFoundError`: the package is not installed, or nothing answered at that address.
 */
export async function openSpeculos(options: OpenSpeculosOptions = {}): Promise<ExclusiveTransport & { speculos: SpeculosControls }> {
  const SpeculosHttpTransport = load<TransportStatics>('@ledgerhq/hw-transport-node-speculos-http');
  let transport: ApduTransport & SpeculosControls;
  try {
    // No timeout: a review on the device holds the HTTP request until the user answers.
    transport = (await SpeculosHttpTransport.open({
      baseURL: options.baseURL ?? 'http://127.0.0.1',
      apiPort: String(options.apiPort ?? 5000),
    })) as ApduTransport & SpeculosControls;
  } catch (cause) {
    throw new LedgerNotFoundError('No Speculos answered at that address', { cause });
  }
  quietSpeculos(transport as unknown as SpeculosInternals);
  const queue = ExclusiveTransport.for(transport);
  return Object.assign(queue, { speculos: transport });
}

/** What `SpeculosHttpTransport` holds: its HTTP client (axios) on the emulator's REST API, and its `exchange`. */
interface SpeculosInternals {
  exchange(apdu: Uint8Array): Promise<Uint8Array>;
  instance?: { post(path: string, body: { data: string }): Promise<{ data: { data?: unknown } }> };
}

/**
 * The Speculos transport logs every reply through `@ledgerhq/logs` (`log("apdu", "<= …")`). For the store-key
 * request (quiet-exchange.ts) the same POST /apdu goes through the transport's own HTTP client, without the log
 * lines; every other APDU goes through its `exchange` unchanged. Exported for the tests.
 */
export function quietSpeculos(transport: SpeculosInternals): void {
  installQuietRoute(transport, undefined, 'this Speculos transport cannot exchange the store-key request without logging its reply');
}

/** What the Speculos transport adds: button presses and the screen-text event stream (an rxjs Subject). */
export interface SpeculosControls {
  button(button: 'left' | 'right' | 'both'): Promise<unknown>;
  automationEvents: { subscribe(observer: (event: { text: string; x: number; y: number }) => void): { unsubscribe(): void } };
}

/**
 * Replays a recorded APDU transcript (`=> request` / `<= reply` lines, as `@ledgerhq/hw-transport-mocker` writes
 * them): a request that differs from the next recorded one fails with `RecordStoreWrongAPDU`.
 *
 * @example
 * ```ts
 * const transport = await openTranscript('=> e001000000\n<= 0106009000\n');
 * await new MinaLedgerApp(transport).getAppVersion(); // 1.6.0
 * transport.ensureDone();
 * ```
 * @throws `LedgerNotFoundError` when `@ledgerhq/hw-transport-mocker` is not installed.
 */
export async function openTranscript(text: string): Promise<ExclusiveTransport & { ensureDone(): void }> {
  const mocker = load<{
    RecordStore: { fromString(text: string): { ensureQueueEmpty(): void } };
    openTransportReplayer(store: unknown): Promise<ApduTransport>;
  }>('@ledgerhq/hw-transport-mocker');
  const store = mocker.RecordStore.fromString(text);
  const queue = ExclusiveTransport.for(await mocker.openTransportReplayer(store));
  return Object.assign(queue, { ensureDone: () => store.ensureQueueEmpty() });
}
