/**
 * The steps of the Mina signer kit's device actions, named as Ledger's kits name theirs (`signer.sol.steps.openApp`,
 * `signer.sol.steps.getAppConfig`, …): every pending state of a `SignerMina` method carries one in
 * `intermediateValue.step`. `openApp` while DMK unlocks the device and opens the Mina app, `getAppConfig` while a
 * command's version gate reads the app version (and for `getAppConfiguration` itself), then the command's own step,
 * named after it (`signer.mina.steps.signZkapp`), while its request is on the device.
 */
import { COMMANDS, type CommandName } from '../device/commands.js';
import type { CommandStep } from '../device/command-runner.js';

/** Rows of the command table that only `MinaLedgerApp` runs (a row added for it alone is named here). */
type ClientOnly = 'getAppVersion' | 'getCapabilities' | 'storeKey' | 'signLongText';
/** (`storeKey` too: the store's key never goes through a DMK session's log, src/dmk/transport.ts.) */
const CLIENT_ONLY: ReadonlySet<string> = new Set<ClientOnly>(['getAppVersion', 'getCapabilities', 'storeKey', 'signLongText']);

/** The last part of each step's name: `getAppConfiguration` runs as the `getAppConfig` step. */
export type MinaSignerStepName = 'openApp' | 'getAppConfig' | Exclude<CommandName, ClientOnly | 'getAppConfiguration'>;
/** A step of a Mina signer device action (`intermediateValue.step`). */
export type MinaSignerStep = `signer.mina.steps.${MinaSignerStepName}`;

const STEP_NAMES = [
  'openApp',
  'getAppConfig',
  ...Object.keys(COMMANDS).filter((name) => !CLIENT_ONLY.has(name) && name !== 'getAppConfiguration'),
] as MinaSignerStepName[];

/**
 * Every step of the Mina signer kit, by name: `minaSignerSteps.openApp === 'signer.mina.steps.openApp'`.
 *
 * @example
 * ```ts
 * signer.signZkapp(stream).observable.subscribe((state) => {
 *   if (state.status === 'pending' && state.intermediateValue.step === minaSignerSteps.signZkapp) show('Review on your Ledger');
 * });
 * ```
 */
export const minaSignerSteps: { readonly [Name in MinaSignerStepName]: `signer.mina.steps.${Name}` } = Object.freeze(
  Object.fromEntries(STEP_NAMES.map((name) => [name, `signer.mina.steps.${name}`])) as {
    [Name in MinaSignerStepName]: `signer.mina.steps.${Name}`;
  },
);

/** The signer step of a running command's step (a version read, and the configuration commands, are `getAppConfig`). */
export function signerStepOf(step: CommandStep): MinaSignerStep {
  const configuration = step === 'getAppConfig' || step === 'getAppConfiguration' || CLIENT_ONLY.has(step);
  return configuration ? minaSignerSteps.getAppConfig : minaSignerSteps[step as MinaSignerStepName];
}
