/**
 * `network: 'local'`: an in-process o1js `LocalBlockchain` (Berkeley layout, devnet signatures, proofs off).
 * It really applies each command with Mina's own transaction logic (the OCaml ledger compiled to JS), so a bad
 * signature is rejected by the chain, not by us. o1js is imported only when a local chain is created.
 */
import { loadO1js } from '../upstream/o1js.js';

export interface LocalChain {
  /** Makes this chain o1js's active network, for building transactions with `Mina.transaction`. */
  activate(): void;
  /** Applies a signed zkApp command; rejects with the chain's errors. */
  send(command: object): Promise<{ hash: string }>;
  /** The account's nonce, or undefined when the account does not exist. */
  nonceOf(address: string): Promise<number | undefined>;
  balanceOf(address: string): Promise<bigint | undefined>;
  /** Sends `nanomina` from the chain's pre-funded test account (creating the account if needed). */
  fund(address: string, nanomina: bigint): Promise<void>;
}

export class LocalChainRejection extends Error {
  override readonly name = 'LocalChainRejection';
  readonly errors: string[];
  constructor(errors: string[]) {
    super(`the local chain rejected the transaction: ${errors.join('; ')}`);
    this.errors = errors;
  }
}

export async function createLocalChain(): Promise<LocalChain> {
  const { Mina, AccountUpdate, PublicKey, UInt64 } = await loadO1js();
  const local = await Mina.LocalBlockchain({ proofsEnabled: false });
  const [funder] = local.testAccounts;
  if (!funder) throw new Error('LocalBlockchain has no test accounts');
  // o1js keeps one global "active" network: select ours before each use, as several chains may share a process.
  const use = () => Mina.setActiveInstance(local);
  const account = (address: string) => {
    use();
    const key = PublicKey.fromBase58(address);
    return Mina.hasAccount(key) ? Mina.getAccount(key) : undefined;
  };

  return {
    activate: use,
    async send(command) {
      use();
      const pending = await Mina.Transaction.fromJSON(command as never).send();
      if (pending.status !== 'pending') throw new LocalChainRejection(pending.errors.map(String));
      return { hash: pending.hash };
    },
    async nonceOf(address) {
      const found = account(address);
      return found ? Number(found.nonce.toBigint()) : undefined;
    },
    async balanceOf(address) {
      return account(address)?.balance.toBigInt();
    },
    async fund(address, nanomina) {
      const to = PublicKey.fromBase58(address);
      const isNew = account(address) === undefined;
      use();
      const tx = await Mina.transaction({ sender: funder, fee: 100_000_000 }, async () => {
        if (isNew) AccountUpdate.fundNewAccount(funder);
        AccountUpdate.createSigned(funder).send({ to, amount: UInt64.from(nanomina) });
      });
      const pending = await tx.sign([funder.key]).send();
      if (pending.status !== 'pending') throw new LocalChainRejection(pending.errors.map(String));
    },
  };
}
