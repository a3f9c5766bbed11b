/**
 * `npm start`: chain-ledger end to end on the embedded default — the software Ledger (test mnemonic, NOT hardware)
 * and an in-process local chain (o1js LocalBlockchain). Part 1 drives the device directly (APDU client); part 2 is
 * what a dapp does through `window.chain`: connect, then a zkApp transaction built with o1js, signed on the Ledger and
 * applied by the local chain, then the same kind of command signed only, then a nullifier; part 3 issues a credential
 * to the account, stores it and presents it to a verifier. Before each zkApp command reaches the device, the host
 * shows its review (`confirmZkapp`: fee payer, fee, each update and what it changes, what the signature covers) and a
 * spend cap applies, as a wallet must where the device signs blind (the released app shows only a hash).
 * Each step prints what the device shows, what came back, and how long it took; every signature is checked before
 * it is printed. Exits non-zero with the error's code or status word on failure.
 *
 * Run against a real device instead: `npm start -- --device usb` (Mina app open), or a Speculos-compatible server:
 * `npm start -- --device speculos:5000`. The software Ledger here has the chain-ledger extension (INS 0xA0–0xA2) turned
 * on, and says so; the released Mina app has none: with it, the nullifier and presentation steps say what the device
 * lacks and the walk-through goes on. It ends with a summary of what ran on the device and what needs the
 * extension, and exits 0 when everything the device supports worked.
 *
 * Beside it: quick-start-console.ts (the step lines, the host's reviews, the summary) and quick-start-credentials.ts
 * (part 3, with its verifier in quick-start-verifier.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLedgerProvider, type LedgerProvider } from 'chain-ledger';
import { MinaLedgerApp, signatureToBase58 } from 'chain-ledger/apdu';
import { FileCredentialStore } from 'chain-ledger/credentials/node';
import { SoftwareLedger, TEST_MNEMONIC } from 'chain-ledger/emulator';
import type { ApduTransport } from 'chain-ledger/transport';
import Client from 'mina-signer';
import ClientBerkeley from 'mina-signer-berkeley';
import {
  beyondSpendCap,
  check,
  hostReview,
  isNotSupported,
  lacksExtension,
  presentationReview,
  printReview,
  printSummary,
  SPEND_CAP_MINA,
  show,
  step,
  stepProgress,
} from './quick-start-console.js';
import { credentials } from './quick-start-credentials.js';

/** The provider's in-process chain (`network: 'local'`). */
type LocalChain = Awaited<ReturnType<LedgerProvider['localChain']>>;

const NETWORK_ID = 0; // testnet/devnet
const client = new Client({ network: 'testnet' });

interface OpenedDevice {
  transport: ApduTransport;
  software?: SoftwareLedger;
  /** What the device is, as printed at the start and in the summary. */
  label: string;
  close(): Promise<void>;
}

async function openDevice(spec: string): Promise<OpenedDevice> {
  if (spec === 'software') {
    // The extension is opt-in (the released Mina app has none): turned on here, and said so in the label.
    const software = SoftwareLedger.fromMnemonic(TEST_MNEMONIC, {
      approve: (r) => {
        printReview(r);
        return true;
      },
      blindSigning: true,
      extensions: true,
    });
    return {
      transport: software,
      software,
      label: 'software Ledger (NOT hardware), Mina app 1.6.0 + chain-ledger extension',
      close: async () => {},
    };
  }
  const node = await import('chain-ledger/transport/node');
  if (spec === 'usb') {
    const transport = await node.openNodeHid();
    return { transport, label: 'Ledger over USB', close: () => transport.close() };
  }
  const port = /^speculos(?::(\d+))?$/.exec(spec);
  if (port) {
    const apiPort = Number(port[1] ?? 5000);
    const transport = await node.openSpeculos({ apiPort });
    return { transport, label: `Speculos on port ${apiPort}`, close: () => transport.close() };
  }
  throw new Error(`unknown --device ${spec} (software | usb | speculos[:port])`);
}

