/**
 * The pipeline every `LedgerProvider` method runs, direct calls and `request()` alike (`run`), in this order:
 *
 *   origin check (23001) → connected? (1001) → arguments (zod, 20003) → device capability (20006)
 *     → the device, held for the whole call (one call at a time per device, cancellable) → device work → verification
 *
 * so a request from the wrong origin, with bad arguments, or for an instruction the app lacks never reaches the
 * device. What runs is the method's row (./methods.ts): a method answered on the host skips the connection and the
 * device; a method whose row says `hold: 'steps'` (a presentation) holds the device for its device steps only, not
 * for its compile and proof. Each call has one report (./progress.ts) and one context (./call-context.ts); every error
 * leaves as a `ProviderError` (details to `onHostLog`), and a wrapped provider's 20006 goes to the original wallet
 * where the method table allows (./delegation.ts).
 */
import type { MinaLedgerApp } from '../device/client.js';
import type { LocalChain } from '../zkapp/local-chain.js';
import { ROWS, paramsOf, specOfRequest, type MethodName, type MethodResult, type Row } from './methods.js';
import type { CallOptions, RequestContext } from './rpc.js';
import { hostDetail, toProviderError } from './to-provider-error.js';
import { orDelegate, type DelegatedCall } from './delegation.js';
import { assertSameOrigin, callerOrigin } from './origin.js';
import { PendingCalls } from './pending.js';
import type { CheckedOptions, LedgerProviderOptions, Network } from './options.js';
import { CallReport } from './progress.js';
import { parseParams } from './schemas.js';
import { snapshotArguments } from './snapshot.js';
import { CallContexts, type HostContext, type WithDevice } from './call-context.js';
import type { ConnectedAccount, DeviceConnection } from './connection.js';
import type { CurrentNetwork } from './current-network.js';

/** The signal of a host call that nothing but its caller can end. */
const NEVER_ABORTED = new AbortController().signal;

/** What one provider's pipeline works with. */
export interface PipelineParts {
  /** The provider: its origin, and the key of its delegation (./delegation.ts). */
  provider: { readonly origin: string };
  /** The provider's options: the integrator's hooks (`onProgress`, `onDeviceAction`, `onHostLog`), the call contexts'. */
  options: LedgerProviderOptions;
  checked: CheckedOptions;
  device: DeviceConnection;
  network: CurrentNetwork;
}

/** The calls of one provider, from its origin check to its one `done` or `failed`, and what they share. */
export class CallPipeline {
  readonly #parts: PipelineParts;
  readonly #pending: PendingCalls;
  readonly #contexts: CallContexts;

  constructor(parts: PipelineParts) {
    const { options, checked, provider } = parts;
    this.#parts = parts;
    this.#pending = new PendingCalls(checked.maxPendingCalls, checked.maxRequestsPerMinute);
    this.#contexts = new CallContexts(options, checked, provider.origin);
  }

  /** 23001 unless the call comes from the bound origin. */
  checkOrigin(context: RequestContext | null | undefined): void {
    const { provider, checked } = this.#parts;
    assertSameOrigin(provider.origin, callerOrigin(provider.origin, checked.bridge, context?.origin));
  }

  /** The connection, for a call from the bound origin (23001 otherwise) on a connected provider (1001 otherwise). */
  caller(context: RequestContext | null | undefined): ConnectedAccount {
    this.checkOrigin(context);
    return this.#parts.device.required();
  }

  /** Rejects every pending call (1002); returns how many there were. */
  rejectPending(): number {
    return this.#pending.rejectAll();
  }

  /** The calls' in-process chain of `network: 'local'` (./call-context.ts). */
  localChain(network: Network): Promise<LocalChain> {
    return this.#contexts.localChain(network);
  }

