/**
 * `@ledgerhq` transports log every APDU and every reply through `@ledgerhq/logs` (`log("apdu", "<= …")` in
 * WebHID, Speculos and the mocker's replayer, `tracer.trace("<= …")` in node-hid), which every listener receives (in
 * a browser a page script can register one through `window.__ledgerLogsListen`). The reply to the store-key request
 * *is* the credential store's key (src/apdu/store-key.ts), so for that one request the exchange runs the transport's
 * own steps (its atomic guard, its report reader and writer, its HTTP client) without the log lines.
 *
 * One route, `installQuietRoute`, two ways in:
 * - the openers (`openWebHid`, `openNodeHid`, `openSpeculos`) install it with the transport package's own HID framing
 *   module;
 * - any other transport object reaches `guardStoreKeyReplies` when the first `ExclusiveTransport` (hence the first
 *   `MinaLedgerApp` or provider) is made for it and gets it with HID frames made here (byte for byte as
 *   `@ledgerhq/devices`' hid-framing makes them).
 * A raw `@ledgerhq` WebHID, node-hid, Speculos-HTTP or replayer instance is recognised by its shape; a transport of
 * another shape (or a HID one without a framing) has its store-key requests refused, never logged, and
 * `storeKeyRefusal` tells the provider so before it asks anything (as it tells what a transport says of itself).
 *
 * Should a transport's internals ever change shape, store-key requests are refused rather than logged.
 */
import { toHex } from '../apdu/bytes.js';
import { isStoreKeyRequest } from '../apdu/store-key.js';

export type HidFraming = (
  channel: number,
  packetSize: number,
) => {
  makeBlocks(apdu: Uint8Array): Uint8Array[];
  reduceResponse(acc: unknown, chunk: Uint8Array): unknown;
  getReducedResult(acc: unknown): Uint8Array | null | undefined;
};

/** What a framed exchange needs from a transport instance. */
interface FramedIo {
  channel: number;
  packetSize: number;
  atomic<T>(f: () => Promise<T>): Promise<T>;
  write(block: Uint8Array): Promise<void>;
  read(): Promise<Uint8Array>;
  /** Reports to skip while reading (WebHID: another channel's), as the transport itself does. */
  skip?(error: unknown): boolean;
}

type Exchange = (apdu: Uint8Array) => Promise<Uint8Array>;

/** Transport objects whose store-key requests are handled here: true if quietly, false if refused. */
const guarded = new WeakMap<object, boolean>();

const REFUSAL =
  'this Ledger transport would log the store-key reply (the credential store key) on @ledgerhq/logs: open the device with openWebHid, openNodeHid or openSpeculos';

/** The refusal of a transport an opener made quiet whose internals are not (or no longer) the ones known here. */
const OPENED_REFUSAL = 'this Ledger transport cannot exchange the store-key request without logging its reply';

/**
 * Replaces `transport.exchange` so that store-key requests go through the quiet route for its shape
 * (`quietRouteOf`), or are refused with `refusal` when there is none; every other APDU goes through the transport's
 * own `exchange` unchanged. `framing` is the HID framing for WebHID and node-hid transports; without it they are
 * refused.
 */
export function installQuietRoute(
  transport: { exchange(apdu: Uint8Array): Promise<Uint8Array> },
  framing: HidFraming | undefined,
  refusal: string = OPENED_REFUSAL,
): void {
  const quiet = quietRouteOf(transport, framing);
  replaceStoreKeyExchange(transport, (apdu) => {
    if (!quiet) throw new Error(refusal);
    return quiet(apdu);
  });
  guarded.set(transport, quiet !== undefined);
}

/**
 * For any transport object: unless an opener already made it quiet, a recognised `@ledgerhq` transport (WebHID,
 * node-hid, Speculos HTTP, the mocker's replayer) gets the quiet store-key path; an `exchange` of another shape gets
 * its store-key requests refused. The software Ledger (it keeps no store-key reply) and transports without an
 * `exchange` (no `@ledgerhq` Transport: the integrator's own `send`) are left as they are. Idempotent.
 */
export function guardStoreKeyReplies(transport: object): void {
  if (guarded.has(transport)) return;
  const t = transport as { exchange?: unknown; isSoftwareLedger?: unknown };
  if (t.isSoftwareLedger === true || typeof t.exchange !== 'function') return;
  installQuietRoute(transport as { exchange: Exchange }, ledgerHidFraming, REFUSAL);
}

