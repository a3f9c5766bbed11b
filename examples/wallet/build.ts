/**
 * `npm run build:wallet`: builds the wallet page with Vite (examples/wallet/dist: a static site to host at the
 * wallet's own origin, docs/wallet.md) and writes examples/wallet/bundle-sizes.json. Fails if o1js or
 * mina-attestations reach the initial bundle (they load with the first nullifier or presentation), or Ledger's Device
 * Management Kit (it loads with its Connect click).
 */
import { fileURLToPath } from 'node:url';
import { buildAndMeasure, printSizes, type BundleSizes } from '../web-dapp/build.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
/** Packages that must only ever arrive in lazy chunks (Ledger's Device Management Kit: with its Connect click). */
const LAZY_ONLY = ['o1js', 'mina-attestations', '@ledgerhq/device-management-kit'];

export function buildWallet(): Promise<BundleSizes> {
  return buildAndMeasure(`${HERE}vite.config.ts`, `${HERE}bundle-sizes.json`, (pkg) => !LAZY_ONLY.includes(pkg));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  printSizes(await buildWallet(), 'examples/wallet/bundle-sizes.json');
}
