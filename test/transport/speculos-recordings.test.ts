/**
 * The recorded real-app exchanges (test/fixtures/mina-ledger-app-speculos.json) over real HTTP: the unmodified
 * `@ledgerhq/hw-transport-node-speculos-http` against `startSpeculosServer` with the software Ledger, the review
 * walked with button presses the way a tool written for the real Speculos walks it (follow the screens on the event
 * stream, press right to the end of the choices, left back to the one wanted, both). Every exchange must give the
 * recorded reply, the recorded screens (each screen's text events, paged as the device pages them) and leave the
 * recorded screen after the reply.
 *
 * Every wait is bounded: a missing screen fails the test instead of hanging it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSpeculosServer, type SpeculosServer } from '../../src/emulator.js';
import { openSpeculos } from '../../src/transport/node.js';
import { fromHex, toHex } from '../../src/apdu/bytes.js';
import { DOCUMENTED_DIFFERENCES, recordings, type Decision, type RecordedExchange } from '../support/speculos-recordings.js';
import { quietLedger } from '../support/rig.js';
import { ScreenLog, screensOf, type SpeculosEvent } from '../support/speculos-screens.js';

type Transport = Awaited<ReturnType<typeof openSpeculos>>;

/**
 * The recorded screens of `events`: grouped into screens, without idle screens, screens seen again, and the
 * transient "Processing..." between the address review's stages (the recordings leave it out).
 */
function recordedScreens(events: SpeculosEvent[]): string[][] {
  const seen: string[][] = [];
  for (const screen of screensOf(events)) {
    if ((screen[0] === 'Mina' && screen[1] === 'is ready') || screen[0] === 'Processing...') continue;
    if (!seen.some((s) => JSON.stringify(s) === JSON.stringify(screen))) seen.push(screen);
  }
  return seen;
}

const GO_ON = new Set(['Approve', 'Generate', 'ACCEPT RISK']);

/**
 * Walks the review as the recorded user did: right to the end of each stage (Reject or Cancel), then left to the
 * go-on choice and both (approve; reject goes on past Cancel), or both on the stop choice.
 */
async function walk(transport: Transport, log: ScreenLog, decision: Decision, reply: { settled: boolean }): Promise<void> {
  const press = (button: 'left' | 'right' | 'both') => transport.speculos.button(button);
  let previous: string | undefined;
  for (;;) {
    const title = await log.nextTitleUntil(reply);
    if (title === undefined) return;
    if (title === 'Mina' || title === 'Signing...' || title === 'Processing...') continue;
    if (title === 'Reject' || title === 'Cancel') {
      const goOn = decision === 'approve' || (decision === 'reject' && title === 'Cancel');
      if (goOn && previous !== undefined && GO_ON.has(previous)) {
        await press('left');
        if ((await log.nextTitleUntil(reply)) !== previous) throw new Error('left did not go back to the go-on choice');
      }
      await press('both');
      previous = undefined;
      continue;
    }
    previous = title;
    await press('right');
  }
}

describe(`the ${recordings.exchanges.length} real-app recordings over real HTTP (Speculos transport → startSpeculosServer)`, () => {
  let server: SpeculosServer;
  let transport: Transport;
  let log: ScreenLog;
  const device = quietLedger({}, recordings.mnemonic);

  beforeAll(async () => {
    server = await startSpeculosServer(device, { port: 0 });
    transport = await openSpeculos({ apiPort: server.port });
    log = new ScreenLog(transport.speculos);
  });
  afterAll(async () => {
    log?.close();
    await transport?.close();
    await server?.close();
  });

  it.each(recordings.exchanges.filter((e) => !DOCUMENTED_DIFFERENCES.has(e.name)).map((e) => [e.name, e] as const))(
    '%s',
    async (_name, exchange: RecordedExchange) => {
      device.blindSigning = exchange.blindSigning;
      const from = log.skipSeen();
      const settled = { settled: false };
      // The raw request as recorded, well-formed or not, through the transport's own `exchange`.
      const raw = transport.speculos as unknown as { exchange(apdu: Buffer): Promise<Buffer> };
      const replied = raw.exchange(Buffer.from(fromHex(exchange.request))).finally(() => (settled.settled = true));
      const walked = walk(transport, log, exchange.decision, settled);
      const reply = toHex(await replied);
      await walked;
      expect(reply).toBe(exchange.reply);
      expect(recordedScreens(log.events.slice(from))).toEqual(exchange.screens);
      // The recording's third line after some replies ("Mina" again) is the idle screen being redrawn as the reply
      // was read; the screen itself is its first two lines.
      expect(server.currentScreen?.lines).toEqual(exchange.screenAfterReply.slice(0, 2));
    },
  );
});
