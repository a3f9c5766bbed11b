/**
 * `npm start`: the device layer end to end on the embedded software Ledger (test mnemonic, NOT hardware).
 * Each step prints what the device shows, what came back, and how long it took; every signature is checked with
 * mina-signer before it is printed. Exits non-zero with the error's name and status word on failure.
 *
 * Run against a real device instead: `npm start -- --device usb` (Mina app open), or a Speculos-compatible server:
 * `npm start -- --device speculos:5000`.
 */
import Client from 'mina-signer';
import { MinaLedgerApp, signatureToBase58, type MinaSignature } from '../src/apdu/index.js';
import { SoftwareLedger, TEST_MNEMONIC, type Review } from '../src/emulator/index.js';
import type { ApduTransport } from '../src/transport/index.js';

const NETWORK_ID = 0; // testnet/devnet
const client = new Client({ network: 'testnet' });

function printReview(review: Review): void {
  console.log('   ┌─ on the device ' + '─'.repeat(40));
  for (const screen of review.screens) console.log(`   │ ${screen.title}${screen.text ? `: ${screen.text}` : ''}`);
  console.log('   └─ (approved by the software Ledger)');
}

async function step<T>(title: string, run: () => Promise<T>): Promise<T> {
  console.log(`\n▶ ${title}`);
  const start = performance.now();
  const result = await run();
  console.log(`   done in ${(performance.now() - start).toFixed(0)} ms`);
  return result;
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`verification failed: ${what}`);
  console.log(`   ✔ ${what}`);
}

async function openDevice(spec: string): Promise<{ transport: ApduTransport; software?: SoftwareLedger; close(): Promise<void> }> {
  if (spec === 'software') {
    const software = SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { approve: (r) => (printReview(r), true), blindSigning: true });
    return { transport: software, software, close: async () => {} };
  }
  const node = await import('../src/transport/node.js');
  if (spec === 'usb') {
    const transport = await node.openNodeHid();
    return { transport, close: () => transport.close() };
  }
  const port = /^speculos(?::(\d+))?$/.exec(spec);
  if (port) {
    const transport = await node.openSpeculos({ apiPort: Number(port[1] ?? 5000) });
    return { transport, close: () => transport.close() };
  }
  throw new Error(`unknown --device ${spec} (software | usb | speculos[:port])`);
}

async function main(): Promise<void> {
  const i = process.argv.indexOf('--device');
  const spec = i >= 0 ? (process.argv[i + 1] ?? '') : 'software';
  const device = await openDevice(spec);
  if (!device.software) console.log('Confirm each step on your Ledger.');
  const app = new MinaLedgerApp(device.transport);

  try {
    const version = await step('Read the Mina app version (INS 01)', () => app.getAppVersion());
    console.log(`   Mina app ${version.version}`);

    const address = await step('Connect: show account 0 on the device and approve (INS 02, P1 = 0)', () =>
      app.getAddress(0, { display: true }),
    );
    console.log(`   address ${address}`);

    const to = await step('Read account 1 silently (INS 02, P1 = 1)', () => app.getAddress(1));
    console.log(`   address ${to}`);

    const payment = { from: address, to, amount: 1_500_000_000n, fee: 10_000_000n, nonce: 0, memo: 'chain-ledger demo' };
    const paymentSig = await step('Sign a payment of 1.5 MINA (INS 03)', () =>
      app.signTransaction({ txType: 'payment', account: 0, ...payment, networkId: NETWORK_ID }),
    );
    show(paymentSig);
    check(
      client.verifyPayment({ data: { ...payment, validUntil: 4294967295 }, signature: paymentSig, publicKey: address }),
      'mina-signer verifyPayment',
    );

    const message = await step('Sign a message (INS 05)', () => app.signMessage(0, 'Hello from chain-ledger', NETWORK_ID));
    show(message);
    check(client.verifyMessage({ data: message.signedMessage, signature: message, publicKey: address }), `mina-signer verifyMessage("${message.signedMessage}")`);

    if (version.major > 1 || version.minor >= 6) {
      const field = 15125478341151450434551337097321105823980530753786707595743937773095033818642n;
      const fieldSig = await step('Blind-sign a zkApp commitment (INS 06, "Blind signing" enabled)', () =>
        app.signFieldElement(0, field, NETWORK_ID),
      );
      show(fieldSig);
      check(
        client.verifyFields({ data: [field], signature: signatureToBase58(fieldSig), publicKey: address }),
        'mina-signer verifyFields',
      );
    }
    if (device.software) console.log(`\n${device.software.exchanges.length} APDU exchanges with the software Ledger.`);
  } finally {
    await device.close();
  }
}

function show(sig: MinaSignature): void {
  console.log(`   signature ${signatureToBase58(sig)}`);
}

main().catch((error: { name?: string; statusCode?: number; message?: string }) => {
  const sw = error.statusCode === undefined ? '' : ` (status 0x${error.statusCode.toString(16)})`;
  console.error(`\n✖ ${error.name ?? 'Error'}${sw}: ${error.message ?? String(error)}`);
  process.exit(1);
});
