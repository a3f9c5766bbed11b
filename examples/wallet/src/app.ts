/**
 * The chain-ledger wallet page: a first-party window at the wallet's own origin that dapps open with
 * chain-ledger/connect. It holds the Ledger (WebHID; or the software Ledger in a demo mode, labelled NOT HARDWARE),
 * the credential store (this origin's IndexedDB), the presentation prover and its key cache, and serves the one
 * dapp that opened it through chain-ledger/wallet's `WalletHost`: every call bound to the origin the browser
 * reported for the dapp.
 *
 * What the user sees: four screens (./nav.ts) — Home (the account, its balance and nonce, the network, the device:
 * ./home.ts), Activity (what the wallet signed and sent), Sites (the connected sites, each with Revoke: ./lists.ts)
 * and Credentials (./credentials-screen.ts) — and a site's request as a sheet over them (./sheet.ts): which site asks (the browser-given origin), what it asks,
 * "Confirm on your Ledger…" with what to check, the host's summary of a zkApp command when the device can only sign
 * it blind, how long the work takes. Opened directly (no dapp), it is the holder's wallet: Home reads the account
 * from the device (silently: an address is public), and the lists are there to look at and revoke.
 */
import { createLedgerProvider, type ZkappSummary } from 'chain-ledger';
import { MinaLedgerApp } from 'chain-ledger/apdu';
import { type DeviceModel, SoftwareLedger, TEST_MNEMONIC } from 'chain-ledger/emulator';
import { isWebHidAvailable, openWebHid, type ApduTransport } from 'chain-ledger/transport';
import {
  CONNECTED_SITES_KEY,
  PROVER_WINDOW_WAIT_MS,
  WalletHost,
  catchUnisolatedO1jsStart,
  proverWindowProver,
  storageHistory,
  storageSites,
  useBrowserProver,
  type WalletActivity,
  type WalletHostOptions,
} from 'chain-ledger/wallet';
import { AccountList, type WalletAccount } from './accounts.js';
import { AccountsScreen } from './accounts-screen.js';
import { CredentialsScreen } from './credentials-screen.js';
import { DeviceView } from './device-view.js';
import { $, el, setText } from './dom.js';
import { Home, type DeviceFacts, type WalletSettings, balanceNode, loadSettings } from './home.js';
import { renderActivity, renderSites as renderSiteList } from './lists.js';
import { setUpNavigation } from './nav.js';
import { PresentationPanel } from './presentation-panel.js';
import { RequestView } from './request-view.js';
import { SendScreen } from './send-screen.js';
import { Sheet } from './sheet.js';
import { StatusWatch, statusOf, statusText } from './tx-status.js';
import { renderZkappReview, zkappReviewPanel } from './zkapp-review.js';

const sites = storageSites(localStorage);
const history = storageHistory(localStorage);
const home = new Home(loadSettings());
const sheet = new Sheet();
const request = new RequestView();
request.onShow = () => sheet.open();
/** What Home shows of the device in use (undefined: none yet). */
let deviceFacts: DeviceFacts | undefined;
/** True while the holder's own network switch runs (from Home): it needs no second question. */
let holderSwitching = false;
/** A presentation request is reviewed here before anything is read from the store (./presentation-panel.ts). */
const presentations = new PresentationPanel($('presentation-review'));
presentations.onShow = () => request.bringIntoView();
/** The options every provider of this window gets; network and node are read from the form when a device is chosen. */
const providerOptions: WalletHostOptions['provider'] = {
  network: home.settings.networkID === 'mina:mainnet' ? 'mainnet' : 'devnet',
  graphqlUrl: home.settings.graphqlUrl || undefined,
  onDeviceAction: (action) => request.deviceAction(action),
  onProgress: (event) => request.progress(event),
  confirmZkapp,
  confirmPresentation: (review) => presentations.review(review),
  onPresentationNotSatisfied: (notice) => presentations.notSatisfied(notice),
  confirmSwitchChain: ({ from, to, origin }) =>
    holderSwitching || request.ask(`${origin} asks to switch the network from ${from} to ${to}.`, 'Switch'),
};
const accounts = new AccountList(localStorage);
/** The holder's selected account (Accounts, Home's selector): Home shows it, Send uses it, a site connecting gets it. */
const selectedIndex = () => home.settings.accountIndex ?? 0;
const host = new WalletHost({ provider: providerOptions, sites, history, onActivity, accountFor: selectedIndex });
/** Credentials (./credentials-screen.ts): on the wallet's own provider (this origin, the address read silently). */
const credentials = new CredentialsScreen($('credentials-panel'), {
  history,
  provider: (transport) => createLedgerProvider({ ...providerOptions, transport, confirmAddress: false }),
  ownRequest,
});
/** Sent payments and delegations, asked about while pending (Activity shows their status). */
const statuses = new StatusWatch(
  () => history.list(),
  (network) => (network === home.settings.networkID ? balanceNode(home.settings) : undefined),
);
statuses.onChange = () => renderLists();
const send = new SendScreen({
  account: () => accounts.get(selectedIndex()),
  balance: () => home.balance,
  settings: () => home.settings,
  provider: providerOptions,
  history,
  statuses,
  ownRequest,
});
const accountsScreen = new AccountsScreen({
  accounts,
  selected: selectedIndex,
  select: selectAccount,
  ownRequest,
});
accountsScreen.onChange = () => {
  home.showAccounts(accounts.list(), selectedIndex());
  renderLists();
};

