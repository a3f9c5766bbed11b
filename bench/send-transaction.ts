/**
 * chain_sendTransaction host time (software Ledger, onlySign) versus mina-signer's signZkappCommand on the same
 * command, same process, alternating runs: for 1, 10 and 50 account updates, both eras. Also device requests and
 * APDU bytes per command. The software Ledger's own signing is part of "ours" (a real device would add its time), and
 * so is the host's review summary (`confirmZkapp`, approved at once).
 */
import ClientMesa from 'mina-signer';
import ClientBerkeley from 'mina-signer-berkeley';
import { SoftwareLedger, TEST_MNEMONIC } from '../src/emulator.js';
import { createLedgerProvider } from '../src/index.js';
import { berkeleyCommand, manyUpdates, resizeState } from '../test/support/zkapp.js';
import { compare } from './lib.js';

const PRIVATE_KEY_0 = 'EKDt66ubGg5SDiwcQABWfFZaruq6idcyrLLfyZQjoH4CN3PHEiNj'; // account 0 of the public test mnemonic

export async function benchSendTransaction(rounds = 7) {
  const ledger = SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { warn: () => {}, blindSigning: true });
  // A device without the extension signs blind (INS 06): the host shows the command first, and the bench approves
  // that review as a holder would (without a review the provider refuses it: 20006).
  const provider = createLedgerProvider({ transport: ledger, network: 'devnet', origin: 'http://localhost', confirmZkapp: () => true });
  const [address] = await provider.requestAccounts();
  const rows = [];
  for (const era of ['berkeley', 'mesa'] as const) {
    const client = era === 'berkeley' ? new ClientBerkeley({ network: 'devnet' }) : new ClientMesa({ network: 'devnet' });
    for (const n of [1, 5, 11]) {
      // 11 = MAX_ACCOUNT_UPDATES, what a node accepts
      const command = resizeState(manyUpdates(berkeleyCommand(), n), era === 'berkeley' ? 8 : 32);
      const feePayer = {
        feePayer: address!,
        fee: command.feePayer.body.fee,
        nonce: command.feePayer.body.nonce,
        memo: 'chain-ledger transcript',
      };
      const before = ledger.exchanges.length;
      await provider.sendTransaction({ transaction: command, onlySign: true });
      const exchanges = ledger.exchanges.slice(before);
      const timing = await compare(
        rounds,
        () => provider.sendTransaction({ transaction: command, onlySign: true }),
        () => client.signZkappCommand({ zkappCommand: command as never, feePayer }, PRIVATE_KEY_0),
      );
      rows.push({
        era,
        accountUpdates: n,
        ...timing,
        deviceRequests: exchanges.length,
        apduBytes: exchanges.reduce((sum, e) => sum + (e.request.length + e.reply.length) / 2, 0),
      });
    }
  }
  return rows;
}