  /**
   * A direct call of provider method `method` with the caller's `args`: its row, run with its own report, a 20006
   * handed to the original wallet where the row lets it delegate.
   */
  run<P extends MethodName>(method: P, args: unknown, context: RequestContext | null | undefined): Promise<MethodResult<P>> {
    const row = ROWS[method];
    const report = this.#report(method);
    const call = this.#guarded(this.#serve(row, args, context ?? {}, report));
    const delegated = { method, walletMethod: row.walletMethod, args, context: context ?? {}, viaRequest: false };
    return this.#settle(report, call, { ...delegated, delegable: () => row.delegate }) as Promise<MethodResult<P>>;
  }

  /**
   * `request({ method, params })`: the origin first (nothing from another origin is even looked at), then the row
   * the name finds, run as a direct call is. A method it does not know may still go to the original wallet.
   */
  request(args: unknown, context: RequestContext | null | undefined): Promise<unknown> {
    const report = this.#report('request');
    let delegable = true;
    const call = async () => {
      this.checkOrigin(context);
      const row = specOfRequest(args);
      report.method = row.method;
      delegable = row.delegate;
      // A method without params ignores what the page sent; the others' params are unknown until the schema parsed them.
      const params = row.params === undefined ? undefined : paramsOf(row, (args as { params?: unknown }).params);
      return this.#serve(row, params, context ?? {}, report);
    };
    const delegated = { method: 'request', args, context: context ?? {}, viaRequest: true };
    return this.#settle(report, this.#guarded(call()), { ...delegated, delegable: () => delegable });
  }

