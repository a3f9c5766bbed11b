/**
 * mina-signer's internal modules, loaded by path next to the package's entry point (the package exports only
 * `Client`). Two copies are installed, one per protocol era, both pinned to exact versions in package.json so the
 * paths cannot move under us:
 *
 * - `mina-signer-berkeley` = mina-signer 3.1.0, the Berkeley transaction layout (8 app-state fields), as o1js 2.x;
 * - `mina-signer` = mina-signer 4.0.0, the Mesa layout (32 app-state fields).
 *
 * The layouts differ silently (no library checks array lengths), so every caller must choose the era explicitly.
 * Node only: browser bundles get mina-signer-internals.browser.ts instead, through the Vite plugin `chain-ledger/vite`
 * (src/vite.ts, docs/development.md "Browser bundles"); keep the two loaders in step.
 */
import { INTERNAL_FILES, assemble } from './mina-signer-modules.js';

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
  PublicKey: { fromBase58(address: string): { x: bigint; isOdd: boolean }; toGroup(pk: { x: bigint; isOdd: boolean }): GroupPoint };
  Memo: {
    fromString(text: string): string;
    toBase58(memo: string): string;
    fromBase58(base58: string): string;
    toString(memo: string): string;
  };
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

export const ERA_PACKAGES: Record<Era, string> = { berkeley: 'mina-signer-berkeley', mesa: 'mina-signer' };

const loaded = new Map<Era, Promise<MinaSignerInternals>>();

export function minaSignerInternals(era: Era): Promise<MinaSignerInternals> {
  let internals = loaded.get(era);
  if (!internals) {
    internals = load(ERA_PACKAGES[era]);
    loaded.set(era, internals);
    internals.catch(() => loaded.delete(era));
  }
  return internals;
}

async function load(pkg: string): Promise<MinaSignerInternals> {
  const [{ createRequire }, { pathToFileURL }, { dirname, join }] = await Promise.all([
    import('node:module'),
    import('node:url'),
    import('node:path'),
  ]);
  const dir = dirname(createRequire(import.meta.url).resolve(pkg));
  return assemble(await Promise.all(INTERNAL_FILES.map((file) => import(pathToFileURL(join(dir, file)).href))));
}
