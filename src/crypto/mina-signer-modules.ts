/**
 * What both mina-signer loaders share (mina-signer-internals.ts for Node, mina-signer-internals.browser.ts for
 * bundles): the unexported files used, and how they make one `MinaSignerInternals`. Kept apart from both loaders
 * because the Vite plugin swaps one loader for the other.
 */
import type { MinaSignerInternals } from './mina-signer-internals.js';

/** The files, relative to mina-signer's `dist/node/mina-signer/`, in the order `assemble` takes their modules. */
export const INTERNAL_FILES = [
  'src/sign-zkapp-command.js',
  'src/signature.js',
  '../bindings/mina-transaction/gen/v1/transaction-bigint.js',
  'src/memo.js',
  'src/curve-bigint.js',
  '../bindings/mina-transaction/gen/v1/js-layout.js',
  'src/poseidon-bigint.js',
  'src/field-bigint.js',
  '../bindings/lib/binable.js',
] as const;

/** The modules of INTERNAL_FILES, in that order, as one object. */
export function assemble(modules: readonly unknown[]): MinaSignerInternals {
  // biome-ignore lint/suspicious/noExplicitAny: mina-signer's internal files ship no types; MinaSignerInternals states the shape used.
  const [zkapp, signature, transaction, memo, curve, layout, poseidon, field, binable] = modules as any[];
  return {
    ZkappCommand: transaction.ZkappCommand,
    zkappCommandLayout: layout.jsLayout.ZkappCommand,
    transactionCommitments: zkapp.transactionCommitments,
    verifyZkappCommandSignature: zkapp.verifyZkappCommandSignature,
    signFieldElement: signature.signFieldElement,
    sign: signature.sign,
    verify: signature.verify,
    verifyFieldElement: signature.verifyFieldElement,
    PublicKey: curve.PublicKey,
    Memo: memo.Memo,
    signLegacy: signature.signLegacy,
    HashInputLegacy: poseidon.HashInputLegacy,
    UInt64: field.UInt64,
    UInt32: field.UInt32,
    bytesToBits: binable.bytesToBits,
  };
}
