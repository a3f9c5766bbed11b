/**
 * What the host does with a zkApp command before any device request: its work bounded before it starts (URI, token
 * symbol, events, actions, the length of every number and key), the command parsed once from one plain copy of the
 * page's argument, the summary an integrator shows (`confirmZkapp`, `zkappSummaryLines`), and blind signing refused
 * unless something reviews it (docs/provider.md, "Blind signing"; docs/security.md).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLedgerProvider, zkappSummaryLines, zkappSummaryView, type ZkappSummary } from '../../src/index.js';
import { minaSignerInternals } from '../../src/upstream/mina-signer-internals.js';
import type { ZkappCommandJson } from '../../src/zkapp/command.js';
import { fakeMinaNodes } from '../support/mina-node.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { ORIGIN, connectedWith, providerRig, quietLedger } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';
import { berkeleyCommand, handOverWithStateWrite, manyUpdates, verifySigned } from '../support/zkapp.js';

const ACCOUNT0 = addressOf(0);
/** The released app with Blind signing on: INS 06, a hash on screen. */
const released = connectedWith({ blindSigning: true });
/** A 1.1 device: SIGN_ZKAPP, the command on screen. */
const clear = connectedWith({ extensions: true });
const signedDataOf = (result: unknown) => (result as { signedData: string }).signedData;

afterEach(() => {
  vi.restoreAllMocks();
});

/** Counts mina-signer's parses of whole commands (those with account updates: a fee payer alone is a few fields). */
async function countParses(): Promise<() => number> {
  const internals = await minaSignerInternals('berkeley');
  const spy = vi.spyOn(internals.ZkappCommand, 'fromJSON');
  return () => spy.mock.calls.filter(([json]) => ((json as ZkappCommandJson).accountUpdates?.length ?? 0) > 0).length;
}

type Body = Record<string, unknown> & { update: Record<string, unknown> };
/** The transfer with its user's first update changed by `edit`. */
function edited(edit: (body: Body) => void): ZkappCommandJson {
  const command = berkeleyCommand();
  edit(command.accountUpdates[1]!.body as unknown as Body);
  return command;
}

describe('blind signing is never silent by default', () => {
  it('on the released app, a zkApp command nothing reviews is refused before the device (20006); a review or the opt-in signs it', async () => {
    const { chain, requests } = await released();
    const error = await failure(chain.sendTransaction({ transaction: berkeleyCommand(), onlySign: true }));
    expect(error).toMatchObject({
      code: 20006,
      data: { reason: expect.stringMatching(/confirmZkapp.*allowUnreviewedBlindSigning: true/) },
    });
    expect(requests('e006')).toBe(0);

    const seen: ZkappSummary[] = [];
    const reviewed = await released({}, { confirmZkapp: (s) => (seen.push(s), true) });
    expect(
      verifySigned(
        'berkeley',
        'devnet',
        signedDataOf(await reviewed.chain.sendTransaction({ transaction: berkeleyCommand(), onlySign: true })),
        ACCOUNT0,
      ),
    ).toBe(true);
    expect(seen).toHaveLength(1);
    const optedIn = await released({}, { allowUnreviewedBlindSigning: true });
    expect(
      verifySigned(
        'berkeley',
        'devnet',
        signedDataOf(await optedIn.chain.sendTransaction({ transaction: berkeleyCommand(), onlySign: true })),
        ACCOUNT0,
      ),
    ).toBe(true);
  });

  it('a device that shows the command (SIGN_ZKAPP) needs neither the hook nor the opt-in', async () => {
    const { chain, requests } = await clear();
    expect(
      verifySigned(
        'berkeley',
        'devnet',
        signedDataOf(await chain.sendTransaction({ transaction: berkeleyCommand(), onlySign: true })),
        ACCOUNT0,
      ),
    ).toBe(true);
    expect(requests('e006')).toBe(0);
  });

  it('a one-field signFields (a zkApp authorization in all but name) is refused before the device (20006) unless the integrator opts in', async () => {
    for (const extensions of [false, true]) {
      const { chain, requests } = await connectedWith({ blindSigning: true, extensions })();
      const error = await failure(
        chain.signFields({ message: ['15125478341151450434551337097321105823980530753786707595743937773095033818642'] }),
      );
      expect(error).toMatchObject({
        code: 20006,
        data: { reason: expect.stringMatching(/authorizes a zkApp command.*allowUnreviewedBlindSigning/) },
      });
      expect(requests('e006')).toBe(0);
    }
    const optedIn = await connectedWith({ blindSigning: true }, { allowUnreviewedBlindSigning: true })();
    expect((await optedIn.chain.signFields({ message: ['9'] })).signature).toMatch(/^7/);
    // Two or more fields never verify as a transaction authorization (SIGN_FIELDS): no opt-in needed.
    const several = await connectedWith({ blindSigning: true, extensions: true })();
    expect((await several.chain.signFields({ message: ['1', '2'] })).data).toEqual(['1', '2']);
  });

  it('allowUnreviewedBlindSigning must be true or false (20003 at creation)', () => {
    expect(() => providerRig({}, { allowUnreviewedBlindSigning: 'yes' as never })).toThrow(
      expect.objectContaining({ code: 20003, data: expect.objectContaining({ field: 'allowUnreviewedBlindSigning' }) }),
    );
  });
});

