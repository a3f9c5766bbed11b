/**
 * `npm run wallet`: the wallet page and the web dapp that uses it, on two sites of this machine, as they are meant
 * to be deployed (docs/wallet.md):
 *
 *   - the wallet page at http://127.0.0.1:5174/, sent with `Document-Isolation-Policy: isolate-and-require-corp`;
 *   - the web dapp at http://localhost:5173/, with chain-ledger/connect pointed at that wallet.
 *
 * Both are Vite dev servers (modules served from src/, reloaded on change). Open the dapp, click "Connect wallet":
 * the wallet window opens; connect a Ledger there (WebHID) or start its demo software Ledger (NOT hardware).
 *
 * `npm run wallet -- --wallet-port N --dapp-port M` serves them on other ports (0: any free port; the lines printed
 * say which). The dapp is told the wallet's URL once the wallet listens.
 */
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { createServer } from 'vite';
import { LOCAL_WALLET_URL } from '../web-dapp/vite.config.js';

const { values } = parseArgs({
  options: { 'wallet-port': { type: 'string' }, 'dapp-port': { type: 'string' } },
  strict: true,
});
/** The port a flag asks for; 0 (any free port) is one the system has free now (Vite itself reads 0 as its default). */
async function port(flag: 'wallet-port' | 'dapp-port', host: string, fallback: number): Promise<number> {
  const text = values[flag];
  const n = text === undefined ? fallback : /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= 0 && n <= 65535)) throw new Error(`--${flag} must be a port number (0 to 65535, 0: any free port), not ${text}`);
  if (n !== 0) return n;
  const probe = createNetServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, host, resolve));
  const free = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  return free;
}

const WALLET_HOST = new URL(LOCAL_WALLET_URL).hostname;
const DAPP_HOST = 'localhost';

const walletPort = await port('wallet-port', WALLET_HOST, Number(new URL(LOCAL_WALLET_URL).port));
const wallet = await createServer({
  configFile: fileURLToPath(new URL('./vite.config.ts', import.meta.url)),
  server: { host: WALLET_HOST, port: walletPort, strictPort: true },
  logLevel: 'warn',
});
await wallet.listen();
const walletUrl = `http://${WALLET_HOST}:${walletPort}/`;

// The dapp's wallet URL is a build-time (here: start-time) constant, read by its config (web-dapp/vite.config.ts).
process.env.CHAIN_LEDGER_WALLET_URL = walletUrl;
const dappPort = await port('dapp-port', DAPP_HOST, 5173);
const dapp = await createServer({
  configFile: fileURLToPath(new URL('../web-dapp/vite.config.ts', import.meta.url)),
  server: { host: DAPP_HOST, port: dappPort, strictPort: true },
  logLevel: 'warn',
});
await dapp.listen();
console.log(`chain-ledger wallet page: ${walletUrl} (Document-Isolation-Policy: isolate-and-require-corp)`);
console.log(`web dapp using it:        http://${DAPP_HOST}:${dappPort}/ (chain-ledger/connect)`);
console.log('Open the web dapp in Chrome, Edge or Opera and click "Connect wallet". Ctrl-C stops both.');