async function main(): Promise<void> {
  const i = process.argv.indexOf('--device');
  const spec = i >= 0 ? (process.argv[i + 1] ?? '') : 'software';
  const device = await openDevice(spec);
  console.log(`Device: ${device.label}`);
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
    check(
      client.verifyMessage({ data: message.signedMessage, signature: message, publicKey: address }),
      `mina-signer verifyMessage("${message.signedMessage}")`,
    );

    if (version.major > 1 || version.minor >= 6) {
      const field = 15125478341151450434551337097321105823980530753786707595743937773095033818642n;
      const fieldSig = await step('Blind-sign a zkApp commitment (INS 06, "Blind signing" enabled)', () =>
        app.signFieldElement(0, field, NETWORK_ID),
      );
      show(fieldSig);
      check(client.verifyFields({ data: [field], signature: signatureToBase58(fieldSig), publicKey: address }), 'mina-signer verifyFields');
    }
    await throughWindowChain(device.transport, device.software !== undefined);
    if (device.software) console.log(`\n${device.software.exchanges.length} APDU exchanges with the software Ledger.`);
    printSummary(device.label);
    console.log('\nIn a browser: `npm run wallet` serves the wallet page (the Ledger, your credentials and the prover in a window');
    console.log('at its own origin) and a web dapp that uses it through chain-ledger/connect (docs/wallet.md).');
  } finally {
    await device.close();
  }
}

