import type { ReportProgress } from '../util/progress.js';

/**
 * The structural transport everything codes against. Every `@ledgerhq/hw-transport` instance (WebHID, node-hid,
 * Speculos HTTP, the mocker's replayer) fits it, and so does `SoftwareLedger`; nothing depends on the `Transport` class.
 */
export interface ApduTransport {
  /**
   * Sends CLA INS P1 P2 Lc data (Lc always present) and resolves the reply data ‖ status word. Implementations
   * reject with an error carrying `statusCode` when the status word is not in `statusList` (default [0x9000]).
   */
  send(cla: number, ins: number, p1: number, p2: number, data?: Uint8Array, statusList?: readonly number[]): Promise<Uint8Array>;
  /** `@ledgerhq` transports emit "disconnect" when the device goes away. */
  // biome-ignore lint/suspicious/noExplicitAny: listener parameters differ per transport; `any` keeps every @ledgerhq transport assignable.
  on?(event: string, listener: (...args: any[]) => unknown): void;
  // biome-ignore lint/suspicious/noExplicitAny: as for `on`.
  off?(event: string, listener: (...args: any[]) => unknown): void;
  close?(): Promise<void> | void;
  /**
   * Optional, for a device that runs a task of several exchanges as one unit of its own (Ledger's Device Management
   * Kit runs it as a device action: the device unlocked and the Mina app opened first, then the task, nothing else
   * of that DMK session in between). `ExclusiveTransport` hands it each command it holds the device for; the command's
   * exchanges go through the `send` given to `task`. The steps before the first exchange (unlock, open the app) are
   * told through `options.progress`.
   */
  runTask?<T>(task: (send: ApduTransport['send']) => Promise<T>, options: SendOptions): Promise<T>;
  /**
   * Optional: why this transport does not carry the credential store's key request, when it would log or keep the
   * reply (`DmkTransport` without `noDebugLogger`). The provider's credential methods then answer 20006 with this
   * reason before the device is asked anything; undefined or absent when the request may be sent.
   */
  readonly storeKeyRefusal?: string | undefined;
}

export interface SendOptions {
  /**
   * Cancels the call. A call still waiting for its turn leaves the queue at once. A call already on the device
   * rejects at once too, but the device keeps its screen until the user answers there; the next exchange waits for
   * that answer, because a Ledger cannot be interrupted from the host.
   */
  signal?: AbortSignal;
  /**
   * Told the steps a device goes through before a command's first exchange, on transports that have them
   * (`runTask`: unlock the device, open the Mina app).
   */
  progress?: ReportProgress;
}
