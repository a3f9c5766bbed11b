/**
 * Extension SIGN_TEXT (0xA5, version 1.2; docs/apdu-extensions.md): the codec and what it refuses before sending, the
 * software Ledger as the reference implementation (its refusals, its screens, its signature), and the recorded
 * vectors replayed byte for byte. Every signature is checked against mina-signer's own `signMessage` /
 * `verifyMessage`, the scheme a dapp's server verifies with.
 */
import { readFileSync } from 'node:fs';
import Client from 'mina-signer';
import { describe, expect, it } from 'vitest';
import { MinaLedgerApp, type TextToSign } from '../../src/apdu.js';
import { concatBytes, fromHex, toHex, uintToBytesBE } from '../../src/apdu/bytes.js';
import { MAX_TEXT_MESSAGE_BYTES, displayMessageText } from '../../src/apdu/message-text.js';
import { encodeSignText } from '../../src/apdu/sign-text.js';
import type { Review, SoftwareLedgerOptions } from '../../src/emulator.js';
import { shownValue } from '../../src/emulator/review.js';
import { openTranscript } from '../../src/transport/node.js';
import { counting } from '../support/counting.js';
import { quietLedger } from '../support/rig.js';
import { addressOf, keyOf } from '../support/vectors.js';

const signers = { 0: new Client({ network: 'testnet' }), 1: new Client({ network: 'mainnet' }) } as const;
const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');
const ORIGIN = 'https://dapp.example';
const text = (message: string, more: Partial<TextToSign> = {}): TextToSign => ({
  account: 0,
  networkId: 0,
  origin: ORIGIN,
  message,
  ...more,
});

/** A device with the extension 1.2 that approves every review and keeps it. */
function device(options: SoftwareLedgerOptions = {}, reviews: Review[] = []) {
  return quietLedger({ extensions: true, approve: (r) => (reviews.push(r), true), ...options });
}

/** The exact signature mina-signer's `signMessage` makes (legacy message signatures are deterministic). */
const expected = (message: string, networkId: 0 | 1 = 0) => signers[networkId].signMessage(message, keyOf(0)).signature;

describe('the request', () => {
  it('account u32 ‖ network u8 ‖ origin (u8 length ‖ UTF-8) ‖ message length u16 ‖ message, chunked as every extension request', () => {
    const [request, ...more] = encodeSignText(text('Hé\nlo', { account: 3, networkId: 1, origin: 'https://a.b' }));
    expect(more).toEqual([]);
    expect(request!.ins).toBe(0xa5);
    expect(toHex(request!.data)).toBe(
      `00000003 01 0b ${toHex(new TextEncoder().encode('https://a.b'))} 0006 48c3a90a6c6f`.replace(/ /g, ''),
    );
    // The longest message: 4 + 1 + 1 + 20 (the origin) + 2 + 1024 = 1052 bytes, five APDUs.
    const longest = encodeSignText(text('x'.repeat(MAX_TEXT_MESSAGE_BYTES)));
    expect(longest.map((r) => [r.p1, r.p2, r.data.length])).toEqual([
      [0x00, 0x80, 255],
      [0x80, 0x80, 255],
      [0x80, 0x80, 255],
      [0x80, 0x80, 255],
      [0x80, 0x00, 32],
    ]);
  });

  it.each([
    ['an empty message', text(''), 'message'],
    ['1025 bytes', text('x'.repeat(1025)), 'message'],
    ['513 two-byte letters (1026 bytes)', text('é'.repeat(513)), 'message'],
    ['NUL', text('a\u0000b'), 'message'],
    ['a lone surrogate (no UTF-8 for it)', text('a\uD800b'), 'message'],
    ['the credential store text (its signature would be the store key)', text('Message : chain-ledger credential store key v1'), 'message'],
    ['an empty origin', text('hi', { origin: '' }), 'origin'],
    ['an origin with a newline', text('hi', { origin: 'https://a.b\nhttps://c.d' }), 'origin'],
    ['an origin of 256 bytes', text('hi', { origin: `https://${'a'.repeat(248)}` }), 'origin'],
    ['network 2', text('hi', { networkId: 2 as 0 }), 'networkId'],
  ])('refuses %s before anything is sent', async (_what, request, field) => {
    const { transport, sent } = counting(device());
    await expect(new MinaLedgerApp(transport).signText(request)).rejects.toMatchObject({ name: 'LedgerInputError', field });
    expect(sent).toEqual([]);
  });
});

