/** Opening the device a `--device` flag names: a Ledger over USB, Speculos over HTTP, or the software Ledger. */
import type { Review } from '../emulator/review.js';
import { SoftwareLedger, TEST_MNEMONIC } from '../emulator/software-ledger.js';
import type { ApduTransport } from '../transport/types.js';
import type { checkDevice } from './args.js';

export interface OpenDevice {
  transport: ApduTransport;
  label: string;
  close(): Promise<void>;
}

export async function openDevice(device: ReturnType<typeof checkDevice>, say: (text: string) => void): Promise<OpenDevice> {
  if (device.kind === 'software') {
    // Demo and test use only: the public test mnemonic, reviews approved automatically and printed on stderr. The
    // chain-ledger extension (INS 0xA0–0xA4) is on, which the released Mina app lacks: the label says so.
    const transport = SoftwareLedger.fromMnemonic(TEST_MNEMONIC, {
      extensions: true,
      blindSigning: true,
      warn: (text) => say(`⚠ ${text}`),
      approve: (review: Review) => {
        say(review.screens.map((s) => `  │ ${s.title}${s.text ? `: ${s.text}` : ''}`).join('\n'));
        return true;
      },
    });
    return { transport, label: 'software Ledger, NOT hardware, with the chain-ledger extension', close: async () => {} };
  }
  const node = await import('../transport/node.js');
  if (device.kind === 'usb') {
    say('waiting for a Ledger on USB (unlocked, Mina app open)…');
    const transport = await node.openNodeHid({ listenTimeoutMs: 30_000 });
    return { transport, label: 'USB', close: () => transport.close() };
  }
  const transport = await node.openSpeculos({ apiPort: device.port });
  return { transport, label: `Speculos on port ${device.port}`, close: () => transport.close() };
}