describe('the host summary lists every update that changes anything, and what the signature covers', () => {
  /** The transfer, plus another zkApp writing its app state and one emitting events and dispatching actions. */
  function withOtherAccounts(): ZkappCommandJson {
    const command = berkeleyCommand();
    const write = structuredClone(command.accountUpdates[2]!);
    Object.assign(write.body, {
      publicKey: quietLedger().addressOf(7),
      balanceChange: { magnitude: '0', sgn: 'Positive' },
      callDepth: 0,
      authorizationKind: { ...write.body.authorizationKind, isSigned: false, isProved: false },
    });
    write.body.update.appState = ['42', '7', null, null, null, null, null, null];
    const emitter = structuredClone(write);
    emitter.body.update.appState = Array(8).fill(null);
    emitter.body.events = [['1', '2'], ['3']];
    emitter.body.actions = [['4']];
    const idle = structuredClone(emitter);
    idle.body.events = [];
    idle.body.actions = [];
    command.accountUpdates.push(write, emitter, idle);
    return command;
  }

  it("another account's app-state write, events and actions are in the summary and its lines; the full commitment covers the whole command", async () => {
    const seen: ZkappSummary[] = [];
    const { chain } = await released({}, { confirmZkapp: (s) => (seen.push(s), true) });
    await chain.sendTransaction({ transaction: withOtherAccounts(), onlySign: true, feePayer: { memo: 'caf\u00e9' } });
    const summary = seen[0]!;
    expect(summary.accountUpdates).toBe(6);
    expect(summary.updates.map((u) => u.index)).toEqual([0, 1, 2, 3, 4]); // the sixth changes nothing
    expect(summary.updates[3]).toMatchObject({
      account: quietLedger().addressOf(7),
      yours: false,
      appState: [
        { slot: 0, value: '42' },
        { slot: 1, value: '7' },
      ],
      authorization: 'none',
    });
    expect(summary.updates[4]).toMatchObject({ events: 3, actions: 1 });
    const lines = zkappSummaryLines(summary);
    expect(lines).toContain('Update 4 of 6');
    expect(lines).toContain('  Sets state 0: 42');
    expect(lines).toContain('  Emits events: 3 fields');
    expect(lines).toContain('  Dispatches actions: 1 field');
    expect(lines).toContain('  Also: 1 more update that changes nothing');
    expect(lines).toContain('  Memo: caf\\u00e9');
    expect(lines.join('\n')).toMatch(
      /full commitment\): your signature covers the whole command, fee payer, memo and all 6 account updates/,
    );
    expect(lines.join('\n')).not.toMatch(/need no signature/);
  });

  it('texts from the command are shown escaped in the summary lines, as the device shows them', async () => {
    const seen: ZkappSummary[] = [];
    const { chain } = await released({}, { confirmZkapp: (s) => (seen.push(s), true) });
    const command = edited((body) => {
      body.update.zkappUri = 'https://tru\u0173ted.example';
    });
    await chain.sendTransaction({ transaction: command, onlySign: true });
    expect(zkappSummaryLines(seen[0]!)).toContain('  zkApp URI: https://tru\\u0173ted.example');
  });
});

