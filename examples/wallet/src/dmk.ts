/**
 * Connecting through Ledger's Device Management Kit (chain-ledger/dmk): WebHID or Web Bluetooth, chosen by the
 * user, in the wallet window. Loaded on click only (a lazy chunk: the kit is not in the wallet's initial bundle). The
 * device action behind each call opens the Mina app for the user, so the wallet says "Open the Mina app: confirm on
 * your Ledger" instead of failing when it is closed.
 */
import { DeviceManagementKitBuilder, type DeviceManagementKit } from '@ledgerhq/device-management-kit';
import { webBleIdentifier, webBleTransportFactory } from '@ledgerhq/device-transport-kit-web-ble';
import { webHidIdentifier, webHidTransportFactory } from '@ledgerhq/device-transport-kit-web-hid';
import { DmkTransport } from 'chain-ledger/dmk';
import { firstValueFrom } from 'rxjs';

let dmk: DeviceManagementKit | undefined;

/** From a click: the browser's chooser (USB or Bluetooth), then a DMK session as chain-ledger's transport. */
export async function connectWithDmk(over: 'usb' | 'bluetooth'): Promise<DmkTransport> {
  dmk ??= new DeviceManagementKitBuilder().addTransport(webHidTransportFactory).addTransport(webBleTransportFactory).build();
  const device = await firstValueFrom(dmk.startDiscovering({ transport: over === 'usb' ? webHidIdentifier : webBleIdentifier }));
  await dmk.stopDiscovering();
  const sessionId = await dmk.connect({ device });
  // This kit has no logger (no addLogger): the store key's reply is logged nowhere, so the credential methods may run.
  return new DmkTransport({ dmk, sessionId, noDebugLogger: true });
}
