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
import { startSpeculosServer, type SpeculosServer } from '../../src/emulator/index.js';
import { openSpeculos } from '../../src/transport/node.js';
import {
  DOCUMENTED_DIFFERENCES,
  bytesHex,
  hexBytes,
  recordings,
  type Decision,
  type RecordedExchange,
} from '../support/speculos-recordings.js';
import { quietLedger } from '../support/rig.js';

const WAIT_MS = 5_000;
const TITLE_Y = 3;
type SpeculosEvent = { text: string; x: number; y: number };
type Transport = Awaited<ReturnType<typeof openSpeculos>>;

/** The event stream, read with a cursor; every wait has a deadline. */
class Events {
  readonly all: SpeculosEvent[] = [];
  cursor = 0;
  #wake: (() => void) | undefined;
  constructor(transport: Transport) {
    transport.speculos.automationEvents.subscribe((event) => {
      this.all.push(event);
      this.#wake?.();
    });
  }
  /** The next screen's title (an event on the first row), or undefined once `done` has settled. */
  async nextTitle(done: { settled: boolean }): Promise<string | undefined> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      while (this.cursor < this.all.length) {
        const event = this.all[this.cursor++]!;
        if (event.y === TITLE_Y) return event.text;
      }
      if (done.settled) return undefined;
      if (Date.now() > deadline) throw new Error(`no screen within ${WAIT_MS} ms; seen ${JSON.stringify(this.all.map((e) => e.text))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.#wake = () => (clearTimeout(timer), (this.#wake = undefined), resolve());
      });
    }
  }
}

/** Groups text events into screens (a screen starts on the first row); drops idle screens and screens seen again. */
function screensOf(events: SpeculosEvent[]): string[][] {
  const screens: string[][] = [];
  for (const event of events) {
    if (event.y === TITLE_Y || screens.length === 0) screens.push([event.text]);
    else screens.at(-1)!.push(event.text);
  }
  const seen: string[][] = [];
  for (const screen of screens) {
    if (screen[0] === 'Mina' && screen[1] === 'is ready') continue;
    if (!seen.some((s) => JSON.stringify(s) === JSON.stringify(screen))) seen.push(screen);
  }
  return seen;
}

const GO_ON = new Set(['Approve', 'Generate', 'ACCEPT RISK']);

/**
 * Walks the review as the recorded user did: right to the end of each stage (Reject or Cancel), then left to the
 * go-on choice and both (approve; reject goes on past Cancel), or both on the stop choice.
 */
async function walk(transport: Transport, events: Events, decision: Decision, reply: { settled: boolean }): Promise<void> {
  const press = (button: 'left' | 'right' | 'both') => transport.speculos.button(button);
  let previous: string | undefined;
  for (;;) {
    const title = await events.nextTitle(reply);
    if (title === undefined) return;
    if (title === 'Mina' || title === 'Signing...') continue;
    if (title === 'Reject' || title === 'Cancel') {
      const goOn = decision === 'approve' || (decision === 'reject' && title === 'Cancel');
      if (goOn && previous !== undefined && GO_ON.has(previous)) {
        await press('left');
        if ((await events.nextTitle(reply)) !== previous) throw new Error('left did not go back to the go-on choice');
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
  let events: Events;
  const device = quietLedger({}, recordings.mnemonic);

  beforeAll(async () => {
    server = await startSpeculosServer(device, { port: 0 });
    transport = await openSpeculos({ apiPort: server.port });
    events = new Events(transport);
  });
  afterAll(async () => {
    await transport?.close();
    await server?.close();
  });

  it.each(recordings.exchanges.filter((e) => !DOCUMENTED_DIFFERENCES.has(e.name)).map((e) => [e.name, e] as const))(
    '%s',
    async (_name, exchange: RecordedExchange) => {
      device.blindSigning = exchange.blindSigning;
      const from = events.all.length;
      events.cursor = from;
      const settled = { settled: false };
      // The raw request as recorded, well-formed or not, through the transport's own `exchange`.
      const raw = transport.speculos as unknown as { exchange(apdu: Buffer): Promise<Buffer> };
      const replied = raw.exchange(Buffer.from(hexBytes(exchange.request))).finally(() => (settled.settled = true));
      const walked = walk(transport, events, exchange.decision, settled);
      const reply = bytesHex(await replied);
      await walked;
      expect(reply).toBe(exchange.reply);
      expect(screensOf(events.all.slice(from))).toEqual(exchange.screens);
      // The recording's third line after some replies ("Mina" again) is the idle screen being redrawn as the reply
      // was read; the screen itself is its first two lines.
      expect(server.currentScreen?.lines).toEqual(exchange.screenAfterReply.slice(0, 2));
    },
  );
});
