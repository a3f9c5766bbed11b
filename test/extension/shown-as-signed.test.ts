/**
 * What the device shows is what is signed, for every text and every update (docs/apdu-extensions.md, "Text" and
 * "Review"): texts that would show something other than what is signed, and updates a summary could hide, each run
 * through the provider on a 1.1 device (SIGN_ZKAPP, SIGN_PRESENTATION) and against the device itself with requests a
 * careless host could send.
 */
import { PrivateKey } from 'o1js';
import { beforeAll, describe, expect, it } from 'vitest';
import { MinaLedgerApp } from '../../src/apdu.js';
import { toHex, utf8 } from '../../src/apdu/bytes.js';
import {
  INS_CREATE_NULLIFIER,
  INS_SIGN_PRESENTATION,
  chunk,
  encodeCreateNullifier,
  encodeSignPresentation,
} from '../../src/apdu/extension.js';
import { INS_SIGN_ZKAPP, encodeZkappStream } from '../../src/apdu/sign-zkapp.js';
import { FileCredentialStore } from '../../src/credentials-node.js';
import type { Review } from '../../src/emulator.js';
import { shownValue } from '../../src/emulator/review.js';
import { minaSignerInternals } from '../../src/upstream/mina-signer-internals.js';
import { zkappStreamOf } from '../../src/zkapp/clear-signing.js';
import type { ZkappCommandJson } from '../../src/zkapp/command.js';
import { credentialIssuer, type Issuer } from '../support/credentials.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { connectedWith, quietLedger, tempDirs } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';
import { berkeleyCommand, verifySigned } from '../support/zkapp.js';

const ACCOUNT0 = addressOf(0);
/** Accounts 7 and 8 of the test mnemonic: other zkApps in a command. */
const [ACCOUNT7, ACCOUNT8] = [7, 8].map((i) => quietLedger().addressOf(i));
/** A 1.1 device (clear signing) with Blind signing off: nothing here may need it. */
const clear = connectedWith({ extensions: true, blindSigning: false });
const tempDir = tempDirs('shown-as-signed');

/** A deploy: account 0 sets a verification key, permissions and a URI (as the deploy vector). */
function deploy(update: { zkappUri?: string | null; tokenSymbol?: string | null }): ZkappCommandJson {
  const command = berkeleyCommand();
  command.accountUpdates = [command.accountUpdates[1]!];
  Object.assign(command.accountUpdates[0]!.body.update, update);
  return command;
}

/** A value of an update as the review shows it, every "Warning" joined. */
const warnings = (review: Review) =>
  review.screens
    .filter((s) => /^Warning( \(\d+\/\d+\))?$/.test(s.title))
    .map((s) => s.text ?? '')
    .join('');

/** Sends a payload as raw chunks (what a host that skipped the checks would send); the last reply, as hex. */
async function sendRaw(device: ReturnType<typeof quietLedger>, ins: number, payload: Uint8Array): Promise<string> {
  let reply = '';
  for (const r of chunk(ins, payload)) {
    reply = toHex(await device.exchange(Uint8Array.from([0xe0, r.ins, r.p1, r.p2, r.data.length, ...r.data])));
    if (reply !== '9000' && r.p2 !== 0) break;
  }
  return reply;
}

/** `payload` with the UTF-8 of `from` replaced by that of `to` (same length): a text the client would refuse to send. */
function replaced(payload: Uint8Array, from: string, to: string): Uint8Array {
  const [a, b] = [utf8.encode(from), utf8.encode(to)];
  const at = payload.findIndex((_, i) => a.every((x, j) => payload[i + j] === x));
  expect(at).toBeGreaterThanOrEqual(0);
  const out = Uint8Array.from(payload);
  out.set(b, at);
  return out;
}

