/**
 * The wallet's prover window (prover.html, served with COOP same-origin + COEP require-corp): opened from the wallet
 * window when that one is not cross-origin isolated, it runs the presentation Worker for it (src/wallet/prover.ts).
 */
import { serveProverWindow } from 'chain-ledger/wallet';

const isolated = globalThis.crossOriginIsolated === true;
const note = document.getElementById('isolation')!;
note.dataset.isolated = String(isolated);
note.textContent = isolated
  ? 'Cross-origin isolated: ready to prove for the wallet.'
  : 'Not cross-origin isolated either: this browser cannot prove here (it needs COOP and COEP headers on this page).';
if (isolated) {
  const stop = serveProverWindow();
  addEventListener('pagehide', stop);
}
document.body.dataset.ready = 'true';