  /** One call of `row`: on the host (`connection: 'none'`) or on the device (`'account'`). */
  #serve(row: Row, args: unknown, context: RequestContext, report: CallReport): Promise<unknown> {
    return row.connection === 'none' ? this.#onHost(row, args, context, report) : this.#onDevice(row, args, context, report);
  }

  /** The caller's origin, the row's schema, then its body, counted as pending where the row says so. */
  async #onHost(row: Row, args: unknown, context: RequestContext, report: CallReport): Promise<unknown> {
    // A host method of the account (the node's balance, a broadcast) is 1001 before connecting, as device methods are.
    if (row.account) this.caller(context);
    else this.checkOrigin(context);
    const params = this.#params(row, args);
    const { network, device } = this.#parts;
    const host = (signal: AbortSignal): HostContext => ({
      network,
      connection: device,
      signal,
      connect: () => this.#connect(report, context),
    });
    // The pending slot's signal ends the call when the caller's does or `rejectPending()` runs.
    if (row.pending) return this.#pendingCall(context, (signal) => row.run(host(signal), params));
    return row.run(host(context.signal ?? NEVER_ABORTED), params);
  }

  /**
   * The caller, the connection, the row's schema and requirement, then the device, held for the whole call (or,
   * where the row says `hold: 'steps'`, for each of its device steps, `withDevice`), and the row's body with the
   * call's context (with the credential store where the row says so).
   */
  async #onDevice(row: Row, args: unknown, context: RequestContext, report: CallReport): Promise<unknown> {
    const account = this.caller(context);
    const params = this.#params(row, args);
    // What the device cannot do with these params is refused before the call waits for the device.
    const missing = row.requires?.(account.capabilities, params);
    if (missing) throw missing;
    const { device, network } = this.#parts;
    if (row.store === true) this.#contexts.checkStoreKeyCarried(device.client().transport);
    // The call ends when its connection does (a disconnect while it waits on a hook or for the device).
    const ended = device.ended(account);
    const options: CallOptions = { ...context, signal: context.signal ? AbortSignal.any([context.signal, ended]) : ended };
    // The pending slot, from now until the call settles; its signal ends the call as `options.signal` does, and on
    // `rejectPending()`.
    return this.#pendingCall(options, async (signal) => {
      /** The call's context, on the device it holds (for the whole call, or through `withDevice` for each step). */
      const open = async (app: MinaLedgerApp, withDevice: WithDevice) => {
        device.assertStill(account);
        const chain = { id: network.chainId, name: network.name };
        const call = { app, withDevice, account, network: network.kind, chain, endpoint: network.endpoint, signal, report };
        return this.#contexts.open(call, row.store === true);
      };
      // A method with host work of minutes (a presentation's compile and proof) holds the device for its steps only.
      if (row.hold === 'steps') return row.run(await open(device.client(), this.#deviceSteps(report, account, options, signal)), params);
      return this.#hold(report, options, signal, async (held) => row.run(await open(held, (step) => step(held)), params));
    });
  }

  /** `requestAccounts`: the account already connected, or a connect holding the device (a pending call meanwhile). */
  #connect(report: CallReport, context: RequestContext): Promise<string[]> {
    const { device } = this.#parts;
    if (device.account) return Promise.resolve([device.account.address]);
    return this.#pendingCall(context, (signal) => this.#hold(report, context, signal, (app) => device.connect(app, signal, report)));
  }

  /** `args` through the row's schema (20003 naming the bad field). */
  #params(row: Row, args: unknown): unknown {
    // The page's arguments read once, as plain data, before any check (./snapshot.ts): every check and the work after
    // it see one value.
    return row.params ? parseParams(row.params, snapshotArguments(args)) : undefined;
  }

  /** A call's device steps, each holding the device (`#hold`), a step inside a step running in it. */
  #deviceSteps(report: CallReport, account: ConnectedAccount, context: CallOptions, signal: AbortSignal): WithDevice {
    let held: MinaLedgerApp | undefined;
    return <T>(step: (app: MinaLedgerApp) => Promise<T>): Promise<T> => {
      if (held !== undefined) return step(held);
      return this.#hold(report, context, signal, async (app) => {
        held = app;
        try {
          this.#parts.device.assertStill(account);
          return await step(app);
        } finally {
          held = undefined;
        }
      });
    };
  }

  /**
   * `step` holding the device (the transport's queue, shared by every client and provider of that device, so the
   * prompts of one call never interleave with another's); tells the report when it lets go.
   */
  #hold<T>(report: CallReport, context: CallOptions, signal: AbortSignal, step: (app: MinaLedgerApp) => Promise<T>): Promise<T> {
    return this.#parts.device.client().exclusive(
      async (app) => {
        try {
          signal.throwIfAborted();
          return await step(app);
        } finally {
          report.deviceReleased();
        }
      },
      { ...context, signal, progress: report.progress },
    );
  }

  /**
   * `work` as a pending call of this provider from start to end (at most `maxPendingCalls`, rejected by
   * `rejectPending()`), with the signal that aborts when the caller's does or `rejectPending()` runs.
   */
  async #pendingCall<T>(context: CallOptions, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const pending = this.#pending.enter(context?.signal);
    try {
      return await work(pending.signal);
    } finally {
      pending.leave();
    }
  }

  /** Ends `report` with the call's outcome; a 20006 first goes to the original wallet when this provider wraps one. */
  async #settle<T>(report: CallReport, call: Promise<T>, delegated: DelegatedCall & { delegable(): boolean }): Promise<T> {
    try {
      const result = await call.catch((error: unknown) => orDelegate(this.#parts.provider, error, delegated) as Promise<T>);
      report.end('done');
      return result;
    } catch (error) {
      report.end('failed');
      throw error;
    }
  }

  #report(method: string): CallReport {
    return new CallReport(method, this.#parts.options, (message) => this.#hostLog(message));
  }

  /** The call, its failure as a `ProviderError` (the detail the page must not see to `onHostLog`). */
  async #guarded<T>(call: Promise<T>): Promise<T> {
    try {
      return await call;
    } catch (error) {
      const detail = hostDetail(error);
      if (detail !== undefined) this.#hostLog(detail);
      throw toProviderError(error);
    }
  }

  #hostLog(message: string): void {
    try {
      (this.#parts.options.onHostLog ?? console.warn)(`chain-ledger: ${message}`);
    } catch {
      // A failing log hook must not break the call.
    }
  }
}