describe('the zkApp URI and token symbol: shown as signed, or refused', () => {
  it('a zkApp URI with Latin-Extended letters is shown escaped on the device (never a look-alike), and signed as sent', async () => {
    const { chain, reviews } = await clear();
    const uri = 'https://tru\u0173ted.example';
    const { signedData } = (await chain.sendTransaction({ transaction: deploy({ zkappUri: uri }), onlySign: true })) as {
      signedData: string;
    };
    expect(warnings(reviews.at(-1)!)).toContain('sets the zkApp URI to https://tru\\u0173ted.example');
    expect(warnings(reviews.at(-1)!)).not.toContain('https://trusted.example');
    expect(JSON.parse(signedData).zkappCommand.accountUpdates[0].body.update.zkappUri).toBe(uri);
    expect(verifySigned('berkeley', 'devnet', signedData, ACCOUNT0)).toBe(true);
  });

  it.each([
    ['zkappUri', { zkappUri: 'https://trusted.example\u0000.attacker.example/' }, /control character U\+0000/],
    ['zkappUri', { zkappUri: 'https://trusted.example\n.attacker.example/' }, /control character U\+000A/],
    ['tokenSymbol', { tokenSymbol: 'MINA\u0000X' }, /control character U\+0000/],
    ['tokenSymbol', { tokenSymbol: 'MIN\u0141' }, /beyond ASCII/],
  ])(
    'a %s with a NUL, a control character or (a symbol) a letter beyond ASCII is refused before the device (20003 naming it)',
    async (field, update, reason) => {
      const { chain, requests } = await clear();
      const error = await failure(chain.sendTransaction({ transaction: deploy(update), onlySign: true }));
      expect(error).toMatchObject({ code: 20003, data: { field: `transaction.accountUpdates[0].body.update.${field}`, reason } });
      expect(requests('e0a3')).toBe(0);
    },
  );

  it('the device refuses a URI or token symbol with a NUL or another control byte (0x6802), even from a host that skipped the check', async () => {
    const internals = await minaSignerInternals('berkeley');
    const stream = (update: Record<string, unknown>) => zkappStreamOf(deploy(update), internals, 'berkeley', 'devnet', 0);
    const cases: [Record<string, unknown>, string, string][] = [
      [{ zkappUri: 'https://trusted.example#.attacker.example/' }, 'example#.', 'example\u0000.'],
      [{ zkappUri: 'https://trusted.example#.attacker.example/' }, 'example#.', 'example\u001b.'],
      [{ tokenSymbol: 'MINA#X' }, 'MINA#X', 'MINA\u0000X'],
      [{ tokenSymbol: 'MIN#' }, 'MIN#', 'MIN\u007f'],
    ];
    for (const [update, placeholder, text] of cases) {
      const device = quietLedger({ extensions: true });
      expect(await sendRaw(device, INS_SIGN_ZKAPP, replaced(encodeZkappStream(stream(update)), placeholder, text)), text).toBe('6802');
      // The same request with a printable text signs: the refusal is the text rule's.
      expect((await sendRaw(device, INS_SIGN_ZKAPP, encodeZkappStream(stream(update)))).endsWith('9000')).toBe(true);
    }
  });
});

