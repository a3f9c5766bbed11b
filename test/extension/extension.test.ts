/**
 * The chain-ledger protocol extension (docs/apdu-extensions.md): codec and chunking, the software Ledger as its
 * reference implementation, host verification, and recorded transcripts.
 */
import { readFileSync } from 'node:fs';
import Client from 'mina-signer';
import { Field, Nullifier, PublicKey, Signature } from 'o1js';
import { describe, expect, it } from 'vitest';
import { MinaLedgerApp, fieldsDigest, signatureToBase58, type DeviceNullifier } from '../../src/apdu.js';
import { PALLAS_P } from '../../src/apdu/constants.js';
import { encodeCreateNullifier, encodeSignFields } from '../../src/apdu/extension.js';
import { fromHex, toHex } from '../../src/apdu/bytes.js';
import type { Review, SoftwareLedgerOptions } from '../../src/emulator.js';
import { shownValue } from '../../src/emulator/review.js';
import { createLedgerProvider } from '../../src/index.js';
import { completeNullifier } from '../../src/nullifier/complete.js';
import { openTranscript } from '../../src/transport/node.js';
import { counting } from '../support/counting.js';
import { verifyFields } from '../support/mina-signer-internals.js';
import { addressOf } from '../support/vectors.js';
import { ORIGIN, quietLedger } from '../support/rig.js';
import { providerFailure as failure } from '../support/provider-failure.js';

const testnet = new Client({ network: 'testnet' });
const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');
const range = (n: number) => Array.from({ length: n }, (_, i) => BigInt(i + 1) * 1_000_003n);

/** A device with the extension (1.1) and Blind signing on (SIGN_FIELDS is blind signing, like INS 06). */
function device(options: SoftwareLedgerOptions = {}, reviews: Review[] = []) {
  return quietLedger({ extensions: true, blindSigning: true, approve: (r) => (reviews.push(r), true), ...options });
}

describe('chunking', () => {
  it.each([
    [2, 1],
    [7, 1],
    [8, 2],
    [16, 3],
    [64, 9],
  ])('SIGN_FIELDS with %i fields → %i APDU(s): P1 first/more, P2 more/last, ≤ 255 bytes each', (n, apdus) => {
    const requests = encodeSignFields(0, range(n), 'testnet');
    expect(requests).toHaveLength(apdus);
    requests.forEach((r, i) => {
      expect(r.ins).toBe(0xa1);
      expect(r.p1).toBe(i === 0 ? 0x00 : 0x80);
      expect(r.p2).toBe(i === requests.length - 1 ? 0x00 : 0x80);
      expect(r.data.length).toBeLessThanOrEqual(255);
    });
    expect(requests.reduce((sum, r) => sum + r.data.length, 0)).toBe(6 + 32 * n);
  });

  it('CREATE_NULLIFIER payload: account, count, fields little-endian', () => {
    const [request] = encodeCreateNullifier(3, [1n, 256n]);
    expect(toHex(request!.data)).toBe(`000000030201${'00'.repeat(31)}0001${'00'.repeat(30)}`);
  });
});

describe('input refused before anything is sent', () => {
  it.each([
    ['one field (a one-field signature is what authorises a transaction)', (app: MinaLedgerApp) => app.signFields(0, [1n]), 'fields'],
    ['65 fields', (app: MinaLedgerApp) => app.signFields(0, range(65)), 'fields'],
    ['a field ≥ p', (app: MinaLedgerApp) => app.signFields(0, [1n, 2n, PALLAS_P]), 'fields[2]'],
    ['an unknown domain', (app: MinaLedgerApp) => app.signFields(0, [1n, 2n], 'zeko' as 'testnet'), 'domain'],
    ['a nullifier message of 65 fields', (app: MinaLedgerApp) => app.createNullifier(0, Array(65).fill(1n)), 'fields'],
    ['an account ≥ 2^31', (app: MinaLedgerApp) => app.createNullifier(2 ** 31, [1n]), 'account'],
  ])('%s', async (_name, run, field) => {
    const { transport, sent } = counting(device());
    const error = await run(new MinaLedgerApp(transport)).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'LedgerInputError', field });
    expect(sent).toHaveLength(0);
  });
});

