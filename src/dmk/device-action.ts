/**
 * The Mina signer's device actions, on DMK's `CallTaskInAppDeviceAction` (open the Mina app for the user, then run a
 * task inside it, holding the session for the whole task). The signer's task is a command of src/device/commands.ts
 * over the action's own APDU channel, so every instruction runs with the same validation, version gates, chunking and
 * reply checks as `MinaLedgerApp`'s, byte for byte; DMK adds the device states around it, and the states carry the
 * kit's steps (./steps.ts) as Ledger's kits' do.
 */
import type {
  CallTaskInAppDAError,
  CallTaskInAppDeviceAction,
  DeviceAction,
  DeviceActionState,
  ExecuteDeviceActionReturnType,
  InternalApi,
  UserInteractionRequired,
} from '@ledgerhq/device-management-kit';
import { MinaLedgerApp } from '../device/client.js';
import type { PreparedCommand } from '../device/command-runner.js';
import type { CommandChannel } from '../device/commands.js';
import type { ProgressStage } from '../util/progress.js';
import { internalApiTransport } from './apdu-transport.js';
import { MinaAppError } from './errors.js';
import { kit, rx } from './kit.js';
import { minaSignerSteps, signerStepOf, type MinaSignerStep } from './steps.js';

/** The app name the device reports and DMK opens (B0 01 says "Mina"). */
export const MINA_APP_NAME = 'Mina';

/** How a signer method runs on the device. */
export interface MinaActionOptions {
  /** Run even if the Mina app is not open, without opening it (default false: the device is asked to open it). */
  skipOpenApp?: boolean;
}

/** What a Mina device action fails with: DMK's errors while opening the app, or a `MinaAppError` from the app. */
export type MinaActionError = CallTaskInAppDAError<MinaAppError>;
/** What a Mina signer device action tells while it runs: what the user must do on the device now, at which step. */
export interface MinaActionIntermediateValue {
  readonly requiredUserInteraction: UserInteractionRequired;
  readonly step: MinaSignerStep;
}
/** What every signer method returns: DMK's device action handle (states on `observable`, `cancel()` stops watching). */
export type MinaDeviceAction<Output> = ExecuteDeviceActionReturnType<Output, MinaActionError, MinaActionIntermediateValue>;
/** One state of a Mina device action (DMK's `DeviceActionState`). */
export type MinaActionState<Output> = DeviceActionState<Output, MinaActionError, MinaActionIntermediateValue>;

/** `CallTaskInAppDeviceAction`'s step while its task runs (DMK's `callTaskInAppDAStateStep.CALL_TASK`, not exported). */
const CALL_TASK_STEP = 'os.callTaskInApp.steps.callTask';

/**
 * The device action of a signer method: the Mina app opened (unless `skipOpenApp`; step `openApp`, with DMK's
 * `unlock-device` / `confirm-open-app`), then `command` on a channel of the action (`channelOf`), each of its steps
 * reported as it starts with what the user does meanwhile. A failure of the command ends the action with a
 * `MinaAppError` carrying it.
 */
