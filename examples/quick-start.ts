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
 */
import Client from 'mina-signer';
import { MinaLedgerApp, signatureToBase58, type MinaSignature } from 'chain-ledger/apdu';
import { SoftwareLedger, TEST_MNEMONIC, type Review } from 'chain-ledger/emulator';
import { sampleSpec } from './web-dapp/src/sample-spec.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ClientBerkeley from 'mina-signer-berkeley';
import { FileCredentialStore } from 'chain-ledger/credentials/node';
import {
  type BeyondSpendCap,
  createLedgerProvider,
  credentialManager,
  zkappSummaryLines,
  type PresentationReview,
  type LedgerProvider,
  type ProgressEvent,
  type ZkappSummary,
} from 'chain-ledger';
import type { ApduTransport } from 'chain-ledger/transport';

/** The provider's in-process chain (`network: 'local'`). */
type LocalChain = Awaited<ReturnType<LedgerProvider['localChain']>>;

const NETWORK_ID = 0; // testnet/devnet
const client = new Client({ network: 'testnet' });

function printReview(review: Review): void {
  console.log(`   ┌─ on the device ${'─'.repeat(40)}`);
  // One row per device screen: its lines as drawn, separated by " | " (long values paged as the device pages them;
  // the layout's empty rows left out).
  for (const screen of review.screens) console.log(`   │ ${screen.lines.filter((line) => line.trim() !== '').join(' | ')}`);
  console.log('   └─ (approved by the software Ledger)');
}

/**
 * What the heavy steps cost, as measured on the 2 shared cores of the project's machine (README, Quick start): the
 * prover compiles the presentation circuit (83 s the first time, 20–46 s with its keys in ~/.cache/o1js, at load
 * 5–17) and proves (23–60 s); the verifier compiles it again for its verification key and checks (38–58 s).
 */
const PRESENTATION_TIME = '1–2 min on 2 busy cores; its compile is quicker once cached in ~/.cache/o1js';
const VERIFY_TIME = '30–60 s on 2 busy cores';

/** The most MINA a zkApp command may take from the account here, fee included: a wallet's spend cap. */
const SPEND_CAP_MINA = 5;

/**
 * The host's review of a zkApp command, before the device is asked: what a wallet shows its user, above all where
 * the device signs blind. Printed and approved by the walk-through; a wallet asks its user here (false refuses).
 */
function hostReview(summary: ZkappSummary & { origin: string }): boolean {
  console.log(`   ┌─ on the host, before the Ledger is asked (${summary.origin}, spend cap ${SPEND_CAP_MINA} MINA) ${'─'.repeat(8)}`);
  for (const line of zkappSummaryLines(summary)) console.log(`   │ ${line}`);
  console.log('   └─ (approved by the walk-through; a wallet asks its user here)');
  return true;
}

/**
 * The holder's review of a presentation request (`confirmPresentation`), before anything is read from the store or
 * computed on it: the request in words, then the stored credentials that fit it (listing them unlocks the store: the
 * Ledger asks for the store key, naming the site on the extension). A wallet asks its user here; the walk-through
 * shows what it would show, and approves.
 */
async function presentationReview(review: PresentationReview): Promise<boolean> {
  console.log(`   ┌─ on the host, before anything is computed on the credentials (${review.origin}) ${'─'.repeat(8)}`);
  for (const line of review.lines) console.log(`   │ ${line}`);
  for (const [input, list] of Object.entries(await review.candidates())) {
    for (const c of list)
      console.log(`   │ fits "${input}": ${c.credentialType} credential ${c.id.slice(0, 8)} from ${c.issuer ?? '-'}, stored ${c.storedAt}`);
  }
  console.log('   └─ (approved by the walk-through; a wallet asks its user here)');
  return true;
}

/**
 * Under the spend cap, a change no amount counts (the account's own permissions, verification key, delegate or
 * timing; another token leaving it) is asked by name. The walk-through refuses it; a wallet asks its user to confirm
 * that very change (the CLI: type its name).
 */