/** Why the provider refuses the credential methods on an `@ledgerhq` transport that would log the store-key reply. */
const PROVIDER_REFUSAL =
  'this transport would log the credential store key on @ledgerhq/logs: open the Ledger with openWebHid, openNodeHid or openSpeculos (or pass a @ledgerhq WebHID, node-hid or Speculos transport)';

/**
 * Why a store-key request through `transport` (or the transport an `ExclusiveTransport` queues for) would be
 * refused: its reply could not be kept off `@ledgerhq/logs` (an `@ledgerhq` transport of unknown shape, or a HID one
 * without a framing), or the transport says so itself (`ApduTransport.storeKeyRefusal`). Undefined when it is sent.
 */
export function storeKeyRefusal(transport: object): string | undefined {
  const inner = (transport as { inner?: unknown }).inner;
  const target = typeof inner === 'object' && inner !== null ? inner : transport;
  const own = (target as { storeKeyRefusal?: unknown }).storeKeyRefusal;
  if (typeof own === 'string') return own;
  return guarded.get(target) === false ? PROVIDER_REFUSAL : undefined;
}

function replaceStoreKeyExchange(
  transport: { exchange(apdu: Uint8Array, ...rest: unknown[]): Promise<Uint8Array> },
  quiet: Exchange,
): void {
  const loud = transport.exchange.bind(transport);
  transport.exchange = async (apdu: Uint8Array, ...rest: unknown[]) => (isStoreKeyRequest(apdu) ? quiet(apdu) : loud(apdu, ...rest));
}

async function framedExchange(
  framing: HidFraming,
  parts: FramedIo,
  apdu: Uint8Array,
  mapError: (error: unknown) => unknown = (error) => error,
) {
  return parts
    .atomic(async () => {
      const frames = framing(parts.channel, parts.packetSize);
      for (const block of frames.makeBlocks(apdu)) await parts.write(block);
      let acc: unknown;
      let result: Uint8Array | null | undefined = frames.getReducedResult(acc);
      while (!result) {
        try {
          acc = frames.reduceResponse(acc, await parts.read());
          result = frames.getReducedResult(acc);
        } catch (error) {
          if (parts.skip?.(error)) continue;
          throw error;
        }
      }
      return result;
    })
    .catch((error: unknown) => {
      throw mapError(error);
    });
}

// ---- raw @ledgerhq transports, recognised by shape ----

type Atomic = <T>(f: () => Promise<T>) => Promise<T>;
interface RawTransport {
  channel?: unknown;
  packetSize?: unknown;
  exchangeAtomicImpl?: Atomic;
  /** TransportWebHID */
  device?: { sendReport?(reportId: number, data: Uint8Array): Promise<void> };
  read?(): Promise<Uint8Array>;
  _emitDisconnect?(error: unknown): void;
  /** TransportNodeHid(-noevents) */
  writeHID?(block: Uint8Array): Promise<void>;
  readHID?(): Promise<Uint8Array>;
  /** SpeculosHttpTransport: its axios instance on the emulator's REST API */
  instance?: { post?(path: string, body: { data: string }): Promise<{ data: { data?: unknown } }> };
  /** The mocker's TransportReplayer */
  recordStore?: { replayExchange?(apdu: Uint8Array): Uint8Array };
}

const isFramedHid = (t: RawTransport) =>
  Number.isInteger(t.channel) && Number.isInteger(t.packetSize) && typeof t.exchangeAtomicImpl === 'function';

/**
 * The quiet way to exchange one APDU over `transport`, from its shape (HID ones framed by `framing`); undefined when
 * it is not one we know, or is a HID one and there is no framing.
 */
function quietRouteOf(transport: object, framing: HidFraming | undefined): Exchange | undefined {
  const t = transport as RawTransport;
  const io = (write: (block: Uint8Array) => Promise<void>, read: () => Promise<Uint8Array>, skip?: FramedIo['skip']) => ({
    channel: t.channel as number,
    packetSize: t.packetSize as number,
    atomic: <T>(f: () => Promise<T>) => t.exchangeAtomicImpl!.call(transport, f) as Promise<T>,
    write,
    read,
    skip,
  });
  const hid = typeof framing === 'function' && isFramedHid(t);
  if (hid && typeof t.device?.sendReport === 'function' && typeof t.read === 'function') {
    // TransportWebHID: reports of another channel (another app's) are skipped, a failed write is a disconnect.
    const parts = io(
      (block) => t.device!.sendReport!(0, block),
      () => t.read!(),
      (error) => (error as { id?: unknown })?.id === 'InvalidChannel',
    );
    return (apdu) =>
      framedExchange(framing, parts, apdu, (error) => {
        if ((error as Error)?.message?.includes('write')) {
          t._emitDisconnect?.(error);
          return Object.assign(new Error((error as Error).message), { name: 'DisconnectedDeviceDuringOperation' });
        }
        return error;
      });
  }
  if (hid && typeof t.writeHID === 'function' && typeof t.readHID === 'function') {
    const parts = io(
      (block) => t.writeHID!(block),
      () => t.readHID!(),
    );
    return (apdu) => framedExchange(framing, parts, apdu);
  }
  if (typeof t.instance?.post === 'function') return (apdu) => speculosExchange(t.instance as SpeculosHttp, apdu);
  if (typeof t.recordStore?.replayExchange === 'function') {
    return async (apdu) => asBuffer(t.recordStore!.replayExchange!(asBuffer(apdu)));
  }
  return undefined;
}

