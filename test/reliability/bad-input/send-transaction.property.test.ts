/**
 * Bad input for sendTransaction, property-based: arguments invalid by construction, one-leaf mutations of the
 * committed zkApp command (its boolean leaves apart, keys added apart), and mutations of onlySign, nonce and feePayer
 * around a valid command, each judged against the oracle below (what every call must do:
 * test/support/bad-input/rig.ts; the values by verdict: test/support/bad-input/send-transaction.ts).
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { signatureFromBase58 } from '../../../src/apdu/signature.js';
import type { Era } from '../../../src/upstream/mina-signer-internals.js';
import { DEFAULT_BASE_FEE, DEFAULT_FEE_PER_ACCOUNT_UPDATE } from '../../../src/zkapp/send-transaction.js';
import { ADDRESS, type Case, addressArb, badInputRig, fail, made, makeCase, run } from '../../support/bad-input/rig.js';
import {
  BAD_FEE_PAYERS,
  BAD_FEES,
  BAD_MEMOS,
  BAD_NONCES,
  BAD_ONLY_SIGN,
  EMPTY_FEES,
  EMPTY_VALUES,
  FIXTURE_MEMO,
  GOOD_FEES,
  GOOD_MEMOS,
  GOOD_NONCES,
  IGNORED_FEES,
  fixture,
  sendTransactionGarbageArgs,
  wellFormed,
  zeroFeeFixture,
} from '../../support/bad-input/send-transaction.js';
import { type Key, defineOwn, describeValue, isObject, stableStringify } from '../../support/json-values.js';
import { P } from '../../support/odd-values.js';
import { fuzzRuns, fuzzTimeout } from '../../support/runs.js';
import { type Mutation, type MutationOp, mutate, mutationArb, replacementArb } from '../../support/value-mutations.js';

badInputRig();

// The tests come first; the oracle and the arguments they draw follow them, at the end of the file.

describe('bad input never escapes as anything but a documented ProviderError, and never reaches the device', () => {
  it(
    `sendTransaction: ${RUNS.sendTransactionGarbage} arguments invalid by construction → 20003, nothing sent`,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          sendTransactionGarbageArgs.map((args) => makeCase({ args, expect: 'invalid', note: 'invalid by construction' })),
          (c) => run('sendTransaction (invalid)', c, () => made.chain.sendTransaction(c.args as never)),
        ),
        { numRuns: RUNS.sendTransactionGarbage },
      );
    },
    fuzzTimeout(300_000),
  );

  it(
    `sendTransaction: ${RUNS.commandLeaves} one-leaf mutations of the committed zkApp command (onlySign), booleans aside`,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          commandMutation(OTHER_OPS).map((m) => commandMutationCase(m, notBooleanLeaf)),
          (c) => run('sendTransaction (command mutations)', c, () => made.chain.sendTransaction(c.args as never)),
        ),
        { numRuns: RUNS.commandLeaves },
      );
    },
    fuzzTimeout(300_000),
  );

  it(
    `sendTransaction: ${RUNS.commandBooleans} mutations of the command's boolean leaves (onlySign)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          commandMutation(['replace', 'tweak', 'wrap', 'stringify', 'delete']).map((m) => commandMutationCase(m, booleanLeaf)),
          (c) => run('sendTransaction (boolean mutations)', c, () => made.chain.sendTransaction(c.args as never)),
        ),
        { numRuns: RUNS.commandBooleans },
      );
    },
    fuzzTimeout(300_000),
  );

  it(
    `sendTransaction: ${RUNS.commandKeys} keys added to the command, prototype-pollution names first → 20003 (onlySign)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          commandMutation(['addKey']).map((m) => commandMutationCase(m, isContainer)),
          (c) => run('sendTransaction (added keys)', c, () => made.chain.sendTransaction(c.args as never)),
        ),
        { numRuns: RUNS.commandKeys },
      );
    },
    fuzzTimeout(300_000),
  );

  it(
    `sendTransaction: ${RUNS.onlySign} values of onlySign around a valid command, no graphqlUrl: only true may reach the device`,
    async () => {
      await fc.assert(
        fc.asyncProperty(onlySignMutation.map(optionMutationCase), (c) =>
          run('sendTransaction (onlySign)', c, () => made.chain.sendTransaction(c.args as never)),
        ),
        { numRuns: RUNS.onlySign },
      );
    },
    fuzzTimeout(300_000),
  );

  it(
    `sendTransaction: ${RUNS.options} mutations of nonce / feePayer / extra keys around a valid command (onlySign)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.tuple(optionMutation, fc.boolean()).map(([m, zeroFee]) => optionMutationCase({ ...m, zeroFee })),
          (c) => run('sendTransaction (option mutations)', c, () => made.chain.sendTransaction(c.args as never)),
        ),
        { numRuns: RUNS.options },
      );
    },
    fuzzTimeout(300_000),
  );
});

/** Runs per property. Valid arguments cost real signing (≈ 190 ms a zkApp command). */
const RUNS = fuzzRuns(
  {
    sendTransactionGarbage: 800,
    commandLeaves: 120,
    commandBooleans: 60,
    commandKeys: 100,
    onlySign: 30,
    options: 60,
  },
  () => 'sendTransaction',
);