function beyondSpendCap(change: BeyondSpendCap & { origin: string }): boolean {
  console.log(`   ⚠ beyond the spend cap: ${change.description}`);
  console.log(`   └─ refused by the walk-through (a wallet asks its user to confirm "${change.change}" by name)`);
  return false;
}

/** What ran, and what the device could not do because it lacks the extension: the summary at the end. */
const summary = { ran: [] as string[], needsExtension: [] as string[] };

/**
 * The progress lines of one step: each stage the provider reports (`onProgress`: the device's prompt, loading the
 * prover, compiling, proving…) and "still working" while the step is silent for 10 s, each stamped with the seconds
 * since the step started.
 */
class StepLines {
  readonly #started = performance.now();
  #lastLine = this.#started;
  readonly #timer = setInterval(() => {
    if (performance.now() - this.#lastLine >= 10_000) this.say('… still working');
  }, 1000);

  say(text: string): void {
    this.#lastLine = performance.now();
    console.log(`   ${text} (${((this.#lastLine - this.#started) / 1000).toFixed(1)} s)`);
  }

  /** For `onProgress`. */
  readonly progress = ({ stage, prompt, retry }: ProgressEvent): void => {
    if (stage === 'confirm-on-device') this.say(`⏳ ${prompt ?? 'confirm on your Ledger'}`);
    else if (stage !== 'done' && stage !== 'failed')
      this.say(`… ${stage.replaceAll('-', ' ')}${retry ? ' (again, in a fresh worker)' : ''}`);
  };

  stop(): void {
    clearInterval(this.#timer);
  }
}

/** The lines of the step running now. */
let progress: StepLines | undefined;

async function step<T>(title: string, run: () => Promise<T>): Promise<T> {
  console.log(`\n▶ ${title}`);
  const start = performance.now();
  progress = new StepLines();
  let result: T;
  try {
    result = await run();
  } finally {
    progress.stop();
    progress = undefined;
  }
  console.log(`   done in ${(performance.now() - start).toFixed(0)} ms`);
  summary.ran.push(title);
  return result;
}

/** A step the device cannot do without the chain-ledger extension: say what it lacks, and go on. */
function lacksExtension(title: string, what: string, reason?: string): void {
  console.log(`\n▷ ${title}`);
  console.log(`   skipped: the device lacks ${what} (chain-ledger extension, docs/apdu-extensions.md)${reason ? `; ${reason}` : ''}`);
  summary.needsExtension.push(title);
}

function printSummary(deviceLabel: string): void {
  console.log(`\n── summary (${deviceLabel}) ${'─'.repeat(30)}`);
  console.log(`   ran (${summary.ran.length} steps, each device step approved on the device):`);
  for (const title of summary.ran) console.log(`     ✔ ${title}`);
  if (summary.needsExtension.length > 0) {
    console.log(`   needs the chain-ledger extension, which this device lacks (${summary.needsExtension.length}):`);
    for (const title of summary.needsExtension) console.log(`     – ${title}`);
  }
}

const isNotSupported = (error: unknown) => typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 20006;

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`verification failed: ${what}`);
  console.log(`   ✔ ${what}`);
}

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
    onProgress: (event) => progress?.progress(event),
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

