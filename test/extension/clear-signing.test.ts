/**
 * What the device shows is what it signs. zkApp commands in clear (SIGN_ZKAPP), and, where the device can only sign
 * blind, the host's summary for the integrator's hook. Commands are built with o1js as dapps build them; signatures
 * are checked with mina-signer (both eras). Presentations in clear (SIGN_PRESENTATION): sign-presentation.test.ts.
 */
import { AccountUpdate, Field, Mina, Permissions, PrivateKey, PublicKey, TokenId, UInt64, VerificationKey } from 'o1js';
import { beforeAll, describe, expect, it } from 'vitest';
import { toHex } from '../../src/apdu/bytes.js';
import { MinaLedgerApp } from '../../src/apdu.js';
import { INS_SIGN_ZKAPP, decodeZkappStream, encodeZkappStream } from '../../src/apdu/sign-zkapp.js';
import { bodyLayout, type Node } from '../../src/apdu/zkapp-body.js';
import { chunk } from '../../src/apdu/extension.js';
import { minaSignerInternals, type Era } from '../../src/upstream/mina-signer-internals.js';
import type { Review } from '../../src/emulator.js';
import { shownValue } from '../../src/emulator/review.js';
import type { ApduTransport } from '../../src/transport.js';
import { zkappStreamOf } from '../../src/zkapp/clear-signing.js';
import type { ZkappCommandJson } from '../../src/zkapp/command.js';
import type { ZkappSummary } from '../../src/zkapp/summary.js';
import type { LocalChain } from '../../src/zkapp/local-chain.js';
import { fundedLocalChain } from '../support/local-chain.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { ORIGIN, connectedWith, quietLedger } from '../support/rig.js';
import { addressOf, vectors } from '../support/vectors.js';
import { berkeleyCommand, manyUpdates, resizeState, verifySigned } from '../support/zkapp.js';

const ACCOUNT0 = addressOf(0);
const ATTACKER = PrivateKey.random().toPublicKey();
/** A device with extension 1.1 (clear signing) and Blind signing off: nothing here may need it. */
const clear = connectedWith({ extensions: true, blindSigning: false });
/** The released app (INS 06, blind): the host's summary is all there is to show (the tests give the hook or the opt-in). */
const blind = connectedWith({ extensions: false, blindSigning: true });

let chain: LocalChain;
beforeAll(async () => {
  chain = await fundedLocalChain();
}, 120_000);

/** o1js builds, as dapps do: a transaction of account 0 (fee 0.1 MINA) with `body`, as JSON. */
async function build(body: (sender: PublicKey) => void, fee = 100_000_000): Promise<ZkappCommandJson> {
  chain.activate();
  const sender = PublicKey.fromBase58(ACCOUNT0);
  const tx = await Mina.transaction({ sender, fee, memo: 'clear signing' }, async () => body(sender));
  return JSON.parse(tx.toJSON());
}

/** The commands of the issue: a transfer, the 90 MINA attack, a token transfer, a deploy, ten updates, a foreign fee payer. */
const COMMANDS: Record<string, () => Promise<ZkappCommandJson>> = {
  transfer: async () => berkeleyCommand(),
  '90 MINA to someone else': () =>
    build((sender) => {
      AccountUpdate.createSigned(sender).send({ to: ATTACKER, amount: UInt64.from(90_000_000_000n) });
    }),
  'a token transfer': () =>
    build((sender) => {
      const tokenId = TokenId.derive(ATTACKER);
      const from = AccountUpdate.createSigned(sender, tokenId);
      from.balance.subInPlace(UInt64.from(10));
      AccountUpdate.create(ATTACKER, tokenId).balance.addInPlace(UInt64.from(10));
    }),
  'a deploy that sets the verification key and permissions': () =>
    build((sender) => {
      const update = AccountUpdate.createSigned(sender);
      update.account.verificationKey.set(new VerificationKey({ data: '', hash: Field(12345) }));
      update.account.permissions.set({ ...Permissions.default(), send: Permissions.proof() });
      update.account.zkappUri.set('https://zkapp.example');
    }),
  'ten updates (three on the partial commitment)': async () => manyUpdates(berkeleyCommand(), 10, 3),
};