describe('GET_CAPABILITIES: how the host detects the extension', () => {
  it('reports version 1.4 (the latest, as extensions: true), the six instructions, the nullifier origin and 64 fields', async () => {
    expect(await new MinaLedgerApp(device()).getCapabilities()).toEqual({
      version: '1.4',
      signFields: true,
      createNullifier: true,
      signZkapp: true,
      signPresentation: true,
      signText: true,
      storeKey: true,
      nullifierOrigin: true,
      maxFields: 64,
    });
  });

  it('a version 1.2 device: no STORE_KEY (the store key comes from INS 05)', async () => {
    const old = device({ extensions: '1.2' });
    expect(await new MinaLedgerApp(old).getCapabilities()).toMatchObject({ version: '1.2', signText: true, storeKey: false });
    expect(toHex(await old.exchange(Uint8Array.of(0xe0, 0xa6, 0, 0, 0)))).toBe('6d00');
  });

  it('a version 1.1 device: no SIGN_TEXT (messages go to INS 05)', async () => {
    const old = device({ extensions: '1.1' });
    expect(await new MinaLedgerApp(old).getCapabilities()).toMatchObject({ version: '1.1', signZkapp: true, signText: false });
    expect(toHex(await old.exchange(Uint8Array.of(0xe0, 0xa5, 0, 0, 0)))).toBe('6d00');
  });

  it('a version 1.0 device: SIGN_FIELDS and CREATE_NULLIFIER only (zkApps and presentations signed blind)', async () => {
    const old = device({ extensions: '1.0' });
    expect(await new MinaLedgerApp(old).getCapabilities()).toEqual({
      version: '1.0',
      signFields: true,
      createNullifier: true,
      signZkapp: false,
      signPresentation: false,
      signText: false,
      storeKey: false,
      nullifierOrigin: false,
      maxFields: 64,
    });
    for (const ins of [0xa3, 0xa4, 0xa5, 0xa6]) expect(toHex(await old.exchange(Uint8Array.of(0xe0, ins, 0, 0, 0)))).toBe('6d00');
  });

  it('the real app (extensions: false) answers 0x6D00 to every extension instruction, and the client reports null', async () => {
    const real = device({ extensions: false });
    for (const ins of [0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6])
      expect(toHex(await real.exchange(Uint8Array.of(0xe0, ins, 0, 0, 0)))).toBe('6d00');
    expect(await new MinaLedgerApp(real).getCapabilities()).toBeNull();
  });

  it('other errors are not mistaken for "no extension"', async () => {
    await expect(new MinaLedgerApp(device({ locked: true })).getCapabilities()).rejects.toMatchObject({ name: 'LedgerDeviceLockedError' });
  });

  it.each([
    ['maxFields 193', [1, 0, 3, 193]],
    ['extension version 2.0', [2, 0, 3, 64]],
    ['unknown capability bits', [1, 0, 0x83, 64]],
  ])('a device claiming what the spec does not allow (GET_CAPABILITIES announcing %s) → connect fails with 22001', async (_name, reply) => {
    const honest = quietLedger({ extensions: true });
    const transport = {
      async send(cla: number, ins: number, p1: number, p2: number, data?: Uint8Array, statusList?: readonly number[]) {
        if (ins === 0xa0) return Uint8Array.from([...reply, 0x90, 0x00]);
        return honest.send(cla, ins, p1, p2, data, statusList);
      },
    };
    const chain = createLedgerProvider({ transport, network: 'devnet', origin: ORIGIN });
    expect(await failure(chain.requestAccounts())).toMatchObject({ code: 22001 });
    expect(chain.capabilities).toBeUndefined();
  });
});

