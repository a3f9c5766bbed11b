/**
 * The integrator's questions (`confirmZkapp`, `confirmSwitchChain`, `confirmAddChain`) never hold a call forever: a
 * hook that never answers (its question lost in the wallet's UI) is ended by the call's cancellation — its
 * AbortSignal or `rejectPending()` (1002, as a cancelled call), or, for a call on the device, `disconnect()` (1001, as
 * a call that waited while its connection went). A zkApp call asks its hook holding the device: once cancelled, the device is free.
 */
import { describe, expect, it } from 'vitest';
import { createLedgerProvider, type LedgerProvider } from '../../src/index.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { ORIGIN, quietLedger, within } from '../support/rig.js';
import { berkeleyCommand } from '../support/zkapp.js';

/** A provider on a released app (blind signing on) whose confirmZkapp hook is asked and never answers. */
function unansweredZkappReview(): { chain: LedgerProvider; asked: Promise<void> } {
  let asked!: () => void;
  const wasAsked = new Promise<void>((resolve) => (asked = resolve));
  const ledger = quietLedger({ extensions: false, blindSigning: true });
  const chain = createLedgerProvider({
    transport: ledger,
    network: 'devnet',
    origin: ORIGIN,
    confirmZkapp: () => {
      asked();
      return new Promise<boolean>(() => {});
    },
  });
  return { chain, asked: wasAsked };
}

/** The call, once its hook is being asked; how it settled, bounded (a call still waiting fails the test). */
async function askingZkapp(chain: LedgerProvider, asked: Promise<void>, signal?: AbortSignal) {
  const call = chain.sendTransaction({ transaction: berkeleyCommand(), onlySign: true, nonce: 3 }, { signal });
  await within(asked, 'the confirmZkapp hook');
  return { outcome: () => failure(within(call, 'the cancelled zkApp call')) };
}

/** The device serves the next call (a signMessage, approved on the software Ledger). */
async function deviceIsFree(chain: LedgerProvider): Promise<void> {
  const signed = await within(chain.signMessage({ message: 'after the unanswered review' }), 'the next device call');
  expect(signed.signature.field).toMatch(/^\d+$/);
}

describe('an integrator hook that never answers', () => {
  it('a zkApp call waiting on confirmZkapp ends on rejectPending() (1002) and the next call gets the device', async () => {
    const { chain, asked } = unansweredZkappReview();
    await chain.requestAccounts();
    const call = await askingZkapp(chain, asked);
    expect(chain.rejectPending()).toBe(1);
    expect(await call.outcome()).toMatchObject({ code: 1002, data: { reason: expect.stringMatching(/rejected/) } });
    await deviceIsFree(chain);
  });

  it("a zkApp call waiting on confirmZkapp ends when the caller's signal aborts (1002) and the device is free", async () => {
    const { chain, asked } = unansweredZkappReview();
    await chain.requestAccounts();
    const controller = new AbortController();
    const call = await askingZkapp(chain, asked, controller.signal);
    controller.abort(new DOMException('the dapp gave up', 'AbortError'));
    expect(await call.outcome()).toMatchObject({ code: 1002, data: { reason: expect.stringMatching(/cancelled.*gave up/) } });
    await deviceIsFree(chain);
  });

  it('a zkApp call waiting on confirmZkapp ends on disconnect() (1001) and, connected again, the device is free', async () => {
    const { chain, asked } = unansweredZkappReview();
    await chain.requestAccounts();
    const call = await askingZkapp(chain, asked);
    await chain.disconnect();
    expect(await call.outcome()).toMatchObject({ code: 1001, data: { reason: expect.stringMatching(/disconnected by the page/) } });
    await within(chain.requestAccounts(), 'connecting again');
    await deviceIsFree(chain);
  });

  it('switchChain and addChain waiting on their hooks end on rejectPending() or an abort (1002), the network unchanged', async () => {
    const never = () => new Promise<never>(() => {});
    const chain = createLedgerProvider({
      transport: quietLedger(),
      network: 'devnet',
      origin: ORIGIN,
      confirmSwitchChain: never,
      confirmAddChain: never,
    });
    const switching = chain.switchChain({ networkID: 'mina:mainnet' });
    const adding = chain.addChain({ url: 'https://zeko.example/graphql', name: 'Some rollup' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(chain.rejectPending()).toBe(2);
    for (const call of [switching, adding]) {
      expect(await failure(within(call, 'the cancelled network call'))).toMatchObject({ code: 1002 });
    }
    const controller = new AbortController();
    const aborted = chain.switchChain({ networkID: 'mina:mainnet' }, { signal: controller.signal });
    controller.abort(new DOMException('the dapp gave up', 'AbortError'));
    expect(await failure(within(aborted, 'the aborted switch'))).toMatchObject({ code: 1002 });
    expect(chain.chainId).toBe('mina:devnet');
  });
});