describe('SIGN_ZKAPP: the byte layout is the protocol layout', () => {
  it.each(['berkeley', 'mesa'] as const)('%s: the body table walks mina-signer’s generated layout, leaf for leaf', async (era) => {
    const internals = await minaSignerInternals(era);
    expect(leavesOf(bodyLayout(era))).toEqual(layoutLeaves(internals.accountUpdateLayout.entries!.body!));
  });

  it.each(['berkeley', 'mesa'] as const)('%s: encode → decode gives back every value of real commands', async (era) => {
    const internals = await minaSignerInternals(era);
    for (const [name, make] of Object.entries(COMMANDS)) {
      const command = adapt(await make(), era);
      const stream = zkappStreamOf(command, internals, era, 'devnet', 0);
      const again = decodeZkappStream(encodeZkappStream(stream));
      expect(again.feePayer, name).toEqual(stream.feePayer);
      expect(toHex(again.memo), name).toBe(toHex(stream.memo));
      expect(
        again.updates.map((u) => u.callDepth),
        name,
      ).toEqual(stream.updates.map((u) => u.callDepth));
    }
  });
});

describe('SIGN_ZKAPP through the provider: reviewed in clear, signed on values the device computed', () => {
  for (const era of ['berkeley', 'mesa'] as const) {
    for (const network of ['devnet', 'mainnet'] as const) {
      it.each(Object.keys(COMMANDS))(`${era}, ${network}: %s`, async (name) => {
        const command = adapt(await COMMANDS[name]!(), era);
        const { chain: provider, reviews, requests } = await clear({}, { network, era });
        const { signedData } = (await provider.sendTransaction({ transaction: command, onlySign: true })) as { signedData: string };
        expect(verifySigned(era, network, signedData, ACCOUNT0)).toBe(true);
        expect(requests('e006')).toBe(0); // nothing blind
        expect(requests('e0a3')).toBeGreaterThan(0);
        const review = reviews.at(-1)!;
        expect(review.kind).toBe('zkapp');
        expect(shownValue(review, 'Network')).toBe(network === 'mainnet' ? 'mainnet' : 'testnet');
        checkReview(name, review);
      });
    }
  }

  it('a foreign fee payer: the device shows it and signs only the updates of this account', async () => {
    const command = manyUpdates(berkeleyCommand(), 1, 1);
    command.feePayer.body.publicKey = addressOf(1);
    command.feePayer.body.nonce = '42';
    const { chain: provider, reviews } = await clear();
    const { signedData } = (await provider.sendTransaction({ transaction: command, onlySign: true })) as { signedData: string };
    const review = reviews.at(-1)!;
    expect(shownValue(review, 'Fee payer')).toBe(addressOf(1));
    expect(shownValue(review, 'You sign')).toBe('updates 1 (partial commitment)');
    // The update's signature verifies once the fee payer has signed too (mina-signer, the era's own check).
    const data = JSON.parse(signedData);
    const internals = await minaSignerInternals('berkeley');
    const { signZkappCommand } = (await import('../support/mina-signer-sign.js')).forEra('berkeley');
    const both = signZkappCommand(data.zkappCommand, vectors.accounts.find((a) => a.account === 1)!.privateKeyBase58, 'devnet');
    expect(internals.verifyZkappCommandSignature(both, ACCOUNT0, 'devnet', addressOf(1))).toBe(true);
  });

  it('updates that change nothing are counted in one line, which says what they do not change and nothing about signatures', async () => {
    const command = await build((sender) => {
      AccountUpdate.createSigned(sender).send({ to: ATTACKER, amount: UInt64.from(1) });
      for (let i = 0; i < 7; i++) AccountUpdate.create(PrivateKey.random().toPublicKey());
    });
    const { chain: provider, reviews } = await clear();
    await provider.sendTransaction({ transaction: command, onlySign: true });
    const review = reviews.at(-1)!;
    expect(shownValue(review, 'Also')).toBe('7 more updates that change nothing (no balance, state, setting, nonce, event or action)');
    expect(review.screens.filter((s) => /^Update \d+ of 9$/.test(s.title)).map((s) => s.title)).toEqual(['Update 1 of 9', 'Update 2 of 9']);
  });
});

