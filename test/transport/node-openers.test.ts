/**
 * The Node openers of `chain-ledger/transport/node` that need no emulator: USB HID with nothing plugged in (this
 * loads the real node-hid and usb native modules) and recorded-transcript replay through `@ledgerhq/hw-transport-mocker`.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { MinaLedgerApp } from '../../src/apdu/index.js';
import { listNodeHidDevices, openNodeHid, openTranscript } from '../../src/transport/node.js';
import { addressOf, exchange, transcript } from '../support/vectors.js';

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
