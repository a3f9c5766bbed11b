/**
 * The calls a connector has sent to the wallet window or waits to send, by request id. Ids start at a random value
 * in each connector, so two connectors of one page (or an old and a new document) never use the same id in what the
 * page sees, and a reply settles only a call this connector has actually sent.
 */
import { ErrorCode, ProviderError } from '../errors/provider-error.js';
import type { DappMessage } from './protocol.js';

export interface Call {
  message: Extract<DappMessage, { type: 'request' }>;
  resolve(value: unknown): void;
  reject(error: ProviderError): void;
  sent: boolean;
  cleanup(): void;
}

/** A random first id in [1, 2^52]: 32 random bits, leaving room for 2^20 calls below MAX_SAFE_INTEGER. */
const firstId = () => 1 + crypto.getRandomValues(new Uint32Array(1))[0]! * 2 ** 20;

export class ConnectorCalls {
  readonly #calls = new Map<number, Call>();
  #nextId = firstId();

  /** A fresh request id. */
  nextId(): number {
    return this.#nextId++;
  }

  add(call: Call): void {
    this.#calls.set(call.message.id, call);
  }

  /** The call `id` names, if this connector sent it: an answer to an id it never sent settles nothing. */
  sent(id: number): Call | undefined {
    const call = this.#calls.get(id);
    return call?.sent ? call : undefined;
  }

  all(): Call[] {
    return [...this.#calls.values()];
  }

  /** Rejects the calls that `which` picks with 1001 `reason` (their wallet window, or its page, is gone). */
  disconnect(reason: string, which: (call: Call) => boolean): void {
    for (const call of this.all()) {
      if (which(call)) this.settle(call, undefined, new ProviderError(ErrorCode.NotConnected, { reason }));
    }
  }

  /** Settles `call` once (a second answer, or one after a cancel, does nothing). */
  settle(call: Call, result: unknown, error?: ProviderError): void {
    if (this.#calls.get(call.message.id) !== call) return;
    this.#calls.delete(call.message.id);
    call.cleanup();
    if (error) call.reject(error);
    else call.resolve(result);
  }
}
