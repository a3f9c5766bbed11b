/**
 * sendTransaction's arguments in the bad-input properties: the committed zkApp command (and its twin without a fee of
 * its own), the values of each option by verdict (what dapps send for "not given", what is read, what is refused),
 * and `sendTransactionGarbageArgs`, arguments invalid by construction, which `request`'s property draws too.
 */
import fc from 'fast-check';
import { deepTextArb, garbageArb, HUGE, hugeString } from '../odd-values.js';
import { berkeleyCommand } from '../zkapp.js';

export const fixture = berkeleyCommand() as unknown as Record<string, unknown>;
/** The same command with no fee of its own (0): then `feePayer.fee` is read (Auro's order), else the default fee. */
export const zeroFeeFixture = (() => {
  const command = structuredClone(fixture) as { feePayer: { body: { fee: string } } };
  command.feePayer.body.fee = '0';
  return command as unknown as Record<string, unknown>;
})();

export const BAD_ONLY_SIGN: unknown[] = ['true', 'false', 1, 0, null, [], {}, 'yes', NaN, [true]];
export const BAD_NONCES: unknown[] = [
  -1,
  1.5,
  Infinity,
  -Infinity,
  2 ** 32,
  '4294967296',
  '1e3',
  ' 1',
  '-0',
  '0x1',
  '12345678901',
  2 ** 53 + 2,
  true,
  false,
  [],
  {},
  '1.0',
  '+1',
  1n,
  '١',
];
/** What dapps send for an optional value left empty: "not given" (Auro's test dapp: parseInt(''), parseFloat('')). */
export const EMPTY_VALUES: unknown[] = [null, '', NaN];
export const GOOD_NONCES: [unknown, string][] = [
  [0, '0'],
  [1, '1'],
  ['0', '0'],
  ['7', '7'],
  ['01', '1'],
  ['0000000001', '1'],
  [4294967295, '4294967295'],
  ['4294967295', '4294967295'],
  [-0, '0'],
];
export const BAD_FEES: unknown[] = [
  -1,
  '-1',
  '1e3',
  Infinity,
  'abc',
  true,
  [],
  {},
  '1,5',
  '.5',
  '1.',
  '+1',
  '0x1',
  '-0',
  '1e21',
  1e21,
  1n,
  '１',
];
/** Zero is "not given" too, as Auro reads a zero fee, and so is what rounds to 0 nanomina at 9 decimals. */
export const EMPTY_FEES: unknown[] = [...EMPTY_VALUES, 0, '0', -0, '0.0000000001', 1e-10, 5e-324];
/** Above the 10 MINA cap: refused when chosen (a command without a fee of its own), ignored beside the command's own fee. */
export const IGNORED_FEES: unknown[] = [11, '10.000000001', 2 ** 53 + 2];
export const GOOD_FEES: [unknown, string][] = [
  [0.1, '100000000'],
  ['0.1', '100000000'],
  [1, '1000000000'],
  ['1', '1000000000'],
  ['0.000000001', '1'],
  [1e-9, '1'],
  ['10', '10000000000'],
  [10, '10000000000'],
  ['9.999999999', '9999999999'],
  [1e-7, '100'],
  ['0.2', '200000000'],
];
// A memo with a control character (a NUL would cut it on the Ledger's screen) or a lone surrogate (no UTF-8 form)
// cannot be shown as signed: refused (provider.md, "Arguments").
export const BAD_MEMOS: unknown[] = [
  'a'.repeat(33),
  'é'.repeat(17),
  '😀'.repeat(9),
  5,
  true,
  [],
  {},
  'x'.repeat(HUGE),
  '\ud800',
  'tab\there',
  'nul\u0000',
];
export const GOOD_MEMOS: string[] = ['', 'hi', 'a'.repeat(32), 'é'.repeat(16), '😀'.repeat(8), 'caf\u00e9 \u2603'];
export const BAD_FEE_PAYERS: unknown[] = [5, 'x', true, [], [{}], 'fee'];
/** What a memo becomes once encoded (a lone surrogate is not UTF-8). */
export const wellFormed = (memo: string) => new TextDecoder().decode(new TextEncoder().encode(memo));
export const FIXTURE_MEMO = 'chain-ledger transcript';

const invalidTransactionArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: garbageArb },
  { weight: 1, arbitrary: hugeString },
  { weight: 1, arbitrary: deepTextArb },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '{nope',
      '[]',
      'null',
      '1',
      '"x"',
      '{}',
      'true',
      ' ',
      '{"feePayer":{}}',
      '{"feePayer":{"body":null}}',
      '{"feePayer":{"body":{"publicKey":"B62"}}}',
    ),
  },
  {
    weight: 2,
    arbitrary: fc.nat().map((n) => {
      const text = JSON.stringify(fixture);
      return text.slice(0, n % text.length);
    }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      `${JSON.stringify(fixture)}x`,
      `x${JSON.stringify(fixture)}`,
      JSON.stringify([fixture]),
      JSON.stringify(fixture) + ' '.repeat(4 * 1024 * 1024),
    ),
  },
  { weight: 1, arbitrary: fc.constant([fixture]) },
);
const invalidOptionArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.constantFrom(...BAD_ONLY_SIGN).map((onlySign) => ({ onlySign })),
  fc.constantFrom(...BAD_NONCES).map((nonce) => ({ nonce })),
  fc.constantFrom(...BAD_FEE_PAYERS).map((feePayer) => ({ feePayer })),
  // feePayer.fee is read only when the command has no fee of its own (Auro's order).
  fc.constantFrom(...BAD_FEES, ...IGNORED_FEES).map((fee) => ({ transaction: structuredClone(zeroFeeFixture), feePayer: { fee } })),
  fc.constantFrom(...BAD_MEMOS).map((memo) => ({ feePayer: { memo } })),
  fc.tuple(fc.constantFrom(...BAD_MEMOS), fc.constantFrom(...GOOD_FEES)).map(([memo, [fee]]) => ({ feePayer: { fee, memo } })),
);
export const sendTransactionGarbageArgs: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: garbageArb },
  { weight: 3, arbitrary: invalidTransactionArb.map((transaction) => ({ transaction, onlySign: true })) },
  { weight: 3, arbitrary: invalidOptionArb.map((option) => ({ transaction: structuredClone(fixture), onlySign: true, ...option })) },
);
