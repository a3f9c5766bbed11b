/**
 * Bad input through `request({ method, params })`, property-based: arbitrary methods (the provider's, Auro's
 * `mina_` names, tricky and unknown ones) and params in object and array forms. Through `request`, the
 * sendTransaction, storePrivateCredential and requestPresentation params are the invalid ones (their own properties
 * cover their valid mutations). What every call must do: test/support/bad-input/rig.ts. Last, after the properties,
 * the device requests were counted and no built-in prototype was polluted.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { METHODS } from '../../../src/index.js';
import { presentationCases, storeInvalidCases } from '../../support/bad-input/credentials-and-presentations.js';
import {
  createNullifierArgs,
  createNullifierCase,
  signMessageArgs,
  signMessageCase,
} from '../../support/bad-input/messages-and-nullifiers.js';
import {
  ADDRESS,
  type Case,
  type Expect,
  badInputRig,
  expectExchangesCounted,
  expectPrototypesUnchanged,
  made,
  makeCase,
  run,
} from '../../support/bad-input/rig.js';
import { sendTransactionGarbageArgs } from '../../support/bad-input/send-transaction.js';
import { exoticValue, garbageArb, hugeString, oddNumber, pollutionArb } from '../../support/odd-values.js';
import { fuzzRuns, fuzzTimeout } from '../../support/runs.js';

badInputRig();

// The tests come first; the oracle and the arguments they draw follow them, at the end of the file.

describe('bad input never escapes as anything but a documented ProviderError, and never reaches the device', () => {
  it(
    `request({ method, params }): ${RUNS.request} arbitrary methods and params, object and array forms`,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            { weight: 6, arbitrary: knownMethodArb },
            { weight: 2, arbitrary: unknownMethodArb },
            { weight: 1, arbitrary: badRequestArb },
          ),
          async (c) => {
            try {
              await run('request', c, () => made.chain.request(c.request as never), c.expectedError);
            } finally {
              if (made.chain.network !== 'devnet') await made.chain.switchChain({ networkID: 'mina:devnet' });
            }
          },
        ),
        { numRuns: RUNS.request },
      );
    },
    fuzzTimeout(300_000),
  );

  it('counted the device requests (every exchange, by a counter of its own: the software Ledger keeps the last 10 000)', () => {
    expectExchangesCounted();
  });

  it('left every built-in prototype as it was', () => {
    expectPrototypesUnchanged();
  });
});

/** Runs per property. */
const RUNS = fuzzRuns({ request: 1500 });

// request({ method, params })

/** The wallet-side names, and Auro's (`mina_…`), which the provider serves as their `chain_` equivalents. */
const WALLET_METHODS: Record<string, string> = {
  ...METHODS,
  ...Object.fromEntries(Object.entries(METHODS).map(([name, method]) => [name.replace(/^chain_/, 'mina_'), method])),
};
const TRICKY_METHODS = [
  'chain_signmessage',
  'CHAIN_SIGNMESSAGE',
  ' chain_signMessage',
  'chain_signMessage ',
  'chain_signMessage\u0000',
  'signMessage',
  'chain_',
  '',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  '__defineGetter__',
  'chain_requestAccounts\n',
  'mina_requestAccounts',
  'mina_signmessage',
  'mina_',
  'chain_signFields',
  'chain_sendLegacyPayment',
  'chain_sendPayment',
  'chain_signJsonMessage',
  'chain_verifyMessage',
  'chain_addChain',
  'wallet_info',
  'chain_signMessage'.repeat(1000),
  // Host-side only (credentialManager): never served to a page.
  'chain_listCredentials',
  'chain_deleteCredential',
];

type Form = 'object' | 'array1' | 'array0' | 'array2' | 'omitted';

interface RequestCase extends Case {
  request: unknown;
  expectedError: number | number[];
}

