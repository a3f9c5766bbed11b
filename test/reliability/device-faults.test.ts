/**
 * A matrix of device faults × provider methods, with the software Ledger's fault injection: for every method and
 * every fault, the documented ProviderError code (docs/provider.md), no half state (nothing returned; nothing
 * applied to the local chain; nothing stored), and the NEXT call — after the user fixes the device (plug, unlock,
 * open the app, approve) — works and verifies.
 *
 * The matrix runs on a device with extension 1.0, which signs zkApp commands (INS 06) and presentations (SIGN_FIELDS)
 * blind; zkApp commands are also run in clear on a 1.1 device (SIGN_ZKAPP), where Blind signing plays no part.
 *
 * requestPresentation is slow (the proof takes ≈ 20 s): its device step (the owner signature, SIGN_FIELDS) comes
 * before the proof, so its fault rows fail before proving, and their recovery is shown by the next call reaching
 * the owner-signature review again (rejected there); one full presentation after a fault is proved and verified in
 * confirmation-faults.test.ts, with the faults at each confirmation of a multi-step call.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Client from 'mina-signer';
import { Field, Nullifier, PublicKey } from 'o1js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ReviewKind, SoftwareLedgerOptions } from '../../src/emulator.js';
import { credentialManager } from '../../src/index.js';
import type { LocalChain } from '../../src/zkapp/local-chain.js';
import { credentialIssuer, type Issuer } from '../support/credentials.js';
import { type Rig, accountFiles, approveAll, faultRigs, unplugAt } from '../support/fault-rig.js';
import { fundedLocalChain, paymentToNewAccount } from '../support/local-chain.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { addressOf } from '../support/vectors.js';
import { berkeleyCommand, verifySigned } from '../support/zkapp.js';

// The tests come first; the rig and the oracles they use follow them, at the end of the file.

describe('device faults × provider methods', () => {
  it('covers every method with every fault that applies', () => {
    // 7 methods × 9 faults (+ blind signing off for the 2 blind and the 2 clear sendTransaction variants) + 4
    // presentation rows.
    expect(MATRIX.length).toBe(7 * (FAULTS.length - 2) + 2 + 2 + PRESENTATION_FAULTS.length);
  });

  it.each(MATRIX)(
    '%s × %s',
    async (_m, _f, method, fault) => {
      const r = await rig(method.network, { ...method.device, ...fault.device });
      await method.prepare?.(r);
      const before = await method.snapshot(r);
      const exchangesBefore = r.ledger.exchanges.length;
      const actionsBefore = r.actions.length;
      fault.inject(r, method);

      if (fault.expected === 'ok') {
        if (method.recoveryProbe) {
          await method.recoveryProbe(r); // the slow device still reaches the review
        } else {
          await method.check(r, await method.call(r));
        }
        fault.recover(r);
        return;
      }

      const error = await failure(method.call(r));
      const { code, reason, statusWord } = fault.expected;
      expect(error, JSON.stringify(error)).toMatchObject({ code, data: { ...(reason ? { reason: expect.stringMatching(reason) } : {}) } });
      if (statusWord) expect(String(error.data?.statusWord).toLowerCase()).toBe(statusWord);
      if (!fault.reachesDevice) expect(r.ledger.exchanges.length).toBe(exchangesBefore);
      await method.unchanged(r, before);
      // The page is never left showing "confirm on your Ledger": a call that asked ends with "done".
      const actions = r.actions.slice(actionsBefore).filter((a) => a.method === r.actions.at(-1)?.method);
      if (actions.some((a) => a.status === 'confirm')) expect(actions.at(-1)!.status).toBe('done');

      // The user fixes the device; the next call works (reconnecting first if the provider dropped the connection).
      fault.recover(r);
      approveAll(r);
      await r.chain.requestAccounts();
      if (method.recoveryProbe) await method.recoveryProbe(r);
      else await method.check(r, await method.call(r));
      // For broadcast: the next command used the right nonce, so exactly one was applied.
      if (method.network === 'local') expect(await localChain.nonceOf(ACCOUNT0)).toBe((before as { nonce: number }).nonce + 1);
    },
    60_000,
  );
});

// ---- the rig and the oracles used above (module code: it runs before vitest collects the tests) ----

const ACCOUNT0 = addressOf(0);
const testnet = new Client({ network: 'testnet' });

let localChain: LocalChain;
let issuer: Issuer;
const rig = faultRigs(() => localChain);

beforeAll(async () => {
  [localChain, issuer] = await Promise.all([fundedLocalChain(), credentialIssuer()]);
}, 120_000);

const storedIds = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, `${ACCOUNT0}.json`), 'utf8')) as { entries: { id: string }[] }).entries.map((e) => e.id);
/** One credential and one request for all presentation rows (issuing and building them is not what is tested). */
let presentationCredential: string | undefined;
let presentationJson: unknown;

