/**
 * `chain-ledger/dmk`: a Mina signer on Ledger's Device Management Kit (`@ledgerhq/device-management-kit`), shaped as
 * Ledger's own signer kits, and a DMK session as chain-ledger's transport for `createLedgerProvider`. The kit and
 * its transports (WebHID, Web Bluetooth, node-hid, Speculos) are optional peer dependencies: only this entry point
 * loads them (docs/transports.md).
 *
 * @example
 * ```ts
 * import { DeviceManagementKitBuilder } from '@ledgerhq/device-management-kit';
 * import { webHidTransportFactory } from '@ledgerhq/device-transport-kit-web-hid';
 * import { firstValueFrom } from 'rxjs';
 * import { SignerMinaBuilder, toPromise } from 'chain-ledger/dmk';
 *
 * const dmk = new DeviceManagementKitBuilder().addTransport(webHidTransportFactory).build();
 * const device = await firstValueFrom(dmk.startDiscovering({})); // from a click: the browser's chooser
 * const sessionId = await dmk.connect({ device });
 * const signer = new SignerMinaBuilder({ dmk, sessionId }).build();
 * const { address, publicKey } = await toPromise(signer.getAddress("44'/12586'/0'/0/0", { checkOnDevice: true }));
 * ```
 *
 * The signer's methods and `MinaLedgerApp`'s run the same commands (src/device/commands.ts): the same names, argument
 * types and errors. In plain Node (no bundler), load DMK itself through its CommonJS build (docs/transports.md).
 *
 * @module chain-ledger/dmk
 */
export {
  SignerMinaBuilder,
  type GetAddressActionOptions,
  type MinaAddress,
  type MinaAppConfiguration,
  type MinaDeviceAction,
  type SignerMina,
} from './dmk/signer.js';
export { minaSignerSteps, type MinaSignerStep, type MinaSignerStepName } from './dmk/steps.js';
export {
  MINA_APP_NAME,
  interactionStage,
  minaAppAction,
  type MinaActionError,
  type MinaActionIntermediateValue,
  type MinaActionOptions,
  type MinaActionState,
} from './dmk/device-action.js';
export { toPromise, type ToPromiseOptions } from './dmk/promise.js';
export { DmkTransport, type DmkTransportOptions } from './dmk/transport.js';
export {
  GetAddressCommand,
  GetAppVersionCommand,
  GetCapabilitiesCommand,
  SignFieldElementCommand,
  SignMessageCommand,
  SignTransactionCommand,
} from './dmk/commands.js';
export { MinaAppError, toLedgerErrorFromDmk } from './dmk/errors.js';
