/**
 * The web dapp: `window.chain` backed by a Ledger (WebHID) or, in demo mode, by the software Ledger with the public
 * test mnemonic (NOT hardware, labelled as such). Forms for sendTransaction, createNullifier, storePrivateCredential
 * and requestPresentation; results and ProviderErrors shown as a user reads them. The page finds the provider as a
 * dapp finds any Mina wallet: `mina:requestProvider` answered by `mina:announceProvider` (chain-ledger `install`).
 *
 * Only chain-ledger's public entry points are imported; o1js and mina-attestations are loaded by the provider on
 * first use (and by the sample buttons below, on click), so they are lazy chunks of the bundle.
 */
import {
  ANNOUNCE_PROVIDER_EVENT,
  DEFAULT_PROVIDER_INFO,
  REQUEST_PROVIDER_EVENT,
  createLedgerProvider,
  install,
  isProviderError,
  type LedgerProvider,
  type Network,
  type ProviderDetail,
} from 'chain-ledger';
import { SoftwareLedger, TEST_MNEMONIC, type Review } from 'chain-ledger/emulator';
import { isWebHidAvailable, openWebHid, type ApduTransport } from 'chain-ledger/transport';
import sampleCommand from './sample-zkapp-command.json' with { type: 'json' };
import { sampleSpec } from './sample-spec.js';

declare global {
  interface Window {
    chain?: LedgerProvider;
  }
}

const $ = <T extends HTMLElement = HTMLElement>(id: string) => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`missing #${id}`);
  return element as T;
};

let chain: LedgerProvider | undefined;
/** Undoes the wallet side's `install` (window.chain and the announcements) before a new connection. */
let uninstall: (() => void) | undefined;
let address: string | undefined;
/** A Ledger this site was granted before, reopened at load without a prompt. */
let remembered: ApduTransport | undefined;

// ---- presentation of results and errors ----

function show(id: string, state: 'ok' | 'error' | 'pending', text: string, code?: number): void {
  const out = $(id);
  out.hidden = false;
  out.dataset.state = state;
  if (code === undefined) delete out.dataset.code;
  else out.dataset.code = String(code);
  out.textContent = text;
}

/** A ProviderError as a person reads it: code and message, then why (`data.reason`) and which field. */
export function describeError(error: unknown): { text: string; code?: number } {
  if (isProviderError(error)) {
    const data = (error.data ?? {}) as { reason?: string; field?: string };
    const lines = [`Error ${error.code}: ${error.message}`];
    if (data.reason) lines.push(`Why: ${data.reason}`);
    if (data.field) lines.push(`Field: ${data.field}`);
    lines.push('', JSON.stringify({ code: error.code, message: error.message, data: error.data }, null, 2));
    return { text: lines.join('\n'), code: error.code };
  }
  const e = error as { name?: string; message?: string };
  return { text: `${e?.name ?? 'Error'}: ${e?.message ?? String(error)}` };
}

/** Runs one method from a button: pending → a summary line and the result (JSON), or a readable error. */
async function run(
  resultId: string,
  button: HTMLButtonElement,
  work: () => Promise<unknown>,
  // biome-ignore lint/suspicious/noExplicitAny: each caller's summarize states the result shape it reads.
  summarize: (result: any) => string = () => '',
): Promise<void> {
  if (!chain) {
    show(resultId, 'error', 'Connect a Ledger (or start the demo) first.');
    return;
  }
  button.disabled = true;
  show(resultId, 'pending', 'Working…');
  const started = performance.now();
  try {
    const result = await work();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    let summary = '';
    try {
      summary = summarize(result);
    } catch {
      // the result is shown as it came
    }
    show(resultId, 'ok', `Done in ${seconds} s${summary ? `: ${summary}` : ''}\n\n${JSON.stringify(result, null, 2)}`);
  } catch (error) {
    const { text, code } = describeError(error);
    show(resultId, 'error', text, code);
  } finally {
    button.disabled = false;
  }
}

