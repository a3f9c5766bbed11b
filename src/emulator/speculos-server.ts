/**
 * A Speculos-compatible REST API on loopback in front of any device model with `exchange()` and an `approve`
 * hook (the software Ledger), so the unmodified `@ledgerhq/hw-transport-node-speculos-http` drives it over real
 * HTTP — including on-screen reviews answered with button presses, as with the real Speculos
 * (LedgerHQ/speculos: speculos/api/apdu.py, events.py, button.py).
 *
 *   POST   /apdu                 {"data": hex} → {"data": hex}; held while the device waits for the user; one at a time
 *   GET    /events[?stream=true] every text drawn since the last reset; with stream=true as server-sent events
 *   DELETE /events               resets the list
 *   POST   /button/{left,right,both} {"action": "press-and-release"}
 *
 * Screens are published as the device draws them (review.ts, display.ts): one text event per drawn line, a paged
 * value as paged, so a tool written for the real Speculos (wait for a text, press right until "Approve", press
 * both) works unchanged. Like the device, both buttons act only on a choice screen (Approve/Reject,
 * Generate/Cancel, the Reject of a notice); after an approval the device shows "Signing..." for a transaction, and
 * when the app then answers an error it stays on the screen it was on (recorded on the real app).
 *
 * Only a local tool may drive it: a request whose Host is not a loopback name (DNS rebinding) and any request with
 * an Origin header (a web page: every cross-site POST a browser sends carries one, a form's too) are refused (403),
 * so no page the user visits can press its buttons or send APDUs. A POST body is read as JSON whatever its
 * Content-Type, as the real Speculos does (`curl -d '{"action":"press-and-release"}' …/button/right` sends a form
 * type); a body that is neither declared `application/json` nor parses as JSON is refused (415).
 *
 * `GET /screenshot` answers 501: the server publishes the screens as text events and draws no pixels.
 *
 * Node only (node:http is loaded when the server starts).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fromHex, toHex } from '../apdu/bytes.js';
import { fixed, type Approver, type Review, type Screen } from './review.js';

export interface SpeculosDevice {
  exchange(apdu: Uint8Array): Promise<Uint8Array>;
  approve: Approver;
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
  /** The screen shown now (for tests and logs). */
  readonly currentScreen: Screen | undefined;
  /** Closes the event streams (clients see the device disconnect) and the server. */
  close(): Promise<void>;
}

interface SpeculosEvent {
  text: string;
  x: number;
  y: number;
}

interface ActiveReview {
  review: Review;
  /** The screen shown, an index into `review.screens`. */
  index: number;
  decide: (approved: boolean) => void;
}

const IDLE: Screen = fixed('Mina', 'is ready');
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
/** Host header names a loopback server answers to (a rebinding DNS name is none of them). */
const LOOPBACK_HOST_HEADER = /^(127\.0\.0\.1|localhost|\[::1\])(:\d{1,5})?$/i;
/** The row spacing of the drawn lines, in pixels, from the first row at y = 3 (a Nano's 64-pixel screen). */
const ROW_Y = (row: number) => 3 + 14 * row;
const MAX_BODY = 4096;

