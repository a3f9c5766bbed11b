/**
 * The pipeline every `LedgerProvider` method runs, in this order:
 *
 *   origin check (23001) → connected? (1001) → arguments (zod, 20003) → device capability (20006)
 *     → the device, held for the whole call (one call at a time per device, cancellable) → device work → verification
 *
 * so a request from the wrong origin, with bad arguments, or for an instruction the app lacks never reaches the
 * device. A method whose row says `ownDeviceSteps` (a presentation) holds the device for its device steps only, not
 * for its compile and proof. Each call has one report (./progress.ts) and one session (./session.ts); every error
 * leaves as a `ProviderError` (details to `onHostLog`), and a wrapped provider's 20006 goes to the original wallet
 * where the method table (./methods.ts) allows (./delegation.ts).
 */
import type { MinaLedgerApp } from '../device/client.js';
import type { LocalChain } from '../zkapp/local-chain.js';
import { ROWS, paramsOf, specOfRequest, type MethodName, type ParsedParams, type UsesStore } from './methods.js';
import type { CallOptions, RequestContext } from './rpc.js';
import type { WalletMethods } from './wallet-methods.js';
import { hostDetail, toProviderError } from './to-provider-error.js';
import { orDelegate, type DelegatedCall } from './delegation.js';
import { assertSameOrigin, callerOrigin } from './origin.js';
import { PendingCalls } from './pending.js';
import type { CheckedOptions, LedgerProviderOptions, Network } from './options.js';
import { CallReport } from './progress.js';
import { parseParams } from './schemas.js';
import { snapshotArguments } from './snapshot.js';
import { CallSessions, type CallSession, type ConnectedAccount, type CredentialSession, type WithDevice } from './session.js';
import type { DeviceConnection } from './connection.js';
import type { CurrentNetwork } from './current-network.js';

/** Marks a call that `request()` runs: it reports, and delegates, through the request's own call. */
const INSIDE_REQUEST = Symbol('inside request()');
type Inner = RequestContext & { [INSIDE_REQUEST]?: CallReport };
/** The session of a call of method `P`: with the credential store when the table says it uses it. */
type SessionOf<P extends MethodName> = UsesStore<P> extends true ? CredentialSession : CallSession;
/** What a method does with its session and its parsed params. */
export type Body<P extends MethodName, T> = (session: SessionOf<P>, params: ParsedParams<P>) => Promise<T>;

/** What one provider's pipeline works with. */
export interface PipelineParts {
  /** The provider: its origin, the methods `request()` runs, and the key of its delegation (./delegation.ts). */
  provider: WalletMethods & { readonly origin: string };
  /** The provider's options: the integrator's hooks (`onProgress`, `onDeviceAction`, `onHostLog`), the sessions'. */
  options: LedgerProviderOptions;
  checked: CheckedOptions;
  device: DeviceConnection;
  network: CurrentNetwork;
}

/** The calls of one provider, from its origin check to its one `done` or `failed`, and what they share. */
export class CallPipeline {
  readonly #parts: PipelineParts;
  readonly #pending: PendingCalls;
  readonly #sessions: CallSessions;

  constructor(parts: PipelineParts) {
    const { options, checked, provider } = parts;
    this.#parts = parts;
    this.#pending = new PendingCalls(checked.maxPendingCalls, checked.maxRequestsPerMinute);
    this.#sessions = new CallSessions(options, checked, provider.origin);
  }

  /** 23001 unless the call comes from the bound origin. */
  checkOrigin(context: RequestContext): void {
    const { provider, checked } = this.#parts;
    assertSameOrigin(provider.origin, callerOrigin(provider.origin, checked.bridge, context?.origin));
  }

  /** The connection, for a call from the bound origin (23001 otherwise) on a connected provider (1001 otherwise). */
  caller(context: RequestContext): ConnectedAccount {
    this.checkOrigin(context);
    return this.#parts.device.required();
  }

  /** Rejects every pending call (1002); returns how many there were. */
  rejectPending(): number {
    return this.#pending.rejectAll();
  }

  /** The calls' in-process chain of `network: 'local'` (./session.ts). */
  localChain(network: Network): Promise<LocalChain> {
    return this.#sessions.localChain(network);
  }

