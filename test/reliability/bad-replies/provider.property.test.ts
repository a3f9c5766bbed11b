/**
 * Bad replies to the provider, property-based: with INS 05 / INS 06 / 0xA2 replies of the software Ledger corrupted
 * (test/support/reply-mutations.ts: random bytes, bit flips, truncation, extension, a byte replaced, a wrong status
 * word), signMessage, sendTransaction (onlySign) and createNullifier never return anything that fails host
 * verification; they reject with the ProviderError the corruption calls for (the status word's mapping, else 22001),
 * and with genuine replies they succeed. The client under the same replies: client.property.test.ts.
 */
import fc from 'fast-check';
import Client from 'mina-signer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApduTransport } from '../../../src/apdu.js';
import { PALLAS_P } from '../../../src/apdu/constants.js';
import { createLedgerProvider, ERROR_MESSAGES, type LedgerProvider } from '../../../src/index.js';
import { loadO1js } from '../../../src/upstream/o1js.js';
import { describeValue } from '../../support/json-values.js';
import {
  type ReplyMutation,
  type Seen,
  apduOf,
  applyMutation,
  replyMutationArb,
  sameSeen,
  statusError,
} from '../../support/reply-mutations.js';
import { quietLedger } from '../../support/rig.js';
import { runs } from '../../support/runs.js';
import { settle } from '../../support/settle.js';
import { statusClass } from '../../support/status-words.js';
import { addressOf } from '../../support/vectors.js';
import { berkeleyCommand, manyUpdates, verifySigned } from '../../support/zkapp.js';

// The tests come first; the constants they use follow them, at the end of the file.

