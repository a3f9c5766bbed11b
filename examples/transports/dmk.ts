/**
 * `npx tsx examples/transports/dmk.ts`: chain-ledger over Ledger's Device Management Kit. DMK's own Speculos
 * transport kit (`@ledgerhq/device-transport-kit-speculos`, unchanged) reaches the software Ledger (test mnemonic,
 * NOT hardware) behind chain-ledger's Speculos-compatible server, started here with the Mina app closed (the device on
 * its dashboard); `--port N` uses a Speculos already listening on port N instead. For a Ledger on USB in Node,
 * `nodeHidTransportFactory` (`@ledgerhq/device-transport-kit-node-hid`) replaces the Speculos kit; in a browser,
 * `webHidTransportFactory` or `webBleTransportFactory` (docs/transports.md).
 *
 * Part 1 is the Mina signer kit (`SignerMinaBuilder`), each device-action state printed as DMK reports it (its step
 * and what the device waits for): the device action opens the Mina app for the user first. Part 2 is `window.chain`
 * on the same session (`DmkTransport`).
 */
import { DeviceManagementKitBuilder, DeviceModelId } from '@ledgerhq/device-management-kit';
import { speculosTransportFactory } from '@ledgerhq/device-transport-kit-speculos';
import Client from 'mina-signer';
import { firstValueFrom } from 'rxjs';
import { DmkTransport, SignerMinaBuilder, toPromise } from 'chain-ledger/dmk';
import { SoftwareLedger, TEST_MNEMONIC, startSpeculosServer } from 'chain-ledger/emulator';
import { createLedgerProvider } from 'chain-ledger';

const portArg = process.argv.indexOf('--port');
const server =
  portArg === -1
    ? await startSpeculosServer(SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { appOpen: false, warn: () => {} }), { buttons: false })
    : undefined;
const url = server?.url ?? `http://127.0.0.1:${Number(process.argv[portArg + 1])}`;
console.log(server ? `Software Ledger (NOT hardware, Mina app closed) behind a Speculos server at ${url}` : `Speculos at ${url}`);

// isE2E = true: no polling of GET /events, which drops the session when a poll takes over 2 s (docs/transports.md).
const dmk = new DeviceManagementKitBuilder().addTransport(speculosTransportFactory(url, true, DeviceModelId.NANO_SP)).build();
try {
  const device = await firstValueFrom(dmk.startDiscovering({}));
  const sessionId = await dmk.connect({ device });

  // Part 1: the signer kit. Each method is a device action: { observable, cancel }.
  const signer = new SignerMinaBuilder({ dmk, sessionId }).build();
  const action = signer.getAddress("44'/12586'/0'/0/0", { checkOnDevice: true });
  action.observable.subscribe((state) => {
    if (state.status === 'pending') {
      const { step, requiredUserInteraction } = state.intermediateValue;
      console.log(`  device action: pending, ${step}, ${requiredUserInteraction}`);
    }
  });
  const { address, publicKey } = await toPromise(action);
  console.log(`signer.getAddress → ${address} (x ${publicKey.x.toString(16).slice(0, 8)}…, ${publicKey.isOdd ? 'odd' : 'even'})`);
  const { version, extension } = await toPromise(signer.getAppConfiguration());
  console.log(`signer.getAppConfiguration → Mina app ${version}, extension ${extension ? extension.version : 'none'}`);

  // Part 2: window.chain on the same session.
  const chain = createLedgerProvider({
    transport: new DmkTransport({ dmk, sessionId }),
    network: 'devnet',
    origin: 'http://localhost',
    onDeviceAction: ({ status, prompt }) => status === 'confirm' && console.log(`  device: ${prompt}`),
  });
  const [account] = await chain.requestAccounts();
  const signed = await chain.signMessage({ message: 'Hello from DMK' });
  const verified = new Client({ network: 'testnet' }).verifyMessage({
    data: signed.data,
    signature: signed.signature,
    publicKey: account!,
  });
  console.log(`chain.signMessage → verified by mina-signer: ${verified}`);
  if (!verified || account !== address) process.exitCode = 1;
} finally {
  dmk.close();
  await server?.close();
}
