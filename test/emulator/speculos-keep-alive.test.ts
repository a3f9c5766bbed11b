/**
 * The Speculos-compatible server keeps an idle keep-alive connection open longer than HTTP clients do (fetch, which
 * DMK's Speculos transport uses, closes one after 4 s), so a client never sends on a socket the server is closing.
 */
import { connect } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { startSpeculosServer, type SpeculosServer } from '../../src/emulator.js';
import { quietLedger } from '../support/rig.js';

let server: SpeculosServer | undefined;
afterEach(() => server?.close());

it('a keep-alive connection idle for 6 s (past Node’s 5 s default) still carries the next APDU', async () => {
  server = await startSpeculosServer(quietLedger(), { buttons: false });
  const socket = connect(server.port, '127.0.0.1');
  const replies: string[] = [];
  let closed = false;
  socket.on('data', (chunk) => replies.push(chunk.toString()));
  socket.on('close', () => (closed = true));
  const post = () => {
    const body = JSON.stringify({ data: 'e001000000' });
    socket.write(
      `POST /apdu HTTP/1.1\r\nHost: 127.0.0.1:${server!.port}\r\nConnection: keep-alive\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
  };
  post();
  await expect.poll(() => replies.join('')).toContain('"data":"0106009000"');
  await new Promise((resolve) => setTimeout(resolve, 6000));
  expect(closed).toBe(false);
  replies.length = 0;
  post();
  await expect.poll(() => replies.join('')).toContain('"data":"0106009000"');
  socket.destroy();
}, 20_000);
