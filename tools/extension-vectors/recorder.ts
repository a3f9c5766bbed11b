/**
 * What the vector tools share: the software Ledger they record (test mnemonic, the extension's latest version) and a
 * transport that writes each exchange as `=> request` / `<= reply` (the transcript format of `openTranscript`).
 */
import { toHex } from '../../src/apdu/bytes.js';
import { SoftwareLedger, TEST_MNEMONIC } from '../../src/emulator.js';
import type { ApduTransport } from '../../src/transport/types.js';

export const FIXTURES = new URL('../../test/fixtures/', import.meta.url);

/** The reference implementation: the software Ledger with the protocol extension, on the test mnemonic. */
export const device = () => SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { extensions: true, warn: () => {} });

/** A transport recording `=> request` / `<= reply` lines (the transcript format of openTranscript). */
export function recorder(ledger: SoftwareLedger): { transport: ApduTransport; lines: string[] } {
  const lines: string[] = [];
  const transport: ApduTransport = {
    async send(cla, ins, p1, p2, data = new Uint8Array(0)) {
      const apdu = Uint8Array.from([cla, ins, p1, p2, data.length, ...data]);
      const reply = await ledger.exchange(apdu);
      lines.push(`=> ${toHex(apdu)}`, `<= ${toHex(reply)}`);
      return reply;
    },
  };
  return { transport, lines };
}