type SpeculosHttp = { post(path: string, body: { data: string }): Promise<{ data: { data?: unknown } }> };

/** The Speculos transport's own `POST /apdu` through its HTTP client, without its log lines. */
async function speculosExchange(http: SpeculosHttp, apdu: Uint8Array): Promise<Uint8Array> {
  const reply = (await http.post('/apdu', { data: toHex(apdu) })).data.data;
  if (typeof reply !== 'string' || !/^([0-9a-f]{2})+$/i.test(reply)) throw new Error('Speculos answered no APDU reply');
  return asBuffer(Uint8Array.from(reply.match(/../g)!, (byte) => Number.parseInt(byte, 16)));
}

/** `@ledgerhq` callers read replies with Buffer methods (`readUInt16BE`): a Buffer where there is one. */
function asBuffer(bytes: Uint8Array): Uint8Array {
  const B = (globalThis as { Buffer?: { from(a: ArrayBufferLike, offset: number, length: number): Uint8Array } }).Buffer;
  return B ? B.from(bytes.buffer, bytes.byteOffset, bytes.length) : bytes;
}

const HID_TAG = 0x05;

/**
 * Ledger's HID framing, as `@ledgerhq/devices`' hid-framing (the module WebHID and node-hid use) makes and reads it:
 * reports of `packetSize` bytes = channel (u16 BE) ‖ tag 0x05 ‖ sequence (u16 BE) ‖ payload, the message length
 * (u16 BE) before the first payload, the last report zero-padded. Errors carry the same ids (`InvalidChannel`, …).
 */
export const ledgerHidFraming: HidFraming = (channel, packetSize) => {
  interface Acc {
    data: Uint8Array;
    dataLength: number;
    sequence: number;
  }
  const frameError = (message: string, id: string) => Object.assign(new Error(message), { name: 'TransportError', id });
  return {
    makeBlocks(apdu) {
      const blockSize = packetSize - 5;
      const count = Math.max(1, Math.ceil((apdu.length + 2) / blockSize));
      const data = new Uint8Array(count * blockSize);
      data.set([apdu.length >> 8, apdu.length & 0xff]);
      data.set(apdu, 2);
      return Array.from({ length: count }, (_, i) => {
        const block = new Uint8Array(packetSize);
        block.set([channel >> 8, channel & 0xff, HID_TAG, i >> 8, i & 0xff]);
        block.set(data.subarray(i * blockSize, (i + 1) * blockSize), 5);
        return block;
      });
    },
    reduceResponse(previous, chunk) {
      const acc = previous as Acc | undefined;
      const u16 = (at: number) => ((chunk[at] ?? 0) << 8) | (chunk[at + 1] ?? 0);
      if (u16(0) !== channel) throw frameError('Invalid channel', 'InvalidChannel');
      if (chunk[2] !== HID_TAG) throw frameError('Invalid tag', 'InvalidTag');
      const sequence = acc?.sequence ?? 0;
      if (u16(3) !== sequence) throw frameError('Invalid sequence', 'InvalidSequence');
      const dataLength = acc ? acc.dataLength : u16(5);
      const joined = new Uint8Array((acc?.data.length ?? 0) + chunk.length);
      joined.set(acc?.data ?? new Uint8Array(0));
      joined.set(chunk.subarray(acc ? 5 : 7), acc?.data.length ?? 0);
      const length = Math.min(dataLength, (acc?.data.length ?? 0) + chunk.length - (acc ? 5 : 7));
      return { data: joined.slice(0, length), dataLength, sequence: sequence + 1 } satisfies Acc;
    },
    getReducedResult(acc) {
      const a = acc as Acc | undefined;
      return a && a.dataLength === a.data.length ? asBuffer(a.data) : undefined;
    },
  };
};
