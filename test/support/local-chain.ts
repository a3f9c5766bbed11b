/** An o1js LocalBlockchain (through the library's createLocalChain) with account 0 funded, for the zkApp tests. */
import { createLocalChain, type LocalChain } from '../../src/zkapp/local-chain.js';
import { addressOf } from './vectors.js';

/** A fresh local chain where account 0 of the vectors holds `nanomina` (default 100 MINA). */
export async function fundedLocalChain(nanomina = 100_000_000_000n): Promise<LocalChain> {
  const chain = await createLocalChain();
  await chain.fund(addressOf(0), nanomina);
  return chain;
}