/** Part 3: a credential issued to the Ledger account, stored encrypted, and presented to a verifier. */
async function credentials(chain: ReturnType<typeof createLedgerProvider>, address: string): Promise<void> {
  console.log(`\n── private credentials ${'─'.repeat(50)}`);
  const [o1js, A] = await step('Load o1js and mina-attestations (only now: they are heavy)', () =>
    Promise.all([import('o1js'), import('mina-attestations')]),
  );
  const { PrivateKey, PublicKey, UInt64, Poseidon } = o1js;
  const issuer = PrivateKey.random();
  const Nationality = A.DynamicString({ maxLength: 50 });
  const data = { nationality: Nationality.from('Austria'), age: UInt64.from(30), expiresAt: UInt64.from(Date.now() + 365 * 86_400_000) };
  const credential = A.Credential.toJSON(A.Credential.sign(issuer, { owner: PublicKey.fromBase58(address), data }));
  console.log(`   an issuer signed a credential for ${address.slice(0, 12)}…: nationality Austria, age 30`);

  await step('chain.storePrivateCredential(): validated, approved on the Ledger, stored encrypted', () =>
    chain.storePrivateCredential({ credential }),
  );
  const stored = await credentialManager(chain).list();
  check(stored.length === 1, `the account's store holds ${stored.length} credential (id ${stored[0]?.id.slice(0, 12)}…)`);

  // The web dapp's sample request: the spec the test suite's global setup also compiles.
  const request = A.PresentationRequest.https(
    sampleSpec(o1js, A),
    { createdAt: UInt64.from(Date.now()) },
    { action: 'prove you are an adult' },
  );
  console.log('   a verifier at http://localhost asks: "age ≥ 18 and not expired", output: the issuer');
  // What the device shows: the verifier and what is shared (SIGN_PRESENTATION, extension 1.1), or the fields blind.
  const instruction = chain.capabilities?.extension?.signPresentation ? 'SIGN_PRESENTATION' : 'SIGN_FIELDS';
  const title = `chain.requestPresentation(): the owner signs on the Ledger (${instruction}), the host proves (${PRESENTATION_TIME})`;
  if (!chain.capabilities?.extension?.signFields) {
    const error = await chain
      .requestPresentation({ presentation: { presentationRequest: JSON.parse(A.PresentationRequest.toJSON(request)) } })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    if (!isNotSupported(error)) throw error ?? new Error('requestPresentation succeeded on a device that reports no SIGN_FIELDS');
    const reason = (error as { data?: { reason?: string } }).data?.reason;
    lacksExtension('chain.requestPresentation()', 'SIGN_FIELDS (INS 0xA1)', `ProviderError 20006${reason ? `: ${reason}` : ''}`);
    return;
  }
  const { presentation } = await step(title, () =>
    chain.requestPresentation({ presentation: { presentationRequest: JSON.parse(A.PresentationRequest.toJSON(request)) } }),
  );
  console.log(`   presentation: ${presentation.length} characters`);
  const output = await step(`The verifier: Presentation.verify for its origin (${VERIFY_TIME})`, () =>
    verifyInWorker(A.PresentationRequest.toJSON(request), presentation, 'http://localhost'),
  );
  const expected = Poseidon.hashWithPrefix('mina-cred:v0:native', issuer.toPublicKey().toFields());
  check(output === expected.toString(), 'the proof verifies and names the expected issuer');
}

/**
 * `Presentation.verify` in a worker thread (quick-start-verifier.ts): its compile would block this thread, and the
 * step's progress lines with it. Each stage it starts is a progress line; resolves the output claim, as text.
 */
async function verifyInWorker(requestJson: string, presentationJson: string, verifierIdentity: string): Promise<string> {
  const { Worker } = await import('node:worker_threads');
  // npm start runs this file through tsx; a worker thread registers it again to import TypeScript (an ES module
  // given as a data: URL, so that o1js loads there as it does here).
  const start = `const { register } = await import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))});
register();
await import(${JSON.stringify(new URL('./quick-start-verifier.ts', import.meta.url).href)});`;
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(start)}`), {
    workerData: { requestJson, presentationJson, verifierIdentity },
  });
  try {
    return await new Promise<string>((resolve, reject) => {
      worker.on('message', (message: { stage?: string; output?: string }) => {
        if (message.stage) progress?.say(`… ${message.stage}`);
        if (message.output !== undefined) resolve(message.output);
      });
      worker.on('error', reject);
      worker.on('exit', (code) => reject(new Error(`the verifier's worker stopped (exit code ${code})`)));
    });
  } finally {
    await worker.terminate();
  }
}

function show(sig: MinaSignature): void {
  console.log(`   signature ${signatureToBase58(sig)}`);
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
