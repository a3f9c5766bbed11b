/**
 * Extension STORE_KEY (0xA6, version 1.3; docs/apdu-extensions.md): the credential store's key with the site asking on
 * the device. The codec and what it refuses before sending, the software Ledger as the reference implementation (its
 * refusals, its screens, its signature: exactly INS 05's over the store-key text, checked with mina-signer), the reply
 * kept out of `exchanges`, and the host's choice of instruction: STORE_KEY where the device has it, INS 05 on the
 * released app and on earlier extension versions, the same store opening on both.
 */
import Client from 'mina-signer';
import { beforeAll, describe, expect, it } from 'vitest';
import { MinaLedgerApp } from '../../src/apdu.js';
import { concatBytes, toHex, uintToBytesBE, utf8 } from '../../src/apdu/bytes.js';
import { STORE_KEY_MESSAGE, encodeStoreKey, isStoreKeyRequest, storeKeySignedText } from '../../src/apdu/store-key.js';
import type { Review } from '../../src/emulator.js';
import { shownValue } from '../../src/emulator/review.js';
import { readStoreKeyRequest } from '../../src/emulator/store-key-device.js';
import { credentialManager } from '../../src/index.js';
import { counting } from '../support/counting.js';
import { credentialIssuer, type Issuer } from '../support/credentials.js';
import { quietLedger, storeProvider, tempDirs } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

const ORIGIN = 'https://dapp.example';
const mainnet = new Client({ network: 'mainnet' });
const tempDir = tempDirs('store-key-instruction');

/** A device with the extension (1.3 unless `extensions` says otherwise) that approves every review and keeps it. */
function device(extensions: true | '1.2' | false = true, reviews: Review[] = []) {
  return quietLedger({ extensions, approve: (r) => (reviews.push(r), true) });
}

let issuer: Issuer;
beforeAll(async () => {
  issuer = await credentialIssuer();
}, 120_000);

describe('the request', () => {
  it('account u32 ‖ origin (u8 length ‖ UTF-8), chunked as every extension request; the device reads back what was sent', () => {
    const [request, ...more] = encodeStoreKey({ account: 3, origin: 'https://a.b' });
    expect(more).toEqual([]);
    expect([request!.ins, request!.p1, request!.p2]).toEqual([0xa6, 0x00, 0x00]);
    expect(toHex(request!.data)).toBe(`00000003 0b ${toHex(utf8.encode('https://a.b'))}`.replace(/ /g, ''));
    expect(readStoreKeyRequest(request!.data)).toEqual({ account: 3, origin: 'https://a.b' });
    // The longest origin, 255 bytes: 4 + 1 + 255 = 260 bytes in two APDUs.
    const longest = encodeStoreKey({ account: 0, origin: `https://${'a'.repeat(247)}` });
    expect(longest.map((r) => [r.p1, r.p2, r.data.length])).toEqual([
      [0x00, 0x80, 255],
      [0x80, 0x00, 5],
    ]);
    expect(readStoreKeyRequest(concatBytes(...longest.map((r) => r.data))).origin).toBe(`https://${'a'.repeat(247)}`);
  });

  it.each([
    ['an empty origin', { account: 0, origin: '' }, 'origin'],
    ['a control character in the origin', { account: 0, origin: 'https://a.example\0.b.example' }, 'origin'],
    ['an origin over 255 bytes', { account: 0, origin: `https://${'a'.repeat(248)}` }, 'origin'],
    ['an account outside 0 to 2^31 − 1', { account: 2 ** 31, origin: ORIGIN }, 'account'],
  ])('refuses %s before anything is sent (a LedgerInputError naming the field)', async (_, request, field) => {
    const { transport, sent } = counting(device());
    await expect(new MinaLedgerApp(transport).storeKey(request)).rejects.toMatchObject({ name: 'LedgerInputError', field });
    expect(sent).toEqual([]);
  });
});

