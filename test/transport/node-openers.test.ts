/**
 * The Node openers of `chain-ledger/transport/node` that need no emulator: USB HID with nothing plugged in (this
 * loads the real node-hid and usb native modules) and recorded-transcript replay through `@ledgerhq/hw-transport-mocker`.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { MinaLedgerApp } from '../../src/apdu.js';
import { listNodeHidDevices, openNodeHid, openTranscript } from '../../src/transport/node.js';
import { addressOf, exchange, transcript } from '../support/vectors.js';
import { quietLedger } from '../support/rig.js';

/**
 * Whether node-hid's native binding loads here. Its Linux prebuilds link against the system's libusb-1.0
 * (Debian: libusb-1.0-0); a machine without it cannot use USB HID at all, which the openers must report as such.
 */
const nativeHidError: unknown = (() => {
  try {
    createRequire(import.meta.url)('node-hid').devices();
    return undefined;
  } catch (error) {
    return error;
  }
})();
const hidLoads = nativeHidError === undefined;

describe('openNodeHid / listNodeHidDevices (real node-hid, no Ledger plugged in)', () => {
  // CI installs libusb-1.0-0, so the native module loads there and the real USB path runs; on a machine without it,
  // the openers must say that USB HID itself is unavailable rather than "no Ledger plugged in".
  it('lists no device and reports "no Ledger" after the listen timeout, or names the missing native library', async () => {
    const outcome = async <T>(call: () => Promise<T>) =>
      call().then(
        (value) => ({ value }),
        (error: unknown) => ({ error: error as Error & { cause?: unknown } }),
      );
    const list = await outcome(() => listNodeHidDevices());
    const open = await outcome(() => openNodeHid({ listenTimeoutMs: 300 }));
    if (hidLoads) {
      // A Ledger plugged into the machine running the tests would make this case meaningless.
      expect(list).toEqual({ value: [] });
      expect(open).toMatchObject({ error: { name: 'LedgerNotFoundError', message: expect.stringMatching(/No Ledger found on USB/) } });
      // The cause is the transport's own "no device" error, kept for diagnostics.
      expect((open as { error: Error }).error.cause).toMatchObject({ name: 'TransportError', id: 'ListenTimeout' });
    } else {
      expect(nativeHidError).toMatchObject({ code: 'ERR_DLOPEN_FAILED' });
      for (const result of [list, open]) {
        expect(result).toMatchObject({ error: { name: 'LedgerNotFoundError', message: expect.stringMatching(/native module/) } });
        const error = (result as { error: Error }).error;
        expect(error.message).not.toMatch(/plug it in/);
        expect(error.cause).toMatchObject({ code: 'ERR_DLOPEN_FAILED' });
      }
    }
  });
});

describe('openTranscript', () => {
  it('replays get_version then get_address_0_silent through MinaLedgerApp', async () => {
    const transport = await openTranscript(transcript('get_version', 'get_address_0_silent'));
    const app = new MinaLedgerApp(transport);
    await expect(app.getAppVersion()).resolves.toEqual({ version: '1.6.0', major: 1, minor: 6, patch: 0 });
    // The version is cached by getAppVersion, so the silent address needs no second INS 01.
    await expect(app.getAddress(0)).resolves.toBe(addressOf(0));
    expect(() => transport.ensureDone()).not.toThrow();
  });

  it('ensureDone throws while recorded exchanges are left', async () => {
    const transport = await openTranscript(transcript('get_version', 'get_address_0_silent'));
    await new MinaLedgerApp(transport).getAppVersion();
    expect(() => transport.ensureDone()).toThrow();
  });

  it('fails with RecordStoreWrongAPDU when a request differs from the recorded one', async () => {
    // Recorded: version, then the address of account 1; asked: the address of account 0.
    const transport = await openTranscript(transcript('get_version', 'get_address_1_silent'));
    const app = new MinaLedgerApp(transport);
    await app.getAppVersion();
    const error = await app.getAddress(0).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      name: 'RecordStoreWrongAPDU',
      expectedAPDU: exchange('get_address_1_silent').request,
      gotAPDU: exchange('get_address_0_silent').request,
    });
  });
});

describe('node-hid: the store-key reply is never published on @ledgerhq/logs', () => {
  it.each([
    ['opened by openNodeHid (quietNodeHid)', true],
    ['a raw TransportNodeHid given to a client or the provider (their queue adds the quiet path)', false],
  ])('%s, over a simulated HID device: other replies are traced, the store-key reply is not, and it is exact', async (_name, viaOpener) => {
    const { STORE_KEY_MESSAGE } = await import('../../src/apdu/store-key.js');
    const { signatureToRawHex } = await import('../../src/apdu/signature.js');
    // The CommonJS build of @ledgerhq/logs: the one the CommonJS transport publishes on (its own subscriber list).
    const { listen } = createRequire(import.meta.url)('@ledgerhq/logs') as typeof import('@ledgerhq/logs');
    const { encodeFrames, FrameAssembler } = await import('../support/hid-framing.js');
    const { quietNodeHid } = await import('../../src/transport/node.js');
    const ledger = quietLedger();
    // A node-hid device as TransportNodeHid uses it: write(report with a leading 0), read(callback).
    const replies: Buffer[] = [];
    let waiting: ((error: unknown, data?: Buffer) => void) | undefined;
    let assembler = new FrameAssembler();
    const deliver = () => {
      if (waiting && replies.length) {
        const cb = waiting;
        waiting = undefined;
        cb(null, replies.shift());
      }
    };
    const device = {
      getDeviceInfo: () => ({ product: 'Nano X' }),
      write(data: number[]) {
        const message = assembler.push(Uint8Array.from(data.slice(1)));
        if (!message) return;
        const channel = assembler.channel!;
        assembler = new FrameAssembler();
        void ledger.exchange(message).then((reply) => {
          for (const frame of encodeFrames(channel, reply)) replies.push(Buffer.from(frame));
          deliver();
        });
      },
      read(cb: (error: unknown, data?: Buffer) => void) {
        waiting = cb;
        deliver();
      },
      close() {},
    };
    const NoEvents = createRequire(import.meta.url)('@ledgerhq/hw-transport-node-hid-noevents').default;
    const transport = new NoEvents(device);
    if (viaOpener) quietNodeHid(transport);
    const app = new MinaLedgerApp(transport);
    const logged: string[] = [];
    const stop = listen((entry) => logged.push(`${entry.type} ${entry.message ?? ''}`));
    try {
      const normal = await app.signMessage(0, 'hello', 1);
      expect(logged.some((line) => line.includes(signatureToRawHex(normal).slice(0, 64)))).toBe(true); // traced
      const key = await app.signMessage(0, STORE_KEY_MESSAGE, 1);
      expect(key.signedMessage).toBe(`Message : ${STORE_KEY_MESSAGE}`);
      const keyHex = signatureToRawHex(key);
      for (const line of logged) expect(line).not.toContain(keyHex.slice(0, 64));
    } finally {
      stop();
    }
  });
});
