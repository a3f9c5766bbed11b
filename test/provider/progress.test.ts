/**
 * `onProgress` and `onDeviceAction` (src/provider/progress.ts): every device prompt is also a `confirm-on-device`
 * stage, every call ends with exactly one `done` or `failed`, the device step's `done` comes before the host work
 * that follows it, and a throwing listener is logged, never thrown into the call.
 */
import { describe, expect, it } from 'vitest';
import type { DeviceAction, ProgressEvent } from '../../src/index.js';
import { CallReport } from '../../src/provider/progress.js';
import { fakeMinaNodes } from '../support/mina-node.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { ORIGIN, providerRig } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';
import { berkeleyCommand } from '../support/zkapp.js';

/** A provider whose progress events and device actions land, in order, in one timeline. */
function recorded(device: Parameters<typeof providerRig>[0] = {}, options: Parameters<typeof providerRig>[1] = {}) {
  const timeline: (['progress', ProgressEvent] | ['action', DeviceAction])[] = [];
  const rig = providerRig(device, {
    onProgress: (event) => timeline.push(['progress', event]),
    onDeviceAction: (action) => timeline.push(['action', action]),
    ...options,
  });
  const progress = () => timeline.flatMap(([kind, event]) => (kind === 'progress' ? [event as ProgressEvent] : []));
  const actions = () => timeline.flatMap(([kind, event]) => (kind === 'action' ? [event as DeviceAction] : []));
  /** The timeline as `progress:stage` and `action:status` steps. */
  const steps = () =>
    timeline.map(([kind, event]) => `${kind}:${kind === 'progress' ? (event as ProgressEvent).stage : (event as DeviceAction).status}`);
  const clear = () => void timeline.splice(0);
  return { ...rig, timeline, progress, actions, steps, clear };
}

describe('confirm-on-device', () => {
  it('every onDeviceAction confirm is also a confirm-on-device stage with the same method and prompt', async () => {
    const r = recorded({ extensions: true });
    await r.chain.requestAccounts();
    await r.chain.signMessage({ message: 'hello' });
    await r.chain.sendTransaction({ transaction: berkeleyCommand(), onlySign: true, nonce: 3 });
    await r.chain.createNullifier({ message: ['1'] });
    const confirms = r.actions().filter((a) => a.status === 'confirm');
    expect(confirms.map((a) => a.method)).toEqual(['requestAccounts', 'signMessage', 'sendTransaction', 'createNullifier']);
    expect(
      r.progress().flatMap((e) => (e.stage === 'confirm-on-device' ? [{ method: e.method, status: 'confirm', prompt: e.prompt }] : [])),
    ).toEqual(confirms);
  });

  it('blind signing asks once per distinct commitment, and each prompt is told both ways', async () => {
    // The host reviews the command (confirmZkapp): the released app signs blind only then.
    const r = recorded({ extensions: false, blindSigning: true }, { confirmZkapp: () => true });
    await r.chain.requestAccounts();
    r.clear();
    await r.chain.sendTransaction({ transaction: berkeleyCommand(), onlySign: true, nonce: 3 });
    const prompts = r
      .actions()
      .filter((a) => a.status === 'confirm')
      .map((a) => a.prompt);
    expect(prompts).toEqual([expect.stringMatching(/^Blind-sign the zkApp full commitment/)]);
    expect(
      r
        .progress()
        .filter((e) => e.stage === 'confirm-on-device')
        .map((e) => e.prompt),
    ).toEqual(prompts);
  });
});