// ---- the methods ----

interface Method {
  name: string;
  network: 'devnet' | 'local';
  /** The review a user sees for this method's own confirmation. */
  review: ReviewKind;
  /** The device it runs on, if not the matrix's (extension 1.0, Blind signing on). */
  device?: SoftwareLedgerOptions;
  /** State the method needs before the fault (a stored credential for presentations). */
  prepare?(rig: Rig): Promise<void>;
  call(rig: Rig): Promise<unknown>;
  /** The result of a successful call verifies. */
  check(rig: Rig, result: unknown): Promise<void>;
  /** Taken before the faulty call; `unchanged` asserts that the failure left it as it was. */
  snapshot(rig: Rig): Promise<unknown>;
  unchanged(rig: Rig, before: unknown): Promise<void>;
  /** Instead of a full successful call after recovery (presentations: proving is slow). */
  recoveryProbe?(rig: Rig): Promise<void>;
}

const NULLIFIER_MESSAGE = ['12345', '67890'];

async function payment(rig: Rig) {
  const { json, to } = await paymentToNewAccount(localChain, 'fault matrix');
  rig.recipient = to;
  return json;
}

const SEND_ONLY_SIGN: Method = {
  name: 'sendTransaction (onlySign)',
  network: 'devnet',
  review: 'field-element',
  call: (r) => r.chain.sendTransaction({ transaction: berkeleyCommand(), onlySign: true }),
  async check(_r, result) {
    expect(verifySigned('berkeley', 'devnet', (result as { signedData: string }).signedData, ACCOUNT0)).toBe(true);
  },
  snapshot: async () => undefined,
  unchanged: async () => undefined,
};
const SEND_BROADCAST: Method = {
  name: 'sendTransaction (broadcast, local chain)',
  network: 'local',
  review: 'field-element',
  call: async (r) => r.chain.sendTransaction({ transaction: await payment(r) }),
  async check(r, result) {
    expect((result as { hash: string }).hash).toMatch(/^5J[1-9A-HJ-NP-Za-km-z]{40,60}$/);
    expect(await localChain.balanceOf(r.recipient!.toBase58())).toBe(1_000_000_000n);
  },
  snapshot: async () => ({ nonce: await localChain.nonceOf(ACCOUNT0), balance: await localChain.balanceOf(ACCOUNT0) }),
  async unchanged(r, before) {
    // Nothing applied: the sender's nonce and balance are as before, the recipient does not exist.
    expect({ nonce: await localChain.nonceOf(ACCOUNT0), balance: await localChain.balanceOf(ACCOUNT0) }).toEqual(before);
    expect(await localChain.balanceOf(r.recipient!.toBase58())).toBeUndefined();
  },
};

/** A blind sendTransaction method run in clear instead: a 1.1 device (SIGN_ZKAPP), whose review is the command. */
const inClear = (method: Method, name: string): Method => ({
  ...method,
  name,
  review: 'zkapp',
  device: { extensions: true },
  async check(r, result) {
    await method.check(r, result);
    expect(r.reviews.at(-1)?.kind).toBe('zkapp');
  },
});

