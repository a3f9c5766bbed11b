import { describe, expect, it } from 'vitest';
import { ByteReader } from '../../src/apdu/bytes.js';
import { encodeSignTransaction, readSignTxBody, writeSignTxBody } from '../../src/apdu/codec.js';
import { LedgerReplyError } from '../../src/apdu/errors.js';
import { decodeNullifierReply } from '../../src/apdu/extension.js';
import { vectors } from '../support/vectors.js';

describe('ByteReader', () => {
  it('reads u8, u32be, u64be, bytes and the rest in order, and end() accepts a fully read buffer', () => {
    const reader = new ByteReader(Uint8Array.of(0x7f, 0x01, 0x02, 0x03, 0x04, 0, 0, 0, 0, 0, 0, 0x01, 0x00, 0xaa, 0xbb, 0xcc));
    expect(reader.u8()).toBe(0x7f);
    expect(reader.u32be()).toBe(0x01020304);
    expect(reader.u64be()).toBe(256n);
    expect([...reader.bytes(1)]).toEqual([0xaa]);
    expect(reader.remaining).toBe(2);
    expect([...reader.rest()]).toEqual([0xbb, 0xcc]);
    expect(() => reader.end()).not.toThrow();
  });

  it('throws on every read past the end and on bytes left over, with the error the caller chose', () => {
    expect(() => new ByteReader(Uint8Array.of(1, 2, 3)).u32be()).toThrow(RangeError);
    expect(() => new ByteReader(new Uint8Array(7)).u64be()).toThrow(RangeError);
    expect(() => new ByteReader(new Uint8Array(0)).u8()).toThrow(RangeError);
    expect(() => new ByteReader(new Uint8Array(2)).bytes(-1)).toThrow(RangeError);
    const leftover = new ByteReader(new Uint8Array(2));
    leftover.u8();
    expect(() => leftover.end()).toThrow(/1 unexpected bytes/);
    const custom = new ByteReader(new Uint8Array(1), (message) => new LedgerReplyError(message));
    expect(() => custom.bytes(2)).toThrow(LedgerReplyError);
  });

  it('a short nullifier reply is refused before any read', () => {
    expect(() => decodeNullifierReply(new Uint8Array(127))).toThrow(LedgerReplyError);
  });
});

describe('the SIGN_TX body layout, written once', () => {
  it('reads back what the encoder wrote, field by field', () => {
    const tx = {
      txType: 'payment' as const,
      account: 7,
      from: vectors.accounts[0]!.address,
      to: vectors.accounts[1]!.address,
      amount: 1_500_000_000n,
      fee: 10_000_000n,
      nonce: 42,
      validUntil: 4_000_000,
      memo: 'hi',
      networkId: 1 as const,
    };
    const { data } = encodeSignTransaction(tx);
    expect(data.length).toBe(172);
    const body = readSignTxBody(data);
    expect(body).toMatchObject({ account: 7, amount: tx.amount, fee: tx.fee, nonce: 42, validUntil: 4_000_000, tag: 0, networkId: 1 });
    expect(new TextDecoder().decode(body.from)).toBe(tx.from);
    expect(new TextDecoder().decode(body.to)).toBe(tx.to);
    expect([...body.memo.subarray(0, 3)]).toEqual([0x68, 0x69, 0]);
    expect(writeSignTxBody(body)).toEqual(data);
    expect(() => readSignTxBody(data.subarray(0, 171))).toThrow(RangeError);
    expect(() => readSignTxBody(Uint8Array.of(...data, 0))).toThrow(RangeError);
  });
});
