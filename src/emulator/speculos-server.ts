/**
 * A Speculos-compatible REST API on loopback in front of any device model with `exchange()` and an `approve` hook
 * (the software Ledger), so tools written for the real Speculos (`@ledgerhq/hw-transport-node-speculos-http`, a
 * script with curl) drive it over real HTTP. The routes, bodies and statuses are Speculos's (LedgerHQ/speculos
 * speculos/api/*.py and their JSON schemas, api/swagger.yaml):
 *
 *   POST   /apdu                 {"data": hex} → {"data": hex}; held while the device waits for the user; one at a time
 *   GET    /events[?stream=true][?currentscreenonly=true]   every text event since the last reset, as server-sent
 *                                events, or only the current screen's (kept apart from the log)
 *   DELETE /events               resets the log
 *   POST   /button/{left,right,both} {"action": "press" | "release" | "press-and-release"}; a button acts when released
 *   POST   /finger               {"action", "x", "y", "delay"?}: a finger on a touch model's screen (no effect on a Nano)
 *   POST   /automation           the rules that press buttons when a text is drawn (speculos-automation.ts)
 *   POST   /ticker               {"action": "pause" | "resume" | "single-step"}: accepted, no effect (as on Speculos)
 *   GET    /screenshot           the screen as a PNG (screen-drawing.ts, png.ts)
 *
 * What the device draws and how buttons move through it: speculos-display.ts. A body that is not JSON, or JSON that
 * does not fit the route's schema, is 400, as on Speculos (which reads JSON whatever the Content-Type).
 *
 * Only a local tool may drive it: a request whose Host is not a loopback name (DNS rebinding) and any request with
 * an Origin header (a web page: every cross-site POST a browser sends carries one, a form's too) are refused (403),
 * so no page the user visits can press its buttons or send APDUs. Real Speculos answers them; this is deliberate.
 *
 * Node only (node:http is loaded when the server starts).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { fromHex, toHex } from '../apdu/bytes.js';
import type { Approver, Screen } from './review.js';
import { encodePng } from './png.js';
import { Automation } from './speculos-automation.js';
import { SpeculosDisplay, type SpeculosEvent } from './speculos-display.js';

export interface SpeculosDevice {
  exchange(apdu: Uint8Array): Promise<Uint8Array>;
  approve: Approver;
  /** The app's version, shown in its menu (default 1.6.0). */
  readonly version?: string;
  /** The app's Blind signing setting, which its menu toggles. */
  blindSigning?: boolean;
  /** Whether the app is open; its menu's Quit closes it. */
  readonly appOpen?: boolean;
  closeApp?(): void;
}

export interface SpeculosServerOptions {
  /** TCP port on 127.0.0.1 (default 0: any free port; read it from `server.port`). */
  port?: number;
  /** Host to bind (default 127.0.0.1). Only loopback addresses are accepted. */
  host?: string;
  /**
   * true (default): reviews wait for button presses, as on Speculos. false: the device's own `approve` decides
   * and the screens are still published as events.
   */
  buttons?: boolean;
}