/** The holder chose an account: Home shows it (its balance read), Send sends from it. */
function selectAccount(account: WalletAccount): void {
  home.showAccounts(accounts.list(), account.index);
  home.setAccount(account.address);
  send.render();
  accountsScreen.render();
}

// ---- what the site asks ----

function onActivity(activity: WalletActivity): void {
  switch (activity.kind) {
    case 'site':
      setText('site', `Serving ${activity.origin}`, { state: 'bound', origin: activity.origin });
      renderLists();
      return;
    case 'request':
      sheet.settled(false);
      request.start(activity.origin, activity.method, activity.params);
      return;
    case 'waiting-for-device':
      request.status(`Connect your Ledger (or start the demo) to answer ${activity.origin}.`);
      request.bringIntoView();
      return;
    case 'reconnecting':
      request.status(`${activity.origin} was connected before: confirm your address on the Ledger to reconnect it.`);
      request.bringIntoView();
      return;
    case 'settled':
      request.settle(activity.method, activity.origin, activity.error);
      sheet.settled(true);
      afterCall();
      return;
    case 'refused':
    case 'ignored':
      // Not a prompt: a line in the console for whoever looks (a site that is not connected, a stray message).
      console.info(
        `chain-ledger wallet: ${activity.kind} ${activity.kind === 'refused' ? activity.method : activity.why} from ${activity.origin}`,
      );
      return;
  }
}

/**
 * A step the holder asked for in the wallet itself (Credentials), shown in the request sheet as a site's request is:
 * the device prompts, the drawn demo device. Refused while a site's request runs (one review on the device at a time).
 */
async function ownRequest<T>(what: string, work: () => Promise<T>): Promise<T> {
  if ($('request-card').dataset.state === 'working') throw new Error("finish the site's request first (it is in the sheet)");
  sheet.settled(false);
  request.start(location.origin, what, undefined);
  try {
    const done = await work();
    request.settle(what, 'this wallet');
    return done;
  } catch (error) {
    const { code, message, data } = error as { code?: number; message: string; data?: { reason?: string } };
    request.settle(what, 'this wallet', { code: code ?? 0, message, ...(data ? { data } : {}) });
    throw error;
  } finally {
    sheet.settled(true);
  }
}

/**
 * A blind-signing device shows only a hash: the summary computed here is all the user can read before approving,
 * the library's whole summary (./zkapp-review.ts), never a shorter text of the wallet's own.
 */
function confirmZkapp(summary: ZkappSummary & { origin: string }): boolean | Promise<boolean> {
  if (summary.clearSigning) return true; // the device shows the command itself
  return request.ask(renderZkappReview(zkappReviewPanel(summary)), 'Continue to the device');
}

// ---- the device ----

function useDevice(
  transport: ApduTransport,
  kind: 'ledger' | 'software',
  how: string,
  model = 'Ledger (the browser does not say which)',
): void {
  for (const id of ['connect', 'connect-dmk', 'connect-ble', 'demo', 'demo-model', 'demo-firmware'])
    $<HTMLButtonElement>(id).disabled = true;
  $('device-connect').hidden = true;
  sheet.deviceChosen();
  setText('device', `${kind === 'software' ? 'Software Ledger (NOT HARDWARE)' : 'Ledger'} ${how}.`, { state: 'connected', kind });
  deviceFacts = { model, ...(kind === 'software' ? { blindSigning: true } : {}) };
  home.showDevice(deviceFacts);
  host.useDevice(transport);
  send.useDevice(transport);
  accountsScreen.useDevice(transport);
  credentials.useDevice(transport);
  // Opened by no site, the window is the holder's own wallet: Home reads the device at once. In a site's window the
  // device answers that site's requests only (its provider reports the app when the site connects: afterCall).
  if (window.opener === null) void readDevice(transport);
}

