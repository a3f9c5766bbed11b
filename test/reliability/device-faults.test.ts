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
 * the owner-signature review again (rejected there); one full presentation after a fault is proved and verified at
 * the end.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Client from 'mina-signer';
import { AccountUpdate, Field, Mina, Nullifier, PrivateKey, PublicKey, UInt64 } from 'o1js';
import { beforeAll, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../src/credentials-node.js';
import type { SoftwareLedger, Review, ReviewKind, SoftwareLedgerOptions } from '../../src/emulator.js';
import { credentialManager, type DeviceAction, type LedgerProvider } from '../../src/index.js';
import type { LocalChain } from '../../src/zkapp/local-chain.js';
import { credentialIssuer, issuerHash, verifiedOutput, type Issuer } from '../support/credentials.js';
import { fundedLocalChain } from '../support/local-chain.js';
import { addressOf } from '../support/vectors.js';
import { berkeleyCommand, manyUpdates, verifySigned } from '../support/zkapp.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { ORIGIN, connectedProvider, tempDirs, never } from '../support/rig.js';

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

describe('each confirmation of a multi-step call', () => {
  // manyUpdates(…, 4, 2): two updates on the partial commitment, the fee payer and two on the full: 2 INS 06 requests.
  const twoCommitments = () => manyUpdates(berkeleyCommand(), 4, 2);
  const ins06 = (r: Rig) => r.ledger.exchanges.filter((e) => e.request.startsWith('e006')).length;

  it.each([
    ['rejected', 1, 1002],
    ['rejected', 2, 1002],
    ['unplugged', 1, 1001],
    ['unplugged', 2, 1001],
  ] as const)(
    'sendTransaction with two commitments: %s at confirmation %i of 2 → %i, no partially signed command',
    async (what, at, code) => {
      const r = await rig('devnet');
      let seen = 0;
      r.ledger.approve = (review) => {
        if (review.kind !== 'field-element' || ++seen !== at) return true;
        if (what === 'rejected') return false;
        r.ledger.unplug();
        return never();
      };
      const before = ins06(r);
      expect(await failure(r.chain.sendTransaction({ transaction: twoCommitments(), onlySign: true }))).toMatchObject({ code });
      expect(seen).toBe(at);
      // Only the confirmations up to the fault were answered (an unplugged one never is).
      expect(ins06(r) - before).toBe(what === 'rejected' ? at : at - 1);

      r.ledger.plug();
      approveAll(r);
      await r.chain.requestAccounts();
      const after = ins06(r);
      const result = (await r.chain.sendTransaction({ transaction: twoCommitments(), onlySign: true })) as { signedData: string };
      expect(ins06(r) - after).toBe(2);
      expect(verifySigned('berkeley', 'devnet', result.signedData, ACCOUNT0)).toBe(true);
    },
  );

  it.each([
    ['rejected', 1],
    ['rejected', 2],
    ['unplugged', 2],
  ] as const)(
    'storePrivateCredential, first of the connection: %s at confirmation %i of 2 (approval, store key) → nothing stored',
    async (what, at) => {
      const r = await rig('devnet');
      let seen = 0;
      const texts: string[] = [];
      r.ledger.approve = (review) => {
        if (review.kind !== 'message') return true;
        texts.push(review.screens.find((s) => s.title === 'Message')?.text ?? '');
        if (++seen !== at) return true;
        if (what === 'rejected') return false;
        r.ledger.unplug();
        return never();
      };
      const credential = issuer.issue(ACCOUNT0, 'Peru');
      expect(await failure(r.chain.storePrivateCredential({ credential }))).toMatchObject({ code: what === 'rejected' ? 1002 : 1001 });
      expect(texts[0]).toMatch(/^Store credential [0-9a-f]{8} from /);
      if (at === 2) expect(texts[1]).toBe('chain-ledger credential store key v1');
      expect(accountFiles(r.dir)).toEqual([]);

      r.ledger.plug();
      approveAll(r);
      await r.chain.requestAccounts();
      await r.chain.storePrivateCredential({ credential });
      expect(await credentialManager(r.chain).list()).toHaveLength(1);
    },
  );
});

describe('a full presentation after a fault', () => {
  it('unplugged at the owner signature, plugged back: the next presentation is proved and the verifier accepts it', async () => {
    const r = await rig('devnet');
    await r.chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0) });
    unplugAt(r, 'sign-fields');
    const { req, json } = issuer.presentationRequest();
    expect(await failure(r.chain.requestPresentation({ presentation: { presentationRequest: json } }))).toMatchObject({ code: 1001 });
    r.ledger.plug();
    approveAll(r);
    await r.chain.requestAccounts();
    const { presentation } = await r.chain.requestPresentation({ presentation: { presentationRequest: json } });
    expect(await verifiedOutput(issuer.A, req, presentation, ORIGIN)).toBe(issuerHash(issuer.A, issuer.key));
  }, 300_000);
});

// ---- the rig and the oracles used above (module code: it runs before vitest collects the tests) ----

const ACCOUNT0 = addressOf(0);
const testnet = new Client({ network: 'testnet' });

let localChain: LocalChain;
let issuer: Issuer;
const tempDir = tempDirs('faults');

beforeAll(async () => {
  [localChain, issuer] = await Promise.all([fundedLocalChain(), credentialIssuer()]);
}, 120_000);

interface Rig {
  ledger: SoftwareLedger;
  chain: LedgerProvider;
  reviews: Review[];
  actions: DeviceAction[];
  dir: string;
  /** The recipient of the last payment built by the broadcast method. */
  recipient?: PublicKey;
}

const approveAll = (rig: Rig) => (rig.ledger.approve = (r) => (rig.reviews.push(r), true));

/** A connected provider (every review approved and recorded, as `approveAll` does again after a fault). */
async function rig(network: 'devnet' | 'local', device: SoftwareLedgerOptions = {}): Promise<Rig> {
  const dir = tempDir();
  const { ledger, chain, reviews, actions } = await connectedProvider(
    { extensions: '1.0', blindSigning: true, ...device },
    // Extension 1.0 signs zkApp commands blind: the integrator's opt-in (the faults are what is tested, not the review).
    {
      network,
      localChain: network === 'local' ? localChain : undefined,
      credentialStore: new FileCredentialStore(dir),
      allowUnreviewedBlindSigning: true,
    },
  );
  return { ledger, chain, reviews, actions, dir };
}

const storedIds = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, `${ACCOUNT0}.json`), 'utf8')) as { entries: { id: string }[] }).entries.map((e) => e.id);
/** One credential and one request for all presentation rows (issuing and building them is not what is tested). */
let presentationCredential: string | undefined;
let presentationJson: unknown;
const accountFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.json'));

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
  localChain.activate();
  rig.recipient = PrivateKey.random().toPublicKey();
  const sender = PublicKey.fromBase58(ACCOUNT0);
  const tx = await Mina.transaction({ sender, fee: 100_000_000, memo: 'fault matrix' }, async () => {
    AccountUpdate.fundNewAccount(sender);
    AccountUpdate.createSigned(sender).send({ to: rig.recipient!, amount: UInt64.from(1_000_000_000) });
  });
  return tx.toJSON();
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

const unplugAt = (rig: Rig, kind: ReviewKind) =>
  (rig.ledger.approve = (review) => {
    rig.reviews.push(review);
    if (review.kind !== kind) return true;
    rig.ledger.unplug(); // the cable is pulled while the review is on screen
    return never();
  });

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