describe('SIGN_FIELDS', () => {
  it.each([2, 3, 16, 64])('%i fields, testnet domain: verifies with mina-signer and with o1js Signature.verify', async (n) => {
    const reviews: Review[] = [];
    const fields = range(n);
    const signature = await new MinaLedgerApp(device({}, reviews)).signFields(0, fields);
    const base58 = signatureToBase58(signature);
    expect(testnet.verifyFields({ data: fields, signature: base58, publicKey: addressOf(0) })).toBe(true);
    expect(
      Signature.fromBase58(base58)
        .verify(
          PublicKey.fromBase58(addressOf(0)),
          fields.map((f) => Field(f)),
        )
        .toBoolean(),
    ).toBe(true);
    expect(reviews).toHaveLength(1);
    // Blind signing, worded as such: no transaction, but zkApps act on such signatures.
    expect(reviews[0]!.screens.map((s) => s.lines)).toEqual([
      ['Blind', 'Signing'],
      ['Sign fields', 'not verifiable'],
      ['zkApps may act', 'on this signature'],
      ['Domain', 'testnet'],
      ['Fields', String(n)],
      ['Digest', fieldsDigest(fields)],
      ['ACCEPT RISK', 'AND APPROVE'],
      ['Reject'],
    ]);
  });

  it('with Blind signing off: the notice, a Reject the user must press (0x6985), nothing signed', async () => {
    const reviews: Review[] = [];
    const error = await new MinaLedgerApp(device({ blindSigning: false }, reviews)).signFields(0, range(3)).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'LedgerUserRejectedError', statusCode: 0x6985 });
    expect(reviews).toHaveLength(1);
    expect(reviews[0]!.approvable).toBe(false);
    expect(reviews[0]!.screens.map((s) => s.lines)).toEqual([
      ['Blind signing', 'not enabled'],
      ['Enable it in', 'app settings'],
      ['Reject'],
    ]);
  });

  it('mainnet domain verifies with the mainnet prefix only', async () => {
    const fields = range(3);
    const signature = await new MinaLedgerApp(device()).signFields(0, fields, 'mainnet');
    expect(verifyFields(signature, fields, addressOf(0), 'mainnet')).toBe(true);
    expect(verifyFields(signature, fields, addressOf(0), 'devnet')).toBe(false);
  });

  it('rejection → 0x6985', async () => {
    await expect(new MinaLedgerApp(device({ approve: () => false })).signFields(0, range(2))).rejects.toMatchObject({
      name: 'LedgerUserRejectedError',
      statusCode: 0x6985,
    });
  });

  it('the device itself refuses one field, a field ≥ p, a bad domain, and protocol misuse (0x6802)', async () => {
    const d = device();
    const send = async (hex: string) => toHex(await d.exchange(fromHex(hex)));
    const apdu = (ins: number, p1: number, p2: number, data: string) => toHex(Uint8Array.of(0xe0, ins, p1, p2, data.length / 2)) + data;
    const field = (v: bigint) => toHex(fromHex(v.toString(16).padStart(64, '0')).reverse());
    expect(await send(apdu(0xa1, 0, 0, `000000000001${field(1n)}`))).toBe('6802'); // N = 1
    expect(await send(apdu(0xa1, 0, 0, `000000000002${field(1n)}${field(PALLAS_P)}`))).toBe('6802'); // ≥ p
    expect(await send(apdu(0xa1, 0, 0, `000000000702${field(1n)}${field(2n)}`))).toBe('6802'); // domain 7
    expect(await send(apdu(0xa1, 0, 0, `000000000003${field(1n)}${field(2n)}`))).toBe('6802'); // count ≠ data
    expect(await send(apdu(0xa1, 0x80, 0, field(1n)))).toBe('6802'); // a continuation without a first chunk
    expect(await send(apdu(0xa1, 0x01, 0, field(1n)))).toBe('6802'); // unknown P1
    // A first chunk, then another instruction: the partial request is abandoned.
    expect(await send(apdu(0xa1, 0, 0x80, `000000000002${field(1n)}`))).toBe('9000');
    expect(await send('e001000000')).toBe('0106009000');
    expect(await send(apdu(0xa1, 0x80, 0, field(2n)))).toBe('6802');
  });
});

