/**
 * The client against the real app: every recorded exchange (test/fixtures/mina-ledger-app-speculos.json) whose
 * request the client can express is re-made with MinaLedgerApp over a transport that answers only the recorded
 * request (and the recorded version, for the client's version gate). The client must send the recorded bytes
 * exactly and read the recorded reply right: the address, the signature (r, s), or the error its status word
 * means. The recorded requests it cannot or must not send are listed, each with the field the client refuses.
 */
import Client from 'mina-signer';
import { describe, expect, it } from 'vitest';
import { MinaLedgerApp, signatureToBase58 } from '../../src/apdu.js';
import type { ApduTransport } from '../../src/transport.js';
import { fromHex, toHex } from '../../src/apdu/bytes.js';
import { recorded, recordings, type RecordedExchange } from '../support/speculos-recordings.js';

const VERSION = recorded('version');

/** A transport that knows two exchanges: the recorded one and the version read; anything else fails the test. */
function replaying(exchange: RecordedExchange): ApduTransport & { sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    async send(cla, ins, p1, p2, data = new Uint8Array(0), statusList = [0x9000]) {
      const request = toHex(Uint8Array.from([cla, ins, p1, p2, data.length, ...data]));
      sent.push(request);
      const reply = request === exchange.request ? exchange.reply : request === VERSION.request ? VERSION.reply : undefined;
      if (reply === undefined) throw new Error(`the client sent ${request}, not the recorded ${exchange.request}`);
      const bytes = fromHex(reply);
      const sw = (bytes[bytes.length - 2]! << 8) | bytes[bytes.length - 1]!;
      if (!statusList.includes(sw))
        throw Object.assign(new Error(`status ${sw.toString(16)}`), { name: 'TransportStatusError', statusCode: sw });
      return bytes;
    },
  } as ApduTransport & { sent: string[] };
}

const u32 = (b: Uint8Array, at: number) => new DataView(b.buffer, b.byteOffset + at, 4).getUint32(0);
const u64 = (b: Uint8Array, at: number) => new DataView(b.buffer, b.byteOffset + at, 8).getBigUint64(0);
const ascii = (b: Uint8Array) => String.fromCharCode(...b);
const strictUtf8 = (b: Uint8Array) => {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(b);
  } catch {
    return undefined;
  }
};

type Call = (app: MinaLedgerApp) => Promise<unknown>;

/** The client call that would make this request, or why the client cannot express it at all. */
function callFor(request: Uint8Array): Call | string {
  const [cla, ins, p1, p2, lc] = request;
  const data = request.subarray(5);
  if (request.length < 5 || cla !== 0xe0 || lc !== data.length) return 'not a well-formed APDU';
  if (ins === 0x01 && p1 === 0 && p2 === 0 && data.length === 0) return (app) => app.getAppVersion();
  if (ins === 0x02 && p2 === 0 && data.length === 4 && p1! <= 1) return (app) => app.getAddress(u32(data, 0), { display: p1 === 0 });
  if (ins === 0x03 && p1 === 0 && p2 === 0 && data.length === 172 && (data[170] === 0 || data[170] === 4) && data[171]! <= 1) {
    const memoBytes = data.subarray(138, 170);
    let end = 32;
    while (end > 0 && memoBytes[end - 1] === 0) end--;
    const memo = strictUtf8(memoBytes.subarray(0, end));
    if (memo === undefined) return 'a memo that is not UTF-8';
    const tx = {
      txType: data[170] === 0 ? ('payment' as const) : ('delegation' as const),
      account: u32(data, 0),
      from: ascii(data.subarray(4, 59)),
      to: ascii(data.subarray(59, 114)),
      amount: u64(data, 114),
      fee: u64(data, 122),
      nonce: u32(data, 130),
      validUntil: u32(data, 134),
      memo,
      networkId: data[171] as 0 | 1,
    };
    return (app) => app.signTransaction(tx);
  }
  if (ins === 0x05 && p1 === 0 && p2 === 0 && data.length > 5 && data[4]! <= 1) {
    const message = strictUtf8(data.subarray(5));
    if (message === undefined) return 'a message that is not UTF-8';
    return (app) => app.signMessage(u32(data, 0), message, data[4] as 0 | 1);
  }
  if (ins === 0x06 && p1 === 0 && p2 === 0 && data.length === 37 && data[4]! <= 1) {
    let field = 0n;
    for (let i = 36; i >= 5; i--) field = (field << 8n) | BigInt(data[i]!);
    return (app) => app.signFieldElement(u32(data, 0), field, data[4] as 0 | 1);
  }
  return 'an instruction, P1/P2 or length the client never sends';
}

