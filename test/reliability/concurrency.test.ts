/**
 * Many calls at once, from one page and from two providers on one software Ledger: every call is serialised (never
 * two exchanges on the device at once, never a TransportRaceCondition), reaches the device in call order, and gets
 * its own verified result; cancellation (the provider's per-call `{ signal }`), a rejection and an unplug in the
 * middle of a queue do not break the calls behind them.
 */
import Client from 'mina-signer';
import { Field, Nullifier, PublicKey } from 'o1js';
import { describe, expect, it } from 'vitest';
import type { SoftwareLedger, SoftwareLedgerOptions } from '../../src/emulator.js';
import { createLedgerProvider, credentialManager, type DeviceAction, type LedgerProvider, type SignedMessage } from '../../src/index.js';
import { ExclusiveTransport } from '../../src/transport/exclusive.js';
import { addressOf } from '../support/vectors.js';
import { berkeleyCommand, verifySigned } from '../support/zkapp.js';
import { settle } from '../support/settle.js';
import { providerFailure as failure, settled } from '../support/provider-failure.js';
import { ORIGIN, quietLedger, never } from '../support/rig.js';

// The tests come first; the rig and the oracles they use follow them, at the end of the file.

describe('one page, 30 mixed calls at once', () => {
  it('are serialised in call order, and each caller gets its own verified result', async () => {
    const probe = watchedLedger({ latencyMs: 1 });
    const actions: DeviceAction[] = [];
    const chain = createLedgerProvider({
      transport: probe.ledger,
      network: 'devnet',
      origin: ORIGIN,
      onDeviceAction: (a) => actions.push(a),
    });
    await chain.requestAccounts();
    const from = probe.ledger.exchanges.length;
    actions.length = 0;

    const kinds: Kind[] = Array.from({ length: 30 }, (_, i) => (['signMessage', 'createNullifier', 'sendTransaction'] as const)[i % 3]!);
    const calls = kinds.map((kind, i) => call(chain, kind, i, 'devnet', addressOf(0)));
    const settled = await Promise.allSettled(calls.map((c) => c.promise));
    settled.forEach((s, i) => {
      expect(s.status, `call ${i} (${kinds[i]}): ${JSON.stringify((s as PromiseRejectedResult).reason)}`).toBe('fulfilled');
      calls[i]!.check((s as PromiseFulfilledResult<unknown>).value);
    });

    expect(probe.maxInFlight()).toBe(1);
    expect(probe.deviceErrors).toEqual([]);
    expect(requestSequence(probe.ledger, from)).toEqual(kinds.map((k) => INS[k]));
    expect(signedTexts(probe.ledger, from)).toEqual(kinds.flatMap((k, i) => (k === 'signMessage' ? [`call ${i}`] : [])));
    // The page was told to confirm each call in the same order, and every call ended with "done".
    expect(actions.filter((a) => a.status === 'confirm').map((a) => a.method)).toEqual(kinds);
    expect(actions.filter((a) => a.status === 'done')).toHaveLength(30);
    expect(ExclusiveTransport.for(probe.ledger).pending).toBe(0);
  });
});

describe('two providers on one device', () => {
  it('20 mixed calls alternating between a devnet page (account 0) and a mainnet page (account 1)', async () => {
    const probe = watchedLedger({ latencyMs: 1 });
    const a = createLedgerProvider({ transport: probe.ledger, network: 'devnet', origin: ORIGIN });
    const b = createLedgerProvider({ transport: probe.ledger, network: 'mainnet', origin: 'https://other.example', accountIndex: 1 });
    await Promise.all([a.requestAccounts(), b.requestAccounts()]);
    const from = probe.ledger.exchanges.length;

    const plan = Array.from({ length: 20 }, (_, i) => ({
      provider: i % 2 === 0 ? a : b,
      network: i % 2 === 0 ? ('devnet' as const) : ('mainnet' as const),
      account: addressOf(i % 2),
      kind: (['signMessage', 'sendTransaction', 'createNullifier', 'signMessage', 'sendTransaction'] as const)[i % 5]!,
    }));
    const calls = plan.map((p, i) => call(p.provider, p.kind, i, p.network, p.account));
    const results = await Promise.all(calls.map((c) => c.promise));
    results.forEach((r, i) => calls[i]!.check(r));

    expect(probe.maxInFlight()).toBe(1);
    expect(probe.deviceErrors).toEqual([]);
    expect(requestSequence(probe.ledger, from)).toEqual(plan.map((p) => INS[p.kind]));
    // Each request went to the device with its own provider's account and network (INS 05: account, network id).
    const messages = probe.ledger.exchanges.slice(from).filter((e) => e.request.startsWith(INS.signMessage));
    const expected = plan.map((p, i) => ({ ...p, i })).filter((p) => p.kind === 'signMessage');
    expect(messages.map((e) => e.request.slice(10, 20))).toEqual(
      expected.map((p) => (p.network === 'devnet' ? '0000000000' : '0000000101')),
    );
  });
});