// ---- device status: "Confirm on your Ledger…" ----

function setStatus(text: string): void {
  const status = $('status');
  status.hidden = text === '';
  status.textContent = text;
}

// ---- the demo device: the software Ledger's screens and buttons, in the page ----

function demoApprover(review: Review): Promise<boolean> {
  const list = $('demo-screens');
  list.replaceChildren(
    // Each screen as the device draws it, line by line (long values paged as the device pages them).
    ...review.screens.map((s) => {
      const li = document.createElement('li');
      li.textContent = s.lines.join('\n');
      li.style.whiteSpace = 'pre-line';
      return li;
    }),
  );
  const approve = $<HTMLButtonElement>('device-approve');
  const reject = $<HTMLButtonElement>('device-reject');
  approve.disabled = !review.approvable;
  reject.disabled = false;
  reject.textContent = review.approvable ? 'Reject' : 'Dismiss';
  return new Promise((resolve) => {
    const decide = (answer: boolean) => () => {
      approve.onclick = reject.onclick = null;
      approve.disabled = reject.disabled = true;
      list.replaceChildren();
      resolve(answer);
    };
    approve.onclick = decide(true);
    reject.onclick = decide(false);
  });
}

// ---- connecting ----

async function connect(transport: ApduTransport, demo: boolean): Promise<void> {
  const network = ($<HTMLSelectElement>('network').value as Network) || 'devnet';
  const graphqlUrl = $<HTMLInputElement>('graphql').value.trim() || undefined;
  // The wallet side: the provider goes on window.chain and announces itself (mina:announceProvider).
  const provider = createLedgerProvider({
    transport,
    network,
    graphqlUrl,
    onDeviceAction: ({ status, prompt }) => setStatus(status === 'confirm' ? `Confirm on your Ledger… ${prompt}` : ''),
  });
  uninstall?.();
  uninstall = install(provider);
  // The dapp side, as with any Mina wallet (Auro, Pallad, @mina-js/connect): ask who is there, pick the Ledger.
  chain = discoverLedger();
  chain.on('disconnect', (error) => {
    address = undefined;
    setConnection(`Disconnected: ${describeError(error).text.split('\n')[0]}`, 'disconnected');
  });
  const connection = $('connection');
  setConnection(demo ? 'Connecting to the software Ledger…' : 'Connecting: confirm the address on your Ledger…', 'connecting');
  try {
    [address] = await chain.requestAccounts();
    const caps = chain.capabilities!;
    const extension = caps.extension ? ', protocol extension' : '';
    setConnection(`Connected: ${address} (Mina app ${caps.appVersion.version}${extension}; ${chain.network})`, 'connected');
    connection.dataset.address = address;
    connection.dataset.kind = demo ? 'software' : 'ledger';
    $('webhid-note').textContent = '';
  } catch (error) {
    chain = undefined;
    setConnection(describeError(error).text.split('\n\n')[0]!, 'error');
  }
}

/**
 * Wallet discovery: dispatch `mina:requestProvider` and take the provider whose announcement carries chain-ledger's
 * rdns. Injected wallets answer synchronously, inside `dispatchEvent`.
 */
function discoverLedger(): LedgerProvider {
  let found: LedgerProvider | undefined;
  const onAnnounce = (event: Event) => {
    const { info, provider } = (event as CustomEvent<ProviderDetail<LedgerProvider>>).detail;
    if (info.rdns === DEFAULT_PROVIDER_INFO.rdns) found = provider;
  };
  window.addEventListener(ANNOUNCE_PROVIDER_EVENT, onAnnounce);
  try {
    window.dispatchEvent(new Event(REQUEST_PROVIDER_EVENT));
  } finally {
    window.removeEventListener(ANNOUNCE_PROVIDER_EVENT, onAnnounce);
  }
  if (!found) throw new Error('no chain-ledger provider answered mina:requestProvider');
  return found;
}