describe('CREATE_NULLIFIER and the host check', () => {
  async function nullifier(fields: bigint[], account = 0, options: SoftwareLedgerOptions = {}) {
    const device_ = await new MinaLedgerApp(device(options)).createNullifier(account, fields);
    return completeNullifier(addressOf(account), fields, device_);
  }

  it.each([0, 1, 16, 64])('%i field(s): verifies with o1js Nullifier.verify', async (n) => {
    const fields = range(n);
    const json = await nullifier(fields);
    expect(() => Nullifier.fromJSON(json).verify(fields.map((f) => Field(f)))).not.toThrow();
    expect(PublicKey.fromGroup(Nullifier.fromJSON(json).publicKey).toBase58()).toBe(addressOf(0));
  });

  it('same message and account → same nullifier key; another account → another key', async () => {
    const fields = range(3);
    const [a, b, other] = await Promise.all([nullifier(fields), nullifier(fields), nullifier(fields, 1)]);
    const key = (json: typeof a) => Nullifier.fromJSON(json).key().toString();
    expect(key(a)).toBe(key(b));
    expect(a.private.c).not.toBe(b.private.c); // fresh r each time
    expect(key(other)).not.toBe(key(a));
  });

  describe('forged device replies are rejected by the host', () => {
    const fields = range(3);
    async function genuine(): Promise<DeviceNullifier> {
      return new MinaLedgerApp(device()).createNullifier(0, fields);
    }
    it('a wrong s', async () => {
      const d = await genuine();
      await expect(completeNullifier(addressOf(0), fields, { ...d, s: d.s + 1n })).rejects.toMatchObject({
        code: 22001,
        data: { reason: expect.stringMatching(/does not verify/) },
      });
    });
    it('a point not on the curve', async () => {
      const d = await genuine();
      await expect(completeNullifier(addressOf(0), fields, { ...d, nullifier: { x: 1n, y: 2n } })).rejects.toMatchObject({
        code: 22001,
        data: { reason: expect.stringMatching(/not a point on the curve/) },
      });
    });
    it('a nullifier made with another key', async () => {
      const other = await new MinaLedgerApp(device()).createNullifier(1, fields);
      await expect(completeNullifier(addressOf(0), fields, other)).rejects.toMatchObject({ code: 22001 });
    });
    it('a nullifier for another message', async () => {
      const d = await genuine();
      await expect(completeNullifier(addressOf(0), range(4), d)).rejects.toMatchObject({ code: 22001 });
    });
  });

  it('shows the fields themselves (not a digest) and the origin asking, and can be rejected', async () => {
    const reviews: Review[] = [];
    await new MinaLedgerApp(device({}, reviews)).createNullifier(0, range(2), { origin: 'https://vote.example' });
    expect(reviews[0]!.screens.map((s) => s.lines)).toEqual([
      ['Create nullifier'],
      ['Requested by', 'https://vote.example'],
      ['Field 1/2', '1000003'],
      ['Field 2/2', '2000006'],
      ['Approve'],
      ['Reject'],
    ]);
    // A field too long for one screen is paged, every digit shown.
    const big = PALLAS_P - 1n;
    await new MinaLedgerApp(device({}, reviews)).createNullifier(0, [big]);
    expect(shownValue(reviews[1]!, 'Field 1/1')).toBe(big.toString());
    // A 1.0 device takes no origin (0x6802), and the host never sends one to it (docs/apdu-extensions.md).
    await expect(
      new MinaLedgerApp(device({ extensions: '1.0' })).createNullifier(0, range(2), { origin: 'https://a.example' }),
    ).rejects.toMatchObject({
      statusCode: 0x6802,
    });
    await expect(new MinaLedgerApp(device({ approve: () => false })).createNullifier(0, range(2))).rejects.toMatchObject({
      statusCode: 0x6985,
    });
  });
});

describe('recorded transcripts of each extension instruction (the vectors in docs/apdu-extensions.md)', () => {
  it('GET_CAPABILITIES', async () => {
    const t = await openTranscript(fixture('extension-get-capabilities.apdu'));
    expect(await new MinaLedgerApp(t).getCapabilities()).toMatchObject({ version: '1.0', maxFields: 64, signZkapp: false });
    t.ensureDone();
  });

  it('GET_CAPABILITIES, version 1.1', async () => {
    const t = await openTranscript(fixture('extension-get-capabilities-1.1.apdu'));
    expect(await new MinaLedgerApp(t).getCapabilities()).toMatchObject({ version: '1.1', signZkapp: true, signPresentation: true });
    t.ensureDone();
  });

  it.each([
    ['extension-sign-fields.apdu', range0(3), 'testnet'],
    ['extension-sign-fields-mainnet.apdu', range0(3), 'mainnet'],
    ['extension-sign-fields-16.apdu', range0(16), 'testnet'],
  ] as const)('SIGN_FIELDS %s', async (file, fields, domain) => {
    const t = await openTranscript(fixture(file));
    const signature = await new MinaLedgerApp(t).signFields(0, [...fields], domain);
    t.ensureDone();
    expect(verifyFields(signature, [...fields], addressOf(0), domain === 'mainnet' ? 'mainnet' : 'devnet')).toBe(true);
  });

  it('CREATE_NULLIFIER', async () => {
    const t = await openTranscript(fixture('extension-create-nullifier.apdu'));
    const d = await new MinaLedgerApp(t).createNullifier(0, [1n, 2n, 3n]);
    t.ensureDone();
    const json = await completeNullifier(addressOf(0), [1n, 2n, 3n], d);
    expect(() => Nullifier.fromJSON(json).verify([Field(1), Field(2), Field(3)])).not.toThrow();
  });

  it('CREATE_NULLIFIER over an empty message (N = 0)', async () => {
    const t = await openTranscript(fixture('extension-create-nullifier-empty.apdu'));
    const d = await new MinaLedgerApp(t).createNullifier(0, []);
    t.ensureDone();
    const json = await completeNullifier(addressOf(0), [], d);
    expect(() => Nullifier.fromJSON(json).verify([])).not.toThrow();
  });
});

/** 1, 2, 3, … as the transcripts were recorded with. */
function range0(n: number): bigint[] {
  return Array.from({ length: n }, (_, i) => BigInt(i + 1));
}