/** The Mina app's version and extension, and account 0's address, read without a prompt (public facts). */
async function readDevice(transport: ApduTransport): Promise<void> {
  const app = new MinaLedgerApp(transport);
  try {
    const { version, extension, blindSigningEnabled } = await app.getAppConfiguration();
    deviceFacts = {
      ...deviceFacts!,
      capabilities: { appVersion: { version }, extension },
      ...(blindSigningEnabled === undefined ? {} : { blindSigning: blindSigningEnabled }),
    };
    home.showDevice(deviceFacts);
    // The selected account (account 0 at first, read silently as Home always has; others were confirmed when added).
    const index = accounts.get(selectedIndex()) === undefined ? 0 : selectedIndex();
    selectAccount(accounts.add(index, await app.getAddress(index)));
  } catch (error) {
    setText('device', `The device did not answer: ${(error as Error).message}`, { state: 'error' });
  }
}

/** After a site's call: the lists, the site's account on Home, what its provider learnt of the device. */
function afterCall(): void {
  renderLists();
  const site = host.site === undefined ? undefined : sites.get(host.site);
  if (site !== undefined) home.setAccount(site.address);
  const capabilities = host.provider?.capabilities;
  if (deviceFacts !== undefined && capabilities !== undefined) {
    deviceFacts = { ...deviceFacts, capabilities };
    home.showDevice(deviceFacts);
  }
}

/**
 * The holder switched the network on Home: later providers are made for it, and this window's site is switched too
 * (told with chainChanged). The holder asked, here: no second question.
 */
async function switchNetwork(settings: WalletSettings): Promise<void> {
  providerOptions.network = settings.networkID === 'mina:mainnet' ? 'mainnet' : 'devnet';
  providerOptions.graphqlUrl = settings.graphqlUrl || undefined;
  const provider = host.provider;
  if (provider === undefined || host.site === undefined || provider.chainId === settings.networkID) return;
  holderSwitching = true;
  try {
    await provider.request({ method: 'chain_switchChain', params: { networkID: settings.networkID } }, { origin: host.site });
  } catch (error) {
    setText('network-note', `The site's network stays ${provider.chainId}: ${(error as Error).message}`, { state: 'error' });
  } finally {
    holderSwitching = false;
    renderLists();
  }
}

async function connectLedger(): Promise<void> {
  try {
    useDevice(await openWebHid({ request: true }), 'ledger', 'connected'); // the chooser needs this click
  } catch (error) {
    const e = error as { name?: string; message?: string };
    setText('device', `${e.name ?? 'Error'}: ${e.message ?? String(error)}`, { state: 'error' });
  }
}

/** Through Ledger's Device Management Kit (./dmk.ts, loaded on click): WebHID or Web Bluetooth, the browser's chooser. */
async function connectDmk(over: 'usb' | 'bluetooth'): Promise<void> {
  try {
    const { connectWithDmk } = await import('./dmk.js');
    useDevice(await connectWithDmk(over), 'ledger', `connected over ${over === 'usb' ? 'USB' : 'Bluetooth'} (Ledger DMK)`);
  } catch (error) {
    const e = error as { name?: string; _tag?: string; message?: string };
    setText('device', `${e.name ?? e._tag ?? 'Error'}: ${e.message ?? String(error)}`, { state: 'error' });
  }
}

function startDemo(): void {
  $('demo-banner').hidden = false;
  $('demo-device').hidden = false;
  const device = SoftwareLedger.fromMnemonic(TEST_MNEMONIC, {
    extensions: $<HTMLSelectElement>('demo-firmware').value === 'extension',
    blindSigning: true,
    model: $<HTMLSelectElement>('demo-model').value as DeviceModel,
    warn: (message) => console.warn(message),
  });
  // Its screen and buttons, drawn here: the user answers each review with the device's buttons.
  const view = new DeviceView(device, {
    section: $('demo-device'),
    canvas: $<HTMLCanvasElement>('device-screen'),
    left: $<HTMLButtonElement>('device-left'),
    both: $<HTMLButtonElement>('device-both'),
    right: $<HTMLButtonElement>('device-right'),
    touchButtons: $('device-touch'),
    caption: $('device-caption'),
    showAll: $<HTMLButtonElement>('device-show-all'),
    list: $<HTMLOListElement>('demo-screens'),
    reopen: $<HTMLButtonElement>('device-reopen'),
  });
  view.onReview = () => {
    // The request above, and the device: the review is answered there.
    request.bringIntoView();
    $('demo-device').scrollIntoView({ block: 'nearest' });
  };
  const model = $<HTMLSelectElement>('demo-model');
  useDevice(device, 'software', 'in this window', `${model.selectedOptions[0]?.textContent ?? model.value} (drawn here)`);
}

// ---- the prover window ----

/**
 * The fallback where this window is not cross-origin isolated (docs/wallet.md): a second window of this origin,
 * isolated by COOP and COEP, runs the prover. Its button is in the request panel, beside the line that asks for it
 * (a click here is what lets the browser open it), and can be used before any request too. o1js's failed start in
 * this window (it cannot share memory with a Worker here) is handled and said on the console.
 */