/**
 * Serves `device` behind the Speculos REST API (`/apdu`, `/button/*`, `/events`) on
 * loopback, so unmodified Speculos clients (`@ledgerhq/hw-transport-node-speculos-http`, `openSpeculos`) drive it.
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

  const events: SpeculosEvent[] = [];
  const streams = new Set<ServerResponse>();
  let active: ActiveReview | undefined;
  let shown: Screen | undefined;
  let apduQueue: Promise<unknown> = Promise.resolve();

  const show = (screen: Screen) => {
    shown = screen;
    screen.lines.forEach((text, i) => {
      const event = { text, x: 0, y: ROW_Y(screen.rows[i] ?? i) };
      events.push(event);
      if (events.length > 1000) events.shift();
      // One write per event: the Speculos transport parses each received chunk on its own.
      for (const res of streams) res.write(`data: ${JSON.stringify(event)}\n\n`);
    });
  };

  /** Whether the review being answered now was approved (the device then stays on its screen if the app errs). */
  let approvedInExchange = false;
  const decided = (review: Review, approved: boolean) => {
    approvedInExchange = approved;
    if (approved && review.afterApproval) show(review.afterApproval);
    else if (!approved) show(IDLE);
  };

  const originalApprove = device.approve;
  const buttons = options.buttons ?? true;
  device.approve = (review) => {
    show(review.screens[0]!);
    if (!buttons) {
      review.screens.slice(1).forEach(show);
      return Promise.resolve(originalApprove(review)).then((approved) => {
        decided(review, approved && review.approvable);
        return approved;
      });
    }
    return new Promise<boolean>((resolve) => {
      active = {
        review,
        index: 0,
        decide: (approved) => {
          active = undefined;
          decided(review, approved);
          resolve(approved);
        },
      };
    });
  };

  const press = (button: string): boolean => {
    if (!active) return true; // buttons on the idle screen do nothing
    const { review } = active;
    // Navigation stays within the current stage; each stage ends on its go-on choice, then its stop choice.
    const starts = review.stages ?? [0];
    const stage = starts.filter((start) => start <= active!.index).length - 1;
    const first = starts[stage]!;
    const last = (starts[stage + 1] ?? review.screens.length) - 1;
    const finalStage = stage === starts.length - 1;
    if (button === 'right') active.index = Math.min(active.index + 1, last);
    else if (button === 'left') active.index = Math.max(active.index - 1, first);
    else if (button === 'both') {
      // Both buttons act on the choice screens only: stop (the last of a stage), go on (before it) unless a notice.
      if (active.index === last) {
        active.decide(false);
        return true;
      }
      if (!review.approvable || active.index !== last - 1) return true;
      if (finalStage) {
        active.decide(true);
        return true;
      }
      active.index = last + 1; // the next stage
    } else return false;
    show(review.screens[active.index]!);
    return true;
  };

  const server: Server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { error: error instanceof Error ? error.message : String(error) });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refusal = refuse(req);
    if (refusal) {
      req.resume();
      return json(res, refusal.status, { error: refusal.error });
    }
    const url = new URL(req.url ?? '/', 'http://speculos');
    const path = url.pathname;
    let body: Record<string, unknown> | undefined;
    if (req.method === 'POST') {
      const read = await readJson(req);
      if (read === NOT_JSON) return json(res, 415, { error: 'refused: a POST body must be JSON, e.g. {"action":"press-and-release"}' });
      body = read;
    }
    if (path === '/apdu' && req.method === 'POST') {
      const hex = typeof body?.data === 'string' ? body.data : undefined;
      if (hex === undefined || !/^([0-9a-fA-F]{2})*$/.test(hex)) return json(res, 400, { error: 'expected {"data": hex}' });
      // Speculos serialises APDUs with a lock: a second one waits for the first reply.
      const run = apduQueue.then(() => {
        approvedInExchange = false;
        return device.exchange(fromHex(hex));
      });
      apduQueue = run.catch(() => undefined);
      try {
        const reply = await run;
        // After a success or a rejection the device goes back to idle; an error after an approval leaves the
        // screen as it was ("Signing...", or the Approve screen of a message), as the real app does.
        const ok = reply.length >= 2 && reply[reply.length - 2] === 0x90 && reply[reply.length - 1] === 0x00;
        if (shown !== IDLE && (ok || !approvedInExchange)) show(IDLE);
        return json(res, 200, { data: toHex(reply) });
      } catch (error) {
        // The device went away during the exchange: drop the connection, as a dead emulator would.
        res.destroy(error instanceof Error ? error : undefined);
        return;
      }
    }
    if (path === '/events' && req.method === 'GET') {
      if (url.searchParams.get('stream') === 'true') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
        res.flushHeaders();
        streams.add(res);
        req.on('close', () => streams.delete(res));
        return;
      }
      const only = url.searchParams.get('currentscreenonly') === 'true';
      const list = only && shown ? events.slice(-shown.lines.length) : events;
      return json(res, 200, { events: list });
    }
    if (path === '/events' && req.method === 'DELETE') {
      events.length = 0;
      return json(res, 200, {});
    }
    const button = /^\/button\/(left|right|both)$/.exec(path);
    if (button && req.method === 'POST') {
      press(button[1]!);
      return json(res, 200, {});
    }
    if (path === '/screenshot' && req.method === 'GET') {
      return json(res, 501, { error: 'no screenshots: this server draws no pixels; read the screens as text from /events' });
    }
    return json(res, 404, { error: `no route ${req.method} ${path}` });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  show(IDLE);
  const port = (server.address() as AddressInfo).port;

  return {
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    get currentScreen() {
      return shown;
    },
    async close() {
      device.approve = originalApprove;
      active?.decide(false);
      for (const res of streams) res.end();
      streams.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
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

/** A body that is neither declared `application/json` nor parses as JSON. */
const NOT_JSON = Symbol('not JSON');

/**
 * The body as a JSON object (undefined when empty, or JSON that is not an object), read whatever its Content-Type
 * as the real Speculos reads it (`request.get_json(force=True)`); NOT_JSON when it does not parse and was not
 * declared `application/json` either.
 */
async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined | typeof NOT_JSON> {
  const declared = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new Error('request body too large');
    chunks.push(chunk);
  }
  if (size === 0) return declared ? undefined : NOT_JSON;
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return declared ? undefined : NOT_JSON;
  }
}