describe('SIGN_ZKAPP refuses what is tampered, malformed or out of sequence, and keeps nothing', () => {
  it('a stream altered on its way (90 MINA instead of 1): the device shows the altered value, and the host refuses its commitments (22001)', async () => {
    const reviews: Review[] = [];
    const ledger = quietLedger({ extensions: true, approve: (r) => (reviews.push(r), true) });
    const page = await build((sender) => AccountUpdate.createSigned(sender).send({ to: ATTACKER, amount: UInt64.from(1) }));
    const altered = await COMMANDS['90 MINA to someone else']!();
    // A man in the middle between host and device replaces the stream by the one of the 90 MINA command.
    const { chain: provider } = await connectedWith({})({}, { transport: swapStream(ledger, altered) });
    const error = await failure(provider.sendTransaction({ transaction: page, onlySign: true }));
    expect(error).toMatchObject({ code: 22001, data: { reason: expect.stringMatching(/other commitments/) } });
    // What the user saw on the device was the truth about what it signed: 90 MINA leaving the account.
    expect(value(updates(reviews.at(-1)!)[0]!, 'Balance')).toBe('-90 MINA');
  });

  it.each(MALFORMED)('%s → 0x6802, and the next request is served', async (_name, mutate) => {
    const internals = await minaSignerInternals('berkeley');
    const device = quietLedger({ extensions: true });
    const payload = encodeZkappStream(zkappStreamOf(berkeleyCommand(), internals, 'berkeley', 'devnet', 0));
    for (const apdu of mutate(payload)) {
      const reply = await device.exchange(apdu);
      if (toHex(reply) !== '9000') {
        expect(toHex(reply)).toBe('6802');
        break;
      }
    }
    // Nothing left behind: the whole, valid request now signs.
    const app = new MinaLedgerApp(device);
    const signed = await app.signZkapp(zkappStreamOf(berkeleyCommand(), internals, 'berkeley', 'devnet', 0));
    expect(signed.signatures.map((s) => s.kind)).toEqual(['fullCommitment']);
  });

  it('a command with nothing for this account to sign → 0x6802', async () => {
    const command = berkeleyCommand();
    command.feePayer.body.publicKey = addressOf(1);
    for (const au of command.accountUpdates) au.body.publicKey = addressOf(2);
    const internals = await minaSignerInternals('berkeley');
    const stream = zkappStreamOf(command, internals, 'berkeley', 'devnet', 0);
    await expect(new MinaLedgerApp(quietLedger({ extensions: true })).signZkapp(stream)).rejects.toMatchObject({ statusCode: 0x6802 });
  });

  it('the device’s commitments are mina-signer’s, in both eras and on both networks', async () => {
    for (const era of ['berkeley', 'mesa'] as const) {
      const internals = await minaSignerInternals(era);
      for (const network of ['devnet', 'mainnet'] as const) {
        const command = adapt(manyUpdates(berkeleyCommand(), 4, 2), era);
        const expected = internals.transactionCommitments(internals.ZkappCommand.fromJSON(command), network);
        const got = await new MinaLedgerApp(quietLedger({ extensions: true })).signZkapp(
          zkappStreamOf(command, internals, era, network, 0),
        );
        expect({ commitment: got.commitment, fullCommitment: got.fullCommitment }).toEqual(expected);
        expect(got.signatures.map((s) => s.kind)).toEqual(['fullCommitment', 'commitment']);
      }
    }
  });
});

describe('when the device signs blind (the released app): the host summary, the hook, the spend cap', () => {
  it('the hook sees what the 90 MINA command does, and its veto reaches no device (1002)', async () => {
    const command = await COMMANDS['90 MINA to someone else']!();
    const seen: (ZkappSummary & { origin: string })[] = [];
    const { chain: provider, requests } = await blind({}, { confirmZkapp: (s) => (seen.push(s), false) });
    const before = requests('e006');
    expect(await failure(provider.sendTransaction({ transaction: command, onlySign: true }))).toMatchObject({ code: 1002 });
    expect(requests('e006')).toBe(before);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      origin: ORIGIN,
      feePayer: ACCOUNT0,
      fee: '100000000',
      walletPays: true,
      balanceChanges: [{ token: 'MINA', amount: '-90000000000' }],
      spend: '90100000000',
      clearSigning: false,
      signatures: [{ commitment: 'full', feePayer: true, updates: [0] }],
    });
  });

  it('deploys are summed up as sensitive changes; the spend cap refuses before the device (20003)', async () => {
    const command = await COMMANDS['a deploy that sets the verification key and permissions']!();
    const seen: ZkappSummary[] = [];
    const { chain: provider } = await blind({}, { confirmZkapp: (s) => (seen.push(s), true) });
    await provider.sendTransaction({ transaction: command, onlySign: true });
    expect(seen[0]!.sensitive.map((c) => c.change).sort()).toEqual(['permissions', 'verificationKey', 'zkappUri']);
    const capped = await blind({}, { spendCap: 50 });
    const error = await failure(
      capped.chain.sendTransaction({ transaction: await COMMANDS['90 MINA to someone else']!(), onlySign: true }),
    );
    expect(error).toMatchObject({ code: 20003, data: { field: 'transaction', reason: expect.stringMatching(/spend cap/) } });
    expect(capped.requests('e006')).toBe(0);
  });

  it('prompts say "partial commitment" when that is what the device signs blind', async () => {
    const { chain: provider, actions } = await blind({}, { confirmZkapp: () => true });
    await provider.sendTransaction({ transaction: manyUpdates(berkeleyCommand(), 4, 2), onlySign: true });
    const prompts = actions.filter((a) => a.method === 'sendTransaction' && a.status === 'confirm').map((a) => a.prompt);
    expect(prompts).toEqual([
      'Blind-sign the zkApp full commitment on your Ledger (1 of 2)',
      'Blind-sign the zkApp partial commitment (the account updates only) on your Ledger (2 of 2)',
    ]);
  });
});

