/**
 * `npx tsx examples/transports/ledgerjs.ts`: chain-ledger over a LedgerJS transport
 * (`@ledgerhq/hw-transport-node-speculos-http`, opened with `openSpeculos`). The device is the software Ledger (test
 * mnemonic, NOT hardware) behind chain-ledger's Speculos-compatible server, started here; `--port N` uses a Speculos
 * (or `chain-ledger speculos`) already listening on port N instead. For a Ledger on USB, `openNodeHid()` in place of
 * `openSpeculos` is the only change (docs/transports.md).
 *
 * LedgerJS sends APDUs: the Mina app must be open on the device, or the call fails with 1001 "open the Mina app".
 */
import Client from 'mina-signer';
import { SoftwareLedger, TEST_MNEMONIC, startSpeculosServer } from 'chain-ledger/emulator';
import { createLedgerProvider } from 'chain-ledger';
import { openSpeculos } from 'chain-ledger/transport/node';

const portArg = process.argv.indexOf('--port');
const server =
  portArg === -1
    ? await startSpeculosServer(SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { warn: () => {} }), { buttons: false })
    : undefined;
const port = server?.port ?? Number(process.argv[portArg + 1]);
console.log(server ? `Software Ledger (NOT hardware) behind a Speculos server on port ${port}` : `Speculos on port ${port}`);

const transport = await openSpeculos({ apiPort: port });
const chain = createLedgerProvider({
  transport,
  network: 'devnet',
  origin: 'http://localhost',
  onDeviceAction: ({ status, prompt }) => status === 'confirm' && console.log(`  device: ${prompt}`),
});
try {
  const [address] = await chain.requestAccounts();
  console.log(`requestAccounts → ${address}`);
  const signed = await chain.signMessage({ message: 'Hello from LedgerJS' });
  const verified = new Client({ network: 'testnet' }).verifyMessage({
    data: signed.data,
    signature: signed.signature,
    publicKey: address!,
  });
  console.log(`signMessage → verified by mina-signer: ${verified}`);
  if (!verified) process.exitCode = 1;
} finally {
  await transport.close();
  await server?.close();
}
