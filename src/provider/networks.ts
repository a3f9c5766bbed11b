/**
 * The networks the provider knows, as data: Auro's network id, the signature domain mina-signer and o1js sign with
 * on it, its public GraphQL endpoint and explorer. `switchChain`, `addChain`, `requestNetwork` and `mina_networkId`
 * read this one list, and the provider's per-network endpoints come from it (`Networks`).
 *
 * Signature domains, checked against the libraries (test/provider/networks.test.ts):
 * - Mina mainnet signs with `'mainnet'` (`MinaSignatureMainnet`), devnet and the local chain with `'testnet'`
 *   (`CodaSignature*******`): mina-signer's `Client({ network })`, o1js `Mina.Network({ networkId })`.
 * - Zeko testnet signs with `'testnet'`, Zeko mainnet with the custom domain `{ custom: 'zeko-mainnet' }`
 *   (mina-signer's prefix `zeko-mainnetSignatur`, and its own network-id bytes in the nonce): zeko-labs/bridge-cli
 *   `src/core/sdk-config.ts` (`l2Network: 'testnet'` / `{ custom: 'zeko-mainnet' }`), and Auro's `getSignClient`,
 *   which maps `zeko:mainnet` to `{ custom: 'zeko-mainnet' }` and every other non-mainnet network to `'testnet'`.
 *
 * The Mina Ledger app signs with network id 0 (testnet) or 1 (mainnet) only, and so does the extension: a network
 * with a custom domain is known (so it is named in the refusal) but never switched to (20004).
 */
import { ErrorCode, ProviderError, invalidParams } from '../errors/provider-error.js';

/** A signature domain, as mina-signer and o1js name it. */
export type SigningNetwork = 'mainnet' | 'testnet' | { custom: string };

/** A network: what the provider switches to, signs for and broadcasts on. */
export interface ChainNetwork {
  /** Auro's network id (CAIP-2 style): `mina:mainnet`, `zeko:testnet`. */
  readonly networkID: string;
  readonly name: string;
  /** The signature domain on this network. */
  readonly signingNetwork: SigningNetwork;
  /** Its public GraphQL endpoint (the daemon API), if it has one. */
  readonly graphqlUrl?: string;
  /** A block explorer, for a wallet to link transactions to. */
  readonly explorer?: string;
}

/** The networks the provider knows: Auro's defaults (Mina and Zeko, mainnet and testnet) and the local chain. */
export const NETWORKS: readonly ChainNetwork[] = Object.freeze(
  [
    {
      networkID: 'mina:mainnet',
      name: 'Mainnet',
      signingNetwork: 'mainnet',
      graphqlUrl: 'https://api.minascan.io/node/mainnet/v1/graphql',
      explorer: 'https://minascan.io/mainnet',
    },
    {
      networkID: 'mina:devnet',
      name: 'Devnet',
      signingNetwork: 'testnet',
      graphqlUrl: 'https://api.minascan.io/node/devnet/v1/graphql',
      explorer: 'https://minascan.io/devnet',
    },
    { networkID: 'mina:local', name: 'Local chain (o1js LocalBlockchain, in process)', signingNetwork: 'testnet' },
    {
      networkID: 'zeko:mainnet',
      name: 'Zeko Mainnet',
      signingNetwork: { custom: 'zeko-mainnet' },
      graphqlUrl: 'https://mainnet.zeko.io/graphql',
      explorer: 'https://zekoscan.io/mainnet',
    },
    {
      networkID: 'zeko:testnet',
      name: 'Zeko Testnet',
      signingNetwork: 'testnet',
      graphqlUrl: 'https://testnet.zeko.io/graphql',
      explorer: 'https://zekoscan.io/testnet',
    },
  ].map((network) =>
    // Frozen whole (a custom domain is an object): the list is exported, and the provider reads it.
    Object.freeze({ ...network, signingNetwork: Object.freeze(network.signingNetwork) } as ChainNetwork),
  ),
);

/** The provider's `network` option and getter: the signing kind of a network (`mina:local` is the in-process chain). */
export type NetworkKind = 'mainnet' | 'devnet' | 'local';

/** What the provider's `network` getter says of a network: mainnet, devnet (the testnet domain) or the local chain. */
export function kindOf(network: ChainNetwork): NetworkKind {
  if (network.networkID === 'mina:local') return 'local';
  return network.signingNetwork === 'mainnet' ? 'mainnet' : 'devnet';
}

/** Why the Ledger cannot sign on `network` (a custom signature domain), or undefined. */
function unsignable(network: ChainNetwork): string | undefined {
  const domain = network.signingNetwork;
  if (typeof domain === 'string') return undefined;
  return `${network.networkID} signs with the custom signature domain "${domain.custom}": the Mina Ledger app (and its chain-ledger extension) signs for mainnet and testnet only`;
}

/** A GraphQL endpoint the provider sends to, with the integrator's headers only where the integrator set the URL. */
export interface Endpoint {
  url: string;
  headers?: Record<string, string>;
}

