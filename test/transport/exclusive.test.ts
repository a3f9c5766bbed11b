/** One exchange at a time per device: order, cancellation and disconnects. */
import Client from 'mina-signer';
import { describe, expect, it } from 'vitest';
import { MinaLedgerApp, signatureToBase58 } from '../../src/apdu.js';

import { ExclusiveTransport } from '../../src/transport.js';
import { addressOf } from '../support/vectors.js';
import { quietLedger } from '../support/rig.js';

/** A device whose reviews wait until the test answers them. */
function manualDevice() {
  const pending: ((approved: boolean) => void)[] = [];
  const device = quietLedger({
    approve: () => new Promise<boolean>((resolve) => pending.push(resolve)),
  });
  const waitForReview = async () => {
    for (let i = 0; i < 200 && pending.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    if (pending.length === 0) throw new Error('no review appeared within 1 s');
    return pending.shift()!;
  };
  return { device, waitForReview };
}

describe('ExclusiveTransport', () => {
  it('is one queue per device, shared by every client', () => {
    const device = quietLedger();
    expect(new MinaLedgerApp(device).transport).toBe(new MinaLedgerApp(device).transport);
    expect(ExclusiveTransport.for(ExclusiveTransport.for(device))).toBe(ExclusiveTransport.for(device));
  });

  it('runs 20 concurrent calls from two clients one at a time, in order, each with its own result', async () => {
    const device = quietLedger({ latencyMs: 2 });
    const a = new MinaLedgerApp(device);
    const b = new MinaLedgerApp(device);
    // The raw device refuses overlap (like real transports' TransportRaceCondition): the queue must prevent it.
    const calls = Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).getAddress(i % 4, { display: true }));
    const results = await Promise.all(calls);
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => addressOf(i % 4)));
    expect(device.exchanges.map((e) => e.request.slice(-2))).toEqual(Array.from({ length: 20 }, (_, i) => `0${i % 4}`));
  });

  it('the device itself refuses an overlapping exchange, which is why the queue exists', async () => {
    const { device, waitForReview } = manualDevice();
    const first = device.exchange(Uint8Array.of(0xe0, 0x02, 0, 0, 4, 0, 0, 0, 0));
    await waitForReview().then((answer) => {
      const overlap = device.exchange(Uint8Array.of(0xe0, 0x01, 0, 0, 0));
      answer(true);
      return expect(overlap).rejects.toMatchObject({ name: 'TransportRaceCondition' });
    });
    await first;
  });

  it('a second call while the user is confirming waits its turn, it does not fail', async () => {
    const { device, waitForReview } = manualDevice();
    const app = new MinaLedgerApp(device);
    const first = app.getAddress(0, { display: true });
    const second = app.getAddress(1, { display: true });
    (await waitForReview())(true);
    (await waitForReview())(true);
    expect(await Promise.all([first, second])).toEqual([addressOf(0), addressOf(1)]);
  });

  it('aborting a waiting call removes it from the queue and leaves the others alone', async () => {
    const { device, waitForReview } = manualDevice();
    const app = new MinaLedgerApp(device);
    const controller = new AbortController();
    const first = app.getAddress(0, { display: true });
    const cancelled = app.getAddress(1, { display: true, signal: controller.signal });
    const third = app.getAddress(2, { display: true });
    const answerFirst = await waitForReview();
    expect(app.transport.pending).toBe(2);
    controller.abort();
    await expect(cancelled).rejects.toMatchObject({ name: 'AbortError' });
    expect(app.transport.pending).toBe(1);
    answerFirst(true);
    (await waitForReview())(true);
    expect(await first).toBe(addressOf(0));
    expect(await third).toBe(addressOf(2));
    // The cancelled request never reached the device.
    expect(device.exchanges.map((e) => e.request.slice(-2))).toEqual(['00', '02']);
  });

  it('aborting a call on the device rejects it at once; the next call runs once the device has answered', async () => {
    const { device, waitForReview } = manualDevice();
    const app = new MinaLedgerApp(device);
    const controller = new AbortController();
    const onDevice = app.getAddress(0, { display: true, signal: controller.signal });
    const next = app.getAppVersion();
    const answer = await waitForReview();
    controller.abort(new Error('user closed the dialog'));
    await expect(onDevice).rejects.toThrow('user closed the dialog');
    let nextDone = false;
    void next.then(() => (nextDone = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(nextDone).toBe(false); // the device still shows the review
    answer(false);
    expect((await next).version).toBe('1.6.0');
  });

  it('an already aborted signal sends nothing', async () => {
    const device = quietLedger();
    await expect(new MinaLedgerApp(device).getAppVersion({ signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(device.exchanges).toHaveLength(0);
  });

  it('a disconnect rejects the call on the device and every waiting call, emits one event, and refuses later calls', async () => {
    const { device, waitForReview } = manualDevice();
    const app = new MinaLedgerApp(device);
    const events: { name: string }[] = [];
    app.transport.on('disconnect', (e) => events.push(e));
    const calls = [app.getAddress(0, { display: true }), app.getAppVersion(), app.getAddress(1)];
    await waitForReview();
    device.unplug();
    for (const call of calls) await expect(call).rejects.toMatchObject({ name: 'LedgerDisconnectedError' });
    expect(events.map((e) => e.name)).toEqual(['LedgerDisconnectedError']);
    await expect(app.getAppVersion()).rejects.toMatchObject({ name: 'LedgerDisconnectedError' });
    expect(device.exchanges).toHaveLength(0);
  });

  it('two concurrent multi-chunk commands (8-field signFields each) never interleave: both signatures verify', async () => {
    // 8 fields are 262 bytes: two chunks per command. Interleaved, the device would assemble one caller's first chunk
    // with the other's last and sign that mix for the first caller (and answer 0x6802 to the second).
    const device = quietLedger({ extensions: true, blindSigning: true, latencyMs: 1 });
    const a = new MinaLedgerApp(device);
    const b = new MinaLedgerApp(device);
    const fieldsA = Array.from({ length: 8 }, (_, i) => BigInt(1000 + i));
    const fieldsB = Array.from({ length: 8 }, (_, i) => BigInt(2000 + i));
    const [sigA, sigB] = await Promise.all([a.signFields(0, fieldsA), b.signFields(0, fieldsB)]);
    const signer = new Client({ network: 'testnet' });
    const publicKey = addressOf(0);
    expect(signer.verifyFields({ data: fieldsA, signature: signatureToBase58(sigA), publicKey })).toBe(true);
    expect(signer.verifyFields({ data: fieldsB, signature: signatureToBase58(sigB), publicKey })).toBe(true);
    // The chunks reached the device as A1 A2 B1 B2, whichever command started first.
    const p1p2 = device.exchanges.map((e) => e.request.slice(4, 8));
    expect(p1p2).toEqual(['0080', '8000', '0080', '8000']);
  });

  it('a command holds the device across its exchanges: a version read and the request it gates stay together', async () => {
    const device = quietLedger({ latencyMs: 1 });
    const a = new MinaLedgerApp(device);
    const b = new MinaLedgerApp(device);
    // a's first signMessage reads the version (INS 01) then signs (INS 05); b's address read must not land between.
    const [, address] = await Promise.all([a.signMessage(0, 'hello', 0), b.getAddress(1)]);
    expect(address).toBe(addressOf(1));
    const ins = device.exchanges.map((e) => e.request.slice(2, 4));
    expect(ins.slice(0, 2)).toEqual(['01', '05']);
  });

  it('exclusive() keeps several commands together and queues everyone else behind them', async () => {
    const device = quietLedger({ latencyMs: 1 });
    const app = new MinaLedgerApp(device);
    const other = new MinaLedgerApp(device);
    const held = app.exclusive(async (d) => [await d.getAddress(0), await d.getAddress(1), await d.getAddress(2)]);
    const waiting = other.getAddress(3);
    expect(await held).toEqual([addressOf(0), addressOf(1), addressOf(2)]);
    expect(await waiting).toBe(addressOf(3));
    // INS 01 once (the silent address needs the version), then accounts 0, 1, 2 together, then the other caller's 3.
    const accounts = device.exchanges.filter((e) => e.request.startsWith('e002')).map((e) => e.request.slice(-2));
    expect(accounts).toEqual(['00', '01', '02', '03']);
  });

  it('a transport with units of its own (runTask) gets each whole command as one task, its progress told, its exchanges through the send it gives', async () => {
    const device = quietLedger({ extensions: true, blindSigning: true });
    const units: string[][] = [];
    const told: string[] = [];
    const unitTransport = {
      send: () => Promise.reject(new Error('a command exchanged outside its unit')),
      async runTask<T>(
        task: (send: typeof device.send) => Promise<T>,
        options: { progress?: (stage: 'open-app', extra?: { prompt?: string }) => void },
      ) {
        options.progress?.('open-app', { prompt: 'Open the Mina app' });
        const unit: string[] = [];
        units.push(unit);
        return task((cla, ins, p1, p2, data, statusList) => (unit.push(ins.toString(16)), device.send(cla, ins, p1, p2, data, statusList)));
      },
    };
    const app = new MinaLedgerApp(unitTransport);
    const progress = (stage: string, extra?: { prompt?: string }) => told.push(`${stage}: ${extra?.prompt}`);
    // A silent address reads the version first: both exchanges are one command, hence one unit.
    expect(await app.getAddress(0, { progress })).toBe(addressOf(0));
    expect(await app.signFields(0, [1n, 2n, 3n], 'testnet', { progress })).toHaveProperty('field');
    expect(units).toEqual([['1', '2'], ['a1']]);
    expect(told).toEqual(['open-app: Open the Mina app', 'open-app: Open the Mina app']);
  });
});
