/**
 * The network a provider signs for now, and the two ways a page changes it: `switchChain` to a network it knows and
 * `addChain` of a GraphQL endpoint. Each change is the integrator's to approve (it changes the signature domain of
 * every later call, so nobody switches it silently), and emits `chainChanged` when the network changed.
 */
import type { NetworkId } from '../apdu/codec.js';
import { ErrorCode, ProviderError, requireApproval } from './to-provider-error.js';
import type { ProviderEvents } from './events.js';
import { Networks, kindOf, type ChainNetwork, type Endpoint, type NetworkKind } from './networks.js';
import type { LedgerProviderOptions } from './options.js';

/** The options that decide the networks: the integrator's endpoint on the first one, and the approval hooks. */
type NetworkOptions = Pick<
  LedgerProviderOptions,
  'graphqlUrl' | 'graphqlHeaders' | 'confirmSwitchChain' | 'confirmAddChain' | 'allowUnconfirmedSwitchChain'
>;

/** One provider's network now, its list of networks (./networks.ts), and the switches the integrator approved. */
export class CurrentNetwork {
  #chain: ChainNetwork;
  readonly #networks: Networks;
  readonly #options: NetworkOptions;
  readonly #origin: string;
  readonly #events: ProviderEvents;

  /** Starts on the Mina network `initial` (`mina:mainnet`, `mina:devnet` or `mina:local`). */
  constructor(initial: NetworkKind, options: NetworkOptions, origin: string, events: ProviderEvents) {
    this.#networks = new Networks(initial, options.graphqlUrl, options.graphqlHeaders);
    this.#chain = this.#networks.switchable(`mina:${initial}`);
    this.#options = options;
    this.#origin = origin;
    this.#events = events;
  }

  /** What the provider signs for: `mainnet`, `devnet` (the testnet signature domain) or `local`. */
  get kind(): NetworkKind {
    return kindOf(this.#chain);
  }

  /** The device's network id: 1 on the mainnet signature domain, else 0. */
  get networkId(): NetworkId {
    return this.#chain.signingNetwork === 'mainnet' ? 1 : 0;
  }

  /** Auro's id of the network: `mina:devnet`, `zeko:testnet`. */
  get chainId(): string {
    return this.#chain.networkID;
  }

  /** The network's name, as summaries and prompts show it ("Zeko Testnet"). */
  get name(): string {
    return this.#chain.name;
  }

  /** The GraphQL endpoint calls on this network use, or undefined (broadcasts then need `onlySign`). */
  get endpoint(): Endpoint | undefined {
    return this.#networks.endpointOf(this.#chain);
  }

  /**
   * `switchChain`: to the network `networkID` names, once `confirmSwitchChain` approved it (a wait `signal` ends).
   * @throws `ProviderError` 20003 / 20004 for a network it cannot switch to (`Networks.switchable`), 1002 refused.
   */
  async switchTo(networkID: string, signal?: AbortSignal): Promise<void> {
    await this.#switchTo(this.#networks.switchable(networkID), signal);
  }

  /**
   * `addChain`: an endpoint of a known network is a switch to it; another goes to `confirmAddChain`, whose answer
   * names the network it serves (`Networks.add`).
   * @throws `ProviderError` 20004 without `confirmAddChain` or for an answer the Ledger cannot sign for, 1002 refused.
   */
  async add(url: string, name: string, signal?: AbortSignal): Promise<void> {
    const known = this.#networks.byUrl(url);
    if (known) return this.#switchTo(this.#networks.switchable(known.networkID), signal);
    const confirm = this.#options.confirmAddChain;
    if (!confirm) {
      throw new ProviderError(ErrorCode.UnsupportedChain, {
        reason: `this wallet adds no network (the integrator has no confirmAddChain hook): ${url} is the endpoint of none of ${this.#networks.list().join(', ')}`,
      });
    }
    let answer: unknown = false;
    await requireApproval(
      async () => {
        answer = await confirm({ url, name, origin: this.#origin });
        return answer !== false;
      },
      `adding ${url} was not approved`,
      signal,
    );
    this.#set(this.#networks.add(answer, name, url));
  }

  async #switchTo(network: ChainNetwork, signal?: AbortSignal): Promise<void> {
    if (network === this.#chain) return;
    const to = network.networkID;
    const confirm = this.#options.confirmSwitchChain;
    // Secure default: the signing domain of every later call changes, so nobody switches it silently.
    if (!confirm && this.#options.allowUnconfirmedSwitchChain !== true) {
      throw new ProviderError(ErrorCode.UserRejected, {
        reason: `switching to ${to} needs the integrator's confirmation (the confirmSwitchChain option, or allowUnconfirmedSwitchChain: true)`,
      });
    }
    if (confirm) {
      const graphqlUrl = this.#networks.endpointOf(network)?.url;
      const request = { from: this.chainId, to, origin: this.#origin, ...(graphqlUrl ? { graphqlUrl } : {}) };
      await requireApproval(() => confirm(request), `switching to ${to} was not approved`, signal);
    }
    this.#set(network);
  }

  /** The network now is `network`: `chainChanged` when it changed. */
  #set(network: ChainNetwork): void {
    if (network === this.#chain) return;
    this.#chain = network;
    this.#events.emit('chainChanged', { networkID: this.chainId });
  }
}
