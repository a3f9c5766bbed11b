/**
 * Networks as data (src/provider/networks.ts): Auro's default networks, Zeko included, with the signature domain
 * each signs with checked against mina-signer; `switchChain` only with the integrator's consent (its
 * `confirmSwitchChain` hook, or the `allowUnconfirmedSwitchChain` opt-in); `switchChain` to Zeko as ZkNoid's and Lumina's network pickers call it
 * and 20004 for a network the provider does not know, as Auro answers; `addChain` with Auro's argument shapes
 * (the test dapp's percent-encoded URL, vimina's `mina_addChain`), through the integrator's `confirmAddChain`.
 */
import Client from 'mina-signer';
import { describe, expect, it } from 'vitest';
import { NETWORKS, createLedgerProvider, type AddedChain, type LedgerProviderOptions } from '../../src/index.js';
import { fakeMinaNodes } from '../support/mina-node.js';
import { creationFailure, providerFailure as failure } from '../support/provider-failure.js';
import { ORIGIN, connectedProvider, providerRig, quietLedger } from '../support/rig.js';
import { addressOf, keyOf } from '../support/vectors.js';
import { berkeleyCommand, verifySigned } from '../support/zkapp.js';

const network = (id: string) => NETWORKS.find((n) => n.networkID === id)!;

describe('the networks, as data', () => {
  it("holds Auro's defaults and the local chain: id, signature domain, public GraphQL endpoint, explorer", () => {
    expect(NETWORKS.map((n) => n.networkID)).toEqual(['mina:mainnet', 'mina:devnet', 'mina:local', 'zeko:mainnet', 'zeko:testnet']);
    expect(network('zeko:testnet')).toEqual({
      networkID: 'zeko:testnet',
      name: 'Zeko Testnet',
      signingNetwork: 'testnet',
      graphqlUrl: 'https://testnet.zeko.io/graphql',
      explorer: 'https://zekoscan.io/testnet',
    });
    expect(network('zeko:mainnet').signingNetwork).toEqual({ custom: 'zeko-mainnet' });
    expect(Object.isFrozen(NETWORKS) && NETWORKS.every((n) => Object.isFrozen(n) && Object.isFrozen(n.signingNetwork))).toBe(true);
  });

  it("each domain is mina-signer's: a message signed on the network verifies with Client({ network: domain }), and no other", async () => {
    const { chain } = await connectedProvider({ extensions: true }, { allowUnconfirmedSwitchChain: true });
    for (const id of ['mina:mainnet', 'mina:devnet', 'zeko:testnet']) {
      await chain.switchChain({ networkID: id });
      const signed = await chain.signMessage({ message: `signed on ${id}` });
      const domain = network(id).signingNetwork as 'mainnet' | 'testnet';
      const other = domain === 'mainnet' ? 'testnet' : 'mainnet';
      expect(new Client({ network: domain }).verifyMessage(signed)).toBe(true);
      expect(new Client({ network: other }).verifyMessage(signed)).toBe(false);
    }
  });

  it("Zeko mainnet's custom domain is neither testnet nor mainnet (mina-signer's own signature proves it): the Ledger cannot sign for it", () => {
    const zeko = new Client({ network: { custom: 'zeko-mainnet' } });
    const signed = zeko.signMessage('hello', keyOf(0));
    expect(zeko.verifyMessage(signed)).toBe(true);
    expect(new Client({ network: 'testnet' }).verifyMessage(signed)).toBe(false);
    expect(new Client({ network: 'mainnet' }).verifyMessage(signed)).toBe(false);
  });
});