describe("the one renderer: what a signature authorises, in the device's words and numbering", () => {
  it("the view lists the zkApp's state write and each setting's value, numbered from 1, the holder's account and key marked (you), what gives authority away flagged", async () => {
    const seen: (ZkappSummary & { origin: string })[] = [];
    const { chain } = await released({}, { confirmZkapp: (s) => (seen.push(s as ZkappSummary & { origin: string }), true) });
    const command = handOverWithStateWrite(quietLedger().addressOf(7));
    (command.accountUpdates[1]!.body.update as Record<string, unknown>).delegate = ACCOUNT0;
    await chain.sendTransaction({ transaction: command, onlySign: true });
    const view = zkappSummaryView(seen[0]!);
    expect(view.map((section) => section.title)).toEqual([
      'zkApp command',
      'Update 1 of 4',
      'Update 2 of 4',
      'Update 3 of 4',
      'Update 4 of 4',
      'Your signature',
      'In all',
    ]);
    const rows = (title: string) => view.find((section) => section.title === title)!.rows;
    expect(rows('zkApp command')).toContainEqual({ label: 'Requested by', value: ORIGIN });
    expect(rows('zkApp command')).toContainEqual({ label: 'Fee payer', value: `${ACCOUNT0} (you)`, address: true });
    const mine = rows('Update 2 of 4');
    expect(mine).toContainEqual({ label: 'Account', value: `${ACCOUNT0} (you)`, address: true });
    expect(mine).toContainEqual({
      label: 'Permissions',
      value: expect.stringMatching(
        /send None, receive None,.*setPermissions None.*: anyone may then send, setPermissions on your account without your signature$/,
      ),
      flag: 'danger',
    });
    expect(mine).toContainEqual({
      label: 'Delegate',
      value: `${ACCOUNT0} (you): your account's stake goes to this block producer`,
      address: true,
      flag: 'danger',
    });
    expect(rows('Update 4 of 4')).toEqual([
      { label: 'Account', value: quietLedger().addressOf(7), address: true },
      { label: 'Token', value: 'MINA' },
      { label: 'Sets state 0', value: '42' },
      { label: 'Sets state 1', value: '7' },
      { label: 'Authorized by', value: 'none' },
    ]);
    expect(rows('Your signature')).toEqual([
      {
        label: 'You sign',
        value:
          'the fee payer and updates 1, 2 (full commitment): your signature covers the whole command, fee payer, memo and all 4 account updates',
      },
    ]);
    expect(rows('In all')).toContainEqual({
      label: 'Changes your account',
      value: 'permissions (update 2), delegate (update 2): no amount counts what this gives away',
      flag: 'danger',
    });
    // The lines are the same content, flagged rows marked.
    const lines = zkappSummaryLines(seen[0]!);
    expect(lines).toContain('  Sets state 0: 42');
    expect(lines.filter((line) => line.startsWith('  ⚠ '))).toHaveLength(5); // permissions, delegate, nonce, authority, blind
    expect(lines.join('\n')).toMatch(/⚠ Permissions: .*send None/);
  });

  it('one update is "update 2", several "updates 1, 2"; an update that changes nothing is "1 more update"', async () => {
    const seen: ZkappSummary[] = [];
    const { chain } = await released({}, { confirmZkapp: (s) => (seen.push(s), true) });
    const command = berkeleyCommand();
    command.feePayer.body.publicKey = addressOf(1); // another account pays: the holder signs its updates only
    command.accountUpdates[0]!.body.authorizationKind.isSigned = false;
    await chain.sendTransaction({ transaction: command, onlySign: true });
    expect(zkappSummaryLines(seen[0]!)).toContain(
      '  You sign: update 2 (full commitment): your signature covers the whole command, fee payer, memo and all 3 account updates',
    );
  });
});