export class MinaCommandAction<Output>
  implements DeviceAction<Output, { appName: string; skipOpenApp: boolean }, MinaActionError, MinaActionIntermediateValue>
{
  readonly input: { appName: string; skipOpenApp: boolean };
  readonly #command: PreparedCommand<Output>;
  readonly #channelOf: (api: InternalApi) => CommandChannel;

  constructor(command: PreparedCommand<Output>, channelOf: (api: InternalApi) => CommandChannel, options: MinaActionOptions = {}) {
    this.input = { appName: MINA_APP_NAME, skipOpenApp: options.skipOpenApp ?? false };
    this.#command = command;
    this.#channelOf = channelOf;
  }

  _execute(api: InternalApi): MinaDeviceAction<Output> {
    const states = new rx.ReplaySubject<MinaActionState<Output>>();
    // DMK's session queue subscribes once this returns and forwards to a plain Subject that its caller subscribes to
    // after that: a state told before then (the first, and every one with skipOpenApp) would reach no caller, so
    // those wait for the next microtask. Later ones are told at once (a cancel's "stopped" before the queue ends).
    let early: MinaActionState<Output>[] | undefined = [];
    const tell = (state: MinaActionState<Output>) => (early ? early.push(state) : states.next(state));
    const afterEarly = (end: () => void) => (early ? queueMicrotask(end) : end());
    queueMicrotask(() => {
      const told = early ?? [];
      early = undefined;
      for (const state of told) states.next(state);
    });
    let last = '';
    const pending = (intermediateValue: MinaActionIntermediateValue) => {
      const key = `${intermediateValue.step} ${intermediateValue.requiredUserInteraction}`;
      if (key === last) return; // DMK repeats a state on every snapshot: each change is told once
      last = key;
      tell({ status: kit.DeviceActionStatus.Pending, intermediateValue });
    };
    const { observable, cancel } = this.#inner(pending)._execute(api);
    observable.subscribe({
      next: (state) => {
        if (state.status === kit.DeviceActionStatus.Pending) {
          // The task tells its own steps; before it, every state is DMK's opening of the app.
          const { step, requiredUserInteraction } = state.intermediateValue;
          if (step !== CALL_TASK_STEP) pending({ requiredUserInteraction, step: minaSignerSteps.openApp });
        } else if (state.status === kit.DeviceActionStatus.Completed) tell({ status: state.status, output: state.output.output });
        else tell(state);
      },
      error: (error: unknown) => afterEarly(() => states.error(error)),
      complete: () => afterEarly(() => states.complete()),
    });
    return { observable: states.asObservable(), cancel };
  }

  /** DMK's open-the-app-then-run-a-task action, whose task runs the command and tells `pending` each of its steps. */
  #inner(pending: (value: MinaActionIntermediateValue) => void) {
    const task = async (api: InternalApi) => {
      try {
        const output = await this.#command.run(this.#channelOf(api), (step, interaction) =>
          pending({ requiredUserInteraction: interaction as UserInteractionRequired, step: signerStepOf(step) }),
        );
        // Wrapped: DMK takes a falsy output (getCapabilities' null) for a failure.
        return kit.DmkResultFactory<{ output: Output }, MinaAppError>({ data: { output } });
      } catch (error) {
        return kit.DmkResultFactory<{ output: Output }, MinaAppError>({ error: new MinaAppError(error) });
      }
    };
    return new kit.CallTaskInAppDeviceAction<{ output: Output }, MinaAppError, UserInteractionRequired>({
      input: { ...this.input, requiredUserInteraction: kit.UserInteractionRequired.None, task },
    });
  }
}

/**
 * A device action that opens the Mina app (unless `skipOpenApp`) and runs `task` on a client bound to it. While the
 * task runs, the state says `requiredUserInteraction` (what the device asks for: `verify-address`, `sign-transaction`,
 * …); an error thrown by the task ends the action with a `MinaAppError` carrying it.
 */
export function minaAppAction<Output>(
  task: (app: MinaLedgerApp) => Promise<Output>,
  requiredUserInteraction: UserInteractionRequired,
  options: MinaActionOptions = {},
): CallTaskInAppDeviceAction<Output, MinaAppError, UserInteractionRequired> {
  return minaTaskAction((api) => task(new MinaLedgerApp(internalApiTransport(api))), requiredUserInteraction, options);
}

/**
 * The same over the action's raw channel (`InternalApi`). DMK takes a falsy output for a failure, so an output that
 * may be falsy must be wrapped by the caller.
 */
export function minaTaskAction<Output>(
  task: (api: InternalApi) => Promise<Output>,
  requiredUserInteraction: UserInteractionRequired,
  options: MinaActionOptions = {},
): CallTaskInAppDeviceAction<Output, MinaAppError, UserInteractionRequired> {
  return new kit.CallTaskInAppDeviceAction<Output, MinaAppError, UserInteractionRequired>({
    input: {
      appName: MINA_APP_NAME,
      skipOpenApp: options.skipOpenApp ?? false,
      requiredUserInteraction,
      task: async (api) => {
        try {
          return kit.DmkResultFactory({ data: await task(api) });
        } catch (error) {
          return kit.DmkResultFactory({ error: new MinaAppError(error) });
        }
      },
    },
  });
}

/** What the device waits for, as a stage of chain-ledger's progress, with the words to tell the user. */
export function interactionStage(interaction: string): { stage: ProgressStage; prompt: string } | undefined {
  switch (interaction) {
    case 'unlock-device':
      return { stage: 'unlock-device', prompt: 'Unlock your Ledger with your PIN' };
    case 'confirm-open-app':
      return { stage: 'open-app', prompt: 'Open the Mina app: confirm on your Ledger' };
    case 'verify-address':
      return { stage: 'confirm-on-device', prompt: 'Check the address on your Ledger and approve it' };
    case 'sign-transaction':
      return { stage: 'confirm-on-device', prompt: 'Review the transaction on your Ledger and approve it' };
    case 'sign-personal-message':
      return { stage: 'confirm-on-device', prompt: 'Review the message on your Ledger and approve it' };
    case 'sign-typed-data':
      return { stage: 'confirm-on-device', prompt: 'Review the request on your Ledger and approve it' };
    default:
      return undefined;
  }
}
