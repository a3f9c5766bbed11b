/**
 * The real, unmodified `@ledgerhq/hw-transport-webhid` through `openWebHid()`, against a test-only `navigator.hid`
 * whose one device is the software Ledger behind the Ledger HID framing. Every wait is bounded.
 */
import * as hidFramingModule from '@ledgerhq/hw-transport-webhid/hid-framing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MinaLedgerApp, type PaymentOrDelegation } from '../../src/apdu.js';
import { toHex } from '../../src/apdu/bytes.js';
import { signatureToRawHex } from '../../src/apdu/signature.js';
import { STORE_KEY_MESSAGE } from '../../src/apdu/store-key.js';
import { listen } from '@ledgerhq/logs';
import type { SoftwareLedger } from '../../src/emulator.js';
import type { ExclusiveTransport } from '../../src/transport/exclusive.js';
import { isWebHidAvailable, openWebHid, unwrapDefault } from '../../src/transport/webhid.js';
import type { HidShimOptions } from '../support/hid-device.js';
import { encodeFrames, FrameAssembler } from '../support/hid-framing.js';
import { createHidShim } from '../support/hid-shim.js';
import { exchange, vectors } from '../support/vectors.js';
import { rejection as failure } from '../support/provider-failure.js';
import { quietLedger, storeProvider, tempDirs, within } from '../support/rig.js';
import { credentialManager } from '../../src/index.js';

const tempDir = tempDirs('webhid');

/** The package's own framing (the one TransportWebHID uses), a CommonJS-typed default export. */
const hidFraming = unwrapDefault(hidFramingModule as { default: unknown }) as typeof hidFramingModule.default.default;

function setup(ledgerOptions: Parameters<typeof SoftwareLedger.fromMnemonic>[1] = {}, shimOptions: HidShimOptions = {}) {
  const ledger = quietLedger({ ...ledgerOptions });
  const shim = createHidShim(ledger, shimOptions);
  vi.stubGlobal('navigator', { hid: shim.hid });
  return { ledger, shim };
}

const opened: ExclusiveTransport[] = [];
async function open(options?: { request?: boolean }): Promise<ExclusiveTransport> {
  const transport = await within(openWebHid(options), 'openWebHid', 10_000);
  opened.push(transport);
  return transport;
}

afterEach(async () => {
  for (const transport of opened.splice(0)) {
    await within(transport.close(), 'close', 5_000);
  }
  vi.unstubAllGlobals();
});

const tx1 = exchange('sign_tx_1');
const payment1: PaymentOrDelegation = {
  txType: tx1.params.txType,
  account: tx1.params.account,
  from: tx1.params.from,
  to: tx1.params.to,
  amount: BigInt(tx1.params.amount),
  fee: BigInt(tx1.params.fee),
  nonce: tx1.params.nonce,
  validUntil: tx1.params.validUntil,
  memo: tx1.params.memo,
  networkId: tx1.params.networkId,
};

describe('the HID shim framing', () => {
  it('frames exactly as @ledgerhq/hw-transport-webhid does, in both directions', () => {
    for (const length of [0, 1, 5, 55, 56, 57, 58, 59, 60, 116, 117, 118, 177, 255, 260, 600]) {
      const message = Uint8Array.from({ length }, (_, i) => (i * 7 + length) & 0xff);
      const channel = (length * 257 + 0x1234) & 0xffff;
      const framing = hidFraming(channel, 64);
      const ours = encodeFrames(channel, message);
      expect(ours.map(toHex)).toEqual(framing.makeBlocks(Buffer.from(message)).map(toHex));
      expect(ours.every((f) => f.length === 64)).toBe(true);

      let acc: ReturnType<typeof framing.reduceResponse> | undefined;
      for (const frame of ours) acc = framing.reduceResponse(acc as never, Buffer.from(frame));
      expect(toHex(framing.getReducedResult(acc as never)!)).toBe(toHex(message));

      const assembler = new FrameAssembler();
      const results = ours.map((f) => assembler.push(f));
      expect(toHex(results.at(-1)!)).toBe(toHex(message));
      expect(results.slice(0, -1).every((r) => r === undefined)).toBe(true);
    }
  });

  it("chain-ledger's own framing (for raw transports given to the provider) is byte for byte the package's", async () => {
    const { ledgerHidFraming } = await import('../../src/transport/quiet-exchange.js');
    for (const length of [0, 1, 5, 56, 57, 58, 59, 60, 116, 117, 118, 177, 255, 260, 600]) {
      const message = Uint8Array.from({ length }, (_, i) => (i * 13 + length) & 0xff);
      const channel = (length * 251 + 0x0101) & 0xffff;
      const theirs = hidFraming(channel, 64);
      const ours = ledgerHidFraming(channel, 64);
      const blocks = ours.makeBlocks(message);
      expect(blocks.map(toHex)).toEqual(theirs.makeBlocks(Buffer.from(message)).map(toHex));
      let acc: unknown;
      for (const block of blocks) {
        expect(ours.getReducedResult(acc)).toBeUndefined();
        acc = ours.reduceResponse(acc, block);
      }
      expect(toHex(ours.getReducedResult(acc)!)).toBe(toHex(message));
      expect(() => ours.reduceResponse(undefined, encodeFrames(channel ^ 1, message)[0]!)).toThrow(
        expect.objectContaining({ id: 'InvalidChannel' }),
      );
    }
  });

  it('needs 4 reports for the 177-byte sign_tx request and 2 for its 66-byte reply', () => {
    expect(tx1.request.length / 2).toBe(177);
    expect(encodeFrames(1, Buffer.from(tx1.request, 'hex'))).toHaveLength(4);
    expect(encodeFrames(1, Buffer.from(tx1.reply, 'hex'))).toHaveLength(2);
  });
});