const METHODS: Method[] = [
  {
    name: 'signMessage',
    network: 'devnet',
    review: 'message',
    call: (r) => r.chain.signMessage({ message: 'fault matrix' }),
    async check(_r, result) {
      expect((result as { data: string }).data).toBe('Message : fault matrix');
      expect(testnet.verifyMessage(result as never)).toBe(true);
    },
    snapshot: async () => undefined,
    unchanged: async () => undefined,
  },
  {
    name: 'createNullifier',
    network: 'devnet',
    review: 'nullifier',
    call: (r) => r.chain.createNullifier({ message: NULLIFIER_MESSAGE }),
    async check(_r, result) {
      const n = Nullifier.fromJSON(result as never);
      expect(() => n.verify(NULLIFIER_MESSAGE.map((m) => Field(BigInt(m))))).not.toThrow();
      expect(PublicKey.fromGroup(n.publicKey).toBase58()).toBe(ACCOUNT0);
    },
    snapshot: async () => undefined,
    unchanged: async () => undefined,
  },
  SEND_ONLY_SIGN,
  inClear(SEND_ONLY_SIGN, 'sendTransaction in clear (onlySign, SIGN_ZKAPP)'),
  inClear(SEND_BROADCAST, 'sendTransaction in clear (broadcast, local chain, SIGN_ZKAPP)'),
  SEND_BROADCAST,
  {
    name: 'storePrivateCredential',
    network: 'devnet',
    review: 'message', // the first message review of a store is its approval ("Store credential …")
    call: (r) => r.chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0, 'Chile') }),
    async check(r, result) {
      const listed = await credentialManager(r.chain).list();
      expect(listed.map((e) => e.credential)).toEqual([(result as { credential: string }).credential]);
    },
    snapshot: async () => undefined,
    async unchanged(r) {
      expect(accountFiles(r.dir)).toEqual([]); // nothing stored, not even an empty account file
    },
  },
  {
    name: 'requestPresentation',
    network: 'devnet',
    review: 'sign-fields',
    async prepare(r) {
      await r.chain.storePrivateCredential({ credential: (presentationCredential ??= issuer.issue(ACCOUNT0)) });
    },
    call: (r) =>
      r.chain.requestPresentation({ presentation: { presentationRequest: (presentationJson ??= issuer.presentationRequest().json) } }),
    async check() {
      throw new Error('not called: see recoveryProbe and the full presentation test');
    },
    // The stored entries, read from the file (listing through the provider needs a connection, gone after an unplug).
    snapshot: async (r) => storedIds(r.dir),
    async unchanged(r, before) {
      expect(storedIds(r.dir)).toEqual(before);
      expect(storedIds(r.dir)).toHaveLength(1);
    },
    async recoveryProbe(r) {
      // The next call reaches the owner-signature review again; it is rejected there, so no 20 s proof is made.
      const seen = r.reviews.length;
      r.ledger.approve = (review) => (r.reviews.push(review), review.kind !== 'sign-fields');
      expect(await failure(METHODS_BY_NAME.requestPresentation!.call(r))).toMatchObject({ code: 1002, data: { statusWord: '0x6985' } });
      // (After a reconnect the store key is derived again first: one "message" review.)
      const kinds = r.reviews.slice(seen).map((x) => x.kind);
      expect(kinds.at(-1)).toBe('sign-fields');
      expect(kinds.slice(0, -1).every((k) => k === 'message')).toBe(true);
      approveAll(r);
    },
  },
];
const METHODS_BY_NAME = Object.fromEntries(METHODS.map((m) => [m.name, m]));

// ---- the faults ----

interface Fault {
  name: string;
  device?: SoftwareLedgerOptions;
  applies?(method: Method): boolean;
  inject(rig: Rig, method: Method): void;
  /** The documented error, or 'ok' for faults a call must survive. */
  expected: { code: 1001 | 1002; reason?: RegExp; statusWord?: string } | 'ok';
  /** Whether the faulty call may reach the device at all. */
  reachesDevice: boolean;
  /** What the user does to fix it; the provider then reconnects with requestAccounts() if it dropped the connection. */
  recover(rig: Rig): void;
}