// ---- helpers ----

/** The command in the era's layout (o1js 2.15 builds Berkeley; Mesa pads every app-state array to 32). */
function adapt(command: ZkappCommandJson, era: Era): ZkappCommandJson {
  return era === 'mesa' ? resizeState(structuredClone(command), 32) : structuredClone(command);
}

/** The screens of each account update a review lists ("Update i of N" up to the next one or the summary). */
function updates(review: Review): Review['screens'][] {
  const out: Review['screens'][] = [];
  for (const s of review.screens) {
    if (/^Update \d+ of \d+$/.test(s.title)) out.push([]);
    else if (/^(Also|You sign)/.test(s.title)) break;
    else out.at(-1)?.push(s);
  }
  return out;
}

/** A value as shown within `screens`, its pages joined. */
function value(screens: Review['screens'], title: string): string | undefined {
  return shownValue({ ins: 0, kind: 'zkapp', approvable: true, screens }, title);
}

/** What each command's review must say. */
function checkReview(name: string, review: Review): void {
  switch (name) {
    case '90 MINA to someone else': {
      const [mine, theirs] = updates(review);
      expect(value(mine!, 'Account')).toBe(`${ACCOUNT0} (you)`);
      expect(value(mine!, 'Balance')).toBe('-90 MINA');
      expect(value(mine!, 'Authorized by')).toBe('your signature (full commitment)');
      expect(value(theirs!, 'Account')).toBe(ATTACKER.toBase58());
      expect(value(theirs!, 'Balance')).toBe('+90 MINA');
      break;
    }
    case 'a token transfer': {
      const [mine] = updates(review);
      expect(value(mine!, 'Token')).toBe(TokenId.toBase58(TokenId.derive(ATTACKER)));
      expect(value(mine!, 'Balance')).toBe('-10 (smallest units)');
      break;
    }
    case 'a deploy that sets the verification key and permissions': {
      const [mine] = updates(review);
      // Each warning is one value, paged as the device pages it: "Warning", or "Warning (1/n)" … "Warning (n/n)".
      const warnings: string[] = [];
      for (const screen of mine!) {
        const page = /^Warning(?: \((\d+)\/\d+\))?$/.exec(screen.title);
        if (!page) continue;
        if (page[1] === undefined || page[1] === '1') warnings.push(screen.text ?? '');
        else warnings[warnings.length - 1] += screen.text ?? '';
      }
      const text = warnings.join('|');
      expect(text).toContain(`sets the verification key (hash ${'0'.repeat(60)}3039)`);
      expect(text).toMatch(/changes permissions: editState Proof, access None, send Proof/);
      expect(text).toContain('sets the zkApp URI to https://zkapp.example');
      break;
    }
    case 'ten updates (three on the partial commitment)':
      expect(shownValue(review, 'You sign')).toBe(
        'the fee payer and updates 4, 5, 6, 7, 8, 9, 10 (full commitment); updates 1, 2, 3 (partial commitment)',
      );
      break;
    default:
      expect(shownValue(review, 'You sign')).toMatch(/the fee payer/);
  }
}

/**
 * A transport in front of `ledger` that replaces SIGN_ZKAPP's stream by the one of `command` (a man in the middle):
 * the host's chunks are acknowledged, and on its last one the device gets the other stream, whose reply goes back.
 */
