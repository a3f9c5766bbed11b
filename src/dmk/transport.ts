/**
 * A DMK session as chain-ledger's `ApduTransport`, so `createLedgerProvider` and `MinaLedgerApp` run on it
 * unchanged. Each command the provider holds the device for (`ExclusiveTransport.exclusive`) runs as one Mina device
 * action (`runTask`): the device is unlocked and the Mina app opened for the user first, those steps reported as
 * progress (`unlock-device`, `open-app`), then the command's exchanges, with nothing else of the session in between.
 */
import type {
  ApduResponse,
  DeviceManagementKit,
  DeviceSessionId,
  DeviceSessionState,
  ExecuteDeviceActionReturnType,
  InternalApi,
} from '@ledgerhq/device-management-kit';
import type { ApduTransport, SendOptions } from '../transport/types.js';
import { DMK_STORE_KEY_REFUSAL, internalSendRaw, sendOver } from './apdu-transport.js';
import { interactionStage, minaTaskAction, type MinaActionError } from './device-action.js';
import { toLedgerErrorFromDmk } from './errors.js';
import { toPromise } from './promise.js';

type Listener = (...args: unknown[]) => unknown;

export interface DmkTransportOptions {
  dmk: DeviceManagementKit;
  /** A connected session (`await dmk.connect({ device })`). */
  sessionId: DeviceSessionId;
  /**
   * The integrator's statement that no logger at `LogLevel.Debug` is added to `dmk` (`addLogger`; DMK's
   * `ConsoleLogger` logs at that level unless given another). DMK logs every APDU reply at that level, and the
   * credential store's key is one: without this statement the provider's credential methods answer 20006 naming it,
   * and the store-key request is never sent (docs/security.md). Every other method works either way.
   */
  noDebugLogger?: boolean;
}

/**
 * chain-ledger's transport over a Device Management Kit session.
 *
 * @example
 * ```ts
 * import { createLedgerProvider } from 'chain-ledger';
 * import { DmkTransport } from 'chain-ledger/dmk';
 * const chain = createLedgerProvider({ transport: new DmkTransport({ dmk, sessionId }), network: 'mainnet' });
 * ```
 */
export class DmkTransport implements ApduTransport {
  readonly dmk: DeviceManagementKit;
  readonly sessionId: DeviceSessionId;
  /** Why this session does not carry the store-key request (no `noDebugLogger` statement), or undefined. */
  readonly storeKeyRefusal: string | undefined;
  #listeners = new Set<Listener>();
  #watch: { unsubscribe(): void } | undefined;
  #gone = false;

  constructor(options: DmkTransportOptions) {
    this.dmk = options.dmk;
    this.sessionId = options.sessionId;
    this.storeKeyRefusal = options.noDebugLogger === true ? undefined : DMK_STORE_KEY_REFUSAL;
  }

  /** One exchange outside a device action (`dmk.sendApdu`); `ExclusiveTransport` uses `runTask` instead. */
  send(cla: number, ins: number, p1: number, p2: number, data?: Uint8Array, statusList?: readonly number[]): Promise<Uint8Array> {
    const sendRaw = (apdu: Uint8Array): Promise<ApduResponse> => this.dmk.sendApdu({ sessionId: this.sessionId, apdu });
    return sendOver(sendRaw, () => this.storeKeyRefusal)(cla, ins, p1, p2, data, statusList);
  }

  /** Runs a whole command as one device action: the Mina app opened first, then `task`'s exchanges. */
  runTask<T>(task: (send: ApduTransport['send']) => Promise<T>, options: SendOptions = {}): Promise<T> {
    // DMK treats a falsy output as a failure: the task's result travels wrapped.
    const send = (api: InternalApi) => sendOver(internalSendRaw(api), () => this.storeKeyRefusal);
    const deviceAction = minaTaskAction(async (api) => ({ value: await task(send(api)) }), 'none' as never);
    let action: ExecuteDeviceActionReturnType<{ value: T }, MinaActionError, { requiredUserInteraction: string }>;
    try {
      action = this.dmk.executeDeviceAction({ sessionId: this.sessionId, deviceAction });
    } catch (error) {
      return Promise.reject(toLedgerErrorFromDmk(error)); // the session is gone (DeviceSessionNotFound)
    }
    const { progress } = options;
    const onInteraction = (interaction: string) => {
      const step = interactionStage(interaction);
      if (step && (step.stage === 'unlock-device' || step.stage === 'open-app')) progress?.(step.stage, { prompt: step.prompt });
    };
    return toPromise(action, { onInteraction, ...(options.signal ? { signal: options.signal } : {}) }).then((output) => output.value);
  }

  /** "disconnect" is emitted once when DMK reports the session's device gone. */
  on(event: string, listener: Listener): void {
    if (event !== 'disconnect') return;
    this.#listeners.add(listener);
    try {
      this.#watch ??= this.dmk.getDeviceSessionState({ sessionId: this.sessionId }).subscribe({
        next: (state: DeviceSessionState) => {
          if (state.deviceStatus === 'NOT CONNECTED') this.#disconnected();
        },
        error: () => this.#disconnected(),
        complete: () => this.#disconnected(),
      });
    } catch {
      this.#disconnected(); // no such session (any more)
    }
  }

  off(event: string, listener: Listener): void {
    if (event !== 'disconnect') return;
    this.#listeners.delete(listener);
    if (this.#listeners.size === 0) {
      this.#watch?.unsubscribe();
      this.#watch = undefined;
    }
  }

  /** Disconnects the session (the device stays with DMK; connect again to use it). */
  async close(): Promise<void> {
    this.#watch?.unsubscribe();
    this.#watch = undefined;
    await this.dmk.disconnect({ sessionId: this.sessionId }).catch(() => undefined);
  }

  #disconnected(): void {
    if (this.#gone) return;
    this.#gone = true;
    for (const listener of [...this.#listeners]) listener(new Error('The Ledger was disconnected'));
  }
}
