/**
 * Extension SIGN_TEXT with long texts (0xA5, version 1.4; docs/apdu-extensions.md, "Long texts"): texts of up to
 * 16 KiB in the same request, shown in pages with their count, or past `MAX_PAGED_TEXT_CHARS` shown characters as
 * their SHA-256 behind Blind signing; signed exactly as mina-signer's `signMessage` signs them (checked against
 * mina-signer's own signature and `verifyMessage`, and the hash against node:crypto's SHA-256); a device before 1.4
 * and the released app refuse them before the device is asked (20006 naming the limit).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import Client from 'mina-signer';
import { describe, expect, it } from 'vitest';
import { MinaLedgerApp, type TextToSign } from '../../src/apdu.js';
import { fromHex, toHex, uintToBytesBE } from '../../src/apdu/bytes.js';
import {
  MAX_LONG_TEXT_MESSAGE_BYTES,
  MAX_PAGED_TEXT_CHARS,
  displayMessageText,
  maxTextMessageBytes,
  textHash,
  textShownAsHash,
} from '../../src/apdu/message-text.js';
import { encodeSignLongText, encodeSignText } from '../../src/apdu/sign-text.js';
import type { Review, SoftwareLedgerOptions } from '../../src/emulator.js';
import { shownValue } from '../../src/emulator/review.js';
import { openTranscript } from '../../src/transport/node.js';
import { counting } from '../support/counting.js';
import { providerFailure } from '../support/provider-failure.js';
import { connectedProvider, quietLedger } from '../support/rig.js';
import { runs } from '../support/runs.js';
import { socialcapVotes } from '../support/socialcap.js';
import { addressOf, keyOf } from '../support/vectors.js';

const testnet = new Client({ network: 'testnet' });
const bytesOf = (message: string) => new TextEncoder().encode(message).length;
const text = (message: string, more: Partial<TextToSign> = {}): TextToSign => ({
  account: 0,
  networkId: 0,
  origin: 'https://socialcap.app',
  message,
  ...more,
});

/** A 1.4 device (unless `extensions` says otherwise) that approves every review and keeps it. */
function device(options: SoftwareLedgerOptions = {}, reviews: Review[] = []) {
  return quietLedger({ extensions: '1.4', approve: (r) => (reviews.push(r), true), ...options });
}

/** A text past what a person pages through: 16 KiB of JSON-like lines. */
const longest = () =>
  Array.from({ length: 560 }, (_, i) => `{"n":${String(i).padStart(5, '0')},"v":"abcdefghijk"}\n`)
    .join('')
    .slice(0, MAX_LONG_TEXT_MESSAGE_BYTES);

/** The exact signature mina-signer's `signMessage` makes with account 0's key (deterministic). */
const expected = (message: string) => testnet.signMessage(message, keyOf(0)).signature;