describe('the nonce, the validity and the network are in the summary', () => {
  const startNode = fakeMinaNodes();

  it("a page's nonce other than the account's next one is named and flagged, with the slot the command is valid until", async () => {
    const node = await startNode({ accountNonce: () => ({ data: { account: { nonce: '5', inferredNonce: '5' } } }) });
    const seen: ZkappSummary[] = [];
    const { chain } = await released({}, { graphqlUrl: node.url, confirmZkapp: (s) => (seen.push(s), true) });
    const held = berkeleyCommand();
    held.feePayer.body.validUntil = '4294967295';
    await chain.sendTransaction({ transaction: held, onlySign: true, nonce: 1000 });
    await chain.sendTransaction({ transaction: berkeleyCommand(), onlySign: true });
    expect(seen.map(({ nonce, nextNonce, validUntil }) => ({ nonce, nextNonce, validUntil }))).toEqual([
      { nonce: '1000', nextNonce: '5', validUntil: '4294967295' },
      { nonce: '5', nextNonce: '5', validUntil: null },
    ]);
    const [page, own] = seen.map((s) => zkappSummaryLines(s));
    expect(page).toContain(
      "  ⚠ Nonce: 1000, not your account's next nonce (5): it cannot apply now, and whoever holds it can send it once your account reaches that nonce",
    );
    expect(page).toContain('  Valid until: slot 4294967295');
    expect(own).toContain("  Nonce: 5 (your account's next)");
    expect(own).toContain('  Valid until: any slot (no limit)');
  });

  it('on zeko:testnet the summary names Zeko Testnet, not devnet, and says the signature is valid on every testnet network', async () => {
    const seen: ZkappSummary[] = [];
    const { chain } = await released({}, { allowUnconfirmedSwitchChain: true, confirmZkapp: (s) => (seen.push(s), true) });
    await chain.switchChain({ networkID: 'zeko:testnet' });
    // Another account pays the fee, so no nonce is asked of Zeko's public node (no test leaves this machine).
    const command = berkeleyCommand();
    command.feePayer.body.publicKey = addressOf(1);
    await chain.sendTransaction({ transaction: command, onlySign: true });
    expect(seen[0]).toMatchObject({ network: 'devnet', chain: { id: 'zeko:testnet', name: 'Zeko Testnet' } });
    const lines = zkappSummaryLines(seen[0]!);
    expect(lines).toContain('  Network: Zeko Testnet (zeko:testnet)');
    expect(lines.join('\n')).toMatch(/Signed for: testnet .*valid on every testnet network, Mina devnet and Zeko testnet included/);
    expect(lines.join('\n')).not.toMatch(/devnet\)/);
  });
});

describe('work is bounded before it starts', () => {
  it.each([
    ['a 128 KiB zkApp URI', edited((b) => (b.update.zkappUri = `https://x.example/${'a'.repeat(128 * 1024)}`)), 'update.zkappUri'],
    ['a 256-byte zkApp URI', edited((b) => (b.update.zkappUri = 'a'.repeat(256))), 'update.zkappUri'],
    ['a 7-byte token symbol', edited((b) => (b.update.tokenSymbol = 'ABCDEFG')), 'update.tokenSymbol'],
    ['4,000 event fields', edited((b) => (b.events = Array.from({ length: 40 }, () => Array(100).fill('1')))), 'events'],
    ['101 event fields', edited((b) => (b.events = [Array(101).fill('1')])), 'events'],
    ['101 action fields', edited((b) => (b.actions = [Array(50).fill('1'), Array(51).fill('1')])), 'actions'],
    ['101 events without fields', edited((b) => (b.events = Array.from({ length: 101 }, () => []))), 'events'],
  ])('%s is refused (20003 naming it) before anything is parsed or hashed, and never reaches the device', async (_name, command, field) => {
    const { chain, requests } = await released({}, { allowUnreviewedBlindSigning: true });
    const parses = await countParses();
    const error = await failure(chain.sendTransaction({ transaction: command, onlySign: true }));
    expect(error).toMatchObject({ code: 20003, data: { field: `transaction.accountUpdates[1].body.${field}` } });
    expect(parses()).toBe(0);
    expect(requests('e006')).toBe(0);
  });

  it('event and action fields count across the whole command (o1js and the daemon: 100 each)', async () => {
    const { chain } = await released({}, { allowUnreviewedBlindSigning: true });
    const command = manyUpdates(berkeleyCommand(), 3);
    for (const au of command.accountUpdates) au.body.events = [Array(34).fill('1')];
    const error = await failure(chain.sendTransaction({ transaction: command, onlySign: true }));
    expect(error).toMatchObject({ code: 20003, data: { field: 'transaction.accountUpdates[2].body.events' } });
  });

  it('a zkApp command with more account updates than a node accepts (11) → 20003 before any hashing or device request', async () => {
    const ledger = quietLedger({ blindSigning: true });
    const chain = createLedgerProvider({ transport: ledger, network: 'devnet', origin: ORIGIN, allowUnreviewedBlindSigning: true });
    await chain.requestAccounts();
    const before = ledger.exchanges.length;
    expect(await failure(chain.sendTransaction({ transaction: manyUpdates(berkeleyCommand(), 12), onlySign: true }))).toMatchObject({
      code: 20003,
      data: { field: 'transaction.accountUpdates' },
    });
    expect(ledger.exchanges.length).toBe(before);
    await chain.sendTransaction({ transaction: manyUpdates(berkeleyCommand(), 11), onlySign: true });
  });

  it('at the limits (a 255-byte URI, 100 event and 100 action fields) the command signs', async () => {
    const { chain } = await released({}, { allowUnreviewedBlindSigning: true });
    const command = edited((b) => {
      b.update.zkappUri = 'a'.repeat(255);
      b.events = [Array(100).fill('1')];
      b.actions = [Array(60).fill('2'), Array(40).fill('3')];
    });
    expect(
      verifySigned('berkeley', 'devnet', signedDataOf(await chain.sendTransaction({ transaction: command, onlySign: true })), ACCOUNT0),
    ).toBe(true);
  });

  it.each([
    ['a 1,000,000-digit field', edited((b) => (b.callData = '1'.repeat(1_000_000))), 'transaction.accountUpdates[1].body.callData'],
    ['a 100,000-character token id', edited((b) => (b.tokenId = `w${'q'.repeat(100_000)}`)), 'transaction.accountUpdates[1].body.tokenId'],
    [
      'a 100,000-character delegate',
      edited((b) => (b.update.delegate = `B62${'q'.repeat(100_000)}`)),
      'transaction.accountUpdates[1].body.update.delegate',
    ],
    ['a 100,000-character memo', Object.assign(berkeleyCommand(), { memo: 'E'.repeat(100_000) }), 'transaction.memo'],
  ])('%s is refused before BigInt or base58 reads it (quadratic in its length)', async (_name, command, field) => {
    const { chain } = await released({}, { allowUnreviewedBlindSigning: true });
    const parses = await countParses();
    const memos = vi.spyOn((await minaSignerInternals('berkeley')).Memo, 'fromBase58');
    expect(await failure(chain.sendTransaction({ transaction: command, onlySign: true }))).toMatchObject({ code: 20003, data: { field } });
    expect(parses()).toBe(0);
    expect(memos).not.toHaveBeenCalled();
  });

  it.each([
    ['blind (INS 06)', released, { allowUnreviewedBlindSigning: true }],
    ['in clear (SIGN_ZKAPP)', clear, {}],
  ] as const)(
    '%s: the account updates are parsed, and their URIs, events and actions hashed, once on the host',
    async (_name, rig, options) => {
      const { chain } = await rig({}, options);
      const parses = await countParses();
      const command = edited((b) => {
        b.update.zkappUri = 'https://zkapp.example';
        b.events = [['1', '2']];
      });
      await chain.sendTransaction({ transaction: command, onlySign: true });
      expect(parses()).toBe(1);
    },
  );
});

