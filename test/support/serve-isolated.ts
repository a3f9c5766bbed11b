/**
 * A static server on loopback for a built page, by default with the headers that make its pages cross-origin isolated
 * (o1js needs SharedArrayBuffer); the wallet page and the dapps that open it get their own headers and loopback
 * addresses (distinct addresses are distinct sites). Used by the e2e test and the browser benchmark.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
};

/** COOP + COEP: the page is cross-origin isolated, and severed from any window that opens it or that it opens. */
export const COOP_COEP = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' } as const;

export interface ServeOptions {
  /** The loopback address to listen on (default 127.0.0.1). */
  host?: string;
  /** The headers of every response (default COOP_COEP), or of each response by its path. */
  headers?: Record<string, string> | ((path: string) => Record<string, string>);
  /** Adds `cache-control: no-store` (default true); false: the headers above are all that is sent beside the type. */
  noStore?: boolean;
}

/**
 * Serves `dir` (paths outside it are 404) on an ephemeral port of `options.host` (default 127.0.0.1). `route(path)`
 * may map a path to another file first (undefined: not its path; null: refused, 404).
 */
export async function serveIsolated(
  dir: string,
  route: (path: string) => string | null | undefined = () => undefined,
  options: ServeOptions = {},
): Promise<{ origin: string; close(): Promise<void> }> {
  const host = options.host ?? '127.0.0.1';
  const headers = options.headers ?? COOP_COEP;
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://127.0.0.1').pathname)).replace(/^(\.\.[/\\])+/, '');
    const routed = route(path);
    const file = routed ?? join(dir, path.endsWith('/') ? `${path}index.html` : path);
    try {
      if (routed === null || (routed === undefined && !file.startsWith(dir))) throw new Error('outside');
      const body = await readFile(file as string);
      res.writeHead(200, {
        'content-type': TYPES[extname(file as string)] ?? 'application/octet-stream',
        ...(typeof headers === 'function' ? headers(path) : headers),
        ...(options.noStore === false ? {} : { 'cache-control': 'no-store' }),
      });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { origin: `http://${host}:${(server.address() as { port: number }).port}`, close };
}
