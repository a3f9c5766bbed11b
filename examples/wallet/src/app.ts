/**
 * The chain-ledger wallet page: a first-party window at the wallet's own origin that dapps open with
 * chain-ledger/connect. It holds the Ledger (WebHID; or the software Ledger in a demo mode, labelled NOT HARDWARE),
 * the credential store (this origin's IndexedDB), the presentation prover and its key cache, and serves the one
 * dapp that opened it through chain-ledger/wallet's `WalletHost`: every call bound to the origin the browser
 * reported for the dapp.
 *
 * What the user sees: which site asks (the browser-given origin), what it asks, "Confirm on your Ledger…" with what
 * to check, the host's summary of a zkApp command when the device can only sign it blind, how long the work takes,
 * and the connected sites with a Revoke button each. Opened directly (no dapp), it is the connected-sites manager.
 */
import type { ZkappSummary } from 'chain-ledger';
import { type DeviceModel, SoftwareLedger, TEST_MNEMONIC } from 'chain-ledger/emulator';
import { isWebHidAvailable, openWebHid, type ApduTransport } from 'chain-ledger/transport';
import {
  CONNECTED_SITES_KEY,
  PROVER_WINDOW_WAIT_MS,
  WalletHost,
  catchUnisolatedO1jsStart,
  proverWindowProver,
  storageSites,
  useBrowserProver,
  type WalletActivity,
  type WalletHostOptions,
} from 'chain-ledger/wallet';
import { DeviceView } from './device-view.js';
import { PresentationPanel } from './presentation-panel.js';
import { RequestView } from './request-view.js';
import { renderZkappReview, zkappReviewPanel } from './zkapp-review.js';

const $ = <T extends HTMLElement = HTMLElement>(id: string) => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`missing #${id}`);
  return element as T;
};

const sites = storageSites(localStorage);
const request = new RequestView();
/** A presentation request is reviewed here before anything is read from the store (./presentation-panel.ts). */
const presentations = new PresentationPanel($('presentation-review'));
presentations.onShow = () => request.bringIntoView();
/** The options every provider of this window gets; network and node are read from the form when a device is chosen. */
const providerOptions: WalletHostOptions['provider'] = {
  network: 'devnet',
  onDeviceAction: (action) => request.deviceAction(action),
  onProgress: (event) => request.progress(event),
  confirmZkapp,
  confirmPresentation: (review) => presentations.review(review),
  onPresentationNotSatisfied: (notice) => presentations.notSatisfied(notice),
  confirmSwitchChain: ({ from, to, origin }) => request.ask(`${origin} asks to switch the network from ${from} to ${to}.`, 'Switch'),
};
const host = new WalletHost({ provider: providerOptions, sites, onActivity });

// ---- what the site asks ----

function onActivity(activity: WalletActivity): void {
  switch (activity.kind) {
    case 'site':
      setText('site', `Serving ${activity.origin}`, { state: 'bound', origin: activity.origin });
      renderSites();
      return;
    case 'request':
      request.start(activity.origin, activity.method, activity.params);
      return;
    case 'waiting-for-device':
      request.status(`Connect your Ledger (or start the demo) to answer ${activity.origin}.`);
      return;
    case 'reconnecting':
      request.status(`${activity.origin} was connected before: confirm your address on the Ledger to reconnect it.`);
      request.bringIntoView();
      return;
    case 'settled':
      request.settle(activity.method, activity.origin, activity.error);
      renderSites();
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
 * A blind-signing device shows only a hash: the summary computed here is all the user can read before approving,
 * the library's whole summary (./zkapp-review.ts), never a shorter text of the wallet's own.
 */
function confirmZkapp(summary: ZkappSummary & { origin: string }): boolean | Promise<boolean> {
  if (summary.clearSigning) return true; // the device shows the command itself
  return request.ask(renderZkappReview(zkappReviewPanel(summary)), 'Continue to the device');
}

// ---- the device ----

function useDevice(transport: ApduTransport, kind: 'ledger' | 'software', how: string): void {
  const network = $<HTMLSelectElement>('network').value as 'devnet' | 'mainnet';
  providerOptions.network = network;
  providerOptions.graphqlUrl = $<HTMLInputElement>('graphql').value.trim() || undefined;
  for (const id of ['network', 'graphql', 'connect', 'connect-dmk', 'connect-ble', 'demo', 'demo-firmware'])
    $<HTMLButtonElement>(id).disabled = true;
  setText('device', `${kind === 'software' ? 'Software Ledger (NOT HARDWARE)' : 'Ledger'} ${how}, ${network}.`, {
    state: 'connected',
    kind,
  });
  host.useDevice(transport);
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
  useDevice(device, 'software', 'in this window');
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

// ---- connected sites ----

function renderSites(): void {
  const list = $('sites');
  const all = sites.list();
  if (all.length === 0) {
    const li = document.createElement('li');
    li.className = 'note';
    li.textContent = 'No site is connected.';
    list.replaceChildren(li);
    return;
  }
  list.replaceChildren(
    ...all.map((site) => {
      const li = document.createElement('li');
      li.dataset.origin = site.origin;
      const text = document.createElement('span');
      text.textContent = `${site.origin} — ${site.address.slice(0, 12)}…${site.address.slice(-6)}, since ${site.connectedAt.slice(0, 10)} `;
      const revoke = document.createElement('button');
      revoke.type = 'button';
      revoke.className = 'secondary revoke';
      revoke.dataset.origin = site.origin;
      revoke.textContent = 'Revoke';
      revoke.onclick = () => {
        host.revoke(site.origin);
        renderSites();
      };
      li.append(text, revoke);
      return li;
    }),
  );
}

// ---- page ----

function setText(id: string, text: string, data: Record<string, string> = {}): void {
  const element = $(id);
  element.textContent = text;
  Object.assign(element.dataset, data);
}

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
    renderSites();
  });
  renderSites();
  host.attach(window);
  document.body.dataset.ready = 'true';
}
