/**
 * `@ledgerhq` HID transports log every APDU and every reply through `@ledgerhq/logs` (`log("apdu", "<= …")` in
 * WebHID, `tracer.trace("<= …")` in node-hid), which every listener receives (in a browser a page script can
 * register one through `window.__ledgerLogsListen`). The reply to the store-key request *is* the credential store's
 * key (src/apdu/store-key.ts), so for that one request the exchange runs the transport's own steps (its atomic
 * guard, its HID framing module, its own report reader and writer) without the log lines. Should a transport's
 * internals ever change shape, store-key requests are refused rather than logged.
 */
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
export interface FramedIo {
  channel: number;
  packetSize: number;
  atomic<T>(f: () => Promise<T>): Promise<T>;
  write(block: Uint8Array): Promise<void>;
  read(): Promise<Uint8Array>;
  /** Reports to skip while reading (WebHID: another channel's), as the transport itself does. */
  skip?(error: unknown): boolean;
}

/**
 * Replaces `transport.exchange` so that store-key requests go through `io()` without logging; every other APDU goes
 * through the transport's own `exchange` unchanged. `io()` returns undefined when the internals are not there.
 */
export function quietStoreKeyReplies(
  transport: { exchange(apdu: Uint8Array): Promise<Uint8Array> },
  framing: HidFraming | undefined,
  io: () => FramedIo | undefined,
  mapError: (error: unknown) => unknown = (error) => error,
): void {
  const loud = transport.exchange.bind(transport);
  transport.exchange = async (apdu: Uint8Array) => {
    if (!isStoreKeyRequest(apdu)) return loud(apdu);
    const parts = typeof framing === 'function' ? io() : undefined;
    if (!parts) throw new Error('this Ledger transport cannot exchange the store-key request without logging its reply');
    return parts
      .atomic(async () => {
        const frames = framing!(parts.channel, parts.packetSize);
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
  };
}