/** An http(s) URL without credentials in it, normalised (`new URL().href`), or why not. */
export function checkEndpointUrl(value: string): { href: string } | { problem: string } {
  let url: URL;
  try {
    if (!/^https?:\/\//i.test(value)) return { problem: 'must be an http(s) URL' };
    url = new URL(value);
  } catch {
    return { problem: 'must be an http(s) URL' };
  }
  if (url.username !== '' || url.password !== '') return { problem: 'must not hold credentials (user:password@)' };
  return { href: url.href };
}

/** CAIP-2 style: a namespace and a reference, as `mina:devnet`. */
const NETWORK_ID = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;

/** A network `addChain` may add: the integrator's answer, checked. */
export interface AddedChain {
  networkID: string;
  signingNetwork?: SigningNetwork;
}

/**
 * The networks one provider knows and the endpoint it uses on each: the integrator's `graphqlUrl` (with its
 * `graphqlHeaders`) on the network it was created for; a network's public endpoint on the networks a page switched
 * to with the integrator's consent; the URL `addChain` added. The integrator's headers never go to another URL.
 */
export class Networks {
  readonly #list: ChainNetwork[] = [...NETWORKS];
  readonly #endpoints = new Map<string, Endpoint>();

  constructor(initial: NetworkKind, graphqlUrl?: string, graphqlHeaders?: Record<string, string>) {
    for (const network of NETWORKS) if (network.graphqlUrl) this.#endpoints.set(network.networkID, { url: network.graphqlUrl });
    // The network the provider is created for uses the integrator's endpoint, or none (no public node is contacted).
    const first = `mina:${initial}`;
    this.#endpoints.delete(first);
    if (graphqlUrl) this.#endpoints.set(first, { url: graphqlUrl, ...(graphqlHeaders ? { headers: graphqlHeaders } : {}) });
  }

  /** The ids of the networks a page may switch to (those whose signature domain the Ledger signs for). */
  list(): string[] {
    return this.#list.filter((network) => unsignable(network) === undefined).map((network) => network.networkID);
  }

  /** The network with this id, or undefined. */
  byId(networkID: string): ChainNetwork | undefined {
    return this.#list.find((network) => network.networkID === networkID);
  }

  /** The network whose endpoint (the one this provider uses, or its public one) is `href`, or undefined. */
  byUrl(href: string): ChainNetwork | undefined {
    const same = (url: string | undefined) => {
      const checked = url === undefined ? undefined : checkEndpointUrl(url);
      return checked !== undefined && 'href' in checked && checked.href === href;
    };
    return this.#list.find((network) => same(this.#endpoints.get(network.networkID)?.url) || same(network.graphqlUrl));
  }

  /** The endpoint calls on `network` use, or undefined (broadcasts then need `onlySign`). */
  endpointOf(network: ChainNetwork): Endpoint | undefined {
    return this.#endpoints.get(network.networkID);
  }

  /**
   * The network `switchChain` names, if the provider can switch to it.
   * @throws `ProviderError` 20003 for a value that is no network id, 20004 for a network it does not know or whose
   *   signature domain the Ledger cannot sign for.
   */
  switchable(networkID: string): ChainNetwork {
    if (!NETWORK_ID.test(networkID)) throw invalidParams('networkID', 'must be a network id such as "mina:mainnet" or "zeko:testnet"');
    // 'mina:testnet' is Auro's name for devnet where nothing else has it: wagmina switches Auro to devnet by it, and
    // ZkNoid's table names devnet so.
    const network = this.byId(networkID) ?? (networkID === 'mina:testnet' ? this.byId('mina:devnet') : undefined);
    if (!network)
      throw unsupportedChain(`this wallet does not know ${networkID}; it knows ${this.list().join(', ')} (addChain adds others)`);
    const reason = unsignable(network);
    if (reason) throw unsupportedChain(reason);
    return network;
  }

  /**
   * Records what the integrator's `confirmAddChain` accepted for endpoint `href` (its answer, checked here): a new
   * network (a network id of its own and a signature domain), added with that endpoint. Returns the network to switch
   * to. A network this provider knows keeps its endpoint and its signature domain: an answer naming one is refused
   * (`href` is not its endpoint, or `CurrentNetwork.add` would have switched to it), since a page's URL there would
   * serve the nonces and broadcast results of every later call on it, and nobody would have been told.
   * @throws `ProviderError` 20004 for an answer that names no network, a known network, or a domain the Ledger
   *   cannot sign for.
   */
  add(answer: unknown, name: string, href: string): ChainNetwork {
    const { networkID, signingNetwork } = (typeof answer === 'object' && answer !== null ? answer : {}) as Partial<AddedChain>;
    if (typeof networkID !== 'string' || !NETWORK_ID.test(networkID)) {
      throw unsupportedChain('confirmAddChain must answer false or { networkID, signingNetwork } with a network id such as "zeko:testnet"');
    }
    if (this.byId(networkID)) {
      throw unsupportedChain(
        `${networkID} is a network this wallet knows, with an endpoint of its own: adding a chain never replaces a known network's endpoint (${href} is not it); switch to it with switchChain`,
      );
    }
    if (signingNetwork !== 'mainnet' && signingNetwork !== 'testnet') {
      throw unsupportedChain(`the Ledger signs for the "mainnet" and "testnet" domains only: ${networkID} needs one of them`);
    }
    const added: ChainNetwork = Object.freeze({ networkID, name, signingNetwork, graphqlUrl: href });
    this.#list.push(added);
    this.#endpoints.set(networkID, { url: href });
    return added;
  }
}

/** 20004 "Not support chain.", Auro's answer for a network it cannot use. */
export function unsupportedChain(reason: string): ProviderError {
  return new ProviderError(ErrorCode.UnsupportedChain, { reason });
}
