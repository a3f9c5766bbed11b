/**
 * What both mina-signer loaders share (mina-signer-internals.ts for Node, mina-signer-internals.browser.ts for
 * bundles): the unexported files used, and how they make one `MinaSignerInternals`. Kept apart from both loaders
 * because the Vite plugin swaps one loader for the other; the types both loaders export are declared here, below
 * both, so that no module imports one that imports it back.
 */

export type Era = 'berkeley' | 'mesa';
/** mina-signer's network ids: 'testnet' and 'devnet' give identical results. */
export type SignerNetwork = 'mainnet' | 'testnet' | 'devnet';

export interface RawSignature {
  r: bigint;
  s: bigint;
}
export interface GroupPoint {
  x: bigint;
  y: bigint;
}

/** A node of mina-signer's generated transaction layout (bindings/mina-transaction/gen/v1/js-layout.js). */
export interface Layout {
  type: string;
  keys?: string[];
  entries?: Record<string, Layout>;
  inner?: Layout;
  staticLength?: number | null;
  optionType?: 'flaggedOption' | 'closedInterval' | 'orUndefined';
}

export interface MinaSignerInternals {
  ZkappCommand: { fromJSON(json: unknown): unknown; toJSON(value: unknown): unknown };
  /** The JSON layout of a zkApp command in this era (app-state arrays of 8 or 32). */
  zkappCommandLayout: Layout;
  transactionCommitments(command: unknown, network: SignerNetwork): { commitment: bigint; fullCommitment: bigint };
  verifyZkappCommandSignature(json: unknown, publicKey: string, network: SignerNetwork, feePayerPublicKey?: string): boolean;
  signFieldElement(message: bigint, privateKey: bigint, network: SignerNetwork): RawSignature;
  /** Schnorr over a list of fields (what o1js `Signature.create` does with the testnet prefix). */
  sign(message: { fields: bigint[] }, privateKey: bigint, network: SignerNetwork): RawSignature;
  verify(signature: RawSignature, message: { fields: bigint[] }, publicKey: GroupPoint, network: SignerNetwork): boolean;
  verifyFieldElement(signature: RawSignature, message: bigint, publicKey: GroupPoint, network: SignerNetwork): boolean;
  PublicKey: {
    fromBase58(address: string): { x: bigint; isOdd: boolean };
    toBase58(pk: { x: bigint; isOdd: boolean }): string;
    toGroup(pk: { x: bigint; isOdd: boolean }): GroupPoint;
  };
  Memo: {
    fromString(text: string): string;
    toBase58(memo: string): string;
    fromBase58(base58: string): string;
    toString(memo: string): string;
    /** The memo's 34 bytes (0x01 ‖ length ‖ 32 bytes). */
    toBytes(memo: string): number[] | Uint8Array;
    fromBytes(bytes: number[]): string;
  };
  /** mina-signer's bigint account update (bindings/mina-transaction/gen/v1/transaction-bigint.js). */
  AccountUpdate: {
    empty(): { body: Record<string, unknown>; authorization: Record<string, unknown> };
    fromJSON(json: unknown): { body: Record<string, unknown>; authorization: Record<string, unknown> };
    toInput(update: unknown): { fields?: bigint[]; packed?: [bigint, number][] };
  };
  /** The JSON layout of an account update in this era. */
  accountUpdateLayout: Layout;
  /** A zkApp URI's `{ data, hash }` from its text (the protocol's URI hash). */
  ZkappUri: { fromJSON(text: string): { data: string; hash: bigint } };
  /** A token symbol's `{ symbol, field }` from its text (≤ 6 bytes). */
  TokenSymbol: { fromJSON(text: string): { symbol: string; field: bigint } };
  /** Token ids as base58 (the JSON form), and the default token (MINA). */
  TokenId: { toJSON(id: bigint): string; empty(): bigint };
  /** Random_oracle_input.Chunked.pack_to_fields: the fields Poseidon absorbs for a hash input. */
  packToFields(input: { fields?: bigint[]; packed?: [bigint, number][] }): bigint[];
  /** The legacy Schnorr signature of payments, delegations and strings (mina-signer sign-legacy.js). */
  signLegacy(message: LegacyHashInput, privateKey: bigint, network: SignerNetwork): RawSignature;
  HashInputLegacy: {
    bits(bits: boolean[]): LegacyHashInput;
    append(a: LegacyHashInput, b: LegacyHashInput): LegacyHashInput;
  };
  UInt64: { toBits(value: bigint): boolean[] };
  UInt32: { toBits(value: bigint): boolean[] };
  /** Bytes to bits, least significant bit of each byte first (bindings/lib/binable.js). */
  bytesToBits(bytes: number[]): boolean[];
}

/** mina-signer's legacy hash input: field elements and bits, packed by `signLegacy`. */
export interface LegacyHashInput {
  fields: bigint[];
  bits: boolean[];
}

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
    AccountUpdate: transaction.AccountUpdate,
    accountUpdateLayout: layout.jsLayout.AccountUpdate,
    ZkappUri: transaction.ZkappUri,
    TokenSymbol: transaction.TokenSymbol,
    TokenId: transaction.TokenId,
    packToFields: poseidon.packToFields,
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
