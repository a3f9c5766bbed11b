/**
 * Device actions as promises. Ledger's signer kits hand out `{ observable, cancel }` only; a dapp that wants
 * `await` gets the action's output, or the chain-ledger error it failed with (the same `name`s `MinaLedgerApp`
 * throws: `LedgerUserRejectedError`, `LedgerAppNotOpenError`, …), and hears what the device waits for meanwhile.
 */
import type { ExecuteDeviceActionReturnType } from '@ledgerhq/device-management-kit';
import { toLedgerErrorFromDmk } from './errors.js';

export interface ToPromiseOptions {
  /**
   * Told whenever what the device waits for changes: DMK's `UserInteractionRequired` values (`unlock-device`,
   * `confirm-open-app`, `verify-address`, `sign-transaction`, …; `none` while it waits for nothing).
   */
  onInteraction?: (interaction: string) => void;
  /** Cancels the action (DMK's `cancel()`: the promise rejects with the reason; the device keeps its screen). */
  signal?: AbortSignal;
}

/**
 * The output of a device action.
 *
 * @example
 * ```ts
 * const address = await toPromise(signer.getAddress(0, { checkOnDevice: true }), {
 *   onInteraction: (step) => console.log(step), // confirm-open-app, none, verify-address
 * });
 * ```
 * @throws the chain-ledger error the action failed with (see `toLedgerErrorFromDmk`); the signal's reason when
 *   aborted; an `AbortError` when someone else cancelled the action.
 */
export function toPromise<Output>(
  action: ExecuteDeviceActionReturnType<Output, unknown, { readonly requiredUserInteraction: string }>,
  options: ToPromiseOptions = {},
): Promise<Output> {
  const { signal, onInteraction } = options;
  return new Promise<Output>((resolve, reject) => {
    let told: string | undefined;
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      subscription?.unsubscribe();
      outcome();
    };
    const onAbort = () => {
      settle(() => reject(signal!.reason));
      action.cancel();
    };
    let subscription: { unsubscribe(): void } | undefined;
    if (signal?.aborted) {
      onAbort();
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    subscription = action.observable.subscribe({
      next: (state) => {
        if (state.status === 'pending') {
          const interaction = state.intermediateValue.requiredUserInteraction;
          if (interaction !== told) {
            told = interaction;
            try {
              onInteraction?.(interaction);
            } catch {
              // A failing listener must not break the action.
            }
          }
        } else if (state.status === 'completed') settle(() => resolve(state.output));
        else if (state.status === 'error') settle(() => reject(toLedgerErrorFromDmk(state.error)));
        else if (state.status === 'stopped') {
          settle(() => reject(Object.assign(new Error('The device action was cancelled'), { name: 'AbortError' })));
        }
      },
      error: (error: unknown) => settle(() => reject(toLedgerErrorFromDmk(error))),
      complete: () => settle(() => reject(new Error('The device action ended without a result'))),
    });
    if (settled) subscription.unsubscribe();
  });
}
