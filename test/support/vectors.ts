/**
 * The APDU vectors of the Mina app v1.6.0 (from shared/vectors; a copy lives in test/fixtures so the repository
 * stands alone, and .ci/run checks the copy still equals the shared file).
 */
import { readFileSync } from 'node:fs';
import type { PaymentOrDelegation } from '../../src/apdu.js';

export interface VectorExchange {
  name: string;
  ins: 'GET_VERSION' | 'GET_ADDRESS' | 'SIGN_TX' | 'SIGN_MSG' | 'SIGN_FIELD_ELEMENT' | 'UNKNOWN';
  params: Record<string, any>;
  userAction: string;
  request: string;
  reply: string;
  signature?: { field: string; scalar: string; base58: string; rawHex: string };
  result: { statusWord: string; [key: string]: unknown };
  source: string;
}

export interface Vectors {
  app: { name: string; version: string };
  mnemonic: string;
  accounts: { account: number; path: string; address: string; privateKeyHex: string; privateKeyBase58: string }[];
  exchanges: VectorExchange[];
}

export const vectors: Vectors = JSON.parse(readFileSync(new URL('../fixtures/mina-ledger-app.json', import.meta.url), 'utf8'));

export function exchange(name: string): VectorExchange {
  const found = vectors.exchanges.find((e) => e.name === name);
  if (!found) throw new Error(`no vector ${name}`);
  return found;
}

export const addressOf = (account: number) => vectors.accounts.find((a) => a.account === account)!.address;
export const keyOf = (account: number) => vectors.accounts.find((a) => a.account === account)!.privateKeyBase58;

/** A RecordStore transcript of the named exchanges, in order. */
export function transcript(...names: string[]): string {
  return names.map((n) => `=> ${exchange(n).request}\n<= ${exchange(n).reply}\n`).join('');
}

/** The client's transaction argument for a SIGN_TX vector (optionally on another network). */
export function txOf(e: VectorExchange, networkId: 0 | 1 = e.params.networkId): PaymentOrDelegation {
  const p = e.params;
  return {
    txType: p.txType,
    account: p.account,
    from: p.from,
    to: p.to,
    amount: BigInt(p.amount),
    fee: BigInt(p.fee),
    nonce: p.nonce,
    validUntil: p.validUntil,
    memo: p.memo,
    networkId,
  };
}

/**
 * A well-formed address that is no key: right checksum, version, x < p (x = 0) and parity byte, but x³ + 5 has no
 * square root, so no point of the curve has it. It is also o1js's empty key, the fee payer placeholder.
 */
export const NOT_A_CURVE_POINT = 'B62qiTKpEPjGTSHZrtM8uXiKgn8So916pLmNJKDhKeyBQL9TDb3nvBG';