function useProverWindow(): void {
  catchUnisolatedO1jsStart(window, (message) => console.info(message));
  const open = $<HTMLButtonElement>('open-prover');
  open.hidden = false;
  open.onclick = () => window.open('./prover.html', 'chain-ledger-prover', 'popup,width=420,height=320');
  useBrowserProver(
    proverWindowProver({
      onWaiting: (waiting) => {
        request.status(
          waiting
            ? `To prove, open the prover window: this window cannot (the browser did not isolate it). The request ends in ${PROVER_WINDOW_WAIT_MS / 60_000} minutes without it.`
            : '',
        );
        if (!waiting) return;
        request.bringIntoView();
        open.focus({ preventScroll: true });
      },
    }),
  );
}

// ---- Activity and Sites ----

function renderLists(): void {
  renderActivity(history, (li, entry) => {
    if (entry.hash === undefined || (entry.kind !== 'payment' && entry.kind !== 'delegation')) return;
    const status = statusOf(entry.hash);
    const line = el('p', 'entry-status', statusText(status));
    line.dataset.status = status.status;
    li.dataset.status = status.status;
    li.append(line);
  });
  renderSiteList(
    sites,
    (origin) => {
      host.revoke(origin);
      renderLists();
    },
    {
      accounts: accounts.list(),
      choose: (origin, index) => {
        host.switchAccount(origin, index);
        renderLists();
      },
    },
  );
}

/** The account index this window last switched its site to (the holder's choice in another window's Sites). */
let followedIndex: number | undefined;

/**
 * The holder gave this window's site another account in another wallet window (Sites): that window kept the choice
 * in the list; here, where the site is served, its provider is made for that account (the site told accountsChanged).
 */
function followSiteAccount(site: string): void {
  const entry = sites.get(site);
  const wanted = entry?.accountIndex;
  if (entry === undefined || wanted === undefined || wanted === followedIndex) return;
  if (accounts.byAddress(entry.address)?.index === wanted) return; // already served with it
  followedIndex = wanted;
  host.switchAccount(site, wanted);
}

// ---- page ----

export function start(): void {
  $('wallet-origin').textContent = location.origin;
  const isolated = globalThis.crossOriginIsolated === true;
  setText(
    'isolation',
    isolated
      ? 'This window is cross-origin isolated: presentations are proved here.'
      : 'This browser did not isolate this window (it ignores Document-Isolation-Policy): presentations are proved in the prover window.',
    { isolated: String(isolated) },
  );
  if (!isolated) useProverWindow();
  setUpNavigation((screen) => {
    if (screen === 'credentials') return credentials.render();
    renderLists();
    if (screen === 'send') send.show();
    if (screen === 'accounts') accountsScreen.render();
  });
  home.showAccounts(accounts.list(), selectedIndex());
  home.onAccountSelect = (index) => {
    const account = accounts.get(index);
    if (account) selectAccount(account);
  };
  home.onBalance = () => send.render();
  home.onNetworkChange = (settings) => void switchNetwork(settings);
  void home.refresh();
  $<HTMLButtonElement>('connect').onclick = () => void connectLedger();
  $<HTMLButtonElement>('demo').onclick = startDemo;
  $<HTMLButtonElement>('connect-dmk').onclick = () => void connectDmk('usb');
  $<HTMLButtonElement>('connect-dmk').disabled = !isWebHidAvailable();
  // Web Bluetooth (Nano X, Flex, Stax): offered where the browser has it.
  $<HTMLButtonElement>('connect-ble').hidden = !('bluetooth' in navigator);
  $<HTMLButtonElement>('connect-ble').onclick = () => void connectDmk('bluetooth');
  if (isWebHidAvailable()) {
    // A Ledger allowed to this wallet before is reopened without the chooser.
    openWebHid().then(
      (transport) => useDevice(transport, 'ledger', 'reopened (allowed before)'),
      () => setText('device', 'Plug in your Ledger, unlock it, open the Mina app, then Connect Ledger.', { state: 'none' }),
    );
  } else {
    $<HTMLButtonElement>('connect').disabled = true;
    setText('device', 'WebHID is not available in this browser (Chrome, Edge or Opera): try the demo.', { state: 'none' });
  }
  // Another wallet window revoked a site (localStorage tells the others): this window's site is disconnected too.
  addEventListener('storage', (event) => {
    if (event.key !== CONNECTED_SITES_KEY) return;
    const site = host.site;
    if (site !== undefined && sites.get(site) === undefined) host.revoke(site);
    else if (site !== undefined) followSiteAccount(site);
    renderLists();
  });
  renderLists();
  statuses.check();
  host.attach(window);
  document.body.dataset.ready = 'true';
}