function setConnection(text: string, state: string): void {
  const connection = $('connection');
  connection.textContent = text;
  connection.dataset.state = state;
}

async function connectLedger(): Promise<void> {
  try {
    // From the click: the chooser needs a user gesture; a device granted before opens without one.
    const transport = remembered ?? (await openWebHid({ request: true }));
    remembered = undefined;
    await connect(transport, false);
  } catch (error) {
    const e = error as { name?: string; message?: string };
    setConnection(`${e.name ?? 'Error'}: ${e.message ?? String(error)}`, 'error');
  }
}

/** Through Ledger's Device Management Kit (src/dmk.ts, loaded on click): WebHID or Web Bluetooth. */
async function connectDmk(over: 'usb' | 'bluetooth'): Promise<void> {
  try {
    const { connectWithDmk } = await import('./dmk.js');
    await connect(await connectWithDmk(over), false);
  } catch (error) {
    const e = error as { name?: string; _tag?: string; message?: string };
    setConnection(`${e.name ?? e._tag ?? 'Error'}: ${e.message ?? String(error)}`, 'error');
  }
}

async function startDemo(): Promise<void> {
  $('demo-banner').hidden = false;
  $('demo-device').hidden = false;
  // The chain-ledger extension 1.1 (nullifiers, presentations, zkApp commands in clear) is opt-in: on here unless the
  // released app is picked, to compare its blind zkApp review with the clear one. The banner says so.
  const firmware = $<HTMLSelectElement>('demo-firmware').value;
  const device = SoftwareLedger.fromMnemonic(TEST_MNEMONIC, {
    extensions: firmware !== 'released',
    approve: demoApprover,
    blindSigning: true,
    warn: (message) => console.warn(message),
  });
  await connect(device, true);
}

// ---- samples ----

function sample(era: 'berkeley' | 'mesa'): string {
  const command = structuredClone(sampleCommand) as typeof sampleCommand;
  const signer = command.feePayer.body.publicKey;
  if (address) {
    command.feePayer.body.publicKey = address;
    for (const au of command.accountUpdates) if (au.body.publicKey === signer) au.body.publicKey = address;
  }
  if (era === 'mesa') {
    for (const au of command.accountUpdates) {
      au.body.update.appState = Array.from({ length: 32 }, (_, i) => au.body.update.appState[i] ?? null);
      au.body.preconditions.account.state = Array.from({ length: 32 }, (_, i) => au.body.preconditions.account.state[i] ?? null);
    }
  }
  return JSON.stringify(command, null, 2);
}

async function sampleCredential(): Promise<string> {
  if (!address) throw new Error('connect first: the credential is issued to the connected account');
  const [{ PrivateKey, PublicKey, UInt64 }, A] = await Promise.all([import('o1js'), import('mina-attestations')]);
  const issuer = PrivateKey.random();
  const Nationality = A.DynamicString({ maxLength: 50 });
  const data = { nationality: Nationality.from('Austria'), age: UInt64.from(30), expiresAt: UInt64.from(Date.now() + 365 * 86_400_000) };
  return A.Credential.toJSON(A.Credential.sign(issuer, { owner: PublicKey.fromBase58(address), data }));
}

async function sampleRequest(): Promise<string> {
  const [o1js, A] = await Promise.all([import('o1js'), import('mina-attestations')]);
  const request = A.PresentationRequest.https(
    sampleSpec(o1js, A),
    { createdAt: o1js.UInt64.from(Date.now()) },
    { action: 'prove you are an adult' },
  );
  return A.PresentationRequest.toJSON(request);
}

async function fill(textareaId: string, resultId: string, make: () => Promise<string>): Promise<void> {
  show(resultId, 'pending', 'Loading o1js and mina-attestations…');
  try {
    $<HTMLTextAreaElement>(textareaId).value = await make();
    $(resultId).hidden = true;
  } catch (error) {
    show(resultId, 'error', describeError(error).text);
  }
}

