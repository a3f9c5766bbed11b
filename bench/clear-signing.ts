/**
 * zkApp commands in clear (extension SIGN_ZKAPP) against the blind path (INS 06) on the same command, same process,
 * alternating runs: host time per sendTransaction (onlySign, software Ledger, whose device-side work is part of both),
 * and what the device gets: APDUs, bytes, and the Poseidon permutations it spends on the commitments and signatures
 * (the released app spends 6 legacy-Poseidon permutations on a payment's signature).
 */
import { SoftwareLedger, TEST_MNEMONIC } from '../src/emulator.js';
import { createLedgerProvider } from '../src/index.js';
import { encodeZkappStream } from '../src/apdu/sign-zkapp.js';
import { minaSignerInternals } from '../src/upstream/mina-signer-internals.js';
import { commitmentPermutations, hashPermutations, parseZkappRequest, valuesToSign } from '../src/emulator/zkapp-device.js';
import { zkappStreamOf } from '../src/zkapp/clear-signing.js';
import { berkeleyCommand, manyUpdates, resizeState } from '../test/support/zkapp.js';
import { compare } from './lib.js';

export async function benchClearSigning(rounds = 5) {
  const connect = async (extensions: boolean) => {
    const ledger = SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { warn: () => {}, blindSigning: true, extensions });
    // Blind (no extension), the host's review is what makes INS 06 acceptable (else 20006): the bench approves it as a
    // holder would. Both sides are asked it (the host summarises the command either way), so both pay for it alike.
    const provider = createLedgerProvider({ transport: ledger, network: 'devnet', origin: 'http://localhost', confirmZkapp: () => true });
    const [address] = await provider.requestAccounts();
    return { ledger, provider, address: address! };
  };
  const clear = await connect(true);
  const blind = await connect(false);
  const rows = [];
  for (const era of ['berkeley', 'mesa'] as const) {
    const internals = await minaSignerInternals(era);
    for (const n of [1, 5, 11]) {
      const command = resizeState(manyUpdates(berkeleyCommand(), n, n > 1 ? 1 : 0), era === 'berkeley' ? 8 : 32);
      const traffic = async (side: typeof clear) => {
        const before = side.ledger.exchanges.length;
        await side.provider.sendTransaction({ transaction: command, onlySign: true });
        const exchanges = side.ledger.exchanges.slice(before);
        return { apdus: exchanges.length, bytes: exchanges.reduce((sum, e) => sum + (e.request.length + e.reply.length) / 2, 0) };
      };
      const [inClear, blindly] = [await traffic(clear), await traffic(blind)];
      const payload = encodeZkappStream(zkappStreamOf(command, internals, era, 'devnet', 0));
      const device = await parseZkappRequest(payload, internals.PublicKey.fromBase58(clear.address));
      const signatures = valuesToSign(device).length;
      const timing = await compare(
        rounds,
        () => clear.provider.sendTransaction({ transaction: command, onlySign: true }),
        () => blind.provider.sendTransaction({ transaction: command, onlySign: true }),
      );
      rows.push({
        era,
        accountUpdates: n,
        ...timing,
        clear: {
          ...inClear,
          payloadBytes: payload.length,
          permutations: (await commitmentPermutations(device)) + signatures * hashPermutations(4),
        },
        blind: { ...blindly, signatures },
      });
    }
  }
  return rows;
}
