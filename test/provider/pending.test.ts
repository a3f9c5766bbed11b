/**
 * Prompt floods (src/provider/pending.ts): at most `maxPendingCalls` calls of a provider wait for the device, and
 * with `maxRequestsPerMinute` at most that many start in any 60 seconds; the rest are refused (1002) at once, before
 * the device; `rejectPending()` ends the waiting ones.
 */
import { describe, expect, it } from 'vitest';
import { createLedgerProvider, type ProviderError } from '../../src/index.js';
import { PendingCalls } from '../../src/provider/pending.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { ORIGIN, quietLedger } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

describe('prompt floods', () => {
  it('at most maxRequestsPerMinute device calls start in any 60 s (Auro: 60 a minute per origin); the window slides', async () => {
    let now = 1_000_000;
    const calls = new PendingCalls(100, 3, () => now);
    const start = () => {
      try {
        calls.enter().leave();
        return 'ok';
      } catch (error) {
        return (error as ProviderError).code;
      }
    };
    expect([start(), start(), start(), start()]).toEqual(['ok', 'ok', 'ok', 1002]);
    now += 59_999;
    expect(start()).toBe(1002);
    now += 1;
    expect([start(), start(), start(), start()]).toEqual(['ok', 'ok', 'ok', 1002]);
    // Through the provider: the fourth signMessage of a page limited to 3 a minute never reaches the device.
    const ledger = quietLedger();
    const chain = createLedgerProvider({ transport: ledger, network: 'devnet', origin: ORIGIN, maxRequestsPerMinute: 3 });
    await chain.requestAccounts(); // one device call
    await chain.signMessage({ message: 'one' });
    await chain.signMessage({ message: 'two' });
    const sent = ledger.exchanges.length;
    expect(await failure(chain.signMessage({ message: 'three' }))).toMatchObject({
      code: 1002,
      data: { reason: expect.stringMatching(/rate limit/) },
    });
    expect(ledger.exchanges.length).toBe(sent);
  });

  it('at most maxPendingCalls calls wait for the device; the rest → 1002 at once; rejectPending() ends the queue', async () => {
    let release: (approved: boolean) => void = () => {};
    const ledger = quietLedger();
    const chain = createLedgerProvider({ transport: ledger, network: 'devnet', origin: ORIGIN, maxPendingCalls: 5 });
    await chain.requestAccounts();
    let prompts = 0;
    ledger.approve = () => (prompts++, new Promise<boolean>((resolve) => (release = resolve)));
    const calls = Array.from({ length: 50 }, (_, i) =>
      chain.signMessage({ message: `flood ${i}` }).then(
        () => 'ok',
        (e: ProviderError) => e.code,
      ),
    );
    // The 45 beyond the limit are refused without waiting for the device (else this would wait forever).
    expect(await Promise.all(calls.slice(5))).toEqual(Array(45).fill(1002));
    while (prompts === 0) await new Promise((r) => setTimeout(r, 5));
    expect(chain.rejectPending()).toBe(5);
    expect(await Promise.all(calls.slice(0, 5))).toEqual(Array(5).fill(1002));
    // The user answers the one prompt that was on the device; the next call is the only thing that follows it.
    const before = ledger.exchanges.length;
    ledger.approve = () => (prompts++, true);
    const after = chain.signMessage({ message: 'after' });
    release(true);
    expect((await after).publicKey).toBe(addressOf(0));
    expect(prompts).toBe(2);
    expect(ledger.exchanges.length).toBe(before + 2);
  });
});