function swapStream(ledger: ReturnType<typeof quietLedger>, command: ZkappCommandJson): ApduTransport {
  return {
    async send(cla, ins, p1, p2, data = new Uint8Array(0), statusList) {
      if (ins !== INS_SIGN_ZKAPP) return ledger.send(cla, ins, p1, p2, data, statusList);
      if (p2 === 0x80) return Uint8Array.of(0x90, 0x00);
      const internals = await minaSignerInternals('berkeley');
      let reply: Uint8Array = Uint8Array.of(0x90, 0x00);
      for (const r of chunk(INS_SIGN_ZKAPP, encodeZkappStream(zkappStreamOf(command, internals, 'berkeley', 'devnet', 0)))) {
        reply = await ledger.send(0xe0, r.ins, r.p1, r.p2, r.data, statusList);
      }
      return reply;
    },
  };
}

/** Each malformation as APDUs built from a valid payload. */
const MALFORMED: [string, (payload: Uint8Array) => Uint8Array[]][] = [
  ['a truncated stream', (p) => apdus(p.subarray(0, p.length - 1))],
  ['a byte too many', (p) => apdus(Uint8Array.from([...p, 0]))],
  ['an unknown network byte', (p) => apdus(edit(p, 4, 7))],
  ['an unknown era byte', (p) => apdus(edit(p, 5, 9))],
  ['17 account updates announced', (p) => apdus(edit(p, 6, 17))],
  ['a bool that is 2 (the fee payer key parity)', (p) => apdus(edit(p, 7 + 32, 2))],
  ['a memo with a bad first byte', (p) => apdus(edit(p, 7 + 33 + 8 + 4 + 1, 0x02))],
  ['a continuation without a first chunk', (p) => apdus(p).slice(1)],
  [
    'a call depth that jumps (0 → 2)',
    (p) => {
      // The first update's call depth byte follows the header, fee payer and memo: 7 + 33 + 8 + 4 + 1 + 34.
      return apdus(edit(p, 7 + 33 + 8 + 4 + 1 + 34, 2));
    },
  ],
];

function edit(payload: Uint8Array, at: number, value: number): Uint8Array {
  const copy = Uint8Array.from(payload);
  copy[at] = value;
  return copy;
}

function apdus(payload: Uint8Array): Uint8Array[] {
  return chunk(INS_SIGN_ZKAPP, payload).map((r) => Uint8Array.from([0xe0, r.ins, r.p1, r.p2, r.data.length, ...r.data]));
}

type LayoutNode = {
  type: string;
  keys?: string[];
  entries?: Record<string, LayoutNode>;
  inner?: LayoutNode;
  staticLength?: number | null;
  optionType?: string;
  checkedTypeName?: string;
};

/** The leaves of our table, as paths and kinds. */
function leavesOf(node: Node, path = 'body'): string[] {
  switch (node.kind) {
    case 'leaf':
      return [`${path}:${node.leaf}`];
    case 'object':
      return node.entries.flatMap(([key, inner]) => leavesOf(inner, `${path}.${key}`));
    case 'array':
      return leavesOf(node.inner, `${path}[${node.length}]`);
    case 'option':
      return [`${path}?`, ...leavesOf(node.inner, `${path}.value`)];
  }
}

/** mina-signer's layout, mapped to the same kinds (callDepth travels in the record header). */
function layoutLeaves(node: LayoutNode, path = 'body'): string[] {
  if (node.type === 'object') {
    return node.keys!.flatMap((key) => (key === 'callDepth' ? [] : layoutLeaves(node.entries![key]!, `${path}.${key}`)));
  }
  if (node.type === 'option') {
    const inner = node.inner!;
    // A verification key is hashed by its hash alone.
    if (inner.type === 'object' && inner.keys?.join() === 'data,hash') return [`${path}?`, `${path}.value:hashOnly`];
    return [`${path}?`, ...layoutLeaves(inner, `${path}.value`)];
  }
  if (node.type === 'array') {
    if (node.staticLength === null || node.staticLength === undefined) return [`${path}:hashOnly`]; // events, actions
    return layoutLeaves(node.inner!, `${path}[${node.staticLength}]`);
  }
  const kinds: Record<string, string> = {
    PublicKey: 'publicKey',
    Field: 'field',
    TokenId: 'field',
    Bool: 'bool',
    UInt32: 'u32',
    UInt64: 'u64',
    Sign: 'sign',
    AuthRequired: 'permission',
  };
  if (node.type === 'string') return [`${path}:${node.checkedTypeName === 'TokenSymbol' ? 'symbol' : 'uri'}`];
  return [`${path}:${kinds[node.type] ?? node.type}`];
}