export interface SpeculosServer {
  readonly port: number;
  readonly url: string;
  /** The screen shown now (for tests and logs); undefined once the app has quit. */
  readonly currentScreen: Screen | undefined;
  /** Closes the event streams (clients see the device disconnect) and the server. */
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
/** Host header names a loopback server answers to (a rebinding DNS name is none of them). */
const LOOPBACK_HOST_HEADER = /^(127\.0\.0\.1|localhost|\[::1\])(:\d{1,5})?$/i;
const MAX_BODY = 64 * 1024;

// The routes' JSON schemas (speculos/api/resources/*.schema): no other property is allowed.
const APDU = z.object({ data: z.string().regex(/^([a-fA-F0-9]{2})+$/), tick_timeout: z.number().optional() }).strict();
const ACTION = z.enum(['press', 'release', 'press-and-release']);
const BUTTON = z.object({ action: ACTION, delay: z.number().optional() }).strict();
const FINGER = z.object({ action: ACTION, x: z.number().int(), y: z.number().int(), delay: z.number().optional() }).strict();
const TICKER = z.object({ action: z.enum(['pause', 'resume', 'single-step']) }).strict();

/**
 * Serves `device` behind the Speculos REST API on loopback, so unmodified Speculos clients
 * (`@ledgerhq/hw-transport-node-speculos-http`, `openSpeculos`, curl) drive it.
 *
 * @param device - What answers APDUs and asks for approval: a `SoftwareLedger`.
 * @param options - `port` (default 0: any free port, read `server.port`), `host` (loopback only, default
 *   127.0.0.1), `buttons` (default true: reviews wait for `/button` presses, as on Speculos).
 * @returns The running server: its `port`, `url`, the screen shown now, and `close()`.
 * @throws `Error` when `options.host` is not a loopback address; the listen error (for example `EADDRINUSE`) when
 *   the port cannot be bound.
 * @example
 * ```ts
 * import { SoftwareLedger, startSpeculosServer } from 'chain-ledger/emulator';
 * import { openSpeculos } from 'chain-ledger/transport/node';
 *
 * const server = await startSpeculosServer(SoftwareLedger.fromMnemonic(mnemonic, { warn: () => {} }), { buttons: false });
 * const transport = await openSpeculos({ apiPort: server.port });
 * // … use transport, then:
 * await server.close();
 * ```
 */
export async function startSpeculosServer(device: SpeculosDevice, options: SpeculosServerOptions = {}): Promise<SpeculosServer> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host)) throw new Error(`startSpeculosServer: refusing to listen on non-loopback host ${host}`);
  const http = await import('node:http');

  const streams = new Set<ServerResponse>();
  // "exit" in an automation rule stops the server, as it stops Speculos.
  const display = new SpeculosDisplay(device, { buttons: options.buttons ?? true, onExit: () => void close() });
  // One write per event: the Speculos transport parses each received chunk on its own.
  display.subscribe((event: SpeculosEvent) => {
    for (const res of streams) res.write(`data: ${JSON.stringify(event)}\n\n`);
  });
  const exchange = serialExchange(device, display);

  const server: Server = http.createServer((req, res) => {
    handle(req, res, { display, streams, exchange }).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { error: error instanceof Error ? error.message : String(error) });
      else res.destroy();
    });
  });
  // Clients that keep connections alive (fetch: DMK's Speculos transport) close an idle one after 4 s; Node's server
  // closes it after 5 s by default, and on a loaded machine the client's timer can fire after the server's, so a
  // request goes out on a socket the server is closing and fails as a lost device. The client closes first here.
  server.keepAliveTimeout = 65_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  function close(): Promise<void> {
    closing ??= (async () => {
      display.close();
      for (const res of streams) res.end();
      streams.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    })();
    return closing;
  }

  return {
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    get currentScreen() {
      return display.screen;
    },
    close,
  };
}

/**
 * The device's APDU line: Speculos serialises APDUs with a lock, so a second one waits for the first reply (whatever
 * it was); the display learns of each exchange as it starts.
 */
function serialExchange(device: SpeculosDevice, display: SpeculosDisplay): (apdu: Uint8Array) => Promise<Uint8Array> {
  let apduQueue: Promise<unknown> = Promise.resolve();
  return (apdu) => {
    const run = apduQueue.then(() => {
      display.beforeExchange();
      return device.exchange(apdu);
    });
    apduQueue = run.catch(() => undefined);
    return run;
  };
}

/** What the routes share: the screen and its event log, the open event streams, the device's APDU line. */
interface ServerState {
  display: SpeculosDisplay;
  /** The responses of `GET /events?stream=true` still open. */
  streams: Set<ServerResponse>;
  /** Runs one APDU on the device once the APDUs before it have their reply. */
  exchange: (apdu: Uint8Array) => Promise<Uint8Array>;
}

/** One request as a route reads it: its URL and body (read already), and the server's state. */
interface RouteCall extends ServerState {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  body: Uint8Array;
}

type Route = (call: RouteCall) => Promise<void>;

/** Speculos's routes, as `METHOD /path`; `POST /button/{name}` is matched apart (`routeOf`). */
const ROUTES: Readonly<Record<string, Route>> = {
  'POST /apdu': postApdu,
  'GET /events': getEvents,
  'DELETE /events': async ({ res, display }) => {
    display.clearLog();
    json(res, 200, {});
  },
  'POST /finger': async ({ res, body, display }) => {
    const parsed = parseJson(body, FINGER);
    if ('error' in parsed) return json(res, 400, { error: parsed.error });
    const { action, x, y, delay } = parsed.value;
    display.finger(action, x, y, delay);
    json(res, 200, {});
  },
  'POST /automation': postAutomation,
  'POST /ticker': async ({ res, body, display }) => {
    const parsed = parseJson(body, TICKER);
    if ('error' in parsed) return json(res, 400, { error: parsed.error });
    display.ticker(parsed.value.action);
    json(res, 200, {});
  },
  'GET /screenshot': async ({ res, display }) => {
    const png = await encodePng(display.bitmap());
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length, 'cache-control': 'no-cache,no-store' });
    res.end(png);
  },
};

