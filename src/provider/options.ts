/**
 * The options of `createLedgerProvider`, and their check: one zod schema, read once at creation, so a bad option
 * is refused before the provider exists (20003 naming the option in `data.field`). The origin is checked apart
 * (./origin.ts), after these, because which origins are allowed depends on `bridge` and on where the code runs.
 */
import { z } from 'zod';
import type { ConfirmPresentation, PresentationNotSatisfied, SelectCredentials } from '../presentations/request-presentation.js';
import type { CredentialStore } from '../credentials/store.js';
import type { Era } from '../upstream/mina-signer-modules.js';
import type { ApduTransport } from '../transport/types.js';
import type { LocalChain } from '../zkapp/local-chain.js';
import type { ZkappSummary } from '../zkapp/summary.js';
import type { ProgressStage } from '../util/progress.js';
import { invalidParams } from './to-provider-error.js';
import { DEFAULT_MAX_PENDING_CALLS } from './pending.js';
import type { AddedChain, NetworkKind } from './networks.js';
import type { BeyondSpendCap } from '../zkapp/spend-cap.js';
import { parseMina } from './schemas.js';

/** The network a provider is created for: `'mainnet'`, `'devnet'` or `'local'` (what its `network` getter says). */
export type Network = NetworkKind;

/** Told to the page so it can say "Confirm on your Ledger…" while the device waits for the user. */
export interface DeviceAction {
  method: string;
  status: 'confirm' | 'done';
  /** What the user should do now, e.g. "Confirm the address on your Ledger". */
  prompt: string;
}

/** One progress event: the call's method, the stage that starts now, and the time since the call started. */
export interface ProgressEvent {
  /** The provider method of the call (`sendTransaction`, `requestPresentation`, …; `request` until it names one). */
  method: string;
  stage: ProgressStage;
  /** For `confirm-on-device`: what the user should check on the device. */
  prompt?: string;
  /** Milliseconds since the call started. */
  elapsedMs: number;
  /** The stage runs again, in a fresh worker, after the first attempt failed. */
  retry?: boolean;
}

