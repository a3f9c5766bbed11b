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
 * Node only (node:http is loaded when the server starts).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fromHex, toHex } from '../apdu/bytes.js';
import type { Approver, Review, Screen } from './review.js';

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
  index: number;
  decide: (approved: boolean) => void;
}

const IDLE: Screen = { title: 'Mina', text: 'is ready' };
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const MAX_BODY = 4096;

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
    const lines = [screen.title, ...(screen.text === undefined ? [] : [screen.text])];
    lines.forEach((text, i) => {
      const event = { text, x: 0, y: 3 + 14 * i };
      events.push(event);
      if (events.length > 1000) events.shift();
      // One write per event: the Speculos transport parses each received chunk on its own.
      for (const res of streams) res.write(`data: ${JSON.stringify(event)}\n\n`);
    });
  };

  const originalApprove = device.approve;
  const buttons = options.buttons ?? true;
  device.approve = (review) => {
    show(review.screens[0]!);
    if (!buttons) {
      review.screens.slice(1).forEach(show);
      return Promise.resolve(originalApprove(review)).finally(() => show(IDLE));
    }
    return new Promise<boolean>((resolve) => {
      active = {
        review,
        index: 0,
        decide: (approved) => {
          active = undefined;
          show(IDLE);
          resolve(approved);
        },
      };
    });
  };

  const press = (button: string): boolean => {
    if (!active) return true; // buttons on the idle screen do nothing
    const { review } = active;
    const last = review.screens.length - 1;
    if (button === 'right') active.index = Math.min(active.index + 1, last);
    else if (button === 'left') active.index = Math.max(active.index - 1, 0);
    else if (button === 'both') {
      // A notice is dismissed by both buttons anywhere; a review is decided on its Approve or Reject screen.
      if (!review.approvable) return active.decide(false), true;
      if (active.index === last) return active.decide(false), true;
      if (active.index === last - 1) return active.decide(true), true;
      return true;
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
    const url = new URL(req.url ?? '/', 'http://speculos');
    const path = url.pathname;
    if (path === '/apdu' && req.method === 'POST') {
      const body = await readJson(req);
      const hex = typeof body?.data === 'string' ? body.data : undefined;
      if (hex === undefined || !/^([0-9a-fA-F]{2})*$/.test(hex)) return json(res, 400, { error: 'expected {"data": hex}' });
      // Speculos serialises APDUs with a lock: a second one waits for the first reply.
      const run = apduQueue.then(() => device.exchange(fromHex(hex)));
      apduQueue = run.catch(() => undefined);
      try {
        const reply = await run;
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
      const list = only && shown ? events.slice(-(shown.text === undefined ? 1 : 2)) : events;
      return json(res, 200, { events: list });
    }
    if (path === '/events' && req.method === 'DELETE') {
      events.length = 0;
      return json(res, 200, {});
    }
    const button = /^\/button\/(left|right|both)$/.exec(path);
    if (button && req.method === 'POST') {
      await readJson(req);
      press(button[1]!);
      return json(res, 200, {});
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

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new Error('request body too large');
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
