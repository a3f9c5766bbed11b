/** What `connectWallet` takes (src/connect/connector.ts). */
import type { ProviderInfo, WalletIdentity } from '../provider/discovery.js';
import type { ConnectorWindow } from './protocol.js';

export interface ConnectWalletOptions {
  /** The wallet page, e.g. `https://wallet.example/`. Only messages from its origin, from the window opened, count. */
  walletUrl: string | URL;
  /** Put the connector on `window.chain` (default true); it is announced (`mina:announceProvider`) either way. */
  install?: boolean;
  /** Also put it on `window.mina`, for dapps that only look there (default false). */
  asMina?: boolean;
  /** The announcement's `info` (default chain-ledger's, `DEFAULT_PROVIDER_INFO`). */
  info?: ProviderInfo;
  /**
   * `'auro'`: announce Auro's slug and rdns and set `isAuro` on the connector, as `install`'s option of that name does
   * (default `'chain-ledger'`: this wallet's own, with `chainChanged` as the network id text for mina-js callers).
   */
  identity?: WalletIdentity;
  /** `window.open` features of the wallet window (default a 440×720 popup). */
  windowFeatures?: string;
  /** The dapp's window (default the global `window`). */
  window?: ConnectorWindow;
  /**
   * How long calls wait for the wallet page to answer the handshake (default 30 000 ms): then they reject with 1001
   * (a wrong `walletUrl`, a 404, a redirect to another origin never answers).
   */
  handshakeTimeoutMs?: number;
  /**
   * How soon the connector notices that its wallet window is no longer the wallet (default 10 000 ms): closed, gone
   * to another page (a look-alike), or no longer answering its pings. The calls waiting on it then end with 1001
   * naming why, the window is closed, and the next call opens a new one (docs/wallet.md, "The wallet window's name
   * and liveness").
   */
  livenessTimeoutMs?: number;
}

/** A positive, finite number of milliseconds, or `fallback` when not given; a TypeError naming the option else. */
export function milliseconds(name: keyof ConnectWalletOptions, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value))
    throw new TypeError(`${name} must be a positive number of milliseconds`);
  return value;
}