describe('the request', () => {
  it('the same layout and APDUs as 1.2 up to 1024 bytes; up to 16384 bytes in 255-byte chunks (first P1 0x00, next 0x80, P2 0x80 until the last)', () => {
    const short = text('x'.repeat(1024));
    expect(encodeSignLongText(short)).toEqual(encodeSignText(short));
    const requests = encodeSignLongText(text('y'.repeat(MAX_LONG_TEXT_MESSAGE_BYTES)));
    // 4 + 1 + 1 + 21 (the origin) + 2 + 16384 = 16413 bytes: 64 full chunks and one of 93.
    expect(requests).toHaveLength(65);
    expect(requests.map((r) => [r.ins, r.p1, r.p2])).toEqual(requests.map((_, i) => [0xa5, i === 0 ? 0x00 : 0x80, i === 64 ? 0x00 : 0x80]));
    expect(requests.at(-1)!.data.length).toBe(93);
    expect(toHex(requests[0]!.data.subarray(27, 29))).toBe('4000'); // the u16 length, 16384
  });

  it('refuses 16385 bytes, NUL and an empty text before anything is sent', async () => {
    for (const message of ['z'.repeat(MAX_LONG_TEXT_MESSAGE_BYTES + 1), `${'a'.repeat(2000)}\u0000`, '']) {
      const { transport, sent } = counting(device());
      await expect(new MinaLedgerApp(transport).signLongText(text(message))).rejects.toMatchObject({
        name: 'LedgerInputError',
        field: 'message',
      });
      expect(sent).toEqual([]);
    }
  });

  it('the rule for the hash: over 1024 bytes and over 4096 shown characters; the hash is SHA-256 of the UTF-8 text', () => {
    expect(textShownAsHash('\n'.repeat(1024))).toBe(false); // 1.2's texts keep their pages (7,168 characters shown)
    expect(textShownAsHash('a'.repeat(MAX_PAGED_TEXT_CHARS))).toBe(false);
    expect(textShownAsHash('a'.repeat(MAX_PAGED_TEXT_CHARS + 1))).toBe(true);
    expect(textShownAsHash('é'.repeat(700))).toBe(true); // 1,400 bytes, 4,200 characters shown (\u00e9 each)
    expect(textShownAsHash(socialcapVotes())).toBe(false);
    const message = socialcapVotes();
    expect(textHash(message)).toBe(createHash('sha256').update(message, 'utf8').digest('hex'));
  });

  it('the bound per device: 16 KiB from 1.4 (extensions: true), 1024 on 1.2 and 1.3, none without SIGN_TEXT', async () => {
    for (const [extensions, max] of [
      [true, 16384],
      ['1.4', 16384],
      ['1.3', 1024],
      ['1.2', 1024],
      ['1.1', 0],
    ] as const) {
      const capabilities = await new MinaLedgerApp(device({ extensions })).getCapabilities();
      expect(maxTextMessageBytes(capabilities)).toBe(max);
    }
    expect(maxTextMessageBytes(null)).toBe(0);
  });
});

describe('the device (the software Ledger, 1.4)', () => {
  it.each([
    ['1025 bytes', 'a'.repeat(1025)],
    ['a Socialcap-like 3-vote JSON (2,269 bytes)', socialcapVotes()],
  ])('%s: shown in pages, each with its page count, and signed exactly as mina-signer signMessage signs it', async (_what, message) => {
    const reviews: Review[] = [];
    const signature = await new MinaLedgerApp(device({}, reviews)).signLongText(text(message));
    expect(signature).toEqual(expected(message));
    expect(testnet.verifyMessage({ data: message, publicKey: addressOf(0), signature })).toBe(true);
    const pages = reviews[0]!.screens.filter((s) => s.title.startsWith('Message'));
    expect(pages.length).toBeGreaterThan(1);
    // "Message (3/40)": every page says which of how many it is.
    pages.forEach((page, i) => expect(page.title).toBe(`Message (${i + 1}/${pages.length})`));
    expect(pages.flatMap((p) => p.drawing.texts.slice(1)).join('')).toBe(displayMessageText(message));
    expect(shownValue(reviews[0]!, 'Requested by')).toBe('https://socialcap.app');
    expect(reviews[0]!.screens.some((s) => s.title === 'SHA-256')).toBe(false);
  });

  it('the Socialcap batch is 2,269 bytes and 39 pages on a Nano S Plus, "Message (3/39)" on its third', async () => {
    const message = socialcapVotes();
    expect(bytesOf(message)).toBe(2269);
    expect(JSON.parse(message).votes).toHaveLength(3);
    const reviews: Review[] = [];
    await new MinaLedgerApp(device({}, reviews)).signLongText(text(message));
    const pages = reviews[0]!.screens.filter((s) => s.title.startsWith('Message'));
    expect(pages).toHaveLength(39);
    expect(pages[2]!.title).toBe('Message (3/39)');
  });

  it('16384 bytes with Blind signing on: its SHA-256 shown (not the text), ACCEPT RISK, and the signature of mina-signer', async () => {
    const message = longest();
    expect(bytesOf(message)).toBe(16384);
    const reviews: Review[] = [];
    const signature = await new MinaLedgerApp(device({ blindSigning: true }, reviews)).signLongText(text(message));
    expect(signature).toEqual(expected(message));
    expect(testnet.verifyMessage({ data: message, publicKey: addressOf(0), signature })).toBe(true);
    const [review] = reviews;
    expect(review!.screens[0]!.lines).toEqual(['Blind', 'Signing']);
    expect(shownValue(review!, 'SHA-256')).toBe(createHash('sha256').update(message, 'utf8').digest('hex'));
    expect(review!.screens.find((s) => s.title === 'Length')?.text).toBe('16384 bytes');
    expect(review!.screens.some((s) => s.title.startsWith('Message'))).toBe(false);
    expect(review!.screens.at(-2)!.lines).toEqual(['ACCEPT RISK', 'AND APPROVE']);
  });

  it('with Blind signing off: the notice that says to enable it, then 0x6985, nothing signed', async () => {
    const reviews: Review[] = [];
    const app = new MinaLedgerApp(device({ blindSigning: false }, reviews));
    await expect(app.signLongText(text(longest()))).rejects.toMatchObject({ name: 'LedgerUserRejectedError', statusCode: 0x6985 });
    expect(reviews).toHaveLength(1);
    expect(reviews[0]).toMatchObject({ ins: 0xa5, kind: 'blind-signing-disabled', approvable: false });
    expect(reviews[0]!.screens.map((s) => s.lines)).toEqual([
      ['Blind signing', 'not enabled'],
      ['Enable it in', 'app settings'],
      ['Reject'],
    ]);
  });

  it.each(['1.3', '1.2'] as const)('a %s device answers a text over 1024 bytes 0x6802 and shows nothing', async (extensions) => {
    const reviews: Review[] = [];
    const app = new MinaLedgerApp(device({ extensions }, reviews));
    await expect(app.signLongText(text('a'.repeat(1025)))).rejects.toMatchObject({ statusCode: 0x6802 });
    expect(reviews).toEqual([]);
    // Its texts within 1024 bytes are signed as before.
    expect(await app.signLongText(text('short'))).toEqual(expected('short'));
  });
});