const DEFAULT_FEE = String(
  DEFAULT_BASE_FEE + DEFAULT_FEE_PER_ACCOUNT_UPDATE * BigInt((fixture as { accountUpdates: unknown[] }).accountUpdates.length),
);

// ---- checks of results ----

interface SignedExpectations {
  fee?: string;
  nonce?: string;
  memo?: string;
}

/** A signedData result: canonical for its era, every signature of the connected key verifies, at least one. */
function checkSignedCommand(expected: SignedExpectations = {}) {
  return (value: unknown) => {
    const { signedData } = value as { signedData?: unknown };
    if (typeof signedData !== 'string') fail(`sendTransaction returned ${describeValue(value)}`);
    const data = JSON.parse(signedData) as { zkappCommand: any; feePayer: { fee: string; nonce: string; memo: string } };
    const command = data.zkappCommand;
    const aus: any[] = command.accountUpdates;
    const era: Era = aus.length > 0 && aus[0].body.update.appState.length === 8 ? 'berkeley' : 'mesa';
    const lib = made.internals[era];
    const parsed = lib.ZkappCommand.fromJSON(command);
    if (stableStringify(command) !== stableStringify(lib.ZkappCommand.toJSON(parsed))) {
      fail(`sendTransaction signed a command that is not canonical for ${era}: ${describeValue(signedData, 200)}`);
    }
    const { commitment, fullCommitment } = lib.transactionCommitments(parsed, 'devnet');
    const pk = lib.PublicKey.toGroup(lib.PublicKey.fromBase58(ADDRESS));
    const verifies = (base58: unknown, v: bigint) => {
      if (typeof base58 !== 'string') return false;
      const sig = signatureFromBase58(base58);
      return lib.verifyFieldElement({ r: BigInt(sig.field), s: BigInt(sig.scalar) }, v, pk, 'devnet');
    };
    checkLeafTypes(command, fixture);
    let signatures = 0;
    if (command.feePayer.body.publicKey === ADDRESS) {
      if (!verifies(command.feePayer.authorization, fullCommitment)) fail('the fee payer signature does not verify');
      signatures++;
    }
    for (const au of aus) {
      if (au.body.authorizationKind?.isSigned !== true || au.body.publicKey !== ADDRESS) continue;
      if (!verifies(au.authorization.signature, au.body.useFullCommitment ? fullCommitment : commitment))
        fail('an account update signature does not verify');
      signatures++;
    }
    if (signatures === 0) fail('sendTransaction returned a command without a signature of the connected key');
    if (expected.fee !== undefined && data.feePayer.fee !== expected.fee) fail(`fee ${data.feePayer.fee}, expected ${expected.fee}`);
    if (expected.nonce !== undefined && data.feePayer.nonce !== expected.nonce)
      fail(`nonce ${data.feePayer.nonce}, expected ${expected.nonce}`);
    if (expected.memo !== undefined && data.feePayer.memo !== expected.memo)
      fail(`memo ${describeValue(data.feePayer.memo)}, expected ${describeValue(expected.memo)}`);
  };
}

