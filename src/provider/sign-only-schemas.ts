/**
 * The arguments of the mina-js (Pallad) methods: `signTransaction` (a payment, a delegation or a zkApp command, signed
 * and returned, not broadcast), `sendTransaction` of an already signed one, and `getBalance`. Amounts and fees are
 * nanomina here, as mina-js and mina-signer take them (Auro's `sendPayment` takes MINA). Shapes: mina-js
 * `packages/utils/src/validation.ts` (`TransactionPayloadSchema`, `ZkAppCommandPayload`, `TypedSendableSchema`).
 */
import { z } from 'zod';
import { jsonObject, minaAddress, optionalMemo, optionalNonce } from './schemas.js';

const UINT64_MAX = 2n ** 64n - 1n;

/** nanomina as mina-js sends it: decimal text or an integral number (`z.coerce.string()` upstream). */
const nanomina = z.union([z.string().max(24), z.number()]).transform((value, ctx) => {
  const text = typeof value === 'number' ? (Number.isSafeInteger(value) ? String(value) : '') : value.trim();
  if (!/^\d{1,20}$/.test(text) || BigInt(text) > UINT64_MAX) {
    ctx.addIssue({ code: 'custom', message: 'must be an amount in nanomina: a non-negative integer or its decimal text' });
    return z.NEVER;
  }
  return BigInt(text);
});

/** A global slot (uint32), as decimal text or a number. */
const slot = z
  .union([z.string().regex(/^\d{1,10}$/, 'must be a global slot (decimal)'), z.number().int().min(0)])
  .transform(Number)
  .pipe(z.number().max(0xffffffff, 'must be a global slot (uint32)'));

/** mina-js's `TransactionBody`: a payment when it has `amount`, else a stake delegation to `to`. */
const transactionBody = z.object({
  from: minaAddress,
  to: minaAddress,
  fee: nanomina,
  nonce: optionalNonce,
  memo: optionalMemo,
  validUntil: slot.optional(),
  amount: nanomina.optional(),
});

/**
 * mina-js's `ZkAppCommandPayload.command`: the command (o1js `toJSON()`) and who pays, with what fee (nanomina), nonce
 * and memo. mina-js names the payer `feePayer`; Pallad's test dapp sends `publicKey`.
 */
const zkappCommandBody = z.object({
  zkappCommand: jsonObject('transaction'),
  feePayer: z
    .object({
      feePayer: z.string().max(64).optional(),
      publicKey: z.string().max(64).optional(),
      fee: nanomina.optional(),
      nonce: optionalNonce,
      memo: optionalMemo,
    })
    .optional(),
});

/** `signTransaction({ transaction })` or `signTransaction({ command })` (mina-js's `[payload]` is read as `payload`). */
export const signTransactionParams = z
  .object({ transaction: transactionBody.optional(), command: zkappCommandBody.optional() })
  .superRefine((value, ctx) => {
    if ((value.transaction === undefined) === (value.command === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['transaction'],
        message: 'give either { transaction } (a payment or delegation) or { command } (a zkApp command)',
      });
    }
  });

const signature = z.object({ field: z.string().regex(/^\d{1,80}$/), scalar: z.string().regex(/^\d{1,80}$/) });
const transactionType = z.enum(['payment', 'delegation', 'zkapp']);

/**
 * A signed transaction to broadcast, normalised from the two shapes dapps send: mina-js's `Sendable`
 * (`{ input, signature? }`, Pallad's test dapp) and `signTransaction`'s result (`{ data, signature, publicKey }`,
 * TileVille).
 */
const signedTransaction = z
  .object({
    input: z.unknown().optional(),
    data: z.unknown().optional(),
    signature: z.union([signature, z.string().max(256)]).optional(),
    publicKey: z.string().max(64).optional(),
  })
  .transform((value) => ({ data: value.data ?? value.input, signature: value.signature }));

/** `sendTransaction({ signedTransaction, transactionType })`; mina-js's `[sendable, type]` is read as that object. */
export const sendSignedTransactionParams = z.object({ signedTransaction, transactionType });

/** The legacy body of a signed payment or delegation, as the node's `SendPaymentInput` / `SendDelegationInput` take it. */
export const legacyInput = z.object({
  from: minaAddress,
  to: minaAddress,
  fee: nanomina,
  nonce: nanomina,
  memo: z.string().max(64).optional(),
  validUntil: nanomina.optional(),
  amount: nanomina.optional(),
});
