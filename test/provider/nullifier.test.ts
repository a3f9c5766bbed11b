/** chain_createNullifier through the provider: shape, host verification, and a device that lies. */
import { Field, Nullifier, PublicKey } from 'o1js';
import { describe, expect, it } from 'vitest';
import type { ProviderError } from '../../src/index.js';
import type { ApduTransport } from '../../src/transport.js';
import { addressOf } from '../support/vectors.js';
import { OTHER_MNEMONIC, connectedWith, quietLedger } from '../support/rig.js';

/** A connected mainnet provider on a software Ledger with the extension (or on the `transport` given). */
const connected = connectedWith({ extensions: true }, { network: 'mainnet' });
const ledger = () => quietLedger({ extensions: true });

describe('chain_createNullifier', () => {
  it('returns the nullifier JSON with the message as given, and it verifies independently', async () => {
    const { chain } = await connected();
    const message = ['12345', 67890, '0'];
    const result = (await chain.request({ method: 'chain_createNullifier', params: [{ message }] })) as any;
    expect(Object.keys(result).sort()).toEqual(['data', 'private', 'public', 'publicKey']);
    expect(result.data).toEqual(message);
    for (const value of [result.publicKey.x, result.public.s, result.private.c, result.private.g_r.y, result.public.nullifier.x]) {
      expect(value).toMatch(/^\d+$/);
    }
    const n = Nullifier.fromJSON(result);
    expect(() => n.verify(message.map((m) => Field(BigInt(m))))).not.toThrow();
    expect(PublicKey.fromGroup(n.publicKey).toBase58()).toBe(addressOf(0));
  });

  it('rejection on the device → 1002', async () => {
    const { chain } = await connected({ approve: (r) => r.kind === 'address' });
    await expect(chain.createNullifier({ message: ['1'] })).rejects.toMatchObject({ code: 1002, data: { statusWord: '0x6985' } });
  });

  it('a device that returns a nullifier of another key → 22001, nothing returned', async () => {
    // The first device connects (account 0); a second one with another seed answers the nullifier request.
    const honest = ledger();
    const other = quietLedger({ extensions: true }, OTHER_MNEMONIC);
    let current: ApduTransport = honest;
    const { chain } = await connected({}, { transport: { send: (...args) => current.send(...args) } });
    current = other;
    const error = (await chain.createNullifier({ message: ['1', '2'] }).catch((e: unknown) => e)) as ProviderError;
    expect(error).toMatchObject({ code: 22001, data: { reason: expect.stringMatching(/does not verify/) } });
  });

  it('a tampered reply (s changed on the wire) → 22001', async () => {
    const honest = ledger();
    const tampering: ApduTransport = {
      async send(cla, ins, p1, p2, data, statusList) {
        const reply = await honest.send(cla, ins, p1, p2, data, statusList);
        if (ins !== 0xa2) return reply;
        const copy = Uint8Array.from(reply);
        copy[127] = copy[127]! ^ 1; // last byte of s
        return copy;
      },
    };
    const { chain } = await connected({}, { transport: tampering });
    await expect(chain.createNullifier({ message: ['1'] })).rejects.toMatchObject({ code: 22001 });
  });
});