describe('through the provider (chain.signMessage)', () => {
  it('1.4: 1025, 2,269 and 16,384 bytes signed; data is the text itself and verifies; the hash prompt names the hash', async () => {
    const { chain, actions } = await connectedProvider({ extensions: '1.4', blindSigning: true });
    for (const message of ['b'.repeat(1025), socialcapVotes(), longest()]) {
      actions.length = 0;
      const result = await chain.signMessage({ message });
      expect(result).toMatchObject({ publicKey: addressOf(0), data: message, signature: expected(message) });
      expect(testnet.verifyMessage({ data: message, publicKey: addressOf(0), signature: result.signature })).toBe(true);
      const prompt = actions.find((a) => a.status === 'confirm')!.prompt;
      if (textShownAsHash(message)) expect(prompt).toContain(textHash(message));
      else expect(prompt).toBe('Review the message on your Ledger and approve');
    }
  }, 60_000);

  it('signJsonMessage of a Socialcap-sized JSON on 1.4, verified by mina-signer', async () => {
    const { chain } = await connectedProvider({ extensions: '1.4' });
    const message = Array.from({ length: 30 }, (_, i) => ({ label: `vote ${i}`, value: `claim-${i}-${'+'.repeat(40)}` }));
    const result = await chain.signJsonMessage({ message });
    expect(bytesOf(result.data)).toBeGreaterThan(1024);
    expect(testnet.verifyMessage({ data: result.data, publicKey: addressOf(0), signature: result.signature })).toBe(true);
  });

  it.each([
    ['the released app', false, /1 to 65 printable ASCII bytes \(INS 05\).*1\.4 up to 16384/],
    [
      'extension 1.3',
      '1.3',
      /1 to 1024 bytes of UTF-8 text without NUL \(extension SIGN_TEXT\); this message is 2269 bytes; .*1\.4 signs up to 16384 bytes/,
    ],
    ['extension 1.2', '1.2', /1 to 1024 bytes .*1\.4 signs up to 16384 bytes/],
  ] as const)('%s: 20006 naming the limit, before the device is asked', async (_what, extensions, reason) => {
    const { chain, ledger } = await connectedProvider({ extensions });
    const before = ledger.exchanges.length;
    const error = await providerFailure(chain.signMessage({ message: socialcapVotes() }));
    expect(error).toMatchObject({ code: 20006, data: { reason: expect.stringMatching(reason) } });
    expect(ledger.exchanges.length).toBe(before);
  });

  it('1.4: over 16384 bytes is 20006 naming 16384, before the device', async () => {
    const { chain, ledger } = await connectedProvider({ extensions: '1.4' });
    const before = ledger.exchanges.length;
    const error = await providerFailure(chain.signMessage({ message: 'c'.repeat(16385) }));
    expect(error).toMatchObject({
      code: 20006,
      data: {
        reason: expect.stringMatching(
          /1 to 16384 bytes of UTF-8 text without NUL \(extension 1\.4 SIGN_TEXT\); this message is over 16384 bytes/,
        ),
      },
    });
    expect(ledger.exchanges.length).toBe(before);
  });

  it('1.4 with Blind signing off: a text shown as its hash is refused on the device (1002, nothing signed)', async () => {
    const { chain } = await connectedProvider({ extensions: '1.4', blindSigning: false });
    const error = await providerFailure(chain.signMessage({ message: longest() }));
    expect(error).toMatchObject({ code: 1002, data: { reason: expect.stringMatching(/enable "Blind signing"/) } });
  });
});

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');