describe('the memo: shown as signed, or refused', () => {
  it.each(['\u0000 drain approved', 'gift\u0000 + signs away the account', 'tab\there'])(
    'a memo %j with a control character is refused before the device (20003)',
    async (memo) => {
      const { chain, requests } = await clear();
      const error = await failure(chain.sendTransaction({ transaction: berkeleyCommand(), onlySign: true, feePayer: { memo } }));
      expect(error).toMatchObject({ code: 20003, data: { field: 'feePayer.memo', reason: expect.stringMatching(/control character/) } });
      expect(requests('e0a3')).toBe(0);
    },
  );

  it("the command's own memo with a NUL is refused before the device (20003 naming transaction.memo)", async () => {
    const internals = await minaSignerInternals('berkeley');
    const command = berkeleyCommand();
    command.memo = internals.Memo.toBase58(internals.Memo.fromString('gift\u0000 + signs away the account'));
    const { chain, requests } = await clear();
    const error = await failure(chain.sendTransaction({ transaction: command, onlySign: true }));
    expect(error).toMatchObject({ code: 20003, data: { field: 'transaction.memo' } });
    expect(requests('e0a3')).toBe(0);
  });

  it('a memo beyond ASCII is shown escaped on the device, every letter there, and signed as sent', async () => {
    const { chain, reviews } = await clear();
    const memo = 'café ☃ résumé';
    const { signedData } = (await chain.sendTransaction({ transaction: berkeleyCommand(), onlySign: true, feePayer: { memo } })) as {
      signedData: string;
    };
    expect(shownValue(reviews.at(-1)!, 'Memo')).toBe('caf\\u00e9 \\u2603 r\\u00e9sum\\u00e9');
    expect(JSON.parse(signedData).feePayer.memo).toBe(memo);
  });

  it('the device refuses a memo with a NUL (0x6802)', async () => {
    const internals = await minaSignerInternals('berkeley');
    const command = berkeleyCommand();
    command.memo = internals.Memo.toBase58(internals.Memo.fromString('gift# + signs away'));
    const payload = encodeZkappStream(zkappStreamOf(command, internals, 'berkeley', 'devnet', 0));
    expect(await sendRaw(quietLedger({ extensions: true }), INS_SIGN_ZKAPP, replaced(payload, 'gift#', 'gift\u0000'))).toBe('6802');
  });
});

describe('every update that changes anything is listed, and the summary says what the signature covers', () => {
  /** The review's attack: the transfer plus an update of another zkApp writing its app state (owner := attacker). */
  function withStateWrite(): { command: ZkappCommandJson; attackerX: string } {
    const attackerX = PrivateKey.random().toPublicKey().x.toString();
    const command = berkeleyCommand();
    const write = structuredClone(command.accountUpdates[2]!);
    Object.assign(write.body, {
      publicKey: ACCOUNT7,
      balanceChange: { magnitude: '0', sgn: 'Positive' },
      callDepth: 0,
      authorizationKind: { ...write.body.authorizationKind, isSigned: false, isProved: false },
    });
    write.body.update.appState = ['42', attackerX, null, null, null, null, null, null];
    write.authorization = { proof: null, signature: null };
    const emitter = structuredClone(write);
    emitter.body.publicKey = ACCOUNT8!;
    emitter.body.update.appState = Array(8).fill(null);
    emitter.body.events = [['1', '2']];
    command.accountUpdates.push(write, emitter);
    return { command, attackerX };
  }

  it("another account's app-state write is listed with its address, slots and values; events are noted; no claim that it needs no signature", async () => {
    const { command, attackerX } = withStateWrite();
    const { chain, reviews } = await clear();
    await chain.sendTransaction({ transaction: command, onlySign: true });
    const review = reviews.at(-1)!;
    const titles = review.screens.map((s) => s.title);
    const at = titles.indexOf('Update 4 of 5');
    expect(at).toBeGreaterThan(0);
    const update4 = review.screens.slice(at + 1, titles.indexOf('Update 5 of 5'));
    const value = (title: string) => shownValue({ ...review, screens: update4 }, title);
    expect(value('Account')).toBe(ACCOUNT7);
    expect(value('Sets state 0')).toBe('42');
    expect(value('Sets state 1')).toBe(attackerX);
    expect(value('Authorized by')).toBe('none');
    const update5 = review.screens.slice(titles.indexOf('Update 5 of 5') + 1);
    expect(update5.map((s) => s.lines)).toContainEqual(['Emits events', '(data not shown)']);
    expect(shownValue(review, 'Also')).toBeUndefined();
    expect(review.screens.map((s) => s.text ?? '').join(' ')).not.toMatch(/need no signature/);
    expect(shownValue(review, 'Your signature covers')).toBe('the whole command: fee payer, memo and all 5 account updates');
  });

  it('a partial-commitment signature is said to cover every account update, not the fee payer or memo', async () => {
    const command = berkeleyCommand();
    command.feePayer.body.publicKey = addressOf(1);
    command.accountUpdates[1]!.body.useFullCommitment = false;
    command.accountUpdates[1]!.body.incrementNonce = true;
    command.accountUpdates[0]!.body.publicKey = addressOf(1);
    const { chain, reviews } = await clear();
    await chain.sendTransaction({ transaction: command, onlySign: true });
    expect(shownValue(reviews.at(-1)!, 'You sign')).toBe('updates 2 (partial commitment)');
    expect(shownValue(reviews.at(-1)!, 'Your signature covers')).toBe('all 3 account updates (not the fee payer or memo)');
  });
});

