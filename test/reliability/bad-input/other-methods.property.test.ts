/**
 * Bad input for every wallet method that has no property file of its own (the others: messages-and-nullifiers,
 * send-transaction, credentials-and-presentations, request): generated garbage and one-leaf mutations of a valid
 * argument, each call judged by the rig (test/support/bad-input/rig.ts): it settles with a result or a documented
 * `ProviderError` of the codes the method may refuse with, and no refusal follows a device request. Results are
 * checked: signatures verify with mina-signer, verifications are booleans, payments are broadcast to a fake node that
 * checks the daemon's schema. After each call the provider is put back (on devnet, connected).
 */
import fc from 'fast-check';
import Client from 'mina-signer';
import { afterAll, describe, expect, it } from 'vitest';
import { createLedgerProvider, type LedgerProvider } from '../../../src/index.js';
import { ADDRESS, type Case, badInputRig, fail, ledger, made, makeCase, run } from '../../support/bad-input/rig.js';
import { describeValue, isObject } from '../../support/json-values.js';
import { type FakeMinaNode, startFakeMinaNode } from '../../support/mina-node.js';
import { garbageArb } from '../../support/odd-values.js';
import { ORIGIN, within } from '../../support/rig.js';
import { fuzzRuns, fuzzTimeout } from '../../support/runs.js';
import { addressOf } from '../../support/vectors.js';
import { mutate, mutationArb, replacementArb } from '../../support/value-mutations.js';

badInputRig();

const testnet = new Client({ network: 'testnet' });
const HASH = '5JuSRViCY1GbnnpExLhoYLkD96vwnCjoC1MqsWPnkBbhAm6Bt7Gu';

/** A method under test: valid arguments to mutate, the codes it may refuse with, how to call it and check a result. */
interface MethodUnderTest {
  valid: () => unknown[];
  codes: number[];
  call: (args: unknown) => Promise<unknown>;
  check?: (value: unknown, args: unknown) => void;
}

/** Signed values to verify, and the payments provider (a node that answers), made before the properties. */
const signed = {} as { message: unknown; json: unknown; fields: unknown; payments: LedgerProvider };

const isBoolean = (value: unknown) => {
  if (typeof value !== 'boolean') fail(`a verification answered ${describeValue(value)}`);
};
const accounts = (value: unknown) => expect(value).toEqual([ADDRESS]);
/** A context as the first argument: the page's origin or none; anything else is refused. */
const CONTEXT_CODES = [1001, 20003, 23001];

const METHODS_UNDER_TEST: Record<string, MethodUnderTest> = {
  requestAccounts: {
    valid: () => [undefined, {}, { origin: ORIGIN }],
    codes: CONTEXT_CODES,
    call: (a) => made.chain.requestAccounts(a as never),
    check: accounts,
  },
  getAccounts: { valid: () => [undefined, {}], codes: CONTEXT_CODES, call: (a) => made.chain.getAccounts(a as never), check: accounts },
  requestNetwork: {
    valid: () => [undefined, {}],
    codes: CONTEXT_CODES,
    call: (a) => made.chain.requestNetwork(a as never),
    check: (v) => expect(v).toEqual({ networkID: 'mina:devnet' }),
  },
  getNetworkId: {
    valid: () => [undefined],
    codes: CONTEXT_CODES,
    call: (a) => made.chain.getNetworkId(a as never),
    check: (v) => expect(v).toBe('mina:devnet'),
  },
  getWalletInfo: {
    valid: () => [undefined],
    codes: CONTEXT_CODES,
    call: (a) => made.chain.getWalletInfo(a as never),
    check: (v) => expect(v).toMatchObject({ version: expect.any(String), init: expect.any(Boolean) }),
  },
  switchChain: {
    valid: () => [{ networkID: 'mina:devnet' }, { networkID: 'mina:mainnet' }, { networkID: 'zeko:testnet' }],
    codes: [20003, 20004],
    call: (a) => made.chain.switchChain(a as never),
    check: (v, a) => expect(v).toEqual({ networkID: (a as { networkID: string }).networkID }),
  },
  addChain: {
    valid: () => [
      { url: 'https://testnet.zeko.io/graphql', name: 'Zeko' },
      { url: encodeURIComponent('https://api.minascan.io/node/mainnet/v1/graphql'), name: 'Mainnet' },
    ],
    codes: [20003, 20004],
    call: (a) => made.chain.addChain(a as never),
    check: (v) => expect(v).toMatchObject({ networkID: expect.stringMatching(/^(mina|zeko):/) }),
  },
  revokePermissions: {
    valid: () => [undefined, {}, { mina_accounts: {} }],
    codes: [20003],
    call: (a) => made.chain.revokePermissions(a as never),
    check: (v) => expect(v).toEqual([]),
  },
  signJsonMessage: {
    valid: () => [
      {
        message: [
          { label: 'action', value: 'login' },
          { label: 'n', value: 3 },
          { label: 'ok', value: true },
        ],
      },
    ],
    codes: [20003, 20006],
    call: (a) => made.chain.signJsonMessage(a as never),
    check: (v) => {
      const s = v as { data: string; publicKey: string; signature: { field: string; scalar: string } };
      if (!testnet.verifyMessage(s)) fail(`signJsonMessage returned a signature that does not verify: ${describeValue(v)}`);
    },
  },
  verifyMessage: { valid: () => [signed.message], codes: [20003], call: (a) => made.chain.verifyMessage(a as never), check: isBoolean },
  verifyJsonMessage: {
    valid: () => [signed.json],
    codes: [20003],
    call: (a) => made.chain.verifyJsonMessage(a as never),
    check: isBoolean,
  },
  signFields: {
    valid: () => [{ message: ['1', '2', '3'] }, { message: [42] }, { message: ['0x10', 7] }],
    codes: [20003, 20006],
    call: (a) => made.chain.signFields(a as never),
    check: (v) => {
      const s = v as { data: (string | number)[]; signature: string; publicKey?: string };
      const fields = s.data.map((x) => BigInt(x));
      if (!testnet.verifyFields({ data: fields, publicKey: ADDRESS, signature: s.signature }))
        fail(`signFields returned a signature that does not verify: ${describeValue(v)}`);
    },
  },
  verifyFields: { valid: () => [signed.fields], codes: [20003], call: (a) => made.chain.verifyFields(a as never), check: isBoolean },
  sendPayment: {
    valid: () => [
      { to: addressOf(1), amount: 1.5, fee: 0.02, memo: 'fuzz' },
      { to: addressOf(2), amount: '0.000000001', nonce: 9 },
    ],
    codes: [20003],
    call: (a) => signed.payments.sendPayment(a as never),
    check: (v) => expect(v).toEqual({ hash: HASH }),
  },
  sendStakeDelegation: {
    valid: () => [{ to: addressOf(2) }, { to: addressOf(1), fee: 0.01, memo: 'stake' }],
    codes: [20003],
    call: (a) => signed.payments.sendStakeDelegation(a as never),
    check: (v) => expect(v).toEqual({ hash: HASH }),
  },
};