describe('the device (the software Ledger)', () => {
  it.each([
    ['testnet', 0],
    ['mainnet', 1],
  ] as const)('signs exactly what mina-signer signMessage signs, on %s (no "Message : " prefix)', async (_network, networkId) => {
    const message = 'Sign in to dapp.example\nNonce: 8f2c\nIssued: 2026-01-01T00:00:00Z';
    const signature = await new MinaLedgerApp(device()).signText(text(message, { networkId }));
    expect(signature).toEqual(expected(message, networkId));
    expect(signers[networkId].verifyMessage({ data: message, publicKey: addressOf(0), signature })).toBe(true);
    expect(signers[networkId].verifyMessage({ data: `Message : ${message}`, publicKey: addressOf(0), signature })).toBe(false);
  });

  it('signs the bytes received: a leading byte-order mark stays part of the text', async () => {
    const message = '\uFEFFhello';
    const reviews: Review[] = [];
    expect(await new MinaLedgerApp(device({}, reviews)).signText(text(message))).toEqual(expected(message));
    expect(shownValue(reviews[0]!, 'Message')).toBe('\\ufeffhello');
  });

  it("shows who asks, the network and the text in pages: line feeds shown escaped and breaking lines, the rest escaped by the extension's text rule", async () => {
    const reviews: Review[] = [];
    const message = 'Café\ta\\u00e9\r\nline 2 😀\u0007';
    await new MinaLedgerApp(device({}, reviews)).signText(text(message, { networkId: 1 }));
    const [review] = reviews;
    expect(review).toMatchObject({ ins: 0xa5, kind: 'text', approvable: true });
    expect(review!.screens[0]!.lines).toEqual(['Sign', 'Message']);
    expect(shownValue(review!, 'Requested by')).toBe(ORIGIN);
    expect(review!.screens.find((s) => s.title === 'Network')?.text).toBe('mainnet');
    // What the user reads: a literal "\u00e9" in the text is "\\u00e9", the letter é is "\u00e9": never alike.
    expect(displayMessageText(message)).toBe('Caf\\u00e9\\u0009a\\\\u00e9\\u000d\\u000a\nline 2 \\u{1f600}\\u0007');
    // The screens draw it (the line break itself is not an event Speculos reports; its escape is).
    expect(shownValue(review!, 'Message')).toBe('Caf\\u00e9\\u0009a\\\\u00e9\\u000d\\u000aline 2 \\u{1f600}\\u0007');
    const pages = review!.screens.filter((s) => s.title.startsWith('Message'));
    const drawn = pages.flatMap((p) => p.drawing.texts.slice(1));
    expect(drawn.join('')).toBe(displayMessageText(message));
    // The line feed ends its line: "line 2" starts a line of its own.
    expect(drawn.findIndex((line) => line.endsWith('\\u000a\n'))).toBe(drawn.findIndex((line) => line.startsWith('line 2')) - 1);
    expect(review!.screens.slice(-2).map((s) => s.title)).toEqual(['Approve', 'Reject']);
  });

  it('a line feed is seen where it is: two lines never read as one text, even where the break falls on a wrap', async () => {
    const reviews: Review[] = [];
    const message = 'Origin: https://bank.example\nLogin nonce 42';
    await new MinaLedgerApp(device({}, reviews)).signText(text(message));
    // "Origin:" wraps for width and "https://bank.example" ends at the line feed: only the escape tells them apart.
    expect(shownValue(reviews[0]!, 'Message')).toBe('Origin: https://bank.example\\u000aLogin nonce 42');
    const drawn = reviews[0]!.screens.filter((s) => s.title.startsWith('Message')).flatMap((p) => p.drawing.texts.slice(1));
    expect(drawn).toContain('Login nonce 42');
  });

  it('a user who rejects gets 0x6985 and no signature', async () => {
    await expect(new MinaLedgerApp(device({ approve: () => false })).signText(text('no'))).rejects.toMatchObject({ statusCode: 0x6985 });
  });

  /** A raw SIGN_TEXT payload, sent as one APDU. */
  const raw = (payload: Uint8Array) => concatBytes(Uint8Array.of(0xe0, 0xa5, 0x00, 0x00, payload.length), payload);
  const origin = new TextEncoder().encode(ORIGIN);
  const payload = (network: number, originBytes: Uint8Array, length: number, message: Uint8Array) =>
    concatBytes(uintToBytesBE(0, 4), Uint8Array.of(network, originBytes.length), originBytes, uintToBytesBE(length, 2), message);
  const hi = new TextEncoder().encode('hi');

  it.each([
    ['network byte 2', payload(2, origin, 2, hi)],
    ['an empty origin', payload(0, new Uint8Array(0), 2, hi)],
    ['an origin with a control character', payload(0, new TextEncoder().encode('https://a\tb'), 2, hi)],
    ['a message length of 0', payload(0, origin, 0, new Uint8Array(0))],
    ['a message length of 1025', payload(0, origin, 1025, hi)],
    ['a length longer than the bytes', payload(0, origin, 3, hi)],
    ['a byte after the message', payload(0, origin, 2, Uint8Array.of(0x68, 0x69, 0x21))],
    ['bytes that are not UTF-8', payload(0, origin, 2, Uint8Array.of(0xc3, 0x28))],
    ['NUL', payload(0, origin, 2, Uint8Array.of(0x68, 0x00))],
  ])('answers 0x6802 to %s, and shows nothing', async (_what, data) => {
    const reviews: Review[] = [];
    expect(toHex(await device({}, reviews).exchange(raw(data)))).toBe('6802');
    expect(reviews).toEqual([]);
  });

  it.each([
    ['the released app', false],
    ['extension 1.0', '1.0'],
    ['extension 1.1', '1.1'],
  ] as const)('%s answers 0x6D00 (it has no SIGN_TEXT)', async (_what, extensions) => {
    expect(toHex(await device({ extensions }).exchange(raw(payload(0, origin, 2, hi))))).toBe('6d00');
  });
});

