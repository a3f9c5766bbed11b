/**
 * "No APDU may ever make the software Ledger throw": random and mutated APDUs — every INS value, every length, odd
 * CLA/P1/P2/Lc, the recorded requests of both vector files with bytes flipped, accounts ≥ 2^31, addresses with a
 * valid base58check over random payloads (odd version and parity bytes, x ≥ p, payloads of other lengths), random
 * memo and message bytes, field elements up to 2^256 - 1, chunked extension requests — each answered with a status
 * word (and data on 9000), never an exception, with the extension on and off, Blind signing on and off, and the
 * user approving or rejecting.
 *
 * The default count keeps this a few seconds; PROPERTY_RUNS raises it (PROPERTY_RUNS=20000 npx vitest run ...).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base58check, fromHex } from '../../src/apdu/bytes.js';

import { recordings } from '../support/speculos-recordings.js';
import { vectors } from '../support/vectors.js';
import { quietLedger } from '../support/rig.js';
import { propertyRuns } from '../support/runs.js';

const RUNS = propertyRuns(400);
/** Every status word the app answers (0x6982: an empty APDU, which the transport layer of a device refuses). */
const STATUS_WORDS = new Set([0x9000, 0x6985, 0x6802, 0x6d00, 0x6e00, 0x6982]);

const recorded = [...recordings.exchanges.map((e) => e.request), ...vectors.exchanges.map((e) => e.request)].map(fromHex);

const ledgers = [false, true].flatMap((extensions) => [false, true].map((blindSigning) => quietLedger({ extensions, blindSigning })));

const bytes = (min: number, max: number) => fc.uint8Array({ minLength: min, maxLength: max });

/** A 55-character address field whose base58check is valid over a random payload (36 bytes mostly; other sizes too). */
const oddAddress = fc.oneof(bytes(36, 36), bytes(30, 40)).map((payload) => {
  const text = base58check.encode(payload);
  return Uint8Array.from(text.padEnd(55, ' ').slice(0, 55), (c) => c.charCodeAt(0));
});
const validAddress = fc.constantFrom(...vectors.accounts.map((a) => Uint8Array.from(a.address, (c) => c.charCodeAt(0))));
const anyAddress = fc.oneof(oddAddress, bytes(55, 55), validAddress);

/** An INS 03 body: any account, odd addresses, any amounts, any memo bytes, any tag and network. */
/** Accounts 0–2 mostly, any 32-bit value too. */
const account = fc.oneof(
  fc.constantFrom(0, 1, 2).map((a) => Uint8Array.of(0, 0, 0, a)),
  bytes(4, 4),
);
/** Mostly an account with its own address as the sender (so that the app signs), else anything. */
const accountAndSender = fc.oneof(
  {
    arbitrary: fc
      .constantFrom(...vectors.accounts)
      .map((a) => [Uint8Array.of(0, 0, 0, a.account), Uint8Array.from(a.address, (c) => c.charCodeAt(0))] as const),
    weight: 3,
  },
  { arbitrary: fc.tuple(account, anyAddress), weight: 1 },
);
/** Amount and fee: small mostly (no overflow), any 64-bit values too. */
const amounts = fc.oneof(
  fc.tuple(bytes(4, 4), bytes(4, 4)).map(([a, f]) => Uint8Array.from([0, 0, 0, 0, ...a, 0, 0, 0, 0, ...f])),
  bytes(16, 16),
);

const signTxBody = fc
  .tuple(accountAndSender, anyAddress, amounts, bytes(8, 8), bytes(32, 32), fc.constantFrom(0, 4, 1, 0xff), fc.constantFrom(0, 1, 2))
  .map(([[account, from], to, amounts, nonceValid, memo, tag, network]) => {
    const body = new Uint8Array(172);
    body.set(account, 0);
    body.set(from, 4);
    body.set(to, 59);
    body.set(amounts, 114);
    body.set(nonceValid, 130);
    body.set(memo, 138);
    body[170] = tag;
    body[171] = network;
    return body;
  });

const apdu = (cla: number, ins: number, p1: number, p2: number, data: Uint8Array, lc = data.length) =>
  Uint8Array.from([cla, ins, p1, p2, lc & 0xff, ...data]);

const structured = fc.oneof(
  // Every INS with any P1/P2 and data, Lc right.
  fc
    .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), bytes(0, 255))
    .map(([ins, p1, p2, data]) => apdu(0xe0, ins, p1, p2, data)),
  // Odd CLA and Lc.
  fc
    .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: 255 }), bytes(0, 64))
    .map(([cla, ins, lc, data]) => apdu(cla, ins, 0, 0, data, lc)),
  // Any byte string at all, including the empty one.
  bytes(0, 300),
  // Sign-tx bodies with odd addresses and memos, any P1/P2 (weighted: the richest input).
  { arbitrary: fc.tuple(signTxBody, fc.integer({ min: 0, max: 255 })).map(([body, p]) => apdu(0xe0, 0x03, p, p, body)), weight: 4 },
  // Messages of any bytes and length, any network byte.
  fc
    .tuple(account, fc.integer({ min: 0, max: 3 }), bytes(0, 250))
    .map(([account, network, message]) => apdu(0xe0, 0x05, 0, 0, Uint8Array.from([...account, network, ...message]))),
  // Field elements: any 32 bytes (up to 2^256 - 1), any network byte, any account.
  fc
    .tuple(account, fc.integer({ min: 0, max: 3 }), bytes(32, 32))
    .map(([account, network, field]) => apdu(0xe0, 0x06, 0, 0, Uint8Array.from([...account, network, ...field]))),
  // Addresses with any P1/P2 and accounts.
  fc
    .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), bytes(0, 8))
    .map(([p1, p2, data]) => apdu(0xe0, 0x02, p1, p2, data)),
  // Recorded requests with bytes flipped, cut or extended.
  fc
    .tuple(
      fc.constantFrom(...recorded),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
      fc.integer({ min: -8, max: 8 }),
    )
    .map(([request, flips, resize]) => {
      const out = Uint8Array.from(request);
      for (const [at, value] of flips) if (out.length > 0) out[at % out.length] = value;
      return resize >= 0 ? Uint8Array.from([...out, ...new Uint8Array(resize)]) : out.slice(0, Math.max(0, out.length + resize));
    }),
);

describe('the software Ledger answers every APDU with a status word', () => {
  let signedTransactions = 0;
  it(`${RUNS} random and mutated APDUs (all INS, lengths, P1/P2/Lc, odd addresses, memos, fields): never an exception`, async () => {
    await fc.assert(
      fc.asyncProperty(
        structured,
        fc.nat(ledgers.length - 1),
        fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, { arbitrary: fc.constant(false), weight: 1 }),
        async (request, which, approve) => {
          const ledger = ledgers[which]!;
          ledger.approve = () => approve;
          let reply: Uint8Array;
          try {
            reply = await ledger.exchange(request);
          } catch (error) {
            throw new Error(`threw on ${Buffer.from(request).toString('hex')}: ${String(error)}`);
          }
          expect(reply.length).toBeGreaterThanOrEqual(2);
          const sw = (reply[reply.length - 2]! << 8) | reply[reply.length - 1]!;
          expect(STATUS_WORDS.has(sw), `status ${sw.toString(16)} for ${Buffer.from(request).toString('hex')}`).toBe(true);
          if (sw !== 0x9000) expect(reply.length).toBe(2);
          if (sw === 0x9000 && request[1] === 0x03) signedTransactions++;
        },
      ),
      { numRuns: RUNS },
    );
    // The generators reach the signing code, not only the early refusals.
    expect(signedTransactions).toBeGreaterThan(0);
  });
});