describe('cancellation with the per-call AbortSignal', () => {
  it('a call cancelled while waiting and one cancelled on the device reject at once (1002); the queue moves on', async () => {
    const probe = watchedLedger();
    const chain = createLedgerProvider({ transport: probe.ledger, network: 'devnet', origin: ORIGIN });
    await chain.requestAccounts();
    const from = probe.ledger.exchanges.length;
    const answers: { text: string; answer: (ok: boolean) => void }[] = [];
    probe.ledger.approve = (review) =>
      new Promise<boolean>((answer) => answers.push({ text: review.screens.find((s) => s.title === 'Message')?.text ?? '', answer }));
    const waitForReview = async (n: number) => {
      for (let i = 0; i < 400 && answers.length < n; i++) await new Promise((r) => setTimeout(r, 5));
      expect(answers).toHaveLength(n);
    };

    const onDevice = new AbortController();
    const waiting = new AbortController();
    const first = chain.signMessage({ message: 'first' }, { signal: onDevice.signal });
    const second = chain.signMessage({ message: 'second' });
    const third = chain.signMessage({ message: 'third' }, { signal: waiting.signal });
    const fourth = chain.signMessage({ message: 'fourth' });
    await waitForReview(1);
    expect(answers[0]!.text).toBe('first');

    // Both cancellations settle at once (bounded), without the user answering anything.
    waiting.abort();
    onDevice.abort();
    const [cancelledOnDevice, cancelledWaiting] = await Promise.all([
      settle(
        () => first,
        () => 0,
        2_000,
      ),
      settle(
        () => third,
        () => 0,
        2_000,
      ),
    ]);
    for (const s of [cancelledOnDevice, cancelledWaiting]) {
      expect(s.ok).toBe(false);
      expect(s.error).toMatchObject({ name: 'ProviderError', code: 1002, data: { reason: expect.stringMatching(/cancelled/) } });
    }
    // The device keeps its screen until the user answers; then the queue moves on: second, then fourth.
    answers[0]!.answer(true);
    await waitForReview(2);
    answers[1]!.answer(true);
    await waitForReview(3);
    answers[2]!.answer(true);
    expect((await second).data).toBe('Message : second');
    expect((await fourth).data).toBe('Message : fourth');
    expect(answers.map((a) => a.text)).toEqual(['first', 'second', 'fourth']);
    expect(signedTexts(probe.ledger, from)).toEqual(['first', 'second', 'fourth']); // the cancelled waiting call never reached the device
    expect(probe.maxInFlight()).toBe(1);
    expect(ExclusiveTransport.for(probe.ledger).pending).toBe(0);
    // And the next call goes straight through.
    probe.ledger.approve = () => true;
    expect(clients.devnet.verifyMessage(await chain.signMessage({ message: 'after' }))).toBe(true);
  });

  it('an already aborted signal never reaches the device', async () => {
    const probe = watchedLedger();
    const chain = createLedgerProvider({ transport: probe.ledger, network: 'devnet', origin: ORIGIN });
    await chain.requestAccounts();
    const before = probe.ledger.exchanges.length;
    const error = await failure(chain.createNullifier({ message: ['1'] }, { signal: AbortSignal.abort() }));
    expect(error).toMatchObject({ code: 1002 });
    expect(probe.ledger.exchanges.length).toBe(before);
  });
});

