/**
 * The software Ledger against the real app: every exchange recorded from the Mina app v1.6.0 on Speculos
 * (test/fixtures/mina-ledger-app-speculos.json) is replayed, and the software Ledger must answer the same bytes
 * (same mnemonic; Mina signatures are deterministic) and show the same screens, paged as the device pages them.
 * The recorded user's decision is acted out on the review (`approves`, `screensSeen`).
 */
import { describe, expect, it } from 'vitest';
import type { Review } from '../../src/emulator.js';
import { fromHex, toHex } from '../../src/apdu/bytes.js';
import { DOCUMENTED_DIFFERENCES, approves, recordings, screensSeen, type RecordedExchange } from '../support/speculos-recordings.js';
import { quietLedger } from '../support/rig.js';

/** The screens of every review the device went through, and "Signing..." once a transaction is approved. */
async function replay(exchange: RecordedExchange): Promise<{ reply: string; screens: string[][] }> {
  const screens: string[][] = [];
  const device = quietLedger(
    {
      blindSigning: exchange.blindSigning,
      approve: (review: Review) => {
        screens.push(...screensSeen(review, exchange.decision));
        return approves(exchange.decision);
      },
    },
    recordings.mnemonic,
  );
  const reply = toHex(await device.exchange(fromHex(exchange.request)));
  return { reply, screens };
}

describe(`the software Ledger replays the ${recordings.exchanges.length} exchanges recorded from the real app on Speculos`, () => {
  it('the recordings are the real app v1.6.0 on the test mnemonic, 127 exchanges', () => {
    expect(recordings.source).toMatch(/real Mina Ledger app v1\.6\.0/);
    expect(recordings.exchanges).toHaveLength(127);
  });

  it.each(recordings.exchanges.filter((e) => !DOCUMENTED_DIFFERENCES.has(e.name)).map((e) => [e.name, e] as const))(
    '%s: same reply bytes, same screens',
    async (_name, exchange) => {
      const { reply, screens } = await replay(exchange);
      expect(reply).toBe(exchange.reply);
      expect(screens).toEqual(exchange.screens);
    },
  );

  it.each([...DOCUMENTED_DIFFERENCES].map(([name, ours]) => [name, ours] as const))(
    '%s: a documented difference (an app bug the software Ledger does not copy)',
    async (name, ours) => {
      const exchange = recordings.exchanges.find((e) => e.name === name)!;
      expect(exchange.reply.endsWith('9000')).toBe(true); // the app signed it
      const { reply, screens } = await replay(exchange);
      expect(reply).toBe(ours.reply);
      expect(screens).toEqual(ours.screens);
    },
  );
});