describe('the arguments are read once, as plain data', () => {
  it('an accountUpdates getter that answers differently later cannot pass the update bound with one answer and sign another', async () => {
    const template = berkeleyCommand();
    const seen: { honestReads: number; reads: number; signedUpdates?: number }[] = [];
    for (const honestReads of [1, 2, 3, 5, 8]) {
      const { chain, requests } = await released({}, { allowUnreviewedBlindSigning: true });
      let reads = 0;
      const transaction = { feePayer: template.feePayer, memo: template.memo } as Record<string, unknown>;
      Object.defineProperty(transaction, 'accountUpdates', {
        enumerable: true,
        get: () => (++reads <= honestReads ? template.accountUpdates.slice(0, 1) : Array(300).fill(template.accountUpdates[1])),
      });
      const outcome = await chain.sendTransaction({ transaction, onlySign: true }).then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
      if ('error' in outcome) {
        expect(outcome.error, `${honestReads} honest reads`).toMatchObject({ code: 20003 });
        expect(requests('e006')).toBe(0);
        seen.push({ honestReads, reads });
      } else {
        expect(verifySigned('berkeley', 'devnet', signedDataOf(outcome.result), ACCOUNT0)).toBe(true);
        seen.push({ honestReads, reads, signedUpdates: JSON.parse(signedDataOf(outcome.result)).zkappCommand.accountUpdates.length });
      }
    }
    // Whatever the getter answers later, what was checked is what was signed: 300 updates never reach the device…
    expect(seen.filter((s) => (s.signedUpdates ?? 0) > 1)).toEqual([]);
    // …because the argument is read once into plain data (a bounded walk, then its JSON text), then never again.
    expect(seen.filter((s) => s.reads > 2)).toEqual([]);
  });
});
