/**
 * The names newer callers use, replayed with their own call shapes and what they read back: mina-js's `mina_sign`
 * and `mina_getBalance` (Pallad's test dapp, palladians/mina-connector `TestZkApp`; TileVille's `getPalladBalance`),
 * Clorio's spellings `mina_getAccounts`, `mina_getWalletInfo`, `mina_revokePermissions`, and Pallad's `{ result }`
 * reply envelope (the `resultEnvelope` option; never the default, which Auro's callers read).
 */
import Client from 'mina-signer';
import { describe, expect, it } from 'vitest';
import { ACCOUNT_BALANCE_QUERY } from '../../src/provider/sign-only.js';
import { checkOperation, fakeMinaNodes } from '../support/mina-node.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { providerRigWith } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

const ACCOUNT0 = addressOf(0);
const testnet = new Client({ network: 'testnet' });
const setup = providerRigWith({ extensions: true });
/** Pallad's provider as its callers see it: every `request()` reply in `{ result }`. */
const pallad = providerRigWith({ extensions: true }, { resultEnvelope: true });

describe("mina-js's mina_sign: signMessage of params[0]", () => {
  it("Pallad's test dapp: request({ method: 'mina_sign', params: [message] }) → { result }, which mina-signer verifies", async () => {
    const { chain, reviews } = pallad();
    await chain.request({ method: 'mina_requestAccounts' });
    const { result } = (await chain.request({ method: 'mina_sign', params: ['A message to sign'] })) as unknown as {
      result: { publicKey: string; data: string; signature: { field: string; scalar: string } };
    };
    expect(result).toMatchObject({ publicKey: ACCOUNT0, data: 'A message to sign' });
    expect(testnet.verifyMessage(result)).toBe(true);
    expect(reviews.some((r) => r.kind === 'text')).toBe(true); // SIGN_TEXT: the text on the device
  });

  it('the same as signMessage under either namespace, bare by default; 1001 before connecting', async () => {
    const { chain } = setup();
    expect(await failure(chain.request({ method: 'mina_sign', params: ['hi'] }))).toMatchObject({ code: 1001 });
    await chain.requestAccounts();
    const signed = await chain.request({ method: 'chain_sign', params: { message: 'hi' } });
    expect(testnet.verifyMessage(signed)).toBe(true);
    expect(await failure(chain.request({ method: 'mina_sign', params: [42] as never }))).toMatchObject({ code: 20003 });
  });
});

describe("mina-js's mina_getBalance: the node's balance of the connected account, no device", () => {
  const startNode = fakeMinaNodes();

  it("TileVille's getPalladBalance: request({ method: 'mina_getBalance' }) → response.result, nanomina as text", async () => {
    const mina = await startNode({ accountBalance: () => ({ data: { account: { balance: { total: '1500000000' } } } }) });
    const { chain, ledger } = pallad({}, { graphqlUrl: mina.url });
    await chain.request({ method: 'mina_requestAccounts' });
    const before = ledger.exchanges.length;
    const response = (await chain.request({ method: 'mina_getBalance' })) as unknown as { result: string };
    expect(response.result).toBe('1500000000');
    expect(ledger.exchanges.length).toBe(before);
    expect(mina.requests.map((r) => [r.valid, r.variables])).toEqual([[true, { publicKey: ACCOUNT0 }]]);
    expect(checkOperation(ACCOUNT_BALANCE_QUERY, { publicKey: ACCOUNT0 }).errors).toEqual([]);
  });

  it("an account the node does not know has '0'; 1001 before connecting; 20006 without a node; 21001 when the node fails", async () => {
    const mina = await startNode({ accountBalance: () => ({ data: { account: null } }) });
    const { chain } = setup({}, { graphqlUrl: mina.url });
    expect(await failure(chain.getBalance())).toMatchObject({ code: 1001 });
    await chain.requestAccounts();
    expect(await chain.request({ method: 'chain_getBalance' })).toBe('0');
    const offline = setup();
    await offline.chain.requestAccounts();
    expect(await failure(offline.chain.request({ method: 'mina_getBalance' }))).toMatchObject({ code: 20006 });
    const broken = await startNode({ accountBalance: () => ({ errors: [{ message: 'boom' }] }) });
    const failing = setup({}, { graphqlUrl: broken.url });
    await failing.chain.requestAccounts();
    expect(await failure(failing.chain.getBalance())).toMatchObject({ code: 21001 });
  });
});

describe("Clorio's spellings: mina_getAccounts, mina_getWalletInfo, mina_revokePermissions", () => {
  it('answer as chain_accounts, wallet_info and wallet_revokePermissions do', async () => {
    const { chain } = setup();
    expect(await chain.request({ method: 'mina_getAccounts' })).toEqual([]);
    await chain.requestAccounts();
    expect(await chain.request({ method: 'mina_getAccounts' })).toEqual([ACCOUNT0]);
    expect(await chain.request({ method: 'chain_getAccounts' })).toEqual([ACCOUNT0]);
    expect(await chain.request({ method: 'mina_getWalletInfo' })).toEqual(await chain.getWalletInfo());
    const accounts: string[][] = [];
    chain.on('accountsChanged', (a) => accounts.push(a));
    expect(await chain.request({ method: 'mina_revokePermissions', params: [{ mina_accounts: {} }] })).toEqual([]);
    expect(accounts).toEqual([[]]);
    expect(await chain.request({ method: 'mina_getAccounts' })).toEqual([]);
  });

  it('are request() names only: no direct methods of their own', () => {
    const { chain } = setup();
    // `mina_sign` is signMessage: the provider has no `sign` method to go with it.
    expect('sign' in chain).toBe(false);
  });
});

describe("Pallad's { result } envelope (resultEnvelope: true)", () => {
  it("Pallad's test dapp reads { result } of mina_accounts, mina_networkId, mina_requestAccounts; errors still reject", async () => {
    const { chain } = pallad();
    expect(await chain.request({ method: 'mina_accounts' })).toEqual({ jsonrpc: '2.0', result: [] });
    const { result: accounts } = (await chain.request({ method: 'mina_requestAccounts' })) as unknown as { result: string[] };
    expect(accounts).toEqual([ACCOUNT0]);
    const { result: networkId } = (await chain.request({ method: 'mina_networkId' })) as unknown as { result: string };
    expect(networkId).toBe('mina:devnet');
    expect(await failure(chain.request({ method: 'mina_getState' } as never))).toMatchObject({ code: 20006 });
    // The direct methods stay bare: the envelope is request()'s reply only.
    expect(await chain.getAccounts()).toEqual([ACCOUNT0]);
  });

  it('is never the default: Auro callers get bare results; a non-boolean option is refused naming it', async () => {
    const { chain } = setup();
    await chain.requestAccounts();
    expect(await chain.request({ method: 'mina_accounts' })).toEqual([ACCOUNT0]);
    expect(() => setup({}, { resultEnvelope: 'yes' as never })).toThrow(
      expect.objectContaining({ code: 20003, data: expect.objectContaining({ field: 'resultEnvelope' }) }),
    );
  });
});