describe('every call ends with exactly one done or failed', () => {
  it('one done or failed per call, matching how its promise settled, whether or not it reaches the device', async () => {
    const r = recorded({ extensions: false });
    const calls: [string, () => Promise<unknown>][] = [
      ['getAccounts', () => r.chain.getAccounts()],
      ['signMessage', () => r.chain.signMessage({ message: 'before connecting' })],
      ['requestAccounts', () => r.chain.requestAccounts()],
      ['requestNetwork', () => r.chain.requestNetwork()],
      ['signMessage', () => r.chain.signMessage({ message: 'hello' })],
      ['signMessage', () => r.chain.signMessage({ message: 42 as unknown as string })],
      ['signMessage', () => r.chain.signMessage({ message: 'hello' }, { origin: 'https://evil.example' })],
      ['createNullifier', () => r.chain.createNullifier({ message: ['1'] })],
      ['verifyFields', () => r.chain.verifyFields({ publicKey: addressOf(0), data: ['1'], signature: 'x' })],
      ['signJsonMessage', () => r.chain.signJsonMessage({ message: [{ label: 'action', value: 'login' }] })],
      ['signFields', () => r.chain.request({ method: 'chain_signFields', params: [['7']] })],
      ['requestNetwork', () => r.chain.request({ method: 'mina_requestNetwork' })],
      ['request', () => r.chain.request({ method: 'chain_listNetworks' } as never)],
      ['signMessage', () => r.chain.request({ method: 'chain_signMessage', params: { message: 42 } } as never)],
    ];
    for (const [method, call] of calls) {
      r.clear();
      const settled = await call().then(
        () => 'done',
        () => 'failed',
      );
      const ends = r.progress().filter((e) => e.stage === 'done' || e.stage === 'failed');
      expect(ends, `${method}: ${r.steps().join(' ')}`).toEqual([expect.objectContaining({ method, stage: settled })]);
      expect(r.progress().at(-1)).toBe(ends[0]);
      expect(r.progress().every((e) => e.method === method && e.elapsedMs >= 0)).toBe(true);
    }
  });

  it('a call rejected on the device ends with failed, after its device step is done', async () => {
    const r = recorded({ approve: () => false });
    await r.chain.requestAccounts().catch(() => undefined);
    expect(r.steps()).toEqual(['action:confirm', 'progress:confirm-on-device', 'action:done', 'progress:failed']);
  });
});

describe("onDeviceAction's done ends the device step", () => {
  const startNode = fakeMinaNodes();

  it('a payment: done as soon as the device has signed, then the broadcast, then the call is done', async () => {
    const node = await startNode({
      accountNonce: () => ({ data: { account: { nonce: '3', inferredNonce: '4' } } }),
      sendPayment: () => ({ data: { sendPayment: { payment: { hash: '5Ju', id: 'p1' } } } }),
    });
    const r = recorded({}, { graphqlUrl: node.url });
    await r.chain.requestAccounts();
    r.clear();
    await r.chain.sendPayment({ to: addressOf(1), amount: 1 });
    expect(r.steps()).toEqual(['action:confirm', 'progress:confirm-on-device', 'action:done', 'progress:broadcasting', 'progress:done']);
  });

  it('host work after a prompt ends the device step once; a later prompt opens another; letting go of the device adds no second done', () => {
    const actions: string[] = [];
    const stages: string[] = [];
    const report = new CallReport(
      'requestPresentation',
      { onDeviceAction: (a) => actions.push(a.status), onProgress: (e) => stages.push(e.stage) },
      () => {},
    );
    report.confirm('Approve the store key');
    report.progress('compiling');
    report.progress('proving');
    report.progress('confirm-on-device', { prompt: 'Review the presentation' });
    report.progress('proving', { retry: true });
    report.deviceReleased();
    report.progress('done'); // a domain cannot end the call: the provider does, once
    report.end('done');
    report.end('failed');
    expect(actions).toEqual(['confirm', 'done', 'confirm', 'done']);
    expect(stages).toEqual(['confirm-on-device', 'compiling', 'proving', 'confirm-on-device', 'proving', 'done']);
  });
});

describe('a throwing listener', () => {
  it('is logged through onHostLog and never breaks the call', async () => {
    const logged: string[] = [];
    const r = providerRig(
      {},
      {
        onProgress: () => {
          throw new Error('listener bug');
        },
        onDeviceAction: () => {
          throw new Error('ui bug');
        },
        onHostLog: (message) => logged.push(message),
      },
    );
    expect(await r.chain.requestAccounts()).toEqual([addressOf(0)]);
    expect((await r.chain.signMessage({ message: 'hello' })).publicKey).toBe(addressOf(0));
    expect(await failure(r.chain.signMessage({ message: 'hello' }, { origin: 'https://evil.example' }))).toMatchObject({ code: 23001 });
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.every((m) => /^chain-ledger: onProgress threw at stage [\w-]+ of \w+ \(ignored\): Error: listener bug$/.test(m))).toBe(
      true,
    );
    expect(logged.some((m) => m.includes('stage failed of signMessage'))).toBe(true);
  });

  it('even one that throws a value that cannot be printed', async () => {
    const logged: string[] = [];
    const r = providerRig(
      {},
      {
        origin: ORIGIN,
        onProgress: () => {
          throw Object.create(null);
        },
        onHostLog: (m) => logged.push(m),
      },
    );
    expect(await r.chain.requestAccounts()).toEqual([addressOf(0)]);
    expect(logged.at(-1)).toMatch(/a value that cannot be printed$/);
  });
});