function requestCase(method: string, params: unknown, form: Form, inner?: Case): RequestCase {
  const request: Record<string, unknown> = { method };
  if (form === 'object') request.params = params;
  else if (form === 'array1') request.params = [params];
  else if (form === 'array0') request.params = [];
  else if (form === 'array2') request.params = [params, params];
  const name = WALLET_METHODS[method];
  const note = `${JSON.stringify(method.slice(0, 40))}, params ${form}${inner ? `, ${inner.note}` : ''}`;
  const c = (expect: Expect, expectedError: number | number[], check?: (v: unknown) => void): RequestCase =>
    Object.assign(makeCase({ args: request, expect, note, check }), { request, expectedError });
  if (!Object.hasOwn(WALLET_METHODS, method) || name === undefined) return c('invalid', 20006);
  if (name === 'requestAccounts' || name === 'getAccounts') return c('valid', 0, (v) => expect(v).toEqual([ADDRESS]));
  if (name === 'requestNetwork') return c('valid', 0, (v) => expect(v).toEqual({ networkID: 'mina:devnet' }));
  // docs/provider.md: params may be the object or a one-element array holding it.
  let effective: unknown = request.params;
  if (Array.isArray(effective)) {
    if (effective.length !== 1) return c('invalid', 20003);
    effective = effective[0];
    // Positional as mina-js sends them: `[text]` is { message: text } (mina_sign), `['mina:devnet']` { networkID }.
    const isObject = typeof effective === 'object' && effective !== null && !Array.isArray(effective);
    if (!isObject && name === 'signMessage') effective = { message: effective };
    if (!isObject && name === 'switchChain') effective = { networkID: effective };
  }
  switch (name) {
    case 'signMessage': {
      const inner2 = signMessageCase(effective);
      return c(inner2.expect, inner2.code ?? 20003, inner2.check);
    }
    case 'createNullifier': {
      // Positional as mina-js sends it: [[fields]] is { message: fields }.
      const inner2 = createNullifierCase(Array.isArray(request.params) && Array.isArray(effective) ? { message: effective } : effective);
      return c(inner2.expect, 20003, inner2.check);
    }
    case 'switchChain': {
      // A network id (namespace:reference) is well-formed; the provider switches to the one it is on (devnet) and
      // answers 20004 for one it does not know or cannot sign for, as Auro does (the others it knows are not generated);
      // 'mina:testnet' is Auro's name for devnet.
      const id = (effective as { networkID?: unknown } | null | undefined)?.networkID;
      if (typeof id !== 'string' || !/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/.test(id)) return c('invalid', 20003);
      if (id !== 'mina:devnet' && id !== 'mina:testnet') return c('invalid', 20004);
      return c('valid', 0, (v) => expect(v).toEqual({ networkID: 'mina:devnet' }));
    }
    default: {
      // sendTransaction, storePrivateCredential, requestPresentation: the inner case knows, for its own argument.
      if (effective !== (inner?.args ?? params)) return c('invalid', 20003);
      return c(inner?.expect ?? 'invalid', 20003, inner?.check);
    }
  }
}

const formArb = fc.constantFrom<Form>('object', 'object', 'array1', 'array1', 'array0', 'array2', 'omitted');
const knownMethodArb: fc.Arbitrary<RequestCase> = fc.oneof(
  fc.tuple(signMessageArgs, formArb).map(([p, f]) => requestCase('chain_signMessage', p, f)),
  fc.tuple(createNullifierArgs, formArb).map(([p, f]) => requestCase('chain_createNullifier', p, f)),
  fc
    .tuple(sendTransactionGarbageArgs, formArb)
    .map(([p, f]) => requestCase('chain_sendTransaction', p, f, makeCase({ args: p, expect: 'invalid', note: 'invalid by construction' }))),
  fc.tuple(storeInvalidCases, formArb).map(([c, f]) => requestCase('chain_storePrivateCredential', c.args, f, c)),
  fc.tuple(presentationCases, formArb).map(([c, f]) => requestCase('chain_requestPresentation', c.args, f, c)),
  fc
    .tuple(
      fc.oneof(
        garbageArb,
        fc
          .constantFrom(
            'mina:devnet',
            'mina:zeko',
            'mina:Devnet',
            ' mina:devnet',
            'mina:devnet\n',
            'mina:',
            'devnet',
            'mina:local ',
            'MINA:devnet',
            'mina:mainnet\u0000',
            'zeko:mainnet',
            'mina:berkeley',
            'mina:testnet',
          )
          .map((networkID) => ({ networkID })),
      ),
      formArb,
    )
    .map(([p, f]) => requestCase('chain_switchChain', p, f)),
  fc.tuple(garbageArb, formArb, fc.constantFrom('chain_requestAccounts', 'chain_accounts')).map(([p, f, m]) => requestCase(m, p, f)),
);
const unknownMethodArb: fc.Arbitrary<RequestCase> = fc
  .tuple(
    fc.oneof(fc.constantFrom(...TRICKY_METHODS), fc.string(), fc.string({ unit: 'binary', maxLength: 20 }), hugeString),
    garbageArb,
    formArb,
  )
  .filter(([m]) => !Object.hasOwn(WALLET_METHODS, m))
  .map(([m, p, f]) => requestCase(m, p, f));
/** `request(x)` where x is not `{ method: string, … }`. */
const badRequestArb: fc.Arbitrary<RequestCase> = fc
  .oneof(
    garbageArb.filter((v) => typeof (v as { method?: unknown } | null | undefined)?.method !== 'string'),
    fc.tuple(fc.oneof(exoticValue, oddNumber), garbageArb).map(([method, params]) => ({ method, params })),
    fc.constant({ params: { message: 'hi' } }),
    pollutionArb,
  )
  .map((request) => {
    const c = makeCase({ args: request, expect: 'invalid', note: 'not { method: string }' });
    return Object.assign(c, { request, expectedError: 20003 });
  });
