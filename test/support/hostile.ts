/**
 * Scripts the e2e test injects before any page script (Playwright addInitScript), in every page of the browser
 * context; each acts on its own origins only.
 *
 * - `hostileScript` runs in the dapps' pages: a third-party script as T3-F describes one (an analytics tag, a
 *   compromised CDN library). It wraps what it can reach in the dapp's realm — WebCrypto, Worker, IndexedDB,
 *   `postMessage` (the window's and MessagePort's), the message events the page receives, `window.open` (to get the
 *   wallet window) and every method of `window.chain` — records everything it sees, and tries to read the wallet
 *   window's realm and the device (`navigator.hid`, the test's HID binding).
 * - `walletProbe` runs in the wallet page: not hostile, the test's view of the secrets that exist there (the raw keys
 *   WebCrypto imports, the plaintexts it decrypts), so that the test can look for exactly those in what the hostile
 *   script saw.
 *
 * Both are passed to the page as functions: they must not use anything outside their own bodies.
 */

/** What the hostile script learned, read by the test with `page.evaluate(() => window.__hostile)`. */
export interface HostileLog {
  seen: string[];
  attempts: Record<string, string>;
}

/** What the wallet probe saw. */
export interface WalletProbeLog {
  rawKeys: string[];
  plaintexts: string[];
}

export function hostileScript(walletOrigin: string): void {
  if (location.origin === walletOrigin || !location.protocol.startsWith('http')) return;
  const seen: string[] = [];
  const attempts: Record<string, string> = {};
  (window as unknown as { __hostile: HostileLog }).__hostile = { seen, attempts };
  const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  const text = (value: unknown): string => {
    try {
      if (value instanceof ArrayBuffer) return hex(new Uint8Array(value));
      if (ArrayBuffer.isView(value)) return hex(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
      if (typeof value === 'string') return value;
      return (
        JSON.stringify(value, (_key, v) =>
          v instanceof ArrayBuffer || ArrayBuffer.isView(v) ? text(v) : typeof v === 'bigint' ? v.toString() : v,
        ) ?? String(value)
      );
    } catch {
      return String(value);
    }
  };
  const record = (what: string, ...values: unknown[]) => seen.push(`${what} ${values.map(text).join(' ')}`);
  const wrap = (target: any, name: string, label: string) => {
    const original = target?.[name];
    if (typeof original !== 'function') return;
    target[name] = function (this: unknown, ...args: unknown[]) {
      record(`${label}(`, ...args);
      const result = original.apply(this, args);
      if (result && typeof (result as Promise<unknown>).then === 'function') {
        (result as Promise<unknown>).then(
          (value) => record(`${label} →`, value),
          (error) => record(`${label} ✗`, String(error)),
        );
      } else if (result instanceof IDBRequest) {
        result.addEventListener('success', () => record(`${label} →`, result.result));
      }
      return result;
    };
  };
  for (const name of ['decrypt', 'encrypt', 'importKey', 'exportKey', 'sign', 'verify', 'digest', 'deriveBits', 'deriveKey', 'unwrapKey']) {
    wrap(SubtleCrypto.prototype, name, `subtle.${name}`);
  }
  wrap(Worker.prototype, 'postMessage', 'Worker.postMessage');
  const OriginalWorker = Worker;
  (window as unknown as { Worker: unknown }).Worker = (url: string | URL, options?: WorkerOptions) => {
    record('new Worker', String(url));
    const worker = new OriginalWorker(url, options);
    worker.addEventListener('message', (event) => record('Worker message', event.data));
    return worker;
  };
  wrap(IDBFactory.prototype, 'open', 'indexedDB.open');
  for (const name of ['put', 'add', 'get', 'getAll']) wrap(IDBObjectStore.prototype, name, `IDBObjectStore.${name}`);
  wrap(window, 'postMessage', 'window.postMessage');
  wrap(MessagePort.prototype, 'postMessage', 'MessagePort.postMessage');
  // Every message event this page receives (capture phase: before the page's own listeners).
  addEventListener('message', (event) => record('message event', event.origin, event.data), true);
  wrap(BroadcastChannel.prototype, 'postMessage', 'BroadcastChannel.postMessage');
  // The wallet window: once the page opens it, try to read its realm.
  const open = window.open.bind(window);
  window.open = (...args: Parameters<typeof window.open>) => {
    record('window.open', String(args[0]));
    const opened = open(...args);
    setTimeout(() => {
      for (const [what, read] of [
        ['document', () => opened?.document.cookie],
        ['localStorage', () => opened?.localStorage.length],
        ['indexedDB', () => opened?.indexedDB.databases()],
        ['chain', () => (opened as unknown as { chain?: unknown })?.chain],
      ] as const) {
        try {
          read();
          attempts[what] = 'read';
        } catch (error) {
          attempts[what] = (error as Error).name;
        }
      }
    }, 1500);
    return opened;
  };
  // The device, from this page: the browser's WebHID (nothing granted to this origin), and the test's HID binding.
  const hid = (navigator as { hid?: { getDevices(): Promise<unknown[]> } }).hid;
  attempts.hid = hid ? 'pending' : 'absent';
  hid?.getDevices().then(
    (devices) => (attempts.hid = `${devices.length} devices`),
    (error) => (attempts.hid = String(error)),
  );
  const binding = (window as unknown as { __hidExchange?: (hex: string) => Promise<string> }).__hidExchange;
  attempts.hidExchange = binding ? 'pending' : 'absent';
  binding?.('e001000000').then(
    (reply) => (attempts.hidExchange = `answered ${reply}`),
    (error) => (attempts.hidExchange = `refused: ${String(error).slice(0, 120)}`),
  );
  // Every result and error of window.chain, as the dapp receives it.
  addEventListener('DOMContentLoaded', () => {
    const chain = (window as unknown as { chain?: Record<string, unknown> }).chain;
    if (!chain) return;
    for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(chain))) {
      if (name !== 'constructor' && typeof chain[name] === 'function') wrap(chain, name, `chain.${name}`);
    }
    indexedDB.databases().then((dbs) => (attempts.databases = dbs.map((d) => d.name).join(',')));
  });
}

export function walletProbe(walletOrigin: string): void {
  if (location.origin !== walletOrigin) return;
  const log: WalletProbeLog = { rawKeys: [], plaintexts: [] };
  (window as unknown as { __walletProbe: WalletProbeLog }).__walletProbe = log;
  const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  const bytesOf = (data: BufferSource) =>
    data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const importKey = SubtleCrypto.prototype.importKey;
  SubtleCrypto.prototype.importKey = function (this: SubtleCrypto, ...args: unknown[]) {
    if (args[0] === 'raw') log.rawKeys.push(hex(bytesOf(args[1] as BufferSource)));
    return (importKey as (...a: unknown[]) => Promise<CryptoKey>).apply(this, args);
  } as typeof importKey;
  const decrypt = SubtleCrypto.prototype.decrypt;
  SubtleCrypto.prototype.decrypt = async function (this: SubtleCrypto, ...args: Parameters<typeof decrypt>) {
    const plain = await decrypt.apply(this, args);
    log.plaintexts.push(new TextDecoder().decode(plain).replace(/\0+$/, ''));
    return plain;
  };
}