describe("switchChain needs the integrator's consent", () => {
  it("switchChain asks the integrator's hook: refused → 1002 and nothing changes; approved → switched and chainChanged", async () => {
    const asked: unknown[] = [];
    let answer = false;
    const { chain } = providerRig({}, { confirmSwitchChain: (request) => (asked.push(request), answer) });
    const changed: string[] = [];
    chain.on('chainChanged', ({ networkID }) => changed.push(networkID));
    expect(await failure(chain.switchChain({ networkID: 'mina:mainnet' }))).toMatchObject({ code: 1002 });
    expect(chain.network).toBe('devnet');
    expect(changed).toEqual([]);
    answer = true;
    expect(await chain.switchChain({ networkID: 'mina:mainnet' })).toEqual({ networkID: 'mina:mainnet' });
    expect(changed).toEqual(['mina:mainnet']);
    // The hook is told the endpoint calls on that network will use (its public one: the integrator's graphqlUrl and
    // headers serve the network the provider was created for only).
    const mainnet = {
      from: 'mina:devnet',
      to: 'mina:mainnet',
      origin: ORIGIN,
      graphqlUrl: 'https://api.minascan.io/node/mainnet/v1/graphql',
    };
    expect(asked).toEqual([mainnet, mainnet]);
    await chain.switchChain({ networkID: 'mina:mainnet' }); // no change: not asked
    expect(asked).toHaveLength(2);
  });

  it('no confirmSwitchChain → 1002, nothing changes, no chainChanged; allowUnconfirmedSwitchChain: true switches', async () => {
    const changed: string[] = [];
    const { chain } = providerRig();
    chain.on('chainChanged', ({ networkID }) => changed.push(networkID));
    for (const call of [
      chain.switchChain({ networkID: 'mina:mainnet' }),
      chain.request({ method: 'mina_switchChain', params: { networkID: 'mina:mainnet' } }),
    ]) {
      expect(await failure(call)).toMatchObject({ code: 1002, data: { reason: expect.stringMatching(/confirmSwitchChain/) } });
    }
    expect(chain.network).toBe('devnet');
    expect(changed).toEqual([]);
    expect(await chain.switchChain({ networkID: 'mina:devnet' })).toEqual({ networkID: 'mina:devnet' }); // no change: fine

    const open = providerRig({}, { allowUnconfirmedSwitchChain: true }).chain;
    expect(await open.switchChain({ networkID: 'mina:mainnet' })).toEqual({ networkID: 'mina:mainnet' });
    expect(open.network).toBe('mainnet');
  });

  it('the options are checked at creation (20003 naming them)', () => {
    const ledger = quietLedger();
    for (const [field, value] of [
      ['allowUnconfirmedSwitchChain', 'yes'],
      ['confirmSwitchChain', true],
    ] as const) {
      expect(
        creationFailure(() => createLedgerProvider({ transport: ledger, network: 'devnet', origin: ORIGIN, [field]: value } as never)),
      ).toMatchObject({
        code: 20003,
        data: { field },
      });
    }
  });
});

describe('switchChain to Zeko, as ZkNoid and Lumina switch', () => {
  it("ZkNoid's network picker: switchChain({ networkID: 'zeko:testnet' }) → { networkID }, chainChanged, and zkApp signatures on the testnet domain", async () => {
    const asked: unknown[] = [];
    const { chain } = await connectedProvider({ extensions: true }, { confirmSwitchChain: (request) => (asked.push(request), true) });
    const changes: unknown[] = [];
    chain.on('chainChanged', (c) => changes.push(c));
    expect(await chain.switchChain({ networkID: 'zeko:testnet' })).toEqual({ networkID: 'zeko:testnet' });
    expect(changes).toEqual([{ networkID: 'zeko:testnet' }]);
    // The integrator is told which endpoint calls on Zeko will use.
    expect(asked).toEqual([{ from: 'mina:devnet', to: 'zeko:testnet', origin: ORIGIN, graphqlUrl: 'https://testnet.zeko.io/graphql' }]);
    expect(await chain.requestNetwork()).toEqual({ networkID: 'zeko:testnet' });
    expect(await chain.request({ method: 'mina_networkId' })).toBe('zeko:testnet');
    expect([chain.network, chain.networkId, chain.chainId]).toEqual(['devnet', 0, 'zeko:testnet']);
    // The nonce is given: without it the provider would ask Zeko's public node (the endpoint the hook was told of).
    const { signedData } = (await chain.sendTransaction({ transaction: berkeleyCommand(), onlySign: true, nonce: 1 })) as {
      signedData: string;
    };
    expect(verifySigned('berkeley', 'devnet', signedData, addressOf(0))).toBe(true);
  });

  it.each([
    ['zeko:mainnet', /custom signature domain "zeko-mainnet"/],
    ['mina:berkeley', /does not know mina:berkeley; it knows mina:mainnet, mina:devnet, mina:local, zeko:testnet/],
  ])("%s → 20004 (Auro's code for a network it cannot use), nothing changes", async (networkID, reason) => {
    const { chain } = await connectedProvider({ extensions: true }, { allowUnconfirmedSwitchChain: true });
    expect(await failure(chain.switchChain({ networkID }))).toMatchObject({ code: 20004, message: 'Not support chain.', data: { reason } });
    expect(chain.chainId).toBe('mina:devnet');
  });

  it("mina:testnet is Auro's name for devnet (wagmina switches Auro so, ZkNoid's table names devnet so): a switch to devnet", async () => {
    const { chain } = await connectedProvider({ extensions: true }, { allowUnconfirmedSwitchChain: true });
    await chain.switchChain({ networkID: 'mina:mainnet' });
    expect(await chain.switchChain({ networkID: 'mina:testnet' })).toEqual({ networkID: 'mina:devnet' });
    expect([chain.chainId, chain.network]).toEqual(['mina:devnet', 'devnet']);
  });

  it('a value that is no network id stays 20003', async () => {
    const { chain } = providerRig({}, { allowUnconfirmedSwitchChain: true });
    for (const networkID of ['', 'devnet', 'mina:', ' mina:devnet', 42]) {
      expect(await failure(chain.switchChain({ networkID } as never))).toMatchObject({ code: 20003, data: { field: 'networkID' } });
    }
  });

  it('no argument at all is an argument without its fields: switchChain and addChain name the field they need, directly and through request()', async () => {
    const { chain } = providerRig({}, { allowUnconfirmedSwitchChain: true });
    for (const args of [undefined, null]) {
      expect(await failure(chain.switchChain(args as never))).toMatchObject({ code: 20003, data: { field: 'networkID' } });
      expect(await failure(chain.addChain(args as never))).toMatchObject({ code: 20003, data: { field: 'url' } });
    }
    expect(await failure(chain.request({ method: 'chain_switchChain' } as never))).toMatchObject({
      code: 20003,
      data: { field: 'networkID' },
    });
    expect(await failure(chain.request({ method: 'mina_addChain' } as never))).toMatchObject({ code: 20003, data: { field: 'url' } });
  });
});

