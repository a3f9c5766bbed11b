/**
 * The Mina signer's device actions: DMK's `CallTaskInAppDeviceAction` (open the Mina app for the user, then run a
 * task inside it, holding the session for the whole task) whose task is a `MinaLedgerApp` call over the action's
 * own APDU channel. So every instruction runs with the client's validation, version gates, chunking and reply
 * checks, byte for byte as over a LedgerJS transport; DMK adds the device states around it.
 */
import type {
  CallTaskInAppDAError,
  CallTaskInAppDAIntermediateValue,
  CallTaskInAppDeviceAction,
  DeviceActionState,
  ExecuteDeviceActionReturnType,
  InternalApi,
  UserInteractionRequired,
} from '@ledgerhq/device-management-kit';
import { MinaLedgerApp } from '../device/client.js';
import type { ProgressStage } from '../util/progress.js';
import { internalApiTransport } from './apdu-transport.js';
import { MinaAppError } from './errors.js';
import { kit } from './kit.js';

/** The app name the device reports and DMK opens (B0 01 says "Mina"). */
export const MINA_APP_NAME = 'Mina';

/** How a signer method runs on the device. */
export interface MinaActionOptions {
  /** Run even if the Mina app is not open, without opening it (default false: the device is asked to open it). */
  skipOpenApp?: boolean;
}

/** What a Mina device action fails with: DMK's errors while opening the app, or a `MinaAppError` from the app. */
export type MinaActionError = CallTaskInAppDAError<MinaAppError>;
/** What a Mina device action tells while it runs: what the user must do on the device now. */
export type MinaActionIntermediateValue = CallTaskInAppDAIntermediateValue<UserInteractionRequired>;
/** What every signer method returns: DMK's device action handle (states on `observable`, `cancel()` stops watching). */
export type MinaDeviceAction<Output> = ExecuteDeviceActionReturnType<Output, MinaActionError, MinaActionIntermediateValue>;
/** One state of a Mina device action (DMK's `DeviceActionState`). */
export type MinaActionState<Output> = DeviceActionState<Output, MinaActionError, MinaActionIntermediateValue>;

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