// ---- wiring ----

export function start(): void {
  const button = (id: string) => $<HTMLButtonElement>(id);
  const value = (id: string) => $<HTMLInputElement | HTMLTextAreaElement>(id).value;

  button('connect').onclick = () => void connectLedger();
  button('demo').onclick = () => void startDemo();
  button('connect-dmk').onclick = () => void connectDmk('usb');
  button('connect-dmk').disabled = !isWebHidAvailable();
  // Web Bluetooth (Nano X, Flex, Stax): offered where the browser has it.
  button('connect-ble').hidden = !('bluetooth' in navigator);
  button('connect-ble').onclick = () => void connectDmk('bluetooth');

  if (isWebHidAvailable()) {
    // A Ledger granted to this site before is reopened without a prompt.
    openWebHid().then(
      (transport) => {
        remembered = transport;
        $('webhid-note').textContent = 'A Ledger you allowed before is plugged in: Connect opens it without a prompt.';
      },
      () => ($('webhid-note').textContent = 'Plug in your Ledger, unlock it and open the Mina app.'),
    );
  } else {
    button('connect').disabled = true;
    $('webhid-note').textContent = 'WebHID is not available in this browser (Chrome, Edge or Opera on https or localhost): try the demo.';
  }

  button('sample-berkeley').onclick = () => ($<HTMLTextAreaElement>('tx').value = sample('berkeley'));
  button('sample-mesa').onclick = () => ($<HTMLTextAreaElement>('tx').value = sample('mesa'));
  button('sample-credential').onclick = () => void fill('credential', 'result-store', sampleCredential);
  button('sample-request').onclick = () => void fill('presentation-request', 'result-present', sampleRequest);

  button('send').onclick = () =>
    void run(
      'result-send',
      button('send'),
      async () => {
        const fee = value('fee').trim();
        const memo = value('memo');
        const feePayer = fee || memo ? { ...(fee ? { fee } : {}), ...(memo ? { memo } : {}) } : undefined;
        const text = value('tx').trim();
        const transaction: string | object = text.startsWith('{') ? (JSON.parse(text) as object) : text;
        return chain!.sendTransaction({ transaction, onlySign: $<HTMLInputElement>('only-sign').checked, feePayer });
      },
      (result: { signedData?: string; hash?: string }) => {
        if (result.hash) return `sent, transaction hash ${result.hash}`;
        const { feePayer } = JSON.parse(result.signedData!) as { feePayer: { feePayer: string; fee: string; nonce: string; memo: string } };
        return `signed on the Ledger, not sent. Fee payer ${feePayer.feePayer}, fee ${Number(feePayer.fee) / 1e9} MINA, nonce ${feePayer.nonce}, memo "${feePayer.memo}"`;
      },
    );
  button('nullifier').onclick = () =>
    void run(
      'result-nullifier',
      button('nullifier'),
      () =>
        chain!.createNullifier({
          message: value('nullifier-message')
            .split(',')
            .map((s) => s.trim())
            .filter((s) => s !== ''),
        }),
      (result: { public: { nullifier: { x: string } } }) =>
        `nullifier made on the Ledger and verified here (x = ${result.public.nullifier.x.slice(0, 16)}…)`,
    );
  button('store').onclick = () =>
    void run(
      'result-store',
      button('store'),
      () => chain!.storePrivateCredential({ credential: value('credential') }),
      () => 'stored, encrypted, in this browser (IndexedDB)',
    );
  button('present').onclick = () =>
    void run(
      'result-present',
      button('present'),
      async () => {
        const request = JSON.parse(value('presentation-request')) as object;
        return chain!.requestPresentation({ presentation: { presentationRequest: request } });
      },
      (result: { presentation: string }) => `presentation ready for the verifier (${result.presentation.length} characters)`,
    );
  document.body.dataset.ready = 'true';
}