export interface LedgerProviderOptions {
  /** Any structural transport: a WebHID / node-hid / Speculos transport, a `DmkTransport` (chain-ledger/dmk), or a `SoftwareLedger`. */
  transport: ApduTransport;
  network: Network;
  /**
   * The origin this provider serves. In a web page it is `location.origin`, full stop (another value is refused);
   * required elsewhere (Node, a bridge).
   */
  origin?: string;
  /**
   * Bridge mode, for a trusted messaging layer (an extension's background, a local server) that serves a page: every
   * call must carry the page's origin in `request(args, { origin })` (a call without one → 23001). Refused in a web
   * page, whose origin is always its own. Default false.
   */
  bridge?: boolean;
  /** Account N of m/44'/12586'/N'/0/0 (default 0). */
  accountIndex?: number;
  /**
   * Whether the first `requestAccounts()` shows the address on the device for the user to confirm (default true).
   * `false` reads it silently (Mina app ≥ 1.4.1; older apps can only show it): for a host that shows the address
   * itself and lets the user confirm it on the device when they choose to, e.g. the CLI's `--confirm-address`. A
   * page must not be the one to choose this: it is the integrator's option.
   */
  confirmAddress?: boolean;
  /**
   * Mina daemon GraphQL endpoint, for nonces and broadcast on the network the provider is created for (a network a
   * page switches to uses its own public endpoint: ./networks.ts). No credentials in it: see below.
   */
  graphqlUrl?: string;
  /**
   * Extra headers for `graphqlUrl`, e.g. `{ authorization: 'Bearer …' }`: credentials go here, never in the URL. Sent
   * to `graphqlUrl` only, never to another network's endpoint.
   */
  graphqlHeaders?: Record<string, string>;
  /** The protocol era the network runs; a zkApp command of the other layout is refused. Default: follow the command. */
  era?: Era;
  /** Largest fee accepted for a zkApp command, in MINA (default 10, as Auro). */
  feeCap?: number | string;
  /**
   * Largest amount of MINA a zkApp command may take from the account, fee included, in MINA (default: no cap). Above
   * it the call is refused (20003) before the device is asked. What no amount of MINA counts counts as the whole
   * balance, and so is over any cap: a change of the account's own permissions, verification key, delegate or timing
   * (with `send: None`, anyone can take the balance later without the holder's signature), and another token leaving
   * the account. Such a command is refused (20003) unless `confirmBeyondSpendCap` asks the holder about each change by
   * name and the holder confirms it. The cap is per command: each command still needs its own approval on the device.
   */
  spendCap?: number | string;
  /**
   * Sees what a zkApp command does to the account (fee payer and fee, balance changes per token, changes of keys,
   * permissions or delegate, what each signature authorizes) before the device is asked: return false (or throw) to
   * refuse (→ 1002). The one place a wallet can show this when the device signs blind (the released app shows a hash).
   */
  confirmZkapp?: (summary: ZkappSummary & { origin: string }) => boolean | Promise<boolean>;
  /**
   * Under a `spendCap`, asked after `confirmZkapp` about each change the cap cannot count (the account's own
   * permissions, verification key, delegate or timing; another token leaving it), one at a time, by name (`change`) and
   * in words (`description`): return true only when the holder confirmed that very change (typed or chose its name, not
   * a general "yes"), false (or throw) to refuse (→ 1002, nothing asked of the device). Without this hook such a
   * command is refused under a cap (20003). Not asked without a cap.
   */
  confirmBeyondSpendCap?: (change: BeyondSpendCap & { origin: string }) => boolean | Promise<boolean>;
  /**
   * Let the device sign blind (INS 06: it shows a hash, not what is signed) with nothing on the host to review it
   * first. Default false: on a device without the extension's SIGN_ZKAPP, a zkApp command is refused (20006) unless
   * `confirmZkapp` shows it, and a one-field `signFields` (whose signature is exactly a zkApp command's authorization)
   * is refused (20006). Only for a host that shows what is signed in some other way, or accepts that it does not.
   */
  allowUnreviewedBlindSigning?: boolean;
  /** For `network: 'local'`: the in-process chain to use (default: a new o1js LocalBlockchain on first use). */
  localChain?: LocalChain;
  /**
   * Where private credentials live, encrypted with a key only the Ledger can re-derive. Default: files under
   * `$XDG_DATA_HOME/chain-ledger/credentials` (else `~/.local/share/…`) in Node, IndexedDB in browsers.
   */
  credentialStore?: CredentialStore;
  /**
   * Asked before a presentation request reads anything of the credential store: the holder's review, with only what
   * the request says (the site asking, the verifier, the action, the claims, each assertion in words, what is
   * revealed, the credentials asked for) and `review.candidates()`, which unlocks the store (the device's store-key
   * prompt names the site on a device with the extension's STORE_KEY) and lists the stored credentials that fit, for
   * the holder's eyes. Answer `false` (or throw) to refuse, `true` to approve with the default choice
   * (`selectCredentials`, else the newest), or the chosen credential id per input key. Until it answers, the page is
   * told only `awaiting-approval`; a refusal, the page's cancel, no fitting credential and credentials that do not
   * satisfy the request all reach the page as the same 1002. Without it, `requestPresentation` is refused (20006)
   * unless `allowUnreviewedPresentations` is true.
   */
  confirmPresentation?: ConfirmPresentation;
  /**
   * Told (and awaited) after the holder approved a presentation request that cannot be made of what they chose: no
   * stored credential fits an input, or the chosen credentials do not satisfy the request. `reason` is for the holder;
   * the page then gets the answer a refusal gets.
   */
  onPresentationNotSatisfied?: PresentationNotSatisfied;
  /**
   * Present without asking anyone: `requestPresentation` takes the default choice as if the holder had approved.
   * Default false. This makes the host an oracle: any page it serves can ask request after request and learn, from
   * which ones end in a proof, what the stored credentials hold (a salary, bit by bit). Only for a host that asks the
   * holder in some other way, or serves pages it trusts with every stored credential.
   */
  allowUnreviewedPresentations?: boolean;
  /**
   * Chooses among stored credentials when several fit an input of an approved presentation request
   * (`confirmPresentation` answered `true`; default: the newest). Never asked before the holder approved.
   */
  selectCredentials?: SelectCredentials;
  /**
   * Node: the most disk the presentation circuits may take in o1js's file cache (each spec ≈ 140 MB); the least
   * recently used are removed after each compile. Default 1 GiB.
   */
  o1jsCacheBytes?: number;
  /**
   * What each host step of a presentation (the compile, then the proof) may take before its worker is terminated and
   * the request refused (20003): `timeMs` (default 300,000: 5 minutes) and, in Node, `memoryMb`, the worker's
   * JavaScript heap (default 2048; at least 256: below that V8 may end the whole process rather than the worker).
   * For a host that proves larger requests on purpose, or wants tighter bounds.
   */
  presentationLimits?: { timeMs?: number; memoryMb?: number };
  /**
   * Told when the user must look at the Ledger (`confirm`, with what to check) and when that device step ends
   * (`done`: the device answered, before any proof or broadcast that follows). A throwing hook is ignored.
   */
  onDeviceAction?: (action: DeviceAction) => void;
  /** Told at each stage of every call (see ProgressStage). Never throws into the call: a throwing listener is logged. */
  onProgress?: (event: ProgressEvent) => void;
  /** At most this many calls of this provider (its origin) wait for or run on the device; more → 1002 at once. Default 32. */
  maxPendingCalls?: number;
  /**
   * At most this many device calls of this provider (its origin) start in any 60 seconds; more → 1002 at once, as
   * Auro limits each origin (60 write requests a minute: a good value for a bridge serving many origins). Default: no
   * time limit (`maxPendingCalls` still bounds what waits for the device).
   */
  maxRequestsPerMinute?: number;
  /**
   * Asked before `switchChain` changes the network (the signing domain of every later call): return true to switch
   * (`chainChanged` tells the page), false (or throw) to refuse (→ 1002, nothing changes). `graphqlUrl` is the
   * endpoint calls on that network will use: the network's public one (./networks.ts), or the one `addChain` added;
   * the `graphqlUrl` option serves the network the provider was created for. Without this hook a page's
   * `switchChain` is refused (1002), unless `allowUnconfirmedSwitchChain` is true.
   */
  confirmSwitchChain?: (request: { from: string; to: string; origin: string; graphqlUrl?: string }) => boolean | Promise<boolean>;
  /**
   * Asked when a page's `addChain({ url, name })` names a GraphQL endpoint the provider does not know (a known one is a
   * switch, asked through `confirmSwitchChain`). Answer `false` (or throw) to refuse (→ 1002), or the new network the
   * endpoint serves: `{ networkID: 'ns:name', signingNetwork: 'mainnet' | 'testnet' }`. The provider then switches to
   * it (`chainChanged`). An answer naming a network the provider already knows (`mina:mainnet`, `zeko:testnet`, one
   * added before) is refused (20004): its endpoint is never replaced by a page's URL (the nonces and the broadcast
   * result of every later call would come from it); a page that wants that network switches to it (`switchChain`).
   * Without this hook, or for a signature domain the Ledger cannot sign for, the answer is 20004. The integrator's
   * `graphqlHeaders` are never sent to an added endpoint.
   */
  confirmAddChain?: (request: { url: string; name: string; origin: string }) => AddedChain | false | Promise<AddedChain | false>;
  /**
   * Let `switchChain` change the network without asking anyone (default false: without `confirmSwitchChain` it is
   * refused with 1002). Only for a host that shows the network itself and accepts that any page it serves may change
   * the signing domain of later calls.
   */
  allowUnconfirmedSwitchChain?: boolean;
  /**
   * `request()` resolves Pallad's (mina-js's) reply, `{ jsonrpc: '2.0', result }`, instead of the bare result (default
   * false: Auro's form, which every `window.mina` caller reads). Only for a page whose dapps read `response.result`
   * (Pallad's test dapp, the Nori bridge, TileVille's Pallad branch); the direct methods and errors are unchanged.
   */
  resultEnvelope?: boolean;
  /**
   * The host's log, for details a page must not see (local paths of a failing credential store). Default
   * `console.warn`.
   */
  onHostLog?: (message: string) => void;
}

