/**
 * Device replies altered for the bad-replies properties: random bytes (with random or 0x9000 status words), a
 * genuine reply with bit flips, truncation, extension or a byte replaced, a wrong status word (returned, or thrown
 * the way @ledgerhq transports throw it), and what the client was given for each exchange (`Seen`).
 */
import fc from 'fast-check';
import { concatBytes, toHex } from '../../src/apdu/bytes.js';

export type ReplyMutation =
  | { kind: 'genuine' }
  | { kind: 'random'; bytes: Uint8Array }
  | { kind: 'randomOk'; bytes: Uint8Array }
  | { kind: 'flip'; bits: number[]; dataOnly: boolean }
  | { kind: 'truncate'; at: number }
  | { kind: 'truncateData'; at: number }
  | { kind: 'extendData'; bytes: Uint8Array }
  | { kind: 'append'; bytes: Uint8Array }
  | { kind: 'setByte'; pos: number; value: number }
  | { kind: 'status'; sw: number; keepData: boolean; thrown: boolean }
  | { kind: 'bareOk' };

/** What the client was given for one exchange: bytes, or a thrown status word. */
export type Seen = { bytes: Uint8Array } | { thrown: number };

const KNOWN_SW = [
  0x6985, 0x6986, 0x5501, 0x5515, 0x6d00, 0x6e00, 0x6e01, 0x6511, 0x6d02, 0x6802, 0x6800, 0x68ff, 0x6a80, 0x6982, 0x6700, 0x6f00, 0x9001,
  0x0000, 0xffff, 0x9100,
];
const swArb = fc.oneof(
  fc.constantFrom(...KNOWN_SW),
  fc.integer({ min: 0, max: 0xffff }).filter((sw) => sw !== 0x9000),
);

export const replyMutationArb: fc.Arbitrary<ReplyMutation> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'genuine' as const }) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ kind: 'random' as const, bytes })) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => ({ kind: 'randomOk' as const, bytes })) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('flip' as const),
      bits: fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
      dataOnly: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('truncateData' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('extendData' as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 40 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('append' as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 10 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('setByte' as const), pos: fc.nat(), value: fc.nat(255) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('status' as const), sw: swArb, keepData: fc.boolean(), thrown: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'bareOk' as const }) },
);

const OK = Uint8Array.of(0x90, 0x00);

export function applyMutation(genuine: Uint8Array, m: ReplyMutation): Seen {
  const data = genuine.subarray(0, genuine.length - 2);
  const sw = genuine.subarray(genuine.length - 2);
  switch (m.kind) {
    case 'genuine':
      return { bytes: genuine };
    case 'random':
      return { bytes: m.bytes };
    case 'randomOk':
      return { bytes: concatBytes(m.bytes, OK) };
    case 'flip': {
      const out = Uint8Array.from(genuine);
      const span = m.dataOnly ? data.length : out.length;
      if (span === 0) return { bytes: out };
      for (const bit of m.bits) {
        const i = Math.floor(bit / 8) % span;
        out[i] = out[i]! ^ (1 << (bit % 8));
      }
      return { bytes: out };
    }
    case 'truncate':
      return { bytes: genuine.slice(0, m.at % genuine.length) };
    case 'truncateData':
      return { bytes: concatBytes(data.slice(0, data.length === 0 ? 0 : m.at % data.length), sw) };
    case 'extendData':
      return { bytes: concatBytes(data, m.bytes, sw) };
    case 'append':
      return { bytes: concatBytes(genuine, m.bytes) };
    case 'setByte': {
      if (data.length === 0) return { bytes: genuine };
      const out = Uint8Array.from(genuine);
      out[m.pos % data.length] = m.value;
      return { bytes: out };
    }
    case 'status':
      if (m.thrown) return { thrown: m.sw };
      return { bytes: concatBytes(m.keepData ? data : new Uint8Array(0), Uint8Array.of(m.sw >> 8, m.sw & 0xff)) };
    case 'bareOk':
      return { bytes: OK };
  }
}

export const sameSeen = (seen: Seen, genuine: Uint8Array) => 'bytes' in seen && toHex(seen.bytes) === toHex(genuine);

/** How @ledgerhq transports report a status word outside statusList. */
export function statusError(sw: number): Error {
  return Object.assign(new Error(`Ledger device: UNKNOWN_ERROR (0x${sw.toString(16).padStart(4, '0')})`), {
    name: 'TransportStatusError',
    statusCode: sw,
    statusText: 'UNKNOWN_ERROR',
  });
}

export function apduOf(cla: number, ins: number, p1: number, p2: number, data: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(cla, ins, p1, p2, data.length), data);
}