describe('recorded transcripts (tools/extension-vectors/sign-text-long.ts)', () => {
  it('GET_CAPABILITIES, version 1.4: 01 04 3f 40, the same bits as 1.3; the minor version gives 16 KiB texts', async () => {
    const t = await openTranscript(fixture('extension-get-capabilities-1.4.apdu'));
    const capabilities = await new MinaLedgerApp(t).getCapabilities();
    t.ensureDone();
    expect(capabilities).toMatchObject({ version: '1.4', signText: true, storeKey: true });
    expect(maxTextMessageBytes(capabilities)).toBe(16384);
  });

  it('the Socialcap batch: the same 10 APDUs, and the mina-signer signMessage signature, byte for byte', async () => {
    const { what: _what, ...request } = JSON.parse(fixture('extension-sign-text-socialcap.json')) as TextToSign & { what: string };
    expect(request.message).toBe(socialcapVotes());
    const t = await openTranscript(fixture('extension-sign-text-socialcap.apdu'));
    const signature = await new MinaLedgerApp(t).signLongText(request);
    t.ensureDone();
    expect(signature).toEqual(expected(request.message));
    const lines = fixture('extension-sign-text-socialcap.apdu').trim().split('\n');
    expect(lines).toHaveLength(20);
    const r = toHex(uintToBytesBE(BigInt(signature.field), 32));
    expect(lines.at(-1)).toBe(`<= ${r}${toHex(uintToBytesBE(BigInt(signature.scalar), 32))}9000`);
    // And a 1.4 device answers the recorded requests with the recorded replies.
    const ledger = device();
    for (let i = 0; i < lines.length; i += 2)
      expect(toHex(await ledger.exchange(fromHex(lines[i]!.slice(3))))).toBe(lines[i + 1]!.slice(3));
  });
});

describe('any long text (property)', () => {
  it(`${runs(60, 12)} texts of 1025 to 9,600 bytes on 1.4: paged or hashed as the rule says, signed as the text itself`, async () => {
    const { chain, reviews } = await connectedProvider({ extensions: '1.4', blindSigning: true });
    let [hashed, paged] = [0, 0];
    // Mostly ASCII (paged up to 4,096 characters) or mostly escapes (6 to 9 characters each: hashed).
    const texts = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', ' ', '{', '"', ':', ',', '7', 'é', '\n'), minLength: 1025, maxLength: 3500 }),
      fc.string({ unit: fc.constantFrom('é', '☕', '😀', '\n', '\t', '\\', 'a'), minLength: 1025, maxLength: 2400 }),
    );
    await fc.assert(
      fc.asyncProperty(texts, async (message) => {
        reviews.length = 0;
        const result = await chain.signMessage({ message });
        expect(testnet.verifyMessage({ data: message, publicKey: addressOf(0), signature: result.signature })).toBe(true);
        const [review] = reviews;
        if (textShownAsHash(message)) {
          expect(shownValue(review!, 'SHA-256')).toBe(textHash(message));
          hashed++;
        } else {
          expect(shownValue(review!, 'Message')).toBe(displayMessageText(message).replaceAll('\n', ''));
          paged++;
        }
      }),
      // One of each kind always among them, whatever the draws.
      { numRuns: runs(60, 12), examples: [['a'.repeat(3000)], ['é'.repeat(1100)]] },
    );
    expect(hashed).toBeGreaterThan(0);
    expect(paged).toBeGreaterThan(0);
  }, 120_000);
});