describe('a fault in the middle of a queue', () => {
  it('a rejection (1002) of call 4 of 9: the calls behind it still get their own verified results', async () => {
    const probe = watchedLedger({ latencyMs: 1 });
    probe.ledger.approve = (review) => review.screens.find((s) => s.title === 'Message')?.text !== 'call 4';
    const chain = createLedgerProvider({ transport: probe.ledger, network: 'devnet', origin: ORIGIN });
    await chain.requestAccounts();
    const calls = Array.from({ length: 9 }, (_, i) => call(chain, 'signMessage', i, 'devnet', addressOf(0)));
    const settled = await Promise.allSettled(calls.map((c) => c.promise));
    settled.forEach((s, i) => {
      if (i === 4) {
        expect(s.status).toBe('rejected');
        expect((s as PromiseRejectedResult).reason).toMatchObject({ name: 'ProviderError', code: 1002 });
      } else {
        expect(s.status).toBe('fulfilled');
        calls[i]!.check((s as PromiseFulfilledResult<unknown>).value);
      }
    });
    expect(probe.maxInFlight()).toBe(1);
  });

  it('an unplug during call 4 of 9: calls 0–3 have results, 4–8 settle with 1001 (none hangs), and after plugging back the next call works', async () => {
    const probe = watchedLedger();
    const chain = createLedgerProvider({ transport: probe.ledger, network: 'devnet', origin: ORIGIN });
    await chain.requestAccounts();
    const from = probe.ledger.exchanges.length;
    probe.ledger.approve = (review) => {
      if (review.screens.find((s) => s.title === 'Message')?.text !== 'call 4') return true;
      probe.ledger.unplug();
      return never();
    };
    const calls = Array.from({ length: 9 }, (_, i) =>
      call(chain, i % 2 === 0 ? 'signMessage' : 'createNullifier', i, 'devnet', addressOf(0)),
    );
    const outcomes = await Promise.all(
      calls.map((c) =>
        settle(
          () => c.promise,
          () => 0,
          20_000,
        ),
      ),
    );
    outcomes.forEach((o, i) => {
      if (i < 4) {
        expect(o.ok, `call ${i}: ${JSON.stringify(o.error)}`).toBe(true);
        calls[i]!.check(o.value);
      } else {
        expect(o.ok, `call ${i}`).toBe(false);
        expect(o.error, `call ${i}: ${JSON.stringify(o.error)}`).toMatchObject({ name: 'ProviderError', code: 1001 });
      }
    });
    // Nothing behind the unplugged call reached the device.
    expect(requestSequence(probe.ledger, from)).toEqual(
      calls.slice(0, 4).map((_, i) => INS[i % 2 === 0 ? 'signMessage' : 'createNullifier']),
    );
    expect(probe.maxInFlight()).toBe(1);

    probe.ledger.plug();
    probe.ledger.approve = () => true;
    expect(await chain.requestAccounts()).toEqual([addressOf(0)]);
    const again = call(chain, 'createNullifier', 99, 'devnet', addressOf(0));
    again.check(await again.promise);
    expect(probe.deviceErrors.filter((e) => e === 'TransportRaceCondition')).toEqual([]);
  });

  it('the page disconnects while calls of every method wait behind a review: each waiting call gets 1001 (not 22001), none reaches the device', async () => {
    // Calls that had passed the connection check and then waited for the device must not read the dropped connection.
    const probe = watchedLedger();
    const chain = createLedgerProvider({ transport: probe.ledger, network: 'devnet', origin: ORIGIN });
    await chain.requestAccounts();
    let answer!: (ok: boolean) => void;
    probe.ledger.approve = () => new Promise<boolean>((resolve) => (answer = resolve));
    const first = settled(chain.signMessage({ message: 'first' }));
    const waiting = [
      chain.signMessage({ message: 'second' }),
      chain.createNullifier({ message: ['1'] }),
      chain.sendTransaction({ transaction: berkeleyCommand(), onlySign: true }),
      chain.storePrivateCredential({ credential: { any: 'thing' } }),
      chain.requestPresentation({ presentation: { presentationRequest: { type: 'https' } } }),
      credentialManager(chain).list(),
    ].map(settled);
    for (let i = 0; i < 400 && !answer; i++) await new Promise((r) => setTimeout(r, 5));
    const before = probe.ledger.exchanges.length;
    await chain.disconnect();
    answer(true);
    // The first call was on the device: the disconnect ends it too (1001), and the answer given there is discarded.
    expect(await first).toMatchObject({ error: { name: 'ProviderError', code: 1001 } });
    // The credential methods hold the device for their device steps only: their host-side checks run at once, and
    // refuse these arguments (20003) without waiting behind the review; every other call waited, and gets 1001.
    const codes = [1001, 1001, 1001, 20003, 20003, 1001];
    const outcomes = await Promise.all(waiting);
    outcomes.forEach((outcome, i) => {
      expect(outcome, `waiting call ${i}: ${JSON.stringify(outcome)}`).toMatchObject({ error: { name: 'ProviderError', code: codes[i] } });
    });
    // Nothing but the first call's request reached the device.
    const firstHex = Buffer.from('first').toString('hex');
    const after = probe.ledger.exchanges.slice(before);
    expect(after.length).toBeLessThanOrEqual(1);
    for (const exchange of after) expect(exchange.request).toContain(firstHex);
  });
});