const FAULTS: Fault[] = [
  {
    name: 'unplugged before the call',
    inject: (r) => r.ledger.unplug(),
    expected: { code: 1001, reason: /connect/ },
    reachesDevice: false,
    recover: (r) => r.ledger.plug(),
  },
  {
    name: 'unplugged while the review is on screen',
    inject: (r, m) => unplugAt(r, m.review),
    expected: { code: 1001, reason: /disconnected/ },
    reachesDevice: true,
    recover: (r) => r.ledger.plug(),
  },
  {
    name: 'cut off during the exchange',
    inject: (r) => r.ledger.failNextExchange('disconnect'),
    expected: { code: 1001, reason: /disconnected/ },
    reachesDevice: true,
    recover: (r) => r.ledger.plug(),
  },
  {
    name: 'device locked',
    inject: (r) => r.ledger.lock(),
    expected: { code: 1001, reason: /locked/, statusWord: '0x5515' },
    reachesDevice: true,
    recover: (r) => r.ledger.unlock(),
  },
  {
    name: 'Mina app closed (dashboard 0x6E01)',
    inject: (r) => r.ledger.closeApp(),
    expected: { code: 1001, reason: /open the Mina app/, statusWord: '0x6e01' },
    reachesDevice: true,
    recover: (r) => r.ledger.openApp(),
  },
  {
    name: 'another app open (0x6E00)',
    device: { closedAppStatus: 0x6e00 },
    inject: (r) => r.ledger.closeApp(),
    expected: { code: 1001, reason: /open the Mina app/, statusWord: '0x6e00' },
    reachesDevice: true,
    recover: (r) => r.ledger.openApp(),
  },
  {
    name: 'another app open (0x6511)',
    device: { closedAppStatus: 0x6511 },
    inject: (r) => r.ledger.closeApp(),
    expected: { code: 1001, reason: /open the Mina app/, statusWord: '0x6511' },
    reachesDevice: true,
    recover: (r) => r.ledger.openApp(),
  },
  {
    name: 'rejected on the device',
    inject: (r, m) => (r.ledger.approve = (review) => (r.reviews.push(review), review.kind !== m.review)),
    expected: { code: 1002, statusWord: '0x6985' },
    reachesDevice: true,
    recover: () => {},
  },
  {
    name: 'blind signing off',
    applies: (m) => m.review === 'field-element',
    inject: (r) => (r.ledger.blindSigning = false),
    expected: { code: 1002, reason: /enable "Blind signing"/, statusWord: '0x6985' },
    reachesDevice: true,
    recover: (r) => (r.ledger.blindSigning = true),
  },
  {
    // In clear, the device shows the command: nothing is blind, the setting plays no part.
    name: 'blind signing off (clear signing does not need it)',
    applies: (m) => m.review === 'zkapp',
    inject: (r) => (r.ledger.blindSigning = false),
    expected: 'ok',
    reachesDevice: true,
    recover: (r) => (r.ledger.blindSigning = true),
  },
  {
    name: 'a slow device (latencyMs 3)',
    inject: (r) => (r.ledger.latencyMs = 3),
    expected: 'ok',
    reachesDevice: true,
    recover: (r) => (r.ledger.latencyMs = 0),
  },
];

/**
 * requestPresentation costs ≈ 2.5 s per call before its device step (mina-attestations' prepare), so it gets the
 * faults with distinct outcomes (not connected, locked, app closed, rejected); the other device faults reach the same
 * status-word mapping as for the five other methods, and "unplugged while the review is on screen" is the fault of
 * the full presentation test below.
 */
const PRESENTATION_FAULTS = ['unplugged before the call', 'device locked', 'Mina app closed (dashboard 0x6E01)', 'rejected on the device'];
const applies = (method: Method, fault: Fault) =>
  (fault.applies?.(method) ?? true) && (method.name !== 'requestPresentation' || PRESENTATION_FAULTS.includes(fault.name));
const MATRIX = METHODS.flatMap((method) =>
  FAULTS.filter((f) => applies(method, f)).map((fault) => [method.name, fault.name, method, fault] as const),
);