describe('provider: corrupted INS 05 / INS 06 / 0xA2 replies never yield an unverified signature or nullifier', () => {
  // Extension 1.0: zkApp commands through INS 06 (in clear, SIGN_ZKAPP replies: test/extension/clear-signing.test.ts).
  const pLedger = quietLedger({ extensions: '1.0', blindSigning: true });
  const CORRUPTIBLE = new Set([0x05, 0x06, 0xa2]);
  /** The mutations of the current call, by index among its corruptible exchanges; null: pass everything through. */
  let current: Map<number, ReplyMutation> | null = null;
  let corruptible = 0;
  let firstAltered: Seen | undefined;
  const transport: ApduTransport = {
    async send(cla, ins, p1, p2, data = new Uint8Array(0)) {
      const genuine = await pLedger.exchange(apduOf(cla, ins, p1, p2, data));
      if (!current || !CORRUPTIBLE.has(ins)) return genuine;
      const s = applyMutation(genuine, current.get(corruptible++) ?? { kind: 'genuine' });
      if (!sameSeen(s, genuine)) firstAltered ??= s;
      if ('thrown' in s) throw statusError(s.thrown);
      return s.bytes;
    },
  };
  let chain: LedgerProvider;
  let o1js: Awaited<ReturnType<typeof loadO1js>>;

  beforeAll(async () => {
    o1js = await loadO1js();
    // Blind signing without a host review: the integrator's opt-in (what is tested is the check of each reply).
    chain = createLedgerProvider({ transport, network: 'devnet', origin: 'https://dapp.example', allowUnreviewedBlindSigning: true });
    expect(await chain.requestAccounts()).toEqual([ADDRESS]);
  }, 60_000);

  /** The provider's code for the first altered reply (docs/provider.md, errors). */
  function expectedCode(s: Seen): number {
    const sw = 'thrown' in s ? s.thrown : s.bytes.length < 2 ? 0x9000 : (s.bytes[s.bytes.length - 2]! << 8) | s.bytes[s.bytes.length - 1]!;
    if (sw === 0x9000) return 22001; // a malformed or wrong answer: never blamed on the user or the dapp
    const name = statusClass(sw);
    if (name === 'LedgerUserRejectedError') return 1002;
    if (name === 'LedgerDeviceLockedError' || name === 'LedgerAppNotOpenError') return 1001;
    if (name === 'LedgerUnsupportedInstructionError') return 20006;
    if (name === 'LedgerInvalidDataError') return 20003;
    return 22001;
  }

  type Call = { name: string; run: () => Promise<unknown>; verify: (v: unknown) => boolean | Promise<boolean> };
  const printable = fc
    .string({ unit: fc.constantFrom(...[...Array(95)].map((_, i) => String.fromCharCode(0x20 + i))), minLength: 1, maxLength: 65 })
    .filter((m) => !m.toLowerCase().includes('chain-ledger credential store'));
  const callArb: fc.Arbitrary<Call> = fc.oneof(
    printable.map((message) => ({
      name: `signMessage(${JSON.stringify(message)})`,
      run: () => chain.signMessage({ message }),
      verify: (v: unknown) => {
        const r = v as { publicKey: string; data: string; signature: { field: string; scalar: string } };
        return r.publicKey === ADDRESS && r.data === `Message : ${message}` && testnet.verifyMessage(r);
      },
    })),
    fc.constantFrom(0, 3).map((partial) => ({
      name: partial ? 'sendTransaction(3 updates, 1 partial: two INS 06)' : 'sendTransaction(the committed command)',
      run: () => chain.sendTransaction({ transaction: partial ? manyUpdates(berkeleyCommand(), 3, 1) : berkeleyCommand(), onlySign: true }),
      verify: (v: unknown) => verifySigned('berkeley', 'devnet', (v as { signedData: string }).signedData, ADDRESS),
    })),
    fc
      .array(fc.oneof(fc.bigInt({ min: 0n, max: PALLAS_P - 1n }).map(String), fc.maxSafeNat()), { minLength: 1, maxLength: 9 })
      .map((message) => ({
        name: `createNullifier(${message.length} fields)`,
        run: () => chain.createNullifier({ message }),
        verify: (v: unknown) => {
          const r = v as { publicKey: unknown; public: unknown; private: unknown; data: unknown[] };
          if (JSON.stringify(r.data) !== JSON.stringify(message)) return false;
          try {
            o1js.Nullifier.fromJSON({ publicKey: r.publicKey, public: r.public, private: r.private } as never).verify(
              message.map((m) => o1js.Field(BigInt(m))),
            );
            return true;
          } catch {
            return false;
          }
        },
      })),
  );
  const planArb = fc.oneof(
    { weight: 1, arbitrary: fc.constant([] as { at: number; mutation: ReplyMutation }[]) },
    // Index among the call's corruptible exchanges: 0 is the only one of signMessage and of a short nullifier.
    {
      weight: 5,
      arbitrary: fc.array(
        fc.record({
          at: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat({ max: 2 }) }),
          mutation: replyMutationArb,
        }),
        { minLength: 1, maxLength: 2 },
      ),
    },
  );

  it(`${RUNS.provider} calls with corrupted replies: a verified result, or the ProviderError the corruption calls for`, async () => {
    await fc.assert(
      fc.asyncProperty(callArb, planArb, async (call, plan) => {
        current = new Map(plan.map(({ at, mutation }) => [at, mutation]));
        corruptible = 0;
        firstAltered = undefined;
        let settled: Awaited<ReturnType<typeof settle>>;
        try {
          settled = await settle(call.run, () => 0, CALL_TIMEOUT_MS);
        } finally {
          current = null;
        }
        providerStats.runs++;
        const where = `${call.name}, mutations ${describeValue(plan)}`;
        if (settled.ok) {
          if (!(await call.verify(settled.value)))
            throw new Error(`${where}: returned a result that does not verify: ${describeValue(settled.value)}`);
          providerStats.results++;
          return;
        }
        const e = settled.error as { name?: unknown; code?: unknown; message?: unknown; data?: { reason?: string } };
        if (
          e?.name !== 'ProviderError' ||
          typeof e.code !== 'number' ||
          ERROR_MESSAGES[e.code as keyof typeof ERROR_MESSAGES] !== e.message
        ) {
          throw new Error(`${where}: rejected with something other than a ProviderError: ${describeValue(settled.error)}`);
        }
        providerStats.refused.set(e.code, (providerStats.refused.get(e.code) ?? 0) + 1);
        if (!firstAltered) throw new Error(`${where}: genuine replies, yet ${e.code} (${e.data?.reason})`);
        expect(e.code, `${where}: ${e.data?.reason}`).toBe(expectedCode(firstAltered));
      }),
      { numRuns: RUNS.provider },
    );
    // Still works with genuine replies afterwards.
    expect((await chain.signMessage({ message: 'after' })).data).toBe('Message : after');
  }, 300_000);
});

// ---- constants used above (module code: it runs before vitest collects the tests) ----

const ADDRESS = addressOf(0);
const testnet = new Client({ network: 'testnet' });
const CALL_TIMEOUT_MS = 20_000;

/** Full counts in CI (CHAIN_LEDGER_FULL_RUNS=1), fewer by default (test/support/runs.ts). */
const RUNS = { provider: runs(250, 100) };

const providerStats = { runs: 0, results: 0, refused: new Map<number, number>() };

afterAll(() => {
  console.log(
    `bad-replies: provider ${providerStats.runs} calls (${providerStats.results} verified results, refusals: ` +
      `${[...providerStats.refused].map(([k, n]) => `${k} × ${n}`).join(', ')})`,
  );
});
