/**
 * The typed dapp API (src/provider/rpc.ts). The type assertions are checked by `npm run typecheck` (tsc over the
 * tests): a `@ts-expect-error` whose call stops being an error fails the type-check. At run time the same calls show
 * that the types did not loosen validation: what the types refuse is refused by the schemas too.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  createLedgerProvider,
  METHODS,
  type ChainRpcSchema,
  type LedgerProvider,
  type NullifierResult,
  type RpcParams,
  type RpcResult,
  type SendTransactionArgs,
  type SignedMessage,
  type WalletMethod,
} from '../../src/index.js';

import type { AliasMethod, AuroMethod, RequestMethod } from '../../src/provider/rpc.js';
import { ORIGIN, quietLedger } from '../support/rig.js';

/** A call made only for its type: it is not connected, so it rejects, and the rejection is expected. */
function typeOnly<T>(call: Promise<T>): Promise<T> {
  call.catch(() => undefined);
  return call;
}

function provider(): LedgerProvider {
  return createLedgerProvider({
    transport: quietLedger({ extensions: true }),
    network: 'devnet',
    origin: ORIGIN,
  });
}

describe('request() is typed per method', () => {
  it('infers each result from the method name', () => {
    const chain = provider();
    expectTypeOf(typeOnly(chain.request({ method: 'chain_requestAccounts' }))).resolves.toEqualTypeOf<string[]>();
    expectTypeOf(typeOnly(chain.request({ method: 'chain_requestNetwork' }))).resolves.toEqualTypeOf<{ networkID: string }>();
    expectTypeOf(
      typeOnly(chain.request({ method: 'chain_signMessage', params: { message: 'hi' } })),
    ).resolves.toEqualTypeOf<SignedMessage>();
    expectTypeOf(
      typeOnly(chain.request({ method: 'chain_createNullifier', params: [['1', 2]] })),
    ).resolves.toEqualTypeOf<NullifierResult>();
    expectTypeOf<RpcResult<'chain_verifyFields'>>().toEqualTypeOf<boolean>();
  });

  it("types Auro's mina_ names exactly as their chain_ equivalents", () => {
    const chain = provider();
    expectTypeOf(typeOnly(chain.request({ method: 'mina_requestAccounts' }))).resolves.toEqualTypeOf<string[]>();
    expectTypeOf(typeOnly(chain.request({ method: 'mina_requestNetwork' }))).resolves.toEqualTypeOf<{ networkID: string }>();
    expectTypeOf(
      typeOnly(chain.request({ method: 'mina_sendTransaction', params: { transaction: '{}', onlySign: true } })),
    ).resolves.toEqualTypeOf<{ signedData: string }>();
    expectTypeOf(typeOnly(chain.request({ method: 'mina_createNullifier', params: [['1', 2]] }))).resolves.toEqualTypeOf<NullifierResult>();
    expectTypeOf<RpcResult<'mina_sign_JsonMessage'>>().toEqualTypeOf<SignedMessage>();
    expectTypeOf<RpcParams<'mina_signFields'>>().toEqualTypeOf<RpcParams<'chain_signFields'>>();
    // One mina_ name per chain_ name, and nothing else; wallet_ names have no mina_ twin.
    expectTypeOf<AuroMethod>().toEqualTypeOf<Exclude<Extract<RequestMethod, `mina_${string}`>, AliasMethod>>();
    expectTypeOf<'mina_requestAccounts'>().toMatchTypeOf<AuroMethod>();
    expectTypeOf<'mina_addChain'>().toMatchTypeOf<RequestMethod>();
    expectTypeOf<'mina_getState'>().not.toMatchTypeOf<RequestMethod>();
    expectTypeOf<'mina_info'>().not.toMatchTypeOf<RequestMethod>();
    expectTypeOf<Exclude<RequestMethod, WalletMethod | AuroMethod | AliasMethod>>().toEqualTypeOf<never>();
  });

  it('narrows sendTransaction by onlySign: { signedData } when only signing, { hash } when broadcasting, directly and through request()', () => {
    const chain = provider();
    const signOnly = { transaction: '{}', onlySign: true } as const;
    const flag = Math.random() < 2;
    expectTypeOf(typeOnly(chain.sendTransaction({ transaction: '{}' }))).resolves.toEqualTypeOf<{ hash: string; paymentId?: string }>();
    expectTypeOf(typeOnly(chain.sendTransaction({ transaction: '{}', onlySign: false }))).resolves.toEqualTypeOf<{
      hash: string;
      paymentId?: string;
    }>();
    expectTypeOf(typeOnly(chain.sendTransaction({ transaction: '{}', onlySign: true }))).resolves.toEqualTypeOf<{ signedData: string }>();
    expectTypeOf(typeOnly(chain.sendTransaction(signOnly))).resolves.toEqualTypeOf<{ signedData: string }>();
    // Known only as a boolean: either result.
    expectTypeOf(typeOnly(chain.sendTransaction({ transaction: '{}', onlySign: flag }))).resolves.toEqualTypeOf<
      RpcResult<'chain_sendTransaction'>
    >();
    expectTypeOf(typeOnly(chain.request({ method: 'chain_sendTransaction', params: { transaction: '{}' } }))).resolves.toEqualTypeOf<{
      hash: string;
      paymentId?: string;
    }>();
    expectTypeOf(typeOnly(chain.request({ method: 'chain_sendTransaction', params: [signOnly] }))).resolves.toEqualTypeOf<{
      signedData: string;
    }>();
    const typed = async () => {
      // @ts-expect-error: a command only signed has no hash
      const { hash } = await chain.sendTransaction({ transaction: '{}', onlySign: true });
      // @ts-expect-error: a broadcast command returns no signedData
      const { signedData } = await chain.request({ method: 'mina_sendTransaction', params: { transaction: '{}' } });
      return [hash, signedData];
    };
    expect(typeof typed).toBe('function');
  });

  it("types Auro's and mina-js's other methods: addChain, wallet_info, wallet_revokePermissions, mina_networkId", () => {
    const chain = provider();
    expectTypeOf(typeOnly(chain.request({ method: 'mina_networkId' }))).resolves.toEqualTypeOf<string>();
    expectTypeOf(typeOnly(chain.request({ method: 'wallet_info' }))).resolves.toEqualTypeOf<{ version: string; init: boolean }>();
    expectTypeOf(typeOnly(chain.request({ method: 'wallet_revokePermissions', params: [{ mina_accounts: {} }] }))).resolves.toEqualTypeOf<
      []
    >();
    expectTypeOf(
      typeOnly(chain.request({ method: 'mina_addChain', params: { url: 'https://testnet.zeko.io/graphql', name: 'Zeko' } })),
    ).resolves.toEqualTypeOf<{ networkID: string }>();
    expectTypeOf(typeOnly(chain.revokePermissions())).resolves.toEqualTypeOf<[]>();
  });

  it('takes the params each method documents, in object and positional form', () => {
    const chain = provider();
    // A dapp's o1js transaction: `tx.toJSON()` is JSON text; the object form is accepted as well.
    expectTypeOf<string>().toMatchTypeOf<SendTransactionArgs['transaction']>();
    expectTypeOf<{ feePayer: object; accountUpdates: object[]; memo: string }>().toMatchTypeOf<SendTransactionArgs['transaction']>();
    // Empty optional values are "not given": the types let dapps send them.
    expectTypeOf<{ transaction: string; nonce: null; feePayer: { fee: ''; memo: null } }>().toMatchTypeOf<SendTransactionArgs>();
    void typeOnly(chain.request({ method: 'chain_storePrivateCredential', params: ['{"version":"v0"}'] }));
    void typeOnly(chain.request({ method: 'chain_requestPresentation', params: [{ presentationRequest: {} }] }));
  });

  it('refuses what no method takes, at compile time and at run time alike', async () => {
    const chain = provider();
    await chain.requestAccounts({ origin: ORIGIN });
    const calls = [
      // @ts-expect-error: not a wallet method
      chain.request({ method: 'chain_listNetworks', params: {} }),
      // @ts-expect-error: the message must be a string
      chain.request({ method: 'chain_signMessage', params: { message: 42 } }),
      // @ts-expect-error: sendTransaction needs its transaction
      chain.request({ method: 'chain_sendTransaction', params: { onlySign: true } }),
      // @ts-expect-error: onlySign is a boolean
      chain.sendTransaction({ transaction: '{}', onlySign: 'yes' }),
      // @ts-expect-error: a network id is text
      chain.switchChain({ networkID: 1 }),
      // @ts-expect-error: addChain needs { url, name }
      chain.request({ method: 'mina_addChain', params: {} }),
      // @ts-expect-error: the mina_ name takes the same params as the chain_ name
      chain.request({ method: 'mina_signMessage', params: { message: 42 } }),
    ];
    const codes = await Promise.all(
      calls.map((call) =>
        call.then(
          () => 'resolved',
          (error: { code: number }) => error.code,
        ),
      ),
    );
    expect(codes).toEqual([20006, 20003, 20003, 20003, 20003, 20003, 20003]);
  });

  it('the schema names exactly the methods request() serves', () => {
    expectTypeOf<keyof typeof METHODS>().toEqualTypeOf<WalletMethod>();
    expectTypeOf<keyof ChainRpcSchema>().toEqualTypeOf<WalletMethod>();
    expect(Object.keys(METHODS).sort()).toEqual(
      [
        'chain_accounts',
        'chain_addChain',
        'chain_createNullifier',
        'chain_getBalance',
        'chain_networkId',
        'chain_requestAccounts',
        'chain_requestNetwork',
        'chain_requestPresentation',
        'chain_sendPayment',
        'chain_sendSignedTransaction',
        'chain_sendStakeDelegation',
        'chain_sendTransaction',
        'chain_signFields',
        'chain_signMessage',
        'chain_signTransaction',
        'chain_sign_JsonMessage',
        'chain_storePrivateCredential',
        'chain_switchChain',
        'chain_verifyFields',
        'chain_verifyMessage',
        'chain_verify_JsonMessage',
        'wallet_info',
        'wallet_revokePermissions',
      ].sort(),
    );
  });
});