describe('the presentation action and the nullifier origin: shown as signed, or refused', () => {
  let issuer: Issuer;
  beforeAll(async () => {
    issuer = await credentialIssuer();
  }, 120_000);

  it('an action with a NUL is refused before the device and before anything is proved (20003 naming it)', async () => {
    const { chain, ledger } = await clear({}, { credentialStore: new FileCredentialStore(tempDir()) });
    const { json } = issuer.presentationRequest();
    json.inputContext.action = 'login\u0000 and consent to selling my data';
    const before = ledger.exchanges.length;
    const error = await failure(chain.requestPresentation({ presentation: { presentationRequest: json } }));
    expect(error).toMatchObject({
      code: 20003,
      data: { field: 'presentation.presentationRequest.inputContext.action', reason: expect.stringMatching(/control character U\+0000/) },
    });
    expect(ledger.exchanges.length).toBe(before); // not even the store key was asked for
  });

  const parts = { vkHash: 11n, claimsHash: 22n, serverNonce: 33n, clientNonce: 44n, credentials: [{ hash: 55n, issuer: 66n }] };
  const request = (action: string) => ({
    account: 0,
    verifier: { type: 'https' as const, origin: 'https://shop.example' },
    ...parts,
    action,
    reveals: 'the issuer',
  });

  it('the device refuses an action, an origin or a description with a control byte (0x6802), and shows one beyond ASCII escaped', async () => {
    const payload = (action: string) => new Uint8Array(encodeSignPresentation(request(action)).flatMap((r) => [...r.data]));
    for (const [from, to] of [
      ['login#', 'login\u0000'],
      ['shop#', 'shop\u0000'],
      ['the#issuer', 'the\nissuer'],
    ] as const) {
      const base = payload('login# and consent');
      const source =
        from === 'login#' ? base : from === 'shop#' ? replaced(base, 'shop.', 'shop#') : replaced(base, 'the issuer', 'the#issuer');
      expect(await sendRaw(quietLedger({ extensions: true }), INS_SIGN_PRESENTATION, replaced(source, from, to)), to).toBe('6802');
    }
    const reviews: Review[] = [];
    await new MinaLedgerApp(quietLedger({ extensions: true, approve: (r) => (reviews.push(r), true) })).signPresentation(
      request('log\u0131n'),
    );
    expect(shownValue(reviews[0]!, 'Action')).toBe('log\\u0131n');
  });

  it('the device refuses a nullifier origin with a control byte (0x6802), and shows one beyond ASCII escaped', async () => {
    const payload = new Uint8Array(encodeCreateNullifier(0, [1n], 'https://a#b.example').flatMap((r) => [...r.data]));
    const device = quietLedger({ extensions: true });
    expect(await sendRaw(device, INS_CREATE_NULLIFIER, replaced(payload, 'a#b', 'a\u0000b'))).toBe('6802');
    const reviews: Review[] = [];
    await new MinaLedgerApp(quietLedger({ extensions: true, approve: (r) => (reviews.push(r), true) })).createNullifier(0, [1n], {
      origin: 'https://b\u00fccher.example',
    });
    expect(shownValue(reviews[0]!, 'Requested by')).toBe('https://b\\u00fccher.example');
  });
});
