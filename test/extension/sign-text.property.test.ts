/**
 * SIGN_TEXT through the provider, for any text: every text within the bound (1–1024 bytes of UTF-8, no NUL) is shown
 * escaped as the rule says and signed so that mina-signer's `verifyMessage` accepts the dapp's own text; every text
 * beyond it is refused (20006, with the reason) before a single APDU is sent. Texts are drawn from every unit
 * fast-check has (ASCII, any code point, graphemes), around the bound, with newlines, tabs and NUL mixed in.
 */
import fc from 'fast-check';
import Client from 'mina-signer';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_TEXT_MESSAGE_BYTES, displayMessageText } from '../../src/apdu/message-text.js';
import { shownValue } from '../../src/emulator/review.js';
import { providerFailure } from '../support/provider-failure.js';
import { connectedProvider } from '../support/rig.js';
import { runs } from '../support/runs.js';
import { addressOf } from '../support/vectors.js';

const testnet = new Client({ network: 'testnet' });
const bytesOf = (text: string) => new TextEncoder().encode(text).length;
/** The text with each lone surrogate replaced by U+FFFD (String#toWellFormed, which Node 20's types lack). */
const wellFormed = (text: string) => text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

/** Texts of every kind, some near the bound; a lone surrogate is replaced (that is 20003, not this property). */
const textArb = fc
  .oneof(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 400 }),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 300 }),
    fc.string({ unit: 'grapheme-ascii', minLength: 1000, maxLength: 1040 }),
    fc.string({ unit: fc.constantFrom('a', 'é', '☕', '😀', '\n', '\t', '\r', '\\', ' '), minLength: 200, maxLength: 600 }),
    fc
      .tuple(fc.string({ maxLength: 40 }), fc.constantFrom('\u0000', '\n\n', '\uFEFF'), fc.string({ maxLength: 40 }))
      .map((p) => p.join('')),
  )
  .map(wellFormed);

describe('any text within the bound signs and verifies; texts beyond are refused before the device', () => {
  let rig: Awaited<ReturnType<typeof connectedProvider>>;
  beforeAll(async () => {
    rig = await connectedProvider({ extensions: '1.3' }); // 1.3's 1024-byte bound (1.4's long texts: sign-text-long.test.ts)
  });

  it(`${runs(300, 60)} texts: shown escaped, signed as the text itself, or refused with nothing sent`, async () => {
    let signed = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(textArb, async (message) => {
        const { chain, ledger, reviews } = rig;
        const before = ledger.exchanges.length;
        reviews.length = 0;
        const within = bytesOf(message) <= MAX_TEXT_MESSAGE_BYTES && !message.includes('\u0000');
        if (!within) {
          const error = await providerFailure(chain.signMessage({ message }));
          expect(error).toMatchObject({
            code: 20006,
            data: { reason: expect.stringMatching(/1 to 1024 bytes of UTF-8 text without NUL/) },
          });
          expect(ledger.exchanges.length).toBe(before);
          refused++;
          return;
        }
        const result = await chain.signMessage({ message });
        expect(result.data).toBe(message);
        expect(testnet.verifyMessage({ data: message, publicKey: addressOf(0), signature: result.signature })).toBe(true);
        // What the device showed is the escaped text (its line breaks are no text Speculos reports; their escapes are).
        expect(shownValue(reviews[0]!, 'Message')).toBe(displayMessageText(message).replaceAll('\n', ''));
        signed++;
      }),
      // One text on each side of the bound always runs, whatever the draw: the fast tier draws 12.
      { numRuns: runs(300, 60), examples: [['Login to https://bank.example\nnonce 42'], ['a'.repeat(MAX_TEXT_MESSAGE_BYTES + 1)]] },
    );
    expect(signed).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  }, 300_000);

  it('the display rule never makes two texts look alike: the escaped text determines the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        const [x, y] = [wellFormed(a), wellFormed(b)];
        if (x !== y) expect(displayMessageText(x)).not.toBe(displayMessageText(y));
        expect(displayMessageText(x)).toMatch(/^[\x20-\x7e\n]*$/);
      }),
      { numRuns: runs(5000, 1000) },
    );
  });

  it('a line feed is seen without its line break: the text read across a break (as Speculos reports it) determines the text', () => {
    const read = (text: string) => displayMessageText(text).replaceAll('\n', '');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.nat(), (a, at) => {
        const x = wellFormed(a);
        const i = at % (x.length + 1);
        // The same text with one more line feed somewhere never reads the same.
        expect(read(`${x.slice(0, i)}\n${x.slice(i)}`)).not.toBe(read(x));
      }),
      { numRuns: runs(5000, 1000) },
    );
  });
});
