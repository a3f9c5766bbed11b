/**
 * `npm run wallet`: the wallet page and the web dapp that uses it, on two sites of this machine, as they are meant
 * to be deployed (docs/wallet.md):
 *
 *   - the wallet page at http://127.0.0.1:5174/, sent with `Document-Isolation-Policy: isolate-and-require-corp`;
 *   - the web dapp at http://localhost:5173/, with chain-ledger/connect pointed at that wallet.
 *
 * Both are Vite dev servers (modules served from src/, reloaded on change). Open the dapp, click "Connect wallet":
 * the wallet window opens; connect a Ledger there (WebHID) or start its demo software Ledger (NOT hardware).
 */
import { fileURLToPath } from 'node:url';
import { createServer } from 'vite';
import { LOCAL_WALLET_URL } from '../web-dapp/vite.config.js';

const WALLET = new URL(LOCAL_WALLET_URL);
const DAPP = { host: 'localhost', port: 5173 };

process.env.CHAIN_LEDGER_WALLET_URL ??= WALLET.href;
const wallet = await createServer({
  configFile: fileURLToPath(new URL('./vite.config.ts', import.meta.url)),
  server: { host: WALLET.hostname, port: Number(WALLET.port), strictPort: true },
  logLevel: 'warn',
});
const dapp = await createServer({
  configFile: fileURLToPath(new URL('../web-dapp/vite.config.ts', import.meta.url)),
  server: { host: DAPP.host, port: DAPP.port, strictPort: true },
  logLevel: 'warn',
});
await wallet.listen();
await dapp.listen();
console.log(`chain-ledger wallet page: ${WALLET.href} (Document-Isolation-Policy: isolate-and-require-corp)`);
console.log(`web dapp using it:        http://${DAPP.host}:${DAPP.port}/ (chain-ledger/connect)`);
console.log('Open the web dapp in Chrome, Edge or Opera and click "Connect wallet". Ctrl-C stops both.');