describe('recorded transcripts (the vectors in docs/apdu-extensions.md)', () => {
  it('GET_CAPABILITIES, version 1.2: SIGN_TEXT advertised with bit 0x10', async () => {
    const t = await openTranscript(fixture('extension-get-capabilities-1.2.apdu'));
    expect(await new MinaLedgerApp(t).getCapabilities()).toMatchObject({ version: '1.2', signText: true, signZkapp: true });
    t.ensureDone();
  });

  it.each(['sign-in', 'mainnet'])('SIGN_TEXT %s: the same APDUs, and mina-signer signMessage signature, byte for byte', async (name) => {
    const { what: _what, ...request } = JSON.parse(fixture(`extension-sign-text-${name}.json`)) as TextToSign & { what: string };
    const t = await openTranscript(fixture(`extension-sign-text-${name}.apdu`));
    const signature = await new MinaLedgerApp(t).signText(request);
    t.ensureDone();
    expect(signature).toEqual(expected(request.message, request.networkId));
    // The reply is that signature's r ‖ s, as every signature of the app.
    const reply = fixture(`extension-sign-text-${name}.apdu`).trim().split('\n').at(-1)!.slice(3);
    expect(reply).toBe(`${toHex(uintToBytesBE(BigInt(signature.field), 32))}${toHex(uintToBytesBE(BigInt(signature.scalar), 32))}9000`);
    // And the device answers the recorded requests with the recorded replies.
    const ledger = device();
    const lines = fixture(`extension-sign-text-${name}.apdu`).trim().split('\n');
    for (let i = 0; i < lines.length; i += 2)
      expect(toHex(await ledger.exchange(fromHex(lines[i]!.slice(3))))).toBe(lines[i + 1]!.slice(3));
  });

  it("the sign-in vector is Auro's documented sign-in text: several lines, 277 bytes", () => {
    const { message } = JSON.parse(fixture('extension-sign-text-sign-in.json')) as TextToSign;
    expect(message.split('\n')).toHaveLength(8);
    expect(new TextEncoder().encode(message).length).toBe(277);
  });
});