describe('the device (the software Ledger)', () => {
  it('shows "Unlock / credentials" with the site asking, and signs exactly what INS 05 signs for the store-key text (network id 1), as mina-signer verifies it', async () => {
    const reviews: Review[] = [];
    const app = new MinaLedgerApp(device(true, reviews));
    const viaStoreKey = await app.storeKey({ account: 0, origin: ORIGIN });
    const viaIns05 = await new MinaLedgerApp(device(false)).signMessage(0, STORE_KEY_MESSAGE, 1);
    expect({ field: viaStoreKey.field, scalar: viaStoreKey.scalar }).toEqual({ field: viaIns05.field, scalar: viaIns05.scalar });
    const signedText = storeKeySignedText('1.6.0');
    expect(signedText).toBe(viaIns05.signedMessage);
    expect(mainnet.verifyMessage({ data: signedText, publicKey: addressOf(0), signature: viaStoreKey })).toBe(true);
    const [review] = reviews;
    expect(review!.kind).toBe('store-key');
    expect(review!.screens.map((s) => [s.title, s.text])).toEqual([
      ['Unlock', 'credentials'],
      ['Requested by', ORIGIN],
      ['Approving lets', 'the wallet read your stored credentials'],
      ['Approve', undefined],
      ['Reject', undefined],
    ]);
  });

  it('shows an origin beyond ASCII escaped, as every extension text (a look-alike letter never drawn as another)', async () => {
    const reviews: Review[] = [];
    await new MinaLedgerApp(device(true, reviews)).storeKey({ account: 0, origin: 'https://tru\u0173ted.example' });
    expect(shownValue(reviews[0]!, 'Requested by')).toBe('https://tru\\u0173ted.example');
  });

  it('refuses malformed requests with 0x6802 and shows nothing: an empty origin, a control character, bytes after the origin', async () => {
    const reviews: Review[] = [];
    const ledger = device(true, reviews);
    const apdu = (payload: Uint8Array) => Uint8Array.of(0xe0, 0xa6, 0, 0, payload.length, ...payload);
    const origin = (text: string) => concatBytes(Uint8Array.of(utf8.encode(text).length), utf8.encode(text));
    for (const payload of [
      concatBytes(uintToBytesBE(0, 4), Uint8Array.of(0)),
      concatBytes(uintToBytesBE(0, 4), origin('https://a\nb')),
      concatBytes(uintToBytesBE(0, 4), origin(ORIGIN), Uint8Array.of(1)),
    ]) {
      expect(toHex(await ledger.exchange(apdu(payload)))).toBe('6802');
    }
    expect(reviews).toEqual([]);
  });

  it('a rejection is 0x6985; a device before 1.3 (and the released app) answers 0x6D00', async () => {
    const rejecting = quietLedger({ extensions: true, approve: () => false });
    await expect(new MinaLedgerApp(rejecting).storeKey({ account: 0, origin: ORIGIN })).rejects.toMatchObject({
      name: 'LedgerUserRejectedError',
    });
    for (const older of [device('1.2'), device(false)]) {
      await expect(new MinaLedgerApp(older).storeKey({ account: 0, origin: ORIGIN })).rejects.toMatchObject({
        name: 'LedgerUnsupportedInstructionError',
      });
    }
  });

  it("its reply is the store key: every STORE_KEY request is recognised as one, and the software Ledger's exchanges hold only its status word", async () => {
    const ledger = device();
    const signature = await new MinaLedgerApp(ledger).storeKey({ account: 0, origin: ORIGIN });
    const [request] = encodeStoreKey({ account: 0, origin: ORIGIN });
    expect(isStoreKeyRequest(Uint8Array.of(0xe0, 0xa6, request!.p1, request!.p2, request!.data.length, ...request!.data))).toBe(true);
    const [exchange] = ledger.exchanges;
    expect(exchange).toMatchObject({ reply: '9000', redacted: true });
    expect(JSON.stringify(ledger.exchanges)).not.toContain(BigInt(signature.field).toString(16).slice(0, 16));
  });
});

describe('the host asks for the store key', () => {
  it('with STORE_KEY, naming the site, on a 1.3 device; with INS 05 (the text only) on a 1.2 device and on the released app; the same store opens on each', async () => {
    const dir = tempDir();
    const shown: Record<string, string[]> = {};
    for (const [name, extensions] of [
      ['1.3', true],
      ['1.2', '1.2'],
      ['released', false],
    ] as const) {
      const reviews: Review[] = [];
      const chain = storeProvider(device(extensions, reviews), dir, { origin: `https://${name.replace('.', '-')}.example` });
      await chain.requestAccounts();
      // The first stores a credential; each then lists it: a store-key of another instruction would not open it.
      if (name === '1.3') await chain.storePrivateCredential({ credential: issuer.issue(addressOf(0)) });
      expect(await credentialManager(chain).list()).toHaveLength(1);
      shown[name] = reviews
        .filter((r) => r.kind === 'store-key' || JSON.stringify(r.screens).includes(STORE_KEY_MESSAGE))
        .map((r) => r.kind);
      if (name === '1.3') expect(shownValue(reviews.find((r) => r.kind === 'store-key')!, 'Requested by')).toBe('https://1-3.example');
    }
    expect(shown).toEqual({ '1.3': ['store-key'], '1.2': ['message'], released: ['message'] });
  }, 120_000);
});
