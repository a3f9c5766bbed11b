/**
 * The device is held for a presentation's device steps only (the store key, the owner signature), not for its
 * compile and proof, which take minutes: another origin's prompt on the same Ledger is served meanwhile (a
 * `signMessage` from https://bank.example does not wait for another origin's compile). The call still counts as
 * pending throughout: the pending-call limit, `rejectPending()` and an abort reach it while it compiles.
 *
 * The compile here is a run that waits for the test's word (no o1js work): what is tested is who holds the device.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { FileCredentialStore } from '../../src/credentials-node.js';
import { createLedgerProvider, type LedgerProvider } from '../../src/index.js';
import type * as runner from '../../src/presentations/runner.js';
import type { Prepared } from '../../src/presentations/presentation-worker.js';
import { credentialIssuer, type Issuer } from '../support/credentials.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { ORIGIN, quietLedger, tempDirs, within, HOLDER_APPROVES } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

/**
 * The compile in progress: `started` resolves when a presentation's compile begins (its precompile, started before
 * the holder's review; the prepare after approval waits for it), `finish()` lets it end.
 */
const compile = vi.hoisted(() => {
  const gate = { started: () => {}, finish: () => {} } as { started: () => void; finish: () => void; begun?: Promise<void> };
  return gate;
});
vi.mock('../../src/presentations/runner.js', async (importOriginal) => {
  const actual = await importOriginal<typeof runner>();
  return {
    ...actual,
    async startPresentationRun(signal?: AbortSignal) {
      // A no-context-shaped message (context 0, one credential's hash and issuer): what the device signs.
      const prepared: Prepared = { messageFields: ['0', '1', '2'], clientNonce: '0' };
      return {
        precompile: () =>
          new Promise<{ tagName?: string }>((resolve, reject) => {
            compile.finish = () => resolve({});
            signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
            compile.started();
          }),
        prepare: async () => prepared,
        finalize: async () => '{"proved":"by the test"}',
        close: () => {},
      };
    },
  };
});

const tempDir = tempDirs('device-lock');
let issuer: Issuer;
beforeAll(async () => {
  issuer = await credentialIssuer();
}, 60_000);

/** One software Ledger (extension 1.1) behind two providers: the verifier's page, and another origin. */
async function sharedLedger(verifierOptions: { maxPendingCalls?: number } = {}) {
  const ledger = quietLedger({ extensions: true, approve: () => true });
  const verifier = createLedgerProvider({
    transport: ledger,
    network: 'devnet',
    origin: ORIGIN,
    credentialStore: new FileCredentialStore(tempDir()),
    ...HOLDER_APPROVES,
    ...verifierOptions,
  });
  const bank = createLedgerProvider({ transport: ledger, network: 'devnet', origin: 'https://bank.example' });
  await verifier.requestAccounts();
  await bank.requestAccounts();
  // The store key is asked here, once per connection: the presentation's only device step is then its signature.
  await verifier.storePrivateCredential({ credential: issuer.issue(addressOf(0)) });
  return { ledger, verifier, bank };
}

/** A presentation of `verifier` once its compile has begun: `outcome`, how the call settles. */
async function compiling(
  verifier: LedgerProvider,
  signal?: AbortSignal,
): Promise<{ outcome: Promise<{ value: unknown } | { error: unknown }> }> {
  const begun = new Promise<void>((resolve) => (compile.started = resolve));
  const call = verifier.requestPresentation({ presentation: { presentationRequest: issuer.presentationRequest().json } }, { signal });
  const outcome = call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  await Promise.race([begun, outcome]);
  return { outcome };
}

describe('the device lock during a presentation', () => {
  it('while a presentation compiles, another origin’s signMessage on the same Ledger is served before the compile ends', async () => {
    const { ledger, verifier, bank } = await sharedLedger();
    const order: string[] = [];
    const { outcome: presentation } = await compiling(verifier);
    // Held for the whole call (as before), the device would serve the bank only after the compile: this never settles.
    const signed = await within(
      bank.signMessage({ message: 'Sign in to bank.example' }),
      "the bank's signature while the presentation compiles",
    ).finally(() => compile.finish());
    order.push('bank signed');
    expect(signed.publicKey).toBe(addressOf(0));
    const outcome = await presentation;
    order.push('presentation done');
    expect(outcome).toEqual({ value: { presentation: '{"proved":"by the test"}' } });
    expect(order).toEqual(['bank signed', 'presentation done']);
    // On the device: the bank's message (SIGN_TEXT), then the presentation's owner signature (SIGN_PRESENTATION).
    const asked = ledger.exchanges.map((e) => e.request.slice(0, 4)).filter((ins) => ins === 'e0a5' || ins === 'e0a4');
    expect(asked.slice(-2)).toEqual(['e0a5', 'e0a4']);
  });

  it('a compiling presentation still counts as pending: a second call beyond maxPendingCalls → 1002, rejectPending() ends it (1002)', async () => {
    const { verifier } = await sharedLedger({ maxPendingCalls: 1 });
    const { outcome: presentation } = await compiling(verifier);
    expect(await failure(verifier.signMessage({ message: 'one more' }))).toMatchObject({
      code: 1002,
      data: { reason: expect.stringMatching(/too many requests/) },
    });
    expect(verifier.rejectPending()).toBe(1);
    expect(((await presentation) as { error: unknown }).error).toMatchObject({ code: 1002 });
  });

  it('its device step waits behind another origin’s prompt; the page disconnects meanwhile → 1001, nothing reaches the device', async () => {
    const { ledger, verifier, bank } = await sharedLedger();
    const { outcome: presentation } = await compiling(verifier);
    let answer: (approved: boolean) => void = () => {};
    let shown: (kind: string) => void = () => {};
    const onScreen = new Promise<string>((resolve) => (shown = resolve));
    ledger.approve = (review) =>
      new Promise<boolean>((resolve) => {
        answer = resolve;
        shown(review.kind);
      });
    const onDevice = bank.signMessage({ message: 'Sign in to bank.example' });
    expect(await within(onScreen, "the bank's prompt on the device")).toBe('text'); // SIGN_TEXT, waiting for the user
    compile.finish(); // the presentation now waits for the device, which shows the bank's prompt
    await new Promise((r) => setTimeout(r, 20));
    await verifier.disconnect();
    answer(true);
    expect((await onDevice).publicKey).toBe(addressOf(0));
    expect(((await presentation) as { error: unknown }).error).toMatchObject({ code: 1001 });
    expect(ledger.exchanges.some((e) => e.request.startsWith('e0a4'))).toBe(false);
  });

  it('an abort while it compiles rejects with 1002 at once', async () => {
    const { verifier } = await sharedLedger();
    const controller = new AbortController();
    const { outcome: presentation } = await compiling(verifier, controller.signal);
    controller.abort(new DOMException('the page went away', 'AbortError'));
    expect(((await presentation) as { error: unknown }).error).toMatchObject({ code: 1002 });
  });
});
