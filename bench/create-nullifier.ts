/**
 * chain_createNullifier host time (software Ledger computing the secret part, host rebuilding and verifying with
 * o1js) versus mina-signer's createNullifier on the same message, same process, alternating runs; 1, 16, 64 fields;
 * device requests and APDU bytes. The host's o1js verification is the dominant extra cost, and it is deliberate.
 */
import Client from 'mina-signer';
import { SoftwareLedger, TEST_MNEMONIC } from '../src/emulator.js';
import { createLedgerProvider } from '../src/index.js';
import { compare } from './lib.js';

const PRIVATE_KEY_0 = 'EKDt66ubGg5SDiwcQABWfFZaruq6idcyrLLfyZQjoH4CN3PHEiNj'; // account 0 of the public test mnemonic

export async function benchCreateNullifier(rounds = 9) {
  const ledger = SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { extensions: true, warn: () => {} });
  const provider = createLedgerProvider({ transport: ledger, network: 'mainnet', origin: 'http://localhost' });
  await provider.requestAccounts();
  const client = new Client({ network: 'mainnet' });
  const rows = [];
  for (const n of [1, 16, 64]) {
    const message = Array.from({ length: n }, (_, i) => String(1000 + i));
    const before = ledger.exchanges.length;
    await provider.createNullifier({ message });
    const exchanges = ledger.exchanges.slice(before);
    const timing = await compare(
      rounds,
      () => provider.createNullifier({ message }),
      () => client.createNullifier(message.map(BigInt), PRIVATE_KEY_0),
    );
    rows.push({
      fields: n,
      ...timing,
      deviceRequests: exchanges.length,
      apduBytes: exchanges.reduce((sum, e) => sum + (e.request.length + e.reply.length) / 2, 0),
    });
  }
  return rows;
}