/** The route of `METHOD /path`: one of the table, a button, or 404. */
function routeOf(route: string): Route {
  const found = Object.hasOwn(ROUTES, route) ? ROUTES[route] : undefined;
  if (found) return found;
  const button = /^POST \/button\/([^/]+)$/.exec(route)?.[1];
  if (button !== undefined) return (call) => postButton(call, button);
  return async ({ res }) => json(res, 404, { error: `no route ${route}` });
}

/** Refuses what a web page sends (`refuse`), reads the URL and the body, and runs the route. */
async function handle(req: IncomingMessage, res: ServerResponse, state: ServerState): Promise<void> {
  const refusal = refuse(req);
  if (refusal) {
    req.resume();
    return json(res, refusal.status, { error: refusal.error });
  }
  const url = new URL(req.url ?? '/', 'http://speculos');
  const route = `${req.method} ${url.pathname.replace(/(.)\/$/, '$1')}`;
  const body = req.method === 'POST' ? await readBody(req) : new Uint8Array(0);
  await routeOf(route)({ ...state, req, res, url, body });
}

/** `POST /apdu`: the reply once the device has answered (the user too, for a review). */
async function postApdu({ res, body, display, exchange }: RouteCall): Promise<void> {
  const parsed = parseJson(body, APDU);
  if ('error' in parsed) return json(res, 400, { error: parsed.error });
  try {
    const reply = await exchange(fromHex(parsed.value.data));
    display.afterReply(reply.length >= 2 && reply[reply.length - 2] === 0x90 && reply[reply.length - 1] === 0x00);
    json(res, 200, { data: toHex(reply) });
  } catch (error) {
    // The device went away during the exchange: drop the connection, as a dead emulator would.
    res.destroy(error instanceof Error ? error : undefined);
  }
}

/** `GET /events`: the log, the current screen's events, or a stream of every event from now on. */
async function getEvents({ req, res, url, display, streams }: RouteCall): Promise<void> {
  const stream = flag(url, 'stream');
  const only = flag(url, 'currentscreenonly');
  if (stream === undefined || only === undefined) return json(res, 400, { error: 'a flag must be true or false' });
  if (!stream) return json(res, 200, { events: only ? display.currentEvents : display.log });
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  streams.add(res);
  req.on('close', () => streams.delete(res));
}

/** `POST /button/{left,right,both}`: a press, a release, or both; any other button is 405. */
async function postButton({ res, body, display }: RouteCall, button: string): Promise<void> {
  if (button !== 'left' && button !== 'right' && button !== 'both') return json(res, 405, { error: `no button ${button}` });
  const parsed = parseJson(body, BUTTON);
  if ('error' in parsed) return json(res, 400, { error: parsed.error });
  display.button(button, parsed.value.action);
  json(res, 200, {});
}

/** `POST /automation`: the rules that press buttons when a text is drawn (./speculos-automation.ts). */
async function postAutomation({ res, body, display }: RouteCall): Promise<void> {
  // Speculos reads the document as ASCII and refuses a path to a file ("file:…", which its command line takes).
  if (body.some((b) => b > 0x7f)) return json(res, 400, 'invalid encoding');
  const text = String.fromCharCode(...body);
  const automation = text.startsWith('file:') ? undefined : Automation.parse(text);
  if (!automation) return json(res, 400, 'invalid document');
  display.setAutomation(automation);
  json(res, 200, {});
}

/**
 * Why a request is refused, or undefined: only a local tool (no browser page) may drive the device. A browser puts
 * an Origin header on every cross-site POST (a form or `text/plain` "simple request" too), and a DNS-rebound page
 * reaches us under its own name in Host; a local tool (curl, the Speculos transport) sends neither.
 */
function refuse(req: IncomingMessage): { status: number; error: string } | undefined {
  const host = req.headers.host ?? '';
  if (!LOOPBACK_HOST_HEADER.test(host)) return { status: 403, error: 'refused: the Host header must name a loopback address' };
  if (req.headers.origin !== undefined) return { status: 403, error: 'refused: requests from a web page (Origin header) are not accepted' };
  return undefined;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A query flag as Flask-RESTful's `inputs.boolean` reads it (absent: false; not a boolean: undefined). */
function flag(url: URL, name: string): boolean | undefined {
  const value = url.searchParams.get(name);
  if (value === null) return false;
  if (/^(true|1|yes|on)$/i.test(value)) return true;
  if (/^(false|0|no|off)$/i.test(value)) return false;
  return undefined;
}

async function readBody(req: IncomingMessage): Promise<Uint8Array> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new Error('request body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The body as JSON of `schema`, whatever its Content-Type (Flask's `get_json(force=True)`), or why it is not. */
function parseJson<T>(body: Uint8Array, schema: z.ZodType<T>): { value: T } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return { error: 'the body is not JSON' };
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) return { error: parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ') };
  return { value: parsed.data };
}