/**
 * The zkApp layout's leaf types, read from the committed fixture (o1js output): where it has a boolean the signed
 * command must have a boolean, a number (callDepth) a number, a string a string or null. An independent check: the
 * era library's round trip passes other types through unchanged.
 */
function checkLeafTypes(given: unknown, reference: unknown): void {
  const stack: [unknown, unknown, string][] = [[given, reference, 'zkappCommand']];
  while (stack.length > 0) {
    const [g, r, path] = stack.pop()!;
    const wrong = (type: string) =>
      fail(`sendTransaction signed a command with ${path} = ${describeValue(g, 60)} where the layout has a ${type}`);
    if (typeof r === 'boolean' && typeof g !== 'boolean') wrong('boolean');
    else if (typeof r === 'number' && typeof g !== 'number') wrong('number');
    else if (typeof r === 'string' && g !== null && typeof g !== 'string') wrong('string');
    else if (Array.isArray(r) && Array.isArray(g))
      for (let i = 0; i < Math.min(r.length, g.length); i++) stack.push([g[i], r[i], `${path}[${i}]`]);
    else if (isObject(r) && isObject(g)) for (const k of Object.keys(r)) stack.push([g[k], r[k], `${path}.${k}`]);
  }
}

// sendTransaction: one mutation of the committed zkApp command (onlySign: true)

const commandValues = replacementArb([addressArb, fc.bigInt({ min: 0n, max: P }).map(String), fc.constant({})]);
type CommandMutation = { mutation: Mutation; text: boolean };
/** Mutations of the command's boolean leaves (isSigned, useFullCommitment, incrementNonce, …). */
const booleanLeaf = (_path: unknown, value: unknown) => typeof value === 'boolean';
/** Everything else: any other leaf or subtree. */
const notBooleanLeaf = (_path: unknown, value: unknown) => typeof value !== 'boolean';
/** Objects and arrays: where a key (or an element) can be added. */
const isContainer = (_path: unknown, value: unknown) => typeof value === 'object' && value !== null;
const commandMutation = (ops: MutationOp[]) => fc.record({ mutation: mutationArb({ ops, values: commandValues }), text: fc.boolean() });
const OTHER_OPS: MutationOp[] = ['replace', 'replace', 'delete', 'tweak', 'tweak', 'tweak', 'wrap', 'stringify'];

function commandMutationCase({ mutation, text }: CommandMutation, where?: (path: Key[], value: unknown) => boolean): Case {
  const m = mutate(fixture, mutation, where);
  let transaction: unknown = m.value;
  let asText = false;
  if (text) {
    try {
      const json = JSON.stringify(m.value);
      if (typeof json === 'string') [transaction, asText] = [json, true];
    } catch {
      // a bigint leaf: keep the object form
    }
  }
  // An added key is unknown to the zkApp layout: refused (docs/provider.md "checked strictly"). The one exception is
  // a "__proto__" at the top level of the object form, which zod's record drops before anything sees it.
  const addedValue = m.addedKey === undefined ? undefined : (getAdded(m.value, m.path, m.addedKey) as unknown);
  const added =
    m.addedKey !== undefined &&
    (asText ? JSON.stringify({ [m.addedKey]: addedValue }) !== '{}' : addedValue !== undefined) &&
    !(!asText && m.path.length === 0 && m.addedKey === '__proto__');
  const note = `${m.description}${asText ? ', as JSON text' : ''}`;
  const args = { transaction, onlySign: true };
  return added
    ? makeCase({ args, expect: 'invalid', note: `unknown key: ${note}` })
    : makeCase({ args, expect: 'either', note, check: checkSignedCommand() });
}

function getAdded(root: unknown, path: readonly (string | number)[], key: string): unknown {
  let v: unknown = root;
  for (const k of path) v = (v as Record<string | number, unknown>)[k];
  return Object.getOwnPropertyDescriptor(v as object, key)?.value;
}

// sendTransaction: one mutation of the options around a valid command

