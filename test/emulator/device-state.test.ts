/** The software Ledger's device states and faults, seen through the client as a host would see a real device. */
import { inspect } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { MinaLedgerApp } from '../../src/apdu.js';
import { SOFTWARE_LEDGER_WARNING, SoftwareLedger, TEST_MNEMONIC, type Review } from '../../src/emulator.js';
import { addressOf, vectors } from '../support/vectors.js';
import { quietLedger } from '../support/rig.js';

describe('software Ledger states', () => {
  it('says loudly that it is not hardware, once per instance', () => {
    const warnings: string[] = [];
    SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { warn: (m) => warnings.push(m) });
    expect(warnings).toEqual([SOFTWARE_LEDGER_WARNING]);
    expect(SOFTWARE_LEDGER_WARNING).toMatch(/NOT HARDWARE/);
  });

  it('never reveals the mnemonic or keys through inspect or JSON', () => {
    const device = quietLedger();
    device.addressOf(0);
    const shown = inspect(device, { depth: 10, showHidden: true }) + JSON.stringify(device);
    for (const word of ['course', 'grief', 'EKDt66', '164244176fdd']) expect(shown).not.toContain(word);
    expect(shown).toContain('NOT HARDWARE');
  });

  it('refuses an invalid mnemonic without echoing it', () => {
    const bad = vectors.mnemonic.replace(/key$/, 'zebra');
    const error = (() => {
      try {
        SoftwareLedger.fromMnemonic(bad, { warn: () => {} });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error?.message).toMatch(/not a valid BIP39/);
    expect(error?.message).not.toContain('grief');
  });

  it('locked: every APDU answers 0x5515 until unlocked', async () => {
    const device = quietLedger({ locked: true });
    const app = new MinaLedgerApp(device);
    await expect(app.getAppVersion()).rejects.toMatchObject({ name: 'LedgerDeviceLockedError', statusCode: 0x5515 });
    device.unlock();
    await expect(app.getAppVersion()).resolves.toMatchObject({ version: '1.6.0' });
  });

  it('app closed: the dashboard answers 0x6E01 (or the configured word) to the app instructions and reports itself as BOLOS', async () => {
    const device = quietLedger({ appOpen: false });
    const client = new MinaLedgerApp(device);
    await expect(client.getAddress(0, { display: true })).rejects.toMatchObject({ name: 'LedgerAppNotOpenError', statusCode: 0x6e01 });
    // E0 01 is GetOsVersion on the dashboard (0x9000): the client asks B0 01 what runs instead of reading a version.
    await expect(client.getAppVersion()).rejects.toMatchObject({ name: 'LedgerAppNotOpenError', message: /the dashboard is open/ });
    const info = await device.exchange(Uint8Array.of(0xb0, 0x01, 0, 0, 0));
    expect(new TextDecoder().decode(info.subarray(2, 7))).toBe('BOLOS');
    device.openApp();
    const mina = await device.exchange(Uint8Array.of(0xb0, 0x01, 0, 0, 0));
    expect([...mina]).toEqual([1, 4, ...new TextEncoder().encode('Mina'), 5, ...new TextEncoder().encode('1.6.0'), 1, 0, 0x90, 0]);
    const other = quietLedger({ appOpen: false, closedAppStatus: 0x6511 });
    await expect(new MinaLedgerApp(other).getAddress(0, { display: true })).rejects.toMatchObject({
      name: 'LedgerAppNotOpenError',
      statusCode: 0x6511,
    });
  });

  it('unplugged before an exchange: the call fails as disconnected and "disconnect" is emitted once', async () => {
    const device = quietLedger();
    const events: unknown[] = [];
    device.on('disconnect', (e) => events.push(e));
    const app = new MinaLedgerApp(device);
    device.unplug();
    device.unplug();
    expect(events).toHaveLength(1);
    await expect(app.getAppVersion()).rejects.toMatchObject({ name: 'LedgerDisconnectedError' });
  });

  it('unplugged during a review: the pending call fails as disconnected', async () => {
    const device = quietLedger({
      approve: () => {
        device.unplug();
        return new Promise<boolean>(() => {}); // the user never answers: the cable is gone
      },
    });
    const app = new MinaLedgerApp(device);
    await expect(app.getAddress(0, { display: true })).rejects.toMatchObject({ name: 'LedgerDisconnectedError' });
    expect(app.transport.disconnected).toBe(true);
  });

  it('failNextExchange cuts off a non-interactive exchange after it reached the device', async () => {
    const device = quietLedger();
    const app = new MinaLedgerApp(device);
    device.failNextExchange('disconnect');
    await expect(app.getAppVersion()).rejects.toMatchObject({ name: 'LedgerDisconnectedError' });
    expect(device.connected).toBe(false);
  });

  it('blind signing off by default: INS 06 shows the notice and answers 0x6985', async () => {
    const reviews: Review[] = [];
    const device = quietLedger({ approve: (r) => (reviews.push(r), true) });
    await expect(new MinaLedgerApp(device).signFieldElement(0, 5n, 0)).rejects.toMatchObject({ statusCode: 0x6985 });
    expect(reviews.map((r) => [r.kind, r.approvable])).toEqual([['blind-signing-disabled', false]]);
    device.blindSigning = true;
    await expect(new MinaLedgerApp(device).signFieldElement(0, 5n, 0)).resolves.toHaveProperty('field');
  });

  it('a slow device answers only after its latency (fake clock, no wall-time assertion)', async () => {
    vi.useFakeTimers();
    try {
      const device = quietLedger({ latencyMs: 120 });
      let settled = false;
      const done = new MinaLedgerApp(device).getAppVersion().then(() => (settled = true));
      await vi.advanceTimersByTimeAsync(119);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await done;
      expect(settled).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('sign-tx review shows what the Nano shows, and checks the sender after approval', async () => {
    const reviews: Review[] = [];
    const device = quietLedger({ approve: (r) => (reviews.push(r), true) });
    const app = new MinaLedgerApp(device);
    const tx = {
      txType: 'payment' as const,
      account: 0,
      from: addressOf(0),
      to: addressOf(1),
      amount: 1_729_000_000_000n,
      fee: 2_000_000_000n,
      nonce: 16,
      validUntil: 271828,
      memo: 'Hello Mina!',
      networkId: 0 as const,
    };
    await app.signTransaction(tx);
    // Each screen as the device draws it; the addresses paged over two screens, three lines each.
    const pages = (title: string, address: string) => {
      const [page1, page2] = reviews[0]!.screens.filter((s) => s.title.startsWith(`${title} (`));
      return page1!.lines.slice(1).join('') + page2!.lines.slice(1).join('') === address && page1!.title === `${title} (1/2)`;
    };
    expect(reviews[0]!.screens.map((s) => s.title)).toEqual([
      'Sign',
      'Network',
      'Type',
      'Sender (1/2)',
      'Sender (2/2)',
      'Receiver (1/2)',
      'Receiver (2/2)',
      'Amount',
      'Fee',
      'Total',
      'Nonce',
      'Valid until',
      'Memo',
      'Approve',
      'Reject',
    ]);
    expect(pages('Sender', addressOf(0)) && pages('Receiver', addressOf(1))).toBe(true);
    expect(reviews[0]!.screens.filter((s) => !s.title.includes('(')).map((s) => s.lines)).toEqual([
      ['Sign', 'Transaction'],
      ['Network', 'testnet'],
      ['Type', 'Payment'],
      ['Amount', 'MINA 1729.0'],
      ['Fee', 'MINA 2.0'],
      ['Total', 'MINA 1731.0'],
      ['Nonce', '16'],
      ['Valid until', '271828'],
      ['Memo', 'Hello Mina!'],
      ['Approve'],
      ['Reject'],
    ]);
    expect(reviews[0]!.afterApproval?.lines).toEqual(['Signing...']);
    // A sender that is not the account's address is refused by the device after approval (0x6802), as the app does.
    await expect(app.signTransaction({ ...tx, from: addressOf(1) })).rejects.toMatchObject({
      name: 'LedgerInvalidDataError',
      statusCode: 0x6802,
    });
  });

  it('account N and N + 2^31 derive the same key, as on the device (the host never sends the latter)', async () => {
    const device = quietLedger();
    const reply = await device.exchange(Uint8Array.of(0xe0, 0x02, 0x01, 0, 4, 0x80, 0, 0, 1));
    expect(new TextDecoder().decode(reply.subarray(0, 55))).toBe(addressOf(1));
  });

  it('keeps a RecordStore-compatible log of exchanges', async () => {
    const device = quietLedger();
    await new MinaLedgerApp(device).getAppVersion();
    expect(device.exchanges).toEqual([{ request: 'e001000000', reply: '0106009000' }]);
  });
});
