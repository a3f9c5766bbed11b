/**
 * A provider's connection to its Ledger: the device client for the provider's transport (a new one after the
 * transport reported an unplug), the connected account (from `requestAccounts()` until `disconnect()`, a revoke or
 * an unplug), and the `accountsChanged` and `disconnect` events when it comes and goes.
 */
import { supports } from '../apdu/version.js';
import { capabilitiesOf, type Capabilities } from '../device/capabilities.js';
import { MinaLedgerApp } from '../device/client.js';
import { ErrorCode, ProviderError } from './to-provider-error.js';
import type { ProviderEvents } from './events.js';
import type { LedgerProviderOptions } from './options.js';
import type { CallReport } from './progress.js';

/** The connected account, as `requestAccounts()` left it. */
export interface ConnectedAccount {
  address: string;
  capabilities: Capabilities;
  /** The credential store's secret, derived on the device on first use, once per connection. */
  storeSecret?: Uint8Array;
}

/** What a connection reads of the provider's options: its transport, and whether the first connect shows the address. */
export type ConnectionOptions = Pick<LedgerProviderOptions, 'transport' | 'confirmAddress'>;

/** The device client and the connected account of one provider. */
export class DeviceConnection {
  readonly #options: ConnectionOptions;
  readonly #accountIndex: number;
  readonly #events: ProviderEvents;
  #app: MinaLedgerApp | undefined;
  #account: ConnectedAccount | undefined;
  /** Aborted when the connection goes: the calls of that connection still waiting (on a hook, for the device) end. */
  #connection = new AbortController();
  #connectedBefore = false;
  /** Bumped by every `drop()`: a connect that began before it is refused when the device answers. */
  #generation = 0;
  readonly #onTransportDisconnect = () => this.drop('the Ledger was disconnected');

  /** For account `accountIndex` (m/44'/12586'/N'/0/0) of the Ledger behind `options.transport`. */
  constructor(options: ConnectionOptions, accountIndex: number, events: ProviderEvents) {
    this.#options = options;
    this.#accountIndex = accountIndex;
    this.#events = events;
  }

  /** The connected account, or undefined. */
  get account(): ConnectedAccount | undefined {
    return this.#account;
  }

  /** The connected account. @throws `ProviderError` 1001 when none is connected. */
  required(): ConnectedAccount {
    if (!this.#account) throw new ProviderError(ErrorCode.NotConnected, { reason: 'not connected: call requestAccounts() first' });
    return this.#account;
  }

  /**
   * For a call that waited for the device: `account` is still the connection.
   * @throws `ProviderError` 1001 when the connection went meanwhile (an unplug, `disconnect()`).
   */
  assertStill(account: ConnectedAccount): void {
    if (this.#account !== account) {
      throw new ProviderError(ErrorCode.NotConnected, { reason: 'the Ledger was disconnected while this call waited: connect again' });
    }
  }

  /**
   * Aborts when `account`'s connection goes (`disconnect()`, a revoke, an unplug), with a 1001: a call of that
   * connection waiting for an integrator's hook or for the device then ends at once (and lets the device go) instead
   * of at its turn.
   */
  ended(account: ConnectedAccount): AbortSignal {
    return account === this.#account ? this.#connection.signal : AbortSignal.abort(this.#connection.signal.reason);
  }

  /** The device client; a new one after the transport reported a disconnect (a replugged device). */
  client(): MinaLedgerApp {
    if (!this.#app || this.#app.transport.disconnected) {
      this.#app?.transport.off('disconnect', this.#onTransportDisconnect);
      this.#app = new MinaLedgerApp(this.#options.transport);
      this.#app.transport.on('disconnect', this.#onTransportDisconnect);
    }
    return this.#app;
  }

  /**
   * Connects with the device held (`app`): reads the app version, what it can do and the account's address. The
   * first connect shows the address on the device for the user to confirm; later connects read it silently (app ≥
   * 1.4.1). Emits `accountsChanged`.
   * @throws `ProviderError` 1001 when `drop()` ran meanwhile (`disconnect()`, `revokePermissions()`, a revoke in the
   *   wallet page while the device showed the address): what the user revoked is not connected by a late answer.
   */
  async connect(app: MinaLedgerApp, signal: AbortSignal, report: CallReport): Promise<string[]> {
    if (this.#account) return [this.#account.address];
    const generation = this.#generation;
    const appVersion = await app.getAppVersion({ signal });
    const extension = await app.getCapabilities({ signal });
    const display = (!this.#connectedBefore && this.#options.confirmAddress !== false) || !supports(appVersion, 'silentAddress');
    if (display) report.confirm('Confirm the address on your Ledger');
    const address = await app.getAddress(this.#accountIndex, { display, signal });
    if (generation !== this.#generation) {
      throw new ProviderError(ErrorCode.NotConnected, {
        reason: 'the connection was closed while the Ledger was connecting: connect again',
      });
    }
    this.#account = { address, capabilities: capabilitiesOf(appVersion, extension) };
    this.#connection = new AbortController();
    this.#connectedBefore = true;
    this.#events.emit('accountsChanged', [address]);
    return [address];
  }

  /**
   * Forgets the account: `disconnect` (a 1001 with `reason`) and `accountsChanged` with `[]`; with none connected,
   * only a connect in progress is refused when it ends.
   */
  drop(reason: string): void {
    this.#generation++;
    if (!this.#account) return;
    this.#account = undefined;
    this.#connection.abort(
      new ProviderError(ErrorCode.NotConnected, { reason: `the connection was closed while this call waited (${reason}): connect again` }),
    );
    this.#events.emit('disconnect', new ProviderError(ErrorCode.NotConnected, { reason }));
    this.#events.emit('accountsChanged', []);
  }
}