const DELETE = Symbol('delete');
const onlySignMutation = fc.record({
  key: fc.constant('onlySign'),
  value: fc.constantFrom<unknown>(DELETE, false, true, ...BAD_ONLY_SIGN),
});
const optionMutation = fc.oneof(
  fc.record({
    key: fc.constant('nonce'),
    value: fc.oneof(
      fc.constant<unknown>(DELETE),
      fc.constantFrom(...GOOD_NONCES.map(([v]) => v), ...EMPTY_VALUES),
      fc.constantFrom(...BAD_NONCES),
    ),
  }),
  fc.record({
    key: fc.constant('feePayer'),
    value: fc.oneof(
      fc.constant<unknown>(DELETE),
      fc.constantFrom(...BAD_FEE_PAYERS, null),
      fc
        .record({
          fee: fc.constantFrom<unknown>(DELETE, ...GOOD_FEES.map(([v]) => v), ...EMPTY_FEES, ...IGNORED_FEES, ...BAD_FEES),
          memo: fc.constantFrom<unknown>(DELETE, ...GOOD_MEMOS, ...EMPTY_VALUES, ...BAD_MEMOS),
        })
        .map((fp) => {
          const out: Record<string, unknown> = { extra: 'ignored' };
          if (fp.fee !== DELETE) out.fee = fp.fee;
          if (fp.memo !== DELETE) out.memo = fp.memo;
          return out;
        }),
    ),
  }),
  fc.record({ key: fc.constantFrom('extra', '__proto__', 'constructor', 'prototype', 'transactions', 'signal'), value: replacementArb() }),
);

/** `zeroFee`: around the command without a fee of its own, where `feePayer.fee` is read (else it is ignored). */
function optionMutationCase({ key, value, zeroFee = false }: { key: string; value: unknown; zeroFee?: boolean }): Case {
  const args: Record<string, unknown> = {
    transaction: structuredClone(zeroFee ? zeroFeeFixture : fixture),
    onlySign: true,
    nonce: '7',
    feePayer: { fee: '0.2', memo: 'hi' },
  };
  if (value === DELETE) delete args[key];
  else defineOwn(args, key, value);
  // The oracle.
  const onlySign = args.onlySign;
  const isEmpty = (v: unknown) => EMPTY_VALUES.some((e) => Object.is(e, v)) || v === undefined;
  const nonce = !('nonce' in args) || isEmpty(args.nonce) ? [undefined, '0'] : GOOD_NONCES.find(([v]) => Object.is(v, args.nonce));
  const feePayer = args.feePayer;
  // Auro's order: the fixture's own fee (0.1 MINA) is signed and feePayer.fee ignored, whatever it is; without a fee
  // of its own, feePayer.fee (MINA) is read, an empty one means the default, and what is read must be a fee ≤ 10 MINA.
  let fee = zeroFee ? DEFAULT_FEE : '100000000';
  let memo: string | undefined = FIXTURE_MEMO;
  let feePayerOk = true;
  if (feePayer !== undefined && feePayer !== null) {
    if (!isObject(feePayer)) feePayerOk = false;
    else {
      let feeOk = true;
      if (zeroFee && 'fee' in feePayer && !EMPTY_FEES.some((v) => Object.is(v, feePayer.fee))) {
        const good = GOOD_FEES.find(([v]) => Object.is(v, feePayer.fee));
        feeOk = good !== undefined;
        if (good) fee = good[1];
      }
      // An empty memo ('' or null) keeps the command's own memo.
      if ('memo' in feePayer && !isEmpty(feePayer.memo)) {
        memo = typeof feePayer.memo === 'string' && GOOD_MEMOS.includes(feePayer.memo) ? wellFormed(feePayer.memo) : undefined;
      }
      feePayerOk = feeOk && memo !== undefined;
    }
  }
  const valid = onlySign === true && nonce !== undefined && feePayerOk;
  const note = `${key} ${value === DELETE ? 'deleted' : `= ${describeValue(value, 60)}`}`;
  if (!valid) return makeCase({ args, expect: 'invalid', note });
  return makeCase({ args, expect: 'valid', note, check: checkSignedCommand({ fee, nonce: nonce[1], memo }) });
}