type MethodName = keyof typeof METHODS_UNDER_TEST;
/** Runs per method. Signing ones cost real signatures (≈ 40 ms each); the others are host work only. */
const RUNS = fuzzRuns<MethodName>({
  requestAccounts: 100,
  getAccounts: 100,
  requestNetwork: 100,
  getNetworkId: 100,
  getWalletInfo: 100,
  switchChain: 150,
  addChain: 150,
  revokePermissions: 50,
  signJsonMessage: 150,
  verifyMessage: 200,
  verifyJsonMessage: 150,
  signFields: 150,
  verifyFields: 200,
  sendPayment: 150,
  sendStakeDelegation: 100,
});

/** Garbage, or one mutation of a valid argument (whose outcome the method decides: "either"). */
function casesOf(name: MethodName, spec: MethodUnderTest): fc.Arbitrary<Case> {
  const note = (what: string) => `${name}: ${what}`;
  return fc.oneof(
    garbageArb.map((args) =>
      makeCase({ args, expect: 'either', note: note('garbage'), code: spec.codes, check: spec.check && ((v) => spec.check!(v, args)) }),
    ),
    fc.nat().map((i) => {
      const args = structuredClone(spec.valid()[i % spec.valid().length]);
      return makeCase({ args, expect: 'valid', note: note('valid'), check: spec.check && ((v) => spec.check!(v, args)) });
    }),
    fc.tuple(fc.nat(), mutationArb({ values: replacementArb() })).map(([i, mutation]) => {
      const m = mutate(spec.valid()[i % spec.valid().length], mutation);
      return makeCase({
        args: m.value,
        expect: 'either',
        note: note(m.description),
        code: spec.codes,
        check: spec.check && ((v) => spec.check!(v, m.value)),
      });
    }),
  );
}

/** Back to where every call starts: connected, on devnet (bounded: a hang here fails the property, naming it). */
async function putBack(): Promise<void> {
  if (!made.chain.isConnected()) expect(await within(made.chain.requestAccounts(), 'the reconnection after a call')).toEqual([ADDRESS]);
  if (made.chain.chainId !== 'mina:devnet') await within(made.chain.switchChain({ networkID: 'mina:devnet' }), 'the switch back to devnet');
}

describe('bad input never escapes as anything but a documented ProviderError, and never reaches the device', () => {
  let node: FakeMinaNode | undefined;
  afterAll(() => node?.close());

  it('(the signed values to verify, and a provider whose node answers, for the payments)', async () => {
    signed.message = await made.chain.signMessage({ message: 'verify me' });
    signed.json = await made.chain.signJsonMessage({ message: [{ label: 'verify', value: 'me' }] });
    signed.fields = await made.chain.signFields({ message: ['5', '6'] });
    node = await startFakeMinaNode({
      accountNonce: () => ({ data: { account: { nonce: '0', inferredNonce: '0' } } }),
      sendPayment: () => ({ data: { sendPayment: { payment: { hash: HASH, id: 'p' } } } }),
      sendDelegation: () => ({ data: { sendDelegation: { delegation: { hash: HASH, id: 'd' } } } }),
    });
    signed.payments = createLedgerProvider({ transport: ledger, network: 'devnet', origin: ORIGIN, graphqlUrl: node.url });
    expect(await signed.payments.requestAccounts()).toEqual([ADDRESS]);
    for (const value of [signed.message, signed.json, signed.fields]) expect(isObject(value)).toBe(true);
  }, 60_000);

  for (const [name, spec] of Object.entries(METHODS_UNDER_TEST) as [MethodName, MethodUnderTest][]) {
    it(
      `${name}: ${RUNS[name]} garbage, valid and mutated arguments`,
      async () => {
        await fc.assert(
          fc.asyncProperty(casesOf(name, spec), async (c) => {
            try {
              await run(name, c, () => spec.call(c.args));
            } finally {
              await putBack();
            }
          }),
          { numRuns: RUNS[name] },
        );
      },
      fuzzTimeout(300_000),
    );
  }
});