/** Part 2: the provider a dapp calls, on the in-process local chain. */
async function throughWindowChain(transport: ApduTransport, software: boolean): Promise<void> {
  console.log(`\n── window.chain on a local chain ${'─'.repeat(40)}`);
  const credentialDir = await mkdtemp(join(tmpdir(), 'chain-ledger-start-'));
  const chain = createLedgerProvider({
    transport,
    network: 'local',
    origin: 'http://localhost',
    credentialStore: new FileCredentialStore(credentialDir),
    onProgress: stepProgress,
    confirmZkapp: hostReview,
    confirmPresentation: presentationReview,
    confirmBeyondSpendCap: beyondSpendCap,
    spendCap: SPEND_CAP_MINA,
  });
  const [address] = await step('chain.requestAccounts()', () => chain.requestAccounts());
  console.log(`   connected ${address}`);

  // o1js starts in this thread here (its bindings, the local ledger): 5–15 s without a line, said in the title.
  const title = 'Start the local chain (o1js LocalBlockchain, 5–15 s: o1js starts) and fund the account with 100 MINA';
  const local = await step(title, async () => {
    const local = await chain.localChain();
    await local.fund(address!, 100_000_000_000n);
    return local;
  });

  const { Mina, AccountUpdate, PrivateKey, PublicKey, UInt64 } = await import('o1js');
  const sender = PublicKey.fromBase58(address!);
  const receiver = PrivateKey.random().toPublicKey();
  local.activate();
  const tx = await Mina.transaction({ sender, fee: 100_000_000, memo: 'paid from a Ledger' }, async () => {
    AccountUpdate.fundNewAccount(sender);
    AccountUpdate.createSigned(sender).send({ to: receiver, amount: UInt64.from(2_500_000_000) });
  });
  const sent = await step('chain.sendTransaction(): a zkApp command built with o1js (3 account updates)', () =>
    chain.sendTransaction({ transaction: tx.toJSON() }),
  );
  console.log(`   transaction hash ${'hash' in sent ? sent.hash : '?'}`);
  const received = await local.balanceOf(receiver.toBase58());
  check(received === 2_500_000_000n, `the local chain applied it: the receiver holds ${Number(received) / 1e9} MINA`);

  local.activate();
  const second = await Mina.transaction({ sender, fee: 100_000_000 }, async () => {
    AccountUpdate.createSigned(sender).send({ to: receiver, amount: UInt64.from(1_000_000_000) });
  });
  const signedOnly = await step('chain.sendTransaction({ onlySign: true })', () =>
    chain.sendTransaction({ transaction: second.toJSON(), onlySign: true, feePayer: { memo: 'signed, not sent' } }),
  );
  const data = JSON.parse('signedData' in signedOnly ? signedOnly.signedData : '{}');
  console.log(`   fee payer ${data.feePayer.feePayer}, nonce ${data.feePayer.nonce}, memo "${data.feePayer.memo}"`);
  const verifier = new ClientBerkeley({ network: 'devnet' });
  check(
    verifier.verifyZkappCommand({ data, publicKey: address!, signature: data.zkappCommand.feePayer.authorization }),
    'mina-signer 3.1.0 (Berkeley) verifyZkappCommand',
  );
  await handOverRefused(chain, local, address!);
  if (software && chain.capabilities?.extension?.signZkapp) await onTheReleasedApp(second.toJSON(), address!);

  if (chain.capabilities?.extension?.createNullifier) {
    const message = ['2026', '11', '22'];
    const nullifier = await step('chain.createNullifier(): extension CREATE_NULLIFIER on the device, completed on the host', () =>
      chain.createNullifier({ message }),
    );
    const { Field, Nullifier } = await import('o1js');
    const n = Nullifier.fromJSON(nullifier);
    n.verify(message.map((m) => Field(m)));
    check(true, `o1js Nullifier.verify; nullifier key ${n.key().toString().slice(0, 20)}…`);
  } else {
    const error = await chain.createNullifier({ message: ['1', '2'] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!isNotSupported(error)) throw error ?? new Error('createNullifier succeeded on a device that reports no nullifier instruction');
    const reason = (error as { data?: { reason?: string } }).data?.reason;
    lacksExtension('chain.createNullifier()', 'CREATE_NULLIFIER (INS 0xA2)', `ProviderError 20006${reason ? `: ${reason}` : ''}`);
  }

  await credentials(chain, address!);
  await rm(credentialDir, { recursive: true, force: true });
}

/**
 * What a page may ask that moves no MINA now: your account's `send` set to None (anyone could empty it later) beside
 * a zkApp's state write. The host's review shows both; the spend cap counts the change as the whole balance, and asks.
 */
async function handOverRefused(chain: ReturnType<typeof createLedgerProvider>, local: LocalChain, address: string): Promise<void> {
  const { Mina, AccountUpdate, Field, Permissions, PrivateKey, PublicKey } = await import('o1js');
  const sender = PublicKey.fromBase58(address);
  local.activate();
  const tx = await Mina.transaction({ sender, fee: 100_000_000 }, async () => {
    AccountUpdate.createSigned(sender).account.permissions.set({ ...Permissions.default(), send: Permissions.none() });
    const zkapp = AccountUpdate.create(PrivateKey.random().toPublicKey());
    AccountUpdate.setValue(zkapp.body.update.appState[0]!, Field(42));
  });
  const title = "A page asks to set your account's send permission to None, beside a zkApp's state write";
  const error = await step(title, () =>
    chain.sendTransaction({ transaction: tx.toJSON() }).then(
      () => undefined,
      (e: unknown) => e,
    ),
  );
  if ((error as { code?: unknown } | undefined)?.code !== 1002) throw error ?? new Error('the change beyond the spend cap was signed');
  console.log('   refused before the Ledger was asked (ProviderError 1002): nothing was signed');
}

/** Beside the clear review: the same command on the released Mina app, which can only sign it blind. */
async function onTheReleasedApp(transaction: string, address: string): Promise<void> {
  const released = SoftwareLedger.fromMnemonic(TEST_MNEMONIC, {
    approve: (r) => {
      printReview(r);
      return true;
    },
    blindSigning: true,
    warn: () => {},
  });
  const blind = createLedgerProvider({
    transport: released,
    network: 'devnet',
    origin: 'http://localhost',
    confirmZkapp: hostReview,
    spendCap: SPEND_CAP_MINA,
    // A second software Ledger, the same test mnemonic: its address was confirmed on the device above.
    confirmAddress: false,
  });
  const title = 'The same command on the released Mina app (no extension): the host shows it, then INS 06 shows only a hash';
  const blindSigned = await step(title, async () => {
    console.log('   (a second software Ledger with the same test mnemonic, as released: connected with its address read silently)');
    await blind.requestAccounts();
    return blind.sendTransaction({ transaction, onlySign: true, feePayer: { memo: 'signed, not sent' } });
  });
  const blindData = JSON.parse('signedData' in blindSigned ? blindSigned.signedData : '{}');
  check(
    new ClientBerkeley({ network: 'devnet' }).verifyZkappCommand({
      data: blindData,
      publicKey: address,
      signature: blindData.zkappCommand.feePayer.authorization,
    }),
    'the blind signature verifies too: the same command, the same commitment (only the screens differ)',
  );
}

main().then(
  // o1js keeps worker threads alive; the walk-through is done.
  () => process.exit(0),
  (error: { name?: string; code?: number; statusCode?: number; message?: string; data?: unknown }) => {
    const sw = error.statusCode === undefined ? '' : ` (status 0x${error.statusCode.toString(16)})`;
    const code = error.code === undefined ? '' : ` ${error.code}`;
    const data = error.data === undefined ? '' : ` ${JSON.stringify(error.data)}`;
    console.error(`\n✖ ${error.name ?? 'Error'}${code}${sw}: ${error.message ?? String(error)}${data}`);
    process.exit(1);
  },
);
