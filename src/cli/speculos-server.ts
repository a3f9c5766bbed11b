/**
 * `chain-ledger speculos-server`: the software Ledger (the public test mnemonic, NOT hardware) behind the Speculos
 * REST API on loopback (`startSpeculosServer`), for `--device speculos:PORT` of this CLI, `npm start` and any Speculos
 * client. It runs until Ctrl-C. Each screen the device draws is printed; its buttons are pressed here (arrow keys,
 * or the words left, right, both on stdin when it is not a terminal) or through the server's own
 * `POST /button/{left,right,both}`, as on Speculos. The keys go through that same route.
 */
import { request } from 'node:http';
import { createInterface } from 'node:readline';
import type { Screen } from '../emulator/review.js';
import { SoftwareLedger, TEST_MNEMONIC } from '../emulator/software-ledger.js';
import { startSpeculosServer } from '../emulator/speculos-server.js';

export interface SpeculosServerInput {
  port: number;
  /** The chain-ledger protocol extension on (the released Mina app has none). */
  extensions: boolean;
  /** The Mina app version it behaves as. */
  version: string;
  /** The app's "Blind signing" setting (off on a fresh app, as here unless asked). */
  blindSigning: boolean;
}

/** What the server uses of the process: its output, its input and its signals. */
export interface ServerIo {
  out(text: string): void;
  err(text: string): void;
  stdin: NodeJS.ReadStream;
  /** Resolves on Ctrl-C (SIGINT) or SIGTERM. */
  stopped: Promise<void>;
}

type Button = 'left' | 'right' | 'both';

/** Arrow keys (and l/r/b, space) on a terminal. */
const KEYS: Record<string, Button> = {
  '\u001b[D': 'left',
  '\u001b[C': 'right',
  '\u001b[B': 'both',
  ' ': 'both',
  l: 'left',
  r: 'right',
  b: 'both',
};
const WORDS: Record<string, Button> = { left: 'left', l: 'left', right: 'right', r: 'right', both: 'both', b: 'both' };

/** Serves until stopped; the exit code: 0 stopped, 1 the port could not be bound. */
export async function serveSpeculos(input: SpeculosServerInput, io: ServerIo): Promise<number> {
  const device = SoftwareLedger.fromMnemonic(TEST_MNEMONIC, {
    version: input.version,
    extensions: input.extensions,
    blindSigning: input.blindSigning,
    warn: () => {}, // said below, in the server's own words
  });
  let server: Awaited<ReturnType<typeof startSpeculosServer>>;
  try {
    server = await startSpeculosServer(device, { port: input.port });
  } catch (error) {
    const code = (error as { code?: string }).code;
    io.err(`chain-ledger: port ${input.port} on 127.0.0.1 ${code === 'EADDRINUSE' ? 'is in use' : `cannot be bound (${code ?? error})`}`);
    return 1;
  }
  for (const line of introduction(input, server.url, server.port)) io.out(line);
  const press = (button: Button) => pressButton(server.port, button).catch((error: unknown) => io.err(`✖ ${button}: ${error}`));
  const stopInput = readButtons(io.stdin, press);
  const stopScreens = printScreens(() => server.currentScreen, io.out);
  await io.stopped;
  stopScreens();
  stopInput();
  await server.close();
  io.out('stopped');
  return 0;
}

function introduction(input: SpeculosServerInput, url: string, port: number): string[] {
  const app = `Mina app ${input.version}${input.extensions ? ' + chain-ledger extension 1.2' : ' as released (no extension)'}`;
  return [
    `Software Ledger on ${url}: NOT hardware. Its keys come from the public test mnemonic (never send real funds to them).`,
    `  ${app}, Blind signing ${input.blindSigning ? 'on' : 'off (--blind-signing turns it on; zkApp commands need it on the released app)'}.`,
    `Use it with: chain-ledger address --device speculos:${port} --confirm-address   (or npm start -- --device speculos:${port})`,
    'Its screens are printed here. Press its buttons here: ← left, → right, ↓ or space both (or type left, right, both and Enter);',
    `or over HTTP: curl -d '{"action":"press-and-release"}' ${url}/button/right. Ctrl-C stops it.`,
  ];
}

/** Prints each screen the device shows, when it changes (the server's `currentScreen`, looked at every 100 ms). */
function printScreens(current: () => Screen | undefined, out: (text: string) => void): () => void {
  let shown = '';
  const look = () => {
    const screen = current();
    const text = screen ? screen.lines.filter((line) => line.trim() !== '').join(' | ') : '(the app has quit)';
    if (text === shown) return;
    shown = text;
    out(`  │ ${text}`);
  };
  look();
  const timer = setInterval(look, 100);
  return () => clearInterval(timer);
}

/** Reads button presses from stdin: keys on a terminal (raw mode), else one word a line. Returns a function that stops. */
function readButtons(stdin: NodeJS.ReadStream, press: (button: Button) => void): () => void {
  if (stdin.isTTY) {
    stdin.setRawMode(true);
    const onData = (data: Buffer) => {
      const key = data.toString();
      if (key === '\u0003') process.kill(process.pid, 'SIGINT'); // raw mode: Ctrl-C is a byte, not a signal
      const button = KEYS[key];
      if (button) press(button);
    };
    stdin.on('data', onData);
    return () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
    };
  }
  const lines = createInterface({ input: stdin });
  lines.on('line', (line) => {
    const button = WORDS[line.trim().toLowerCase()];
    if (button) press(button);
  });
  return () => lines.close();
}

/** `POST /button/{button}` `{"action": "press-and-release"}` on the server: what any Speculos client sends. */
function pressButton(port: number, button: Button): Promise<void> {
  const body = JSON.stringify({ action: 'press-and-release' });
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: `/button/${button}`, method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`the server answered ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
