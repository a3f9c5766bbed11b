/**
 * The web dapp: a Mina dapp whose `window.chain` is the chain-ledger wallet, reached with chain-ledger/connect. The
 * page holds no key, no credential and no device: each call runs in the wallet window (its own origin), which opens
 * on the first click that needs it. Sign in (a sign-in text signed on the Ledger, checked here with mina-signer), and
 * forms for sendTransaction, createNullifier, storePrivateCredential and requestPresentation; results and
 * ProviderErrors shown as a user reads them, and while a call runs, what the wallet is doing (its `progress` events:
 * "Proving in your wallet… 32 s"). The page finds the wallet as a dapp finds any Mina wallet: `mina:requestProvider`
 * answered by `mina:announceProvider`.
 *
 * o1js and mina-attestations are loaded only by the sample buttons (an issuer's credential, a verifier's request),
 * on click: lazy chunks of the bundle. The dapp itself proves nothing and needs no cross-origin isolation.
 */
import {
  ANNOUNCE_PROVIDER_EVENT,
  DEFAULT_PROVIDER_INFO,
  REQUEST_PROVIDER_EVENT,
  connectWallet,
  isProviderError,
  type ProgressEvent,
  type WalletConnector,
} from 'chain-ledger/connect';
import sampleCommand from './sample-zkapp-command.json' with { type: 'json' };
import { sampleSpec } from './sample-spec.js';
import { type SignedText, signInText, verifySignIn } from './sign-in.js';

/** Where the wallet page is hosted (set at build time: CHAIN_LEDGER_WALLET_URL, vite.config.ts). */
declare const __CHAIN_LEDGER_WALLET_URL__: string;

declare global {
  interface Window {
    chain?: WalletConnector;
  }
}

// The three lines of a dapp (docs/wallet.md): the connector is window.chain, announced to wallet discovery.
connectWallet({ walletUrl: __CHAIN_LEDGER_WALLET_URL__ });

const $ = <T extends HTMLElement = HTMLElement>(id: string) => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`missing #${id}`);
  return element as T;
};

/** The wallet, as discovery found it (the connector above). */
let chain: WalletConnector | undefined;
let address: string | undefined;

// ---- presentation of results and errors ----

/**
 * Shows `text` in a result box. `value` (a call's result, or its error as an object) is also kept whole, as JSON, in
 * the box's `data-result`, for a script that reads the page (the end-to-end tests do).
 */
function show(id: string, state: 'ok' | 'error' | 'pending', text: string, code?: number, value?: unknown): void {
  const out = $(id);
  out.hidden = false;
  out.dataset.state = state;
  if (code === undefined) delete out.dataset.code;
  else out.dataset.code = String(code);
  if (value === undefined) delete out.dataset.result;
  else out.dataset.result = JSON.stringify(value);
  out.textContent = text;
}

/** A ProviderError as a person reads it: code and message, then why (`data.reason`) and which field. */
export function describeError(error: unknown): { text: string; code?: number; value?: unknown } {
  if (isProviderError(error)) {
    const data = (error.data ?? {}) as { reason?: string; field?: string };
    const lines = [`Error ${error.code}: ${error.message}`];
    if (data.reason) lines.push(`Why: ${data.reason}`);
    if (data.field) lines.push(`Field: ${data.field}`);
    const value = { code: error.code, message: error.message, data: error.data };
    lines.push('', JSON.stringify(value, null, 2));
    return { text: lines.join('\n'), code: error.code, value };
  }
  const e = error as { name?: string; message?: string };
  return { text: `${e?.name ?? 'Error'}: ${e?.message ?? String(error)}` };
}

/**
 * A result as a person reads it: one field after another, `name: value`; a field whose text is JSON (the signed
 * command of `signedData`, a stored `credential`, a `presentation`) is shown as that JSON, indented under its name,
 * not as one escaped string.
 */
export function describeResult(result: unknown): string {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return JSON.stringify(result, null, 2) ?? String(result);
  return Object.entries(result)
    .map(([name, value]) => {
      const shown = typeof value === 'string' ? jsonIn(value) : value;
      if (typeof shown !== 'object' || shown === null) return `${name}: ${typeof shown === 'string' ? shown : JSON.stringify(shown)}`;
      return `${name}:\n${JSON.stringify(shown, null, 2).replace(/^/gm, '  ')}`;
    })
    .join('\n');
}