// ---- the rig and the oracles used above (module code: it runs before vitest collects the tests) ----

const clients = { devnet: new Client({ network: 'testnet' }), mainnet: new Client({ network: 'mainnet' }) };

interface Probe {
  ledger: SoftwareLedger;
  /** Exchanges on the device at the same moment, at most (must stay 1). */
  maxInFlight(): number;
  /** Errors the device itself threw (a TransportRaceCondition would land here). */
  deviceErrors: string[];
}

/** A software Ledger (extension 1.1: messages through INS 05, whose request layout the checks read) whose raw exchanges are watched for overlap. */
function watchedLedger(options: SoftwareLedgerOptions = {}): Probe {
  const ledger = quietLedger({ extensions: '1.1', blindSigning: true, ...options });
  const exchange = ledger.exchange.bind(ledger);
  let inFlight = 0;
  let max = 0;
  const deviceErrors: string[] = [];
  ledger.exchange = async (apdu: Uint8Array) => {
    inFlight++;
    max = Math.max(max, inFlight);
    try {
      return await exchange(apdu);
    } catch (error) {
      deviceErrors.push((error as { name?: string }).name ?? String(error));
      throw error;
    } finally {
      inFlight--;
    }
  };
  return { ledger, maxInFlight: () => max, deviceErrors };
}

/** The device has extension 1.1: zkApp commands go in clear, SIGN_ZKAPP, in several chunks each. */
const INS = { signMessage: 'e005', createNullifier: 'e0a2', sendTransaction: 'e0a3' } as const;
type Kind = keyof typeof INS;

/** The device requests of these instructions, consecutive chunks of one request counted once. */
function requestSequence(ledger: SoftwareLedger, from: number): string[] {
  const out: string[] = [];
  for (const e of ledger.exchanges.slice(from)) {
    const ins = e.request.slice(0, 4);
    if (!Object.values(INS).includes(ins as never)) continue;
    // A continuation chunk of the extension (P1 = 0x80) belongs to the request before it.
    if ((ins === INS.createNullifier || ins === INS.sendTransaction) && e.request.slice(4, 6) === '80') continue;
    out.push(ins);
  }
  return out;
}
const signedTexts = (ledger: SoftwareLedger, from: number) =>
  ledger.exchanges
    .slice(from)
    .filter((e) => e.request.startsWith(INS.signMessage))
    .map((e) => Buffer.from(e.request.slice(20), 'hex').toString());

/** One call of `kind` numbered `i`, and the check of its own result. */
function call(chain: LedgerProvider, kind: Kind, i: number, network: 'devnet' | 'mainnet', account: string) {
  switch (kind) {
    case 'signMessage':
      return {
        promise: chain.signMessage({ message: `call ${i}` }),
        check(result: unknown) {
          const r = result as SignedMessage;
          expect(r.data).toBe(`Message : call ${i}`);
          expect(r.publicKey).toBe(account);
          expect(clients[network].verifyMessage(r)).toBe(true);
        },
      };
    case 'createNullifier': {
      const message = [String(1000 + i), String(i)];
      return {
        promise: chain.createNullifier({ message }),
        check(result: unknown) {
          const r = result as { data: string[] };
          expect(r.data).toEqual(message);
          const n = Nullifier.fromJSON(r as never);
          expect(() => n.verify(message.map((m) => Field(BigInt(m))))).not.toThrow();
          expect(PublicKey.fromGroup(n.publicKey).toBase58()).toBe(account);
        },
      };
    }
    case 'sendTransaction': {
      const command = berkeleyCommand();
      // The fixture's fee payer is account 0; another account pays only as the connected account.
      command.feePayer.body.publicKey = account;
      return {
        promise: chain.sendTransaction({ transaction: command, onlySign: true, nonce: i }),
        check(result: unknown) {
          const { signedData } = result as { signedData: string };
          expect(JSON.parse(signedData).feePayer).toMatchObject({ feePayer: account, nonce: String(i) });
          expect(verifySigned('berkeley', network, signedData, account)).toBe(true);
        },
      };
    }
  }
}
