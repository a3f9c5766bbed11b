/**
 * Injected into the wallet page before its scripts (bundled by esbuild --format=iife, added with Playwright's
 * addInitScript, on the wallet's origin only): installs the test-only `navigator.hid` of test/support/hid-shim.ts,
 * whose one fake Ledger answers each APDU through `window.__hidExchange(hex)`, a binding the test exposes from Node
 * (where the software Ledger runs) and answers for the wallet's origin only. The page's real
 * `@ledgerhq/hw-transport-webhid` speaks the HID framing to it.
 *
 * A grant is the origin's (localStorage): it survives a reload and reaches every later window of the wallet, as
 * Chromium remembers a device granted to an origin.
 */
import { createHidShim } from './hid-shim.js';

declare global {
  interface Window {
    __hidExchange(hex: string): Promise<string>;
    __hidShim?: ReturnType<typeof createHidShim>;
  }
}

const GRANT_KEY = 'hid-shim-granted';
const toHex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const fromHex = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16));

const shim = createHidShim(
  { exchange: async (apdu) => fromHex(await window.__hidExchange(toHex(apdu))) },
  {
    granted: localStorage.getItem(GRANT_KEY) === 'yes',
    chooser: () => {
      localStorage.setItem(GRANT_KEY, 'yes');
      return 'select';
    },
  },
);
Object.defineProperty(Navigator.prototype, 'hid', { configurable: true, get: () => shim.hid });
window.__hidShim = shim;