describe('openWebHid over the real TransportWebHID and the shim', () => {
  it('without a prior grant rejects with LedgerNotFoundError and does not prompt', async () => {
    const { shim } = setup();
    expect(isWebHidAvailable()).toBe(true);
    const error = await failure(openWebHid());
    expect(error.name).toBe('LedgerNotFoundError');
    expect(error.message).toContain('request: true');
    expect(shim.calls.getDevices).toBe(1);
    expect(shim.calls.requestDevice).toBe(0);
    expect(shim.device.opened).toBe(false);
  });

  it('request: true opens the device; version, silent address and a payment come back byte-exact', async () => {
    const { ledger, shim } = setup();
    const transport = await open({ request: true });
    expect(shim.calls.requestDevice).toBe(1);
    expect(shim.granted).toBe(true);
    expect(shim.device.opened).toBe(true);
    expect((transport.inner as unknown as { deviceModel?: { id: string } }).deviceModel?.id).toBe('nanoX');

    const app = new MinaLedgerApp(transport);
    expect((await within(app.getAppVersion())).version).toBe('1.6.0');
    expect(shim.frames).toEqual({ out: 1, in: 1 });

    expect(await within(app.getAddress(0))).toBe(vectors.accounts[0]!.address);
    expect(await within(app.getAddress(0))).toBe(exchange('get_address_0_silent').result.address);
    // 9-byte request in 1 report; 58-byte reply (+2 length bytes) in 2.
    expect(shim.frames).toEqual({ out: 3, in: 5 });

    const before = { ...shim.frames };
    const signature = await within(app.signTransaction(payment1));
    expect(signature).toEqual({ field: tx1.signature!.field, scalar: tx1.signature!.scalar });
    expect(shim.frames.out - before.out).toBe(4);
    expect(shim.frames.in - before.in).toBe(2);

    const wire = shim.exchanges.at(-1)!;
    expect(toHex(wire.request)).toBe(tx1.request);
    expect(toHex(wire.reply!)).toBe(tx1.reply);
    expect(wire).toMatchObject({ framesOut: 4, framesIn: 2 });
    expect(shim.exchanges.map((e) => toHex(e.request))).toEqual(ledger.exchanges.map((e) => e.request));
    expect(shim.protocolErrors).toEqual([]);

    await within(transport.close());
    expect(shim.device.opened).toBe(false);
    expect(transport.disconnected).toBe(true);
  });

  it('the store-key reply is never published on @ledgerhq/logs (other replies are), and it is still exact', async () => {
    const { shim } = setup();
    const transport = await open({ request: true });
    const logged: string[] = [];
    const stop = listen((entry) => logged.push(`${entry.type} ${entry.message ?? ''}`));
    try {
      const app = new MinaLedgerApp(transport);
      await within(app.getAppVersion());
      await within(app.signMessage(0, 'hello', 1));
      const normal = toHex(shim.exchanges.at(-1)!.reply!);
      expect(logged.some((line) => line.includes(normal))).toBe(true); // the listener does see ordinary replies
      const key = await within(app.signMessage(0, STORE_KEY_MESSAGE, 1));
      const reply = toHex(shim.exchanges.at(-1)!.reply!);
      expect(reply.slice(0, 128)).toBe(signatureToRawHex(key)); // what we search for is the store key's signature
      for (const line of logged) {
        expect(line).not.toContain(reply.slice(0, 128)); // the signature (r ‖ s) is the first 64 bytes
      }
      // The quiet path returns exactly what the device sent.
      expect(key.signedMessage).toBe(`Message : ${STORE_KEY_MESSAGE}`);
      expect(shim.protocolErrors).toEqual([]);
    } finally {
      stop();
    }
  });

  it('a raw TransportWebHID (opened without openWebHid) given to the provider: the store-key reply is not logged either', async () => {
    const { shim } = setup({}, { granted: true, foreignChannelNoise: true });
    const TransportWebHID = unwrapDefault((await import('@ledgerhq/hw-transport-webhid')) as { default: unknown }) as {
      openConnected(): Promise<{ close(): Promise<void> } | null>;
    };
    const raw = (await within(TransportWebHID.openConnected(), 'openConnected'))!;
    const logged: string[] = [];
    const stop = listen((entry) => logged.push(`${entry.type} ${entry.message ?? ''}`));
    try {
      const chain = storeProvider(raw as never, tempDir());
      await within(chain.requestAccounts());
      expect(await within(credentialManager(chain).list())).toEqual([]); // the store key was derived
      const key = shim.exchanges.find((e) => toHex(e.request).startsWith('e005'))!;
      expect(toHex(key.request)).toContain(toHex(new TextEncoder().encode(STORE_KEY_MESSAGE)));
      const signature = toHex(key.reply!).slice(0, 128);
      expect(logged.some((line) => line.startsWith('apdu <= '))).toBe(true); // other replies are logged
      for (const line of logged) expect(line).not.toContain(signature);
      expect(shim.protocolErrors).toEqual([]);
    } finally {
      stop();
      await within(raw.close());
    }
  });

  it('after a grant, openWebHid() reopens the device without prompting', async () => {
    const { shim } = setup();
    const first = await open({ request: true });
    await within(first.close());
    expect(shim.calls.requestDevice).toBe(1);

    const again = await open();
    expect(shim.calls.requestDevice).toBe(1);
    expect(again).not.toBe(first);
    expect((await within(new MinaLedgerApp(again).getAppVersion())).version).toBe('1.6.0');
  });

  it('a grant from an earlier visit is enough: no chooser at all', async () => {
    const { shim } = setup({}, { granted: true });
    const transport = await open();
    expect(shim.calls.requestDevice).toBe(0);
    expect(await within(new MinaLedgerApp(transport).getAddress(1))).toBe(vectors.accounts[1]!.address);
  });

  it('the user cancelling the chooser gives LedgerNotFoundError', async () => {
    const { shim } = setup({}, { chooser: 'cancel' });
    const error = await failure(openWebHid({ request: true }));
    expect(error.name).toBe('LedgerNotFoundError');
    expect(error.message).toContain('no device was chosen');
    expect(shim.calls.requestDevice).toBe(1);
    expect(shim.granted).toBe(false);
    expect(shim.device.opened).toBe(false);
  });

  it('a chooser opened outside a user gesture gives LedgerNotFoundError naming the gesture', async () => {
    setup({}, { chooser: 'no-gesture' });
    const error = await failure(openWebHid({ request: true }));
    expect(error.name).toBe('LedgerNotFoundError');
    expect(error.message).toContain('user gesture');
  });

  it('a device already open elsewhere gives LedgerNotFoundError', async () => {
    setup();
    await open({ request: true });
    const error = await failure(openWebHid());
    expect(error.name).toBe('LedgerNotFoundError');
    expect(error.message).toContain('could not be opened');
  });

  it('a rejection on the device is LedgerUserRejectedError with status 0x6985', async () => {
    const { shim } = setup({ approve: () => false });
    const app = new MinaLedgerApp(await open({ request: true }));
    const error = await failure(app.signTransaction(payment1));
    expect(error.name).toBe('LedgerUserRejectedError');
    expect(error.statusCode).toBe(0x6985);
    expect(toHex(shim.exchanges.at(-1)!.reply!)).toBe(exchange('sign_tx_1_rejected').reply);
    expect(shim.exchanges.at(-1)).toMatchObject({ framesOut: 4, framesIn: 1 });
  });

  it('concurrent calls are queued, never a TransportRaceCondition', async () => {
    setup();
    const app = new MinaLedgerApp(await open({ request: true }));
    const [a0, a1, a2] = await within(Promise.all([app.getAddress(0), app.getAddress(1), app.getAddress(2)]));
    expect([a0, a1, a2]).toEqual([0, 1, 2].map((n) => vectors.accounts[n]!.address));
  });

  it('reports on another channel are skipped by the transport', async () => {
    const { shim } = setup({}, { foreignChannelNoise: true });
    const app = new MinaLedgerApp(await open({ request: true }));
    expect(await within(app.signTransaction(payment1))).toEqual({ field: tx1.signature!.field, scalar: tx1.signature!.scalar });
    expect(shim.protocolErrors).toEqual([]);
  });

  it.each([
    ['navigator is absent', undefined],
    ['navigator has no hid', {}],
  ])('isWebHidAvailable() is false when %s, and openWebHid rejects with LedgerNotFoundError', async (_label, nav) => {
    vi.stubGlobal('navigator', nav);
    expect(isWebHidAvailable()).toBe(false);
    for (const request of [false, true]) {
      const error = await failure(openWebHid({ request }));
      expect(error.name).toBe('LedgerNotFoundError');
      expect(error.message).toContain('WebHID is not available');
    }
  });

  it('unplugging during an exchange rejects the pending call with LedgerDisconnectedError', async () => {
    let shimRef: ReturnType<typeof createHidShim> | undefined;
    const { shim, ledger } = setup({
      approve: () => {
        shimRef!.unplug();
        return true;
      },
    });
    shimRef = shim;
    const transport = await open({ request: true });
    const app = new MinaLedgerApp(transport);
    const events: string[] = [];
    transport.on('disconnect', (e) => events.push(e.name));

    const error = await failure(app.signTransaction(payment1), 'the signing call');
    expect(error.name).toBe('LedgerDisconnectedError');
    expect(transport.disconnected).toBe(true);
    expect(events).toEqual(['LedgerDisconnectedError']);
    expect(shim.unplugged).toBe(true);
    expect(shim.device.opened).toBe(false);

    // The device finished its work, but the reply never reached the host.
    await within(shim.idle(), 'the device', 10_000);
    expect(ledger.exchanges.at(-1)?.reply).toBe(tx1.reply);
    expect(shim.exchanges.at(-1)).toMatchObject({ dropped: true, framesOut: 4, framesIn: 0 });

    // Later calls fail at once; the device is gone from getDevices; writes reject.
    expect((await failure(app.getAppVersion())).name).toBe('LedgerDisconnectedError');
    expect(await shim.hid.getDevices()).toEqual([]);
    expect((await failure(shim.device.sendReport(0, new Uint8Array(64)))).name).toBe('NotAllowedError');
  });

  // TransportWebHID.close() waits for the exchange cut off by the unplug, whose input report never comes; the queue's
  // close() must not wait for it.
  it('close() after an unplug mid-exchange settles', async () => {
    let shimRef: ReturnType<typeof createHidShim> | undefined;
    const { shim } = setup({
      approve: () => {
        shimRef!.unplug();
        return true;
      },
    });
    shimRef = shim;
    const transport = await open({ request: true });
    expect((await failure(new MinaLedgerApp(transport).getAddress(0, { display: true }))).name).toBe('LedgerDisconnectedError');
    await within(transport.close(), 'close after unplug', 1_000);
  });

  it('a write to an unplugged device surfaces as DisconnectedDeviceDuringOperation from the transport itself', async () => {
    const { shim } = setup();
    const transport = await open({ request: true });
    shim.unplug();
    expect(transport.disconnected).toBe(true);
    const inner = transport.inner as { send(cla: number, ins: number, p1: number, p2: number): Promise<Uint8Array> };
    const error = await failure(inner.send(0xe0, 0x01, 0, 0));
    expect(error.name).toBe('DisconnectedDeviceDuringOperation');
    expect(shim.frames.out).toBe(0);
  });

  it("the software Ledger's own unplug reaches the host as a disconnect", async () => {
    const { shim, ledger } = setup();
    const transport = await open({ request: true });
    ledger.unplug();
    expect(shim.unplugged).toBe(true);
    expect(transport.disconnected).toBe(true);
  });
});