  /** `requestAccounts`: the caller's origin, then the account already connected, or a connect holding the device. */
  connect(context: RequestContext): Promise<string[]> {
    return this.#call('requestAccounts', undefined, context, async (report) => {
      this.checkOrigin(context);
      const { device } = this.#parts;
      if (device.account) return [device.account.address];
      return this.#whole(report, context, (app, signal) => device.connect(app, signal, report));
    });
  }

  /** A method that needs no device: the caller's origin, the table's schema, then `body`. */
  local<P extends MethodName, T>(
    method: P,
    args: unknown,
    context: RequestContext,
    body: (params: ParsedParams<P>) => Promise<T>,
  ): Promise<T> {
    return this.#call(method, args, context, async () => {
      this.checkOrigin(context);
      return body(this.#params(method, args));
    });
  }

  /**
   * A method that needs no device but may wait on the integrator's question (`confirmSwitchChain`, `confirmAddChain`):
   * `local`, counted as a pending call (bounded, ended by `rejectPending()`), `body` getting the signal that ends it.
   */
  asking<P extends MethodName, T>(
    method: P,
    args: unknown,
    context: RequestContext,
    body: (params: ParsedParams<P>, signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    return this.local(method, args, context, (params) => this.#pendingCall(context, (signal) => body(params, signal)));
  }

  /**
   * A method on the device: the caller, the connection, the table's schema and requirement, then the device, held
   * for the whole call (or, where the table says `ownDeviceSteps`, for each of its device steps, `withDevice`), and
   * `body` with the call's session (with the credential store where the table says so).
   */
  onDevice<P extends MethodName, T>(method: P, args: unknown, context: RequestContext, body: Body<P, T>): Promise<T> {
    return this.#call(method, args, context, async (report) => {
      const account = this.caller(context);
      const params = this.#params(method, args);
      const { requires, store, ownDeviceSteps } = ROWS[method];
      // What the device cannot do with these params is refused before the call waits for the device.
      const missing = requires?.(account.capabilities, params);
      if (missing) throw missing;
      const { device, network } = this.#parts;
      if (store === true) this.#sessions.checkStoreKeyCarried(device.client().transport);
      // The call ends when its connection does (a disconnect while it waits on a hook or for the device).
      const ended = device.ended(account);
      const held: CallOptions = { ...context, signal: context?.signal ? AbortSignal.any([context.signal, ended]) : ended };
      const run = async (app: MinaLedgerApp, signal: AbortSignal, withDevice: WithDevice) => {
        device.assertStill(account);
        const chain = { id: network.chainId, name: network.name };
        const call = { app, withDevice, account, network: network.kind, chain, endpoint: network.endpoint, signal, report };
        return body((await this.#sessions.open(call, store === true)) as SessionOf<P>, params);
      };
      // A method with host work of minutes (a presentation's compile and proof) holds the device for its steps only.
      if (ownDeviceSteps) {
        return this.#pendingCall(held, (signal) => run(device.client(), signal, this.#deviceSteps(report, account, held, signal)));
      }
      return this.#whole(report, held, (app, signal) => run(app, signal, (step) => step(app)));
    });
  }

  /** `request()`: the method the table names, run inside this call (which reports it and delegates for it). */
  request(args: unknown, context: RequestContext): Promise<unknown> {
    const report = this.#report('request');
    // Delegable: a method the table lets delegate, or one it does not know (the original wallet may).
    let delegable = true;
    const call = this.#guard(async () => {
      // The origin first, for every method (known or not): nothing from another origin is even looked at.
      this.checkOrigin(context);
      const spec = specOfRequest(args);
      report.method = spec.method;
      delegable = spec.delegate;
      const { provider } = this.#parts;
      const run = provider[spec.method] as (...args: unknown[]) => Promise<unknown>;
      const inner: Inner = { ...context, [INSIDE_REQUEST]: report };
      // Runtime validation is each method's own: the params are unknown until its schema has parsed them.
      return run.apply(provider, 'params' in spec ? [paramsOf(spec, (args as { params?: unknown }).params), inner] : [inner]);
    });
    return this.#settle(report, call, { method: 'request', args, context, viaRequest: true, delegable: () => delegable });
  }

  /**
   * One call: its report (progress from start to one `done` or `failed`), errors as `ProviderError` (details for the
   * host to `onHostLog`), and, for a wrapped provider, a 20006 handed to the original wallet where the table allows.
   * A call that `request()` runs shares the request's report and delegation.
   */
  async #call<T>(method: MethodName, args: unknown, context: RequestContext, run: (report: CallReport) => Promise<T>): Promise<T> {
    // `null` as a context (a page calling requestAccounts(null)) is no context, as `undefined` is: never a TypeError.
    const outer = (context as Inner | null)?.[INSIDE_REQUEST];
    if (outer) return this.#guard(() => run(outer));
    const report = this.#report(method);
    const { delegate, walletMethod } = ROWS[method];
    const result = this.#guard(() => run(report));
    return this.#settle(report, result, { method, walletMethod, args, context, viaRequest: false, delegable: () => delegate === true });
  }

  /** `args` through method `method`'s schema in the table (20003 naming the bad field). */
  #params<P extends MethodName>(method: P, args: unknown): ParsedParams<P> {
    const schema = ROWS[method].params;
    // The page's arguments read once, as plain data, before any check (./snapshot.ts): every check and the work after
    // it see one value.
    return (schema ? parseParams(schema, snapshotArguments(args)) : undefined) as ParsedParams<P>;
  }

  /**
   * Device work holding the device for the whole method; the call counts as pending (bounded, rejectable with
   * `rejectPending()`) until it settles, and `work` gets the signal to pass on to the device.
   */
  #whole<T>(report: CallReport, context: CallOptions, work: (app: MinaLedgerApp, signal: AbortSignal) => Promise<T>): Promise<T> {
    return this.#pendingCall(context, (signal) => this.#hold(report, context, signal, (app) => work(app, signal)));
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

  async #guard<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
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