/** The options as the provider uses them: defaults applied, the fee cap in nanomina. */
export interface CheckedOptions {
  network: Network;
  accountIndex: number;
  bridge: boolean;
  maxPendingCalls: number;
  maxRequestsPerMinute: number;
  feeCap: bigint;
  spendCap: bigint | undefined;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A required option that passes `test`, else `message`. */
const check = (test: (value: unknown) => boolean, message: string) => z.custom((value) => test(value), message);
/** An option that may be left out (undefined); given, it must pass `test` (null means "not given" where `test` says so). */
const optional = (test: (value: unknown) => boolean, message: string) => check(test, message).optional();
const isIntegerIn = (value: unknown, min: number, max: number) =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
const feeCapOf = (value: unknown): bigint | undefined =>
  typeof value === 'number' || typeof value === 'string' ? parseMina(value) : undefined;

/** An http(s) URL; fetch refuses credentials in it (and they would end up in messages): they go in graphqlHeaders. */
const graphqlUrl = z.custom().superRefine((value, ctx) => {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' && /^https?:\/\//.test(value) ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url) ctx.addIssue({ code: 'custom', message: 'must be an http(s) URL' });
  else if (url.username !== '' || url.password !== '') {
    ctx.addIssue({ code: 'custom', message: 'must not hold credentials (user:password@): pass them in graphqlHeaders' });
  }
});

/** The checks, in the order they are reported (the first failing option is the one named). */
export const providerOptionsSchema = z.looseObject({
  transport: check((value) => typeof (value as { send?: unknown } | null | undefined)?.send === 'function', 'must have a send() method'),
  network: check((value) => value === 'mainnet' || value === 'devnet' || value === 'local', 'must be "mainnet", "devnet" or "local"'),
  accountIndex: optional((value) => isIntegerIn(value ?? 0, 0, 0x7fffffff), 'must be an integer from 0 to 2^31 - 1'),
  bridge: optional((value) => typeof value === 'boolean', 'must be true or false'),
  confirmAddress: optional((value) => value === undefined || typeof value === 'boolean', 'must be true or false'),
  maxPendingCalls: optional((value) => isIntegerIn(value ?? DEFAULT_MAX_PENDING_CALLS, 1, Infinity), 'must be a positive integer'),
  maxRequestsPerMinute: optional(
    (value) => value === undefined || value === null || isIntegerIn(value, 1, Infinity),
    'must be a positive integer',
  ),
  feeCap: optional((value) => (feeCapOf(value ?? 10) ?? 0n) > 0n, 'must be a positive amount of MINA'),
  spendCap: optional((value) => value === undefined || value === null || (feeCapOf(value) ?? -1n) >= 0n, 'must be an amount of MINA'),
  confirmZkapp: optional((value) => value === undefined || value === null || typeof value === 'function', 'must be a function'),
  confirmPresentation: optional((value) => value === undefined || value === null || typeof value === 'function', 'must be a function'),
  onPresentationNotSatisfied: optional(
    (value) => value === undefined || value === null || typeof value === 'function',
    'must be a function',
  ),
  allowUnreviewedPresentations: optional((value) => value === undefined || typeof value === 'boolean', 'must be true or false'),
  selectCredentials: optional((value) => value === undefined || value === null || typeof value === 'function', 'must be a function'),
  confirmBeyondSpendCap: optional((value) => value === undefined || value === null || typeof value === 'function', 'must be a function'),
  era: optional((value) => value === 'berkeley' || value === 'mesa', 'must be "berkeley" or "mesa"'),
  confirmSwitchChain: optional((value) => value === undefined || value === null || typeof value === 'function', 'must be a function'),
  confirmAddChain: optional((value) => value === undefined || value === null || typeof value === 'function', 'must be a function'),
  onProgress: optional((value) => value === undefined || value === null || typeof value === 'function', 'must be a function'),
  allowUnconfirmedSwitchChain: optional((value) => value === undefined || typeof value === 'boolean', 'must be true or false'),
  resultEnvelope: optional((value) => value === undefined || typeof value === 'boolean', 'must be true or false'),
  allowUnreviewedBlindSigning: optional((value) => value === undefined || typeof value === 'boolean', 'must be true or false'),
  presentationLimits: optional(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      Object.entries(value).every(
        ([key, v]) =>
          v === undefined || (key === 'timeMs' && isIntegerIn(v, 1, 2 ** 31)) || (key === 'memoryMb' && isIntegerIn(v, 256, 2 ** 31)),
      ),
    'must be { timeMs?, memoryMb? }: integers, timeMs ≥ 1 (ms), memoryMb ≥ 256 (MB)',
  ),
  graphqlUrl: graphqlUrl.optional(),
  graphqlHeaders: optional(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      Object.entries(value).every(([k, v]) => HEADER_NAME.test(k) && typeof v === 'string' && !/[\r\n\0]/.test(v)),
    'must be an object of header names to string values',
  ),
});

/**
 * Checks `createLedgerProvider`'s options (not the origin, see ./origin.ts) and applies the defaults.
 * @throws `ProviderError` 20003 naming the first bad option in `data.field` (`options` when it is not an object).
 */
export function checkProviderOptions(options: LedgerProviderOptions): CheckedOptions {
  if (typeof options !== 'object' || options === null) throw invalidParams('options', 'must be an object');
  const result = providerOptionsSchema.safeParse(options);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    if (issue.path.length === 0) throw invalidParams('options', 'must be an object');
    throw invalidParams(String(issue.path[0]), issue.message);
  }
  return {
    network: options.network,
    accountIndex: options.accountIndex ?? 0,
    bridge: options.bridge === true,
    maxPendingCalls: options.maxPendingCalls ?? DEFAULT_MAX_PENDING_CALLS,
    maxRequestsPerMinute: options.maxRequestsPerMinute ?? Infinity,
    feeCap: feeCapOf(options.feeCap ?? 10)!,
    spendCap: options.spendCap === undefined || options.spendCap === null ? undefined : feeCapOf(options.spendCap)!,
  };
}
