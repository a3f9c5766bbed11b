/**
 * A Device Management Kit session on the software Ledger, through DMK's own Speculos transport kit
 * (`@ledgerhq/device-transport-kit-speculos`, unchanged) and chain-ledger's Speculos-compatible server.
 */
import {
  DeviceManagementKitBuilder,
  DeviceModelId,
  type DeviceManagementKit,
  type LoggerSubscriberService,
} from '@ledgerhq/device-management-kit';
import { speculosTransportFactory } from '@ledgerhq/device-transport-kit-speculos';
import { firstValueFrom } from 'rxjs';
import { startSpeculosServer, type SoftwareLedger, type SpeculosServer } from '../../src/emulator.js';
import { toHex } from '../../src/apdu/bytes.js';

export interface DmkSession {
  dmk: DeviceManagementKit;
  sessionId: string;
  server: SpeculosServer;
  /** Every APDU the device received, hex, the session refresher's B0 01 pings left out. */
  requests: string[];
  /** Closes the kit, then the server (the kit polls GET /events until the server is gone). */
  close(): Promise<void>;
}

/**
 * `buttons`: reviews wait for /button presses, as on Speculos (default false: the ledger's approver decides).
 * `watchServer`: the kit polls `GET /events` every 2 s and drops the session when a poll fails or takes over 2 s
 * (default false, the kit's `isE2E`: on a loaded machine a poll can take that long while a proof runs, and only the
 * test of a vanishing device needs the polling). `loggers`: added to the kit (`addLogger`).
 */
export async function dmkSession(
  ledger: SoftwareLedger,
  options: { buttons?: boolean; watchServer?: boolean; loggers?: LoggerSubscriberService[] } = {},
): Promise<DmkSession> {
  const requests: string[] = [];
  const device = {
    get approve() {
      return ledger.approve;
    },
    set approve(approver) {
      ledger.approve = approver;
    },
    exchange: (apdu: Uint8Array) => {
      requests.push(toHex(apdu));
      return ledger.exchange(apdu);
    },
  };
  const server = await startSpeculosServer(device, { buttons: options.buttons ?? false });
  const builder = new DeviceManagementKitBuilder().addTransport(
    speculosTransportFactory(server.url, options.watchServer !== true, DeviceModelId.NANO_SP),
  );
  for (const logger of options.loggers ?? []) builder.addLogger(logger);
  const dmk = builder.build();
  const discovered = await firstValueFrom(dmk.startDiscovering({}));
  const sessionId = await dmk.connect({ device: discovered, sessionRefresherOptions: { isRefresherDisabled: true } });
  requests.length = 0; // the connection's own B0 01 exchanges
  return {
    dmk,
    sessionId,
    server,
    requests,
    async close() {
      dmk.close();
      await server.close().catch(() => {}); // closed already by a test that took the device away
    },
  };
}

/** Presses a Speculos button of `server` (as a tool would: POST /button/…). */
export async function press(server: SpeculosServer, button: 'left' | 'right' | 'both'): Promise<void> {
  await fetch(`${server.url}/button/${button}`, { method: 'POST', body: JSON.stringify({ action: 'press-and-release' }) });
}