describe('addChain, with Auro argument shapes', () => {
  const startNode = fakeMinaNodes();
  const nodeHandlers = (received: unknown[]) => ({
    accountNonce: () => ({ data: { account: { nonce: '3', inferredNonce: '4' } } }),
    sendPayment: (r: { variables: unknown; headers: unknown }) => (
      received.push(r), { data: { sendPayment: { payment: { hash: '5JuSRViCY1GbnnpExLhoYLkD96vwnCjoC1MqsWPnkBbhAm6Bt7Gu', id: 'p' } } } }
    ),
  });

  it("Auro's test dapp: addChain({ url: encodeURIComponent(<a known endpoint>), name }) is a switch to that network", async () => {
    const asked: unknown[] = [];
    const { chain } = await connectedProvider({}, { confirmSwitchChain: (request) => (asked.push(request), true) });
    const result = await chain.addChain({ url: encodeURIComponent('https://testnet.zeko.io/graphql'), name: 'Zeko' });
    expect(result).toEqual({ networkID: 'zeko:testnet' });
    expect(asked).toMatchObject([{ to: 'zeko:testnet' }]);
    // The current network's endpoint: nothing to do, nothing asked.
    expect(await chain.request({ method: 'mina_addChain', params: { url: 'https://testnet.zeko.io/graphql', name: 'Zeko' } })).toEqual({
      networkID: 'zeko:testnet',
    });
    expect(asked).toHaveLength(1);
  });

  it("vimina's mina_addChain of an endpoint the provider does not know, without an integrator hook → 20004 saying so", async () => {
    const { chain } = await connectedProvider();
    expect(
      await failure(chain.request({ method: 'mina_addChain', params: { url: 'https://devnet.zeko.io/graphql', name: 'Zeko Devnet' } })),
    ).toMatchObject({ code: 20004, data: { reason: expect.stringMatching(/no confirmAddChain hook/) } });
    expect(chain.chainId).toBe('mina:devnet');
  });

  it("the integrator's confirmAddChain accepts an endpoint for a new network: the provider switches and uses that endpoint, without the integrator's headers", async () => {
    const received: any[] = [];
    const node = await startNode(nodeHandlers(received));
    const asked: unknown[] = [];
    const confirmAddChain = (request: unknown): AddedChain => (
      asked.push(request), { networkID: 'mynode:testnet', signingNetwork: 'testnet' }
    );
    const options: Partial<LedgerProviderOptions> = { confirmAddChain, graphqlHeaders: { authorization: 'Bearer integrator-secret' } };
    const { chain } = await connectedProvider({}, options);
    const changes: unknown[] = [];
    chain.on('chainChanged', (c) => changes.push(c));
    // vimina's shape (a plain URL); Auro's test dapp would send it percent-encoded: the same.
    expect(await chain.request({ method: 'mina_addChain', params: { url: encodeURIComponent(node.url), name: 'My node' } })).toEqual({
      networkID: 'mynode:testnet',
    });
    expect(asked).toEqual([{ url: node.url, name: 'My node', origin: ORIGIN }]);
    expect(changes).toEqual([{ networkID: 'mynode:testnet' }]);
    expect(await chain.sendPayment({ to: addressOf(1), amount: 1 })).toMatchObject({ hash: expect.any(String) });
    expect(received).toHaveLength(1);
    expect(node.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
  });

  it.each(['mina:mainnet', 'zeko:testnet', 'mina:devnet'])(
    "a page's URL answered as the known network %s: refused (20004), that network's endpoint and signing domain untouched, nothing switched",
    async (networkID) => {
      const switches: { to: string; graphqlUrl?: string }[] = [];
      const { chain } = await connectedProvider(
        {},
        {
          graphqlUrl: 'https://integrator.example/graphql',
          confirmAddChain: () => ({ networkID }),
          confirmSwitchChain: (request) => (switches.push(request), true),
        },
      );
      const changes: unknown[] = [];
      chain.on('chainChanged', (c) => changes.push(c));
      expect(await failure(chain.addChain({ url: 'https://evil.example/graphql', name: 'Mainnet' }))).toMatchObject({
        code: 20004,
        data: {
          reason: expect.stringMatching(
            new RegExp(`^${networkID} is a network this wallet knows.*never replaces a known network's endpoint`),
          ),
        },
      });
      expect(chain.chainId).toBe('mina:devnet');
      expect(changes).toEqual([]);
      // Switching there later uses the network's own endpoint (the integrator's on devnet), never the page's.
      if (networkID !== 'mina:devnet') await chain.switchChain({ networkID });
      const expected = {
        'mina:mainnet': 'https://api.minascan.io/node/mainnet/v1/graphql',
        'zeko:testnet': 'https://testnet.zeko.io/graphql',
      };
      expect(switches).toEqual(
        networkID === 'mina:devnet'
          ? []
          : [expect.objectContaining({ to: networkID, graphqlUrl: expected[networkID as keyof typeof expected] })],
      );
      expect(chain.networkId).toBe(networkID === 'mina:mainnet' ? 1 : 0);
    },
  );

  it('a new network of the testnet domain: added under its own id, then switchChain knows it', async () => {
    const { chain } = await connectedProvider(
      {},
      { confirmAddChain: () => ({ networkID: 'zeko:devnet', signingNetwork: 'testnet' }), allowUnconfirmedSwitchChain: true },
    );
    expect(await chain.addChain({ url: 'https://devnet.zeko.io/graphql', name: 'Zeko Devnet' })).toEqual({ networkID: 'zeko:devnet' });
    await chain.switchChain({ networkID: 'mina:devnet' });
    expect(await chain.switchChain({ networkID: 'zeko:devnet' })).toEqual({ networkID: 'zeko:devnet' });
    const signed = await chain.signMessage({ message: 'on the added network' });
    expect(new Client({ network: 'testnet' }).verifyMessage(signed)).toBe(true);
  });

  it.each([
    ["a domain the Ledger cannot sign for (Zeko mainnet's)", { networkID: 'zeko:mainnet' }, 20004],
    ['a new network with a custom domain', { networkID: 'other:net', signingNetwork: { custom: 'other' } }, 20004],
    ['a new network without a domain', { networkID: 'other:net' }, 20004],
    ["another domain than the known network's", { networkID: 'mina:mainnet', signingNetwork: 'testnet' }, 20004],
    ['a known network, with its own domain', { networkID: 'mina:mainnet', signingNetwork: 'mainnet' }, 20004],
    ['no network id', {}, 20004],
    ['true (no network named)', true, 20004],
    ['a refusal (false)', false, 1002],
  ])('the hook answers %s: refused (20004, or 1002 for its refusal), nothing changes', async (_what, answer, code) => {
    const { chain } = await connectedProvider({}, { confirmAddChain: () => answer as AddedChain | false });
    expect(await failure(chain.addChain({ url: 'https://node.example/graphql', name: 'X' }))).toMatchObject({ code });
    expect(chain.chainId).toBe('mina:devnet');
  });

  it.each([
    ['a URL that is not http(s)', { url: 'ftp://node.example/graphql', name: 'X' }, 'url'],
    ['a malformed percent-encoding', { url: 'https%3A%2F%2Fnode.example%2', name: 'X' }, 'url'],
    ['credentials in the URL', { url: encodeURIComponent('https://user:pw@node.example/graphql'), name: 'X' }, 'url'],
    ['no name (Auro requires one)', { url: 'https://node.example/graphql' }, 'name'],
  ])('%s → 20003 naming the field, the hook never asked', async (_what, args, field) => {
    let asked = 0;
    const { chain } = await connectedProvider({}, { confirmAddChain: () => (asked++, false) });
    expect(await failure(chain.addChain(args as never))).toMatchObject({ code: 20003, data: { field } });
    expect(asked).toBe(0);
  });
});
