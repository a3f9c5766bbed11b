/** An o1js LocalBlockchain (through the library's createLocalChain) with account 0 funded, for the zkApp tests. */
import { AccountUpdate, Mina, PrivateKey, PublicKey, UInt64 } from 'o1js';
import { createLocalChain, type LocalChain } from '../../src/zkapp/local-chain.js';
import { addressOf } from './vectors.js';

/** A fresh local chain where account 0 of the vectors holds `nanomina` (default 100 MINA). */
export async function fundedLocalChain(nanomina = 100_000_000_000n): Promise<LocalChain> {
  const chain = await createLocalChain();
  await chain.fund(addressOf(0), nanomina);
  return chain;
}

/**
 * A payment of 1 MINA (fee 0.1 MINA) from account 0 to a new account, which it funds, built by o1js on `chain` as a
 * dapp builds it: the command's JSON and its recipient.
 */
export async function paymentToNewAccount(chain: LocalChain, memo: string): Promise<{ json: string; to: PublicKey }> {
  chain.activate();
  const to = PrivateKey.random().toPublicKey();
  const sender = PublicKey.fromBase58(addressOf(0));
  const tx = await Mina.transaction({ sender, fee: 100_000_000, memo }, async () => {
    AccountUpdate.fundNewAccount(sender);
    AccountUpdate.createSigned(sender).send({ to, amount: UInt64.from(1_000_000_000) });
  });
  return { json: tx.toJSON(), to };
}