/** The object or array a text holds as JSON, else the text itself. */
function jsonIn(text: string): unknown {
  if (!/^\s*[[{]/.test(text)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** What the wallet is doing for a call, as its `progress` events say, in the dapp's words. */
const DOING: Record<ProgressEvent['stage'], string> = {
  'loading-prover': 'Loading the prover in your wallet',
  'awaiting-approval': 'Review the request in your wallet window',
  compiling: 'Compiling the circuit in your wallet',
  'waiting-for-prover-window': 'Your wallet cannot prove in its window: click "Open the prover window" there',
  'unlock-device': 'Unlock your Ledger',
  'open-app': 'Open the Mina app on your Ledger',
  'confirm-on-device': 'Confirm on your Ledger (see the wallet window)',
  proving: 'Proving in your wallet',
  broadcasting: 'Sending to the network',
  done: 'Done in your wallet',
  failed: 'Failed in your wallet',
};

/** The call a button runs now: its result box, the wallet method, when it started and the stages seen. */
interface Running {
  resultId: string;
  method: string;
  started: number;
  doing: string;
  stages: string[];
  timer: ReturnType<typeof setInterval>;
}
const running = new Map<string, Running>();

/** The waiting line: what the wallet is doing, and the time since the click. */
function showRunning(run: Running): void {
  const seconds = Math.round((performance.now() - run.started) / 1000);
  show(run.resultId, 'pending', `${run.doing}… ${seconds} s`);
  $(run.resultId).dataset.stages = run.stages.join(' ');
}

/** A `progress` event of the wallet: the call of its method, if a button runs one, says so. */
function onProgress(event: ProgressEvent): void {
  for (const run of running.values()) {
    if (run.method !== event.method) continue;
    run.stages.push(event.stage);
    if (event.stage !== 'done' && event.stage !== 'failed') run.doing = DOING[event.stage];
    showRunning(run);
  }
}

/**
 * Runs one method from a button: pending (what the wallet does, the time since the click, in view where the user
 * looks) → a summary line and the result's fields, or a readable error. `work` calls window.chain before anything is
 * awaited: the wallet window can only open inside the click.
 */
async function run(
  resultId: string,
  button: HTMLButtonElement,
  method: string,
  work: () => Promise<unknown>,
  // biome-ignore lint/suspicious/noExplicitAny: each caller's summarize states the result shape it reads.
  summarize: (result: any) => string | Promise<string> = () => '',
): Promise<void> {
  const started = performance.now();
  let call: Promise<unknown>;
  try {
    call = work();
  } catch (error) {
    call = Promise.reject(error);
  }
  button.disabled = true;
  const current: Running = { resultId, method, started, doing: 'Waiting for the wallet window', stages: [], timer: undefined! };
  current.timer = setInterval(() => showRunning(current), 1000);
  running.set(resultId, current);
  showRunning(current);
  $(resultId).scrollIntoView({ block: 'center' });
  try {
    const result = await call;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    let summary = '';
    try {
      summary = await summarize(result);
    } catch {
      // the result is shown as it came
    }
    show(resultId, 'ok', `Done in ${seconds} s${summary ? `: ${summary}` : ''}\n\n${describeResult(result)}`, undefined, result);
  } catch (error) {
    const { text, code, value } = describeError(error);
    show(resultId, 'error', text, code, value);
  } finally {
    clearInterval(current.timer);
    running.delete(resultId);
    button.disabled = false;
  }
}

// ---- connecting ----

/**
 * Wallet discovery: dispatch `mina:requestProvider` and take the provider whose announcement carries chain-ledger's
 * rdns. Wallets answer synchronously, inside `dispatchEvent`.
 */
function discoverWallet(): WalletConnector {
  let found: WalletConnector | undefined;
  const onAnnounce = (event: Event) => {
    const { info, provider } = (event as CustomEvent<{ info: { rdns: string }; provider: WalletConnector }>).detail;
    if (info.rdns === DEFAULT_PROVIDER_INFO.rdns) found = provider;
  };
  window.addEventListener(ANNOUNCE_PROVIDER_EVENT, onAnnounce);
  try {
    window.dispatchEvent(new Event(REQUEST_PROVIDER_EVENT));
  } finally {
    window.removeEventListener(ANNOUNCE_PROVIDER_EVENT, onAnnounce);
  }
  if (!found) throw new Error('no chain-ledger wallet answered mina:requestProvider');
  return found;
}

/** An address as a person compares it: its start and its end (the full one is copied, and in the title). */
const short = (account: string) => `${account.slice(0, 8)}…${account.slice(-6)}`;

function setConnection(text: string, state: string): void {
  const connection = $('connection');
  connection.textContent = text;
  connection.dataset.state = state;
  $('copy-address').hidden = !(state === 'connected' && address);
  if (state === 'connected' && address) {
    connection.dataset.address = address;
    connection.title = address;
  } else {
    delete connection.dataset.address;
    connection.removeAttribute('title');
  }
}

function connected(account: string): void {
  address = account;
  setConnection(`Connected: ${short(account)} on ${chain!.networkID ?? 'an unknown network'}`, 'connected');
}

function connectWalletWindow(): void {
  // The call itself opens the wallet window: nothing is awaited before it.
  const accounts = chain!.requestAccounts();
  setConnection('Connecting: confirm in the wallet window and on your Ledger…', 'connecting');
  accounts.then(
    ([account]) => connected(account!),
    (error) => setConnection(describeError(error).text.split('\n\n')[0]!, 'error'),
  );
}

async function copyAddress(): Promise<void> {
  if (!address) return;
  const button = $('copy-address');
  try {
    await navigator.clipboard.writeText(address);
    button.textContent = 'Copied';
  } catch {
    // No clipboard (an insecure context, a refused permission): the address is selectable in the prompt.
    prompt('The connected address:', address);
  }
  setTimeout(() => (button.textContent = 'Copy address'), 1500);
}

/**
 * Sign in: connected first if needed (the wallet window opens inside this click), then the sign-in text signed on the
 * Ledger and checked here, against this page's own text.
 */
function signIn(): void {
  let text = '';
  const signing = (address ? Promise.resolve([address]) : chain!.requestAccounts()).then(([account]) => {
    connected(account!);
    text = signInText(location.href, account!, Date.now());
    $<HTMLTextAreaElement>('sign-in-text').value = text;
    $('sign-in-bytes').textContent = `${new TextEncoder().encode(text).length} bytes`;
    return chain!.signMessage({ message: text });
  });
  void run(
    'result-sign-in',
    $<HTMLButtonElement>('sign-in'),
    'signMessage',
    () => signing,
    async (signed: SignedText) => {
      const ok = await verifySignIn(signed, text, address!, chain!.networkID);
      $('result-sign-in').dataset.verified = String(ok);
      return ok
        ? `signed in as ${short(address!)}: mina-signer verifyMessage accepts the signature of this page's own text`
        : 'the signature does NOT verify against this page’s text: not signed in';
    },
  );
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

  chain = discoverWallet();
  $('wallet-url').textContent = chain.walletOrigin;
  chain.on('accountsChanged', ([account]) => {
    address = account;
    if (account) connected(account);
  });
  chain.on('progress', onProgress);
  chain.on('disconnect', (error) => {
    address = undefined;
    setConnection(`Disconnected: ${describeError(error).text.split('\n')[0]}`, 'disconnected');
  });
  button('connect').onclick = connectWalletWindow;
  button('copy-address').onclick = () => void copyAddress();
  button('sign-in').onclick = signIn;
  button('disconnect').onclick = () => void chain!.disconnect();

  button('sample-berkeley').onclick = () => ($<HTMLTextAreaElement>('tx').value = sample('berkeley'));
  button('sample-mesa').onclick = () => ($<HTMLTextAreaElement>('tx').value = sample('mesa'));
  button('sample-credential').onclick = () => void fill('credential', 'result-store', sampleCredential);
  button('sample-request').onclick = () => void fill('presentation-request', 'result-present', sampleRequest);

  button('send').onclick = () =>
    void run(
      'result-send',
      button('send'),
      'sendTransaction',
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
      'createNullifier',
      () =>
        chain!.createNullifier({
          message: value('nullifier-message')
            .split(',')
            .map((s) => s.trim())
            .filter((s) => s !== ''),
        }),
      (result: { public: { nullifier: { x: string } } }) =>
        `nullifier made on the Ledger and verified by the wallet (x = ${result.public.nullifier.x.slice(0, 16)}…)`,
    );
  button('store').onclick = () =>
    void run(
      'result-store',
      button('store'),
      'storePrivateCredential',
      () => chain!.storePrivateCredential({ credential: value('credential') }),
      () => 'stored, encrypted, in the wallet (its own IndexedDB: this page cannot read it)',
    );
  button('present').onclick = () =>
    void run(
      'result-present',
      button('present'),
      'requestPresentation',
      async () => {
        const request = JSON.parse(value('presentation-request')) as object;
        return chain!.requestPresentation({ presentation: { presentationRequest: request } });
      },
      (result: { presentation: string }) => `presentation ready for the verifier (${result.presentation.length} characters)`,
    );
  document.body.dataset.ready = 'true';
}