/** The recorded requests the client refuses before sending, and the field it names: each one the app mishandles. */
const REFUSED: Record<string, string> = {
  'address silent account 2^31 (invalid for the client)': 'account',
  'address show account 2^31, approve': 'account',
  'payment amount 2^64-1, fee 1 (overflow)': 'amount',
  'payment amount 2^63, fee 2^63 (overflow to 0)': 'amount',
  'payment memo with NUL inside (a\\0b)': 'memo',
  'payment from: invalid checksum': 'from',
  'payment to: invalid checksum': 'to',
  'payment to: valid checksum, parity byte 2': 'to',
  'payment to: 55 spaces': 'to',
  'delegation with nonzero amount field': 'amount',
  'delegation sender not the account': 'amount', // its amount field is not zero either
  'delegation to: invalid checksum': 'to',
  'message 66 chars': 'message',
  'message 70 chars': 'message',
  'message 250 chars (Lc ff)': 'message',
  'message with TAB': 'message',
  'message with 0x01': 'message',
  'message UTF-8 é': 'message',
  'message NUL inside': 'message',
  'field p (non-canonical)': 'field',
  'field 2^255-1 (non-canonical)': 'field',
};

const ERROR_FOR: Record<string, string> = { '6985': 'LedgerUserRejectedError', '6802': 'LedgerInvalidDataError' };

describe('the client against the real app recordings', () => {
  const calls = recordings.exchanges.map((e) => [e.name, e, callFor(fromHex(e.request))] as const);
  const expressible = calls.filter(([, , call]) => typeof call !== 'string');

  it.each(expressible.filter(([name]) => !(name in REFUSED)).map(([name, e, call]) => [name, e, call as Call] as const))(
    '%s: the client sends the recorded bytes and reads the recorded reply',
    async (_name, exchange, call) => {
      const transport = replaying(exchange);
      const outcome = await call(new MinaLedgerApp(transport)).then(
        (value) => ({ value }),
        (error: unknown) => ({ error: error as { name: string; statusCode?: number } }),
      );
      expect(
        transport.sent.at(-1),
        JSON.stringify(outcome, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
      ).toBe(exchange.request);
      const sw = exchange.reply.slice(-4);
      if (sw !== '9000') {
        expect('error' in outcome && outcome.error).toMatchObject({ name: ERROR_FOR[sw], statusCode: parseInt(sw, 16) });
        return;
      }
      expect('value' in outcome).toBe(true);
      const value = (outcome as { value: unknown }).value;
      const data = exchange.reply.slice(0, -4);
      if (exchange.request.startsWith('e002')) expect(value).toBe(ascii(fromHex(data.slice(0, 110))));
      else if (exchange.request.startsWith('e001')) expect(value).toMatchObject({ version: '1.6.0' });
      else {
        const signature = value as { field: string; scalar: string };
        expect([BigInt(signature.field), BigInt(signature.scalar)]).toEqual([
          BigInt(`0x${data.slice(0, 64)}`),
          BigInt(`0x${data.slice(64, 128)}`),
        ]);
      }
    },
  );

  it.each(Object.entries(REFUSED))('%s: refused by the client before sending (field "%s")', async (name, field) => {
    const [, exchange, call] = calls.find(([n]) => n === name)!;
    expect(typeof call).toBe('function');
    const transport = replaying(exchange);
    await expect((call as Call)(new MinaLedgerApp(transport))).rejects.toMatchObject({ name: 'LedgerInputError', field });
    expect(transport.sent.filter((r) => r !== VERSION.request)).toEqual([]);
  });

  it('the other recorded requests are ones the client has no call for (malformed APDUs, other instructions, bytes that are not UTF-8)', () => {
    const inexpressible = calls.filter(([, , call]) => typeof call === 'string').map(([name, , why]) => [name, why]);
    expect(inexpressible.length).toBe(recordings.exchanges.length - expressible.length);
    expect(
      Object.fromEntries(inexpressible.filter(([, why]) => !String(why).startsWith('an instruction') && why !== 'not a well-formed APDU')),
    ).toEqual({
      'payment memo not UTF-8 (ff fe)': 'a memo that is not UTF-8',
      'message with 0x80': 'a message that is not UTF-8',
    });
  });

  it('every signature the client read from an approved recording verifies with mina-signer', () => {
    const testnet = new Client({ network: 'testnet' });
    const field = recorded('field V testnet');
    const data = field.reply.slice(0, -4);
    const value = BigInt(
      `0x${[...fromHex(field.request.slice(20))]
        .reverse()
        .map((b) => b.toString(16).padStart(2, '0'))
        .join('')}`,
    );
    const signature = { field: BigInt(`0x${data.slice(0, 64)}`).toString(), scalar: BigInt(`0x${data.slice(64, 128)}`).toString() };
    const address = ascii(fromHex(recorded('address silent account 0').reply.slice(0, 110)));
    expect(testnet.verifyFields({ data: [value], signature: signatureToBase58(signature), publicKey: address })).toBe(true);
  });
});
