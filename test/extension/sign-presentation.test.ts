/**
 * SIGN_PRESENTATION, in clear: the device shows the verifier and computes the presentation's context from it, as
 * mina-attestations derives it (checked against mina-attestations' own derivation), signs [context, credential hash,
 * issuer] (checked with mina-signer), warns for a request bound to no verifier, and refuses malformed requests.
 * zkApp commands in clear: clear-signing.test.ts.
 */
import Client from 'mina-signer';
import { HttpsRequest } from 'mina-attestations';
import { describe, expect, it } from 'vitest';
import { MinaLedgerApp } from '../../src/apdu.js';
import { fromHex, toHex, uintToBytesLE } from '../../src/apdu/bytes.js';
import { encodeSignPresentation } from '../../src/apdu/extension.js';
import type { Review } from '../../src/emulator.js';
import { shownValue } from '../../src/emulator/review.js';
import { quietLedger } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

const ACCOUNT0 = addressOf(0);

describe('SIGN_PRESENTATION: the device computes the context from the verifier it shows', () => {
  const parts = { vkHash: 11n, claimsHash: 22n, serverNonce: 33n, clientNonce: 44n, action: 'login' };
  const credentials = [{ hash: 55n, issuer: 66n }];
  const request = (origin: string) => ({
    account: 0,
    verifier: { type: 'https' as const, origin },
    ...parts,
    credentials,
    reveals: 'the issuer',
  });

  it('the context is mina-attestations’ own for that origin, and another origin gives another context', async () => {
    const o1js = await import('o1js');
    const expected = (origin: string) =>
      HttpsRequest({} as never)
        .deriveContext(
          { type: 'https', action: parts.action, serverNonce: o1js.Field(parts.serverNonce) },
          { verifierIdentity: origin },
          { clientNonce: o1js.Field(parts.clientNonce), vkHash: o1js.Field(parts.vkHash), claims: o1js.Field(parts.claimsHash) },
        )
        .toBigInt();
    const reviews: Review[] = [];
    const app = new MinaLedgerApp(quietLedger({ extensions: true, approve: (r) => (reviews.push(r), true) }));
    const a = await app.signPresentation(request('https://shop.example'));
    const b = await app.signPresentation(request('https://evil.example'));
    expect(a.context).toBe(expected('https://shop.example'));
    expect(b.context).toBe(expected('https://evil.example'));
    expect(a.context).not.toBe(b.context);
    expect(shownValue(reviews[0]!, 'Verifier')).toBe('https://shop.example');
    // The signature covers [context, credential hash, issuer] (what mina-attestations checks, testnet domain).
    const signer = new Client({ network: 'testnet' });
    const signature = (await import('../../src/apdu/signature.js')).signatureToBase58({ field: a.r.toString(), scalar: a.s.toString() });
    expect(signer.verifyFields({ data: [a.context, 55n, 66n], signature, publicKey: ACCOUNT0 })).toBe(true);
  });

  it('a request bound to no verifier is shown with a warning; its context is 0, as mina-attestations has it', async () => {
    const reviews: Review[] = [];
    const app = new MinaLedgerApp(quietLedger({ extensions: true, approve: (r) => (reviews.push(r), true) }));
    const reply = await app.signPresentation({ ...request(''), verifier: { type: 'no-context' } });
    expect(reply.context).toBe(0n);
    expect(reviews[0]!.screens.map((s) => s.lines)).toContainEqual(['WARNING', 'No verifier']);
  });

  it('malformed requests → 0x6802: an unknown type, a field ≥ p, text that is not UTF-8, no credentials, extra bytes', async () => {
    const device = quietLedger({ extensions: true });
    const [good] = encodeSignPresentation(request('https://a.example')).map((r) => r.data);
    const send = (payload: Uint8Array) =>
      device.exchange(Uint8Array.from([0xe0, 0xa4, 0x00, 0x00, payload.length, ...payload])).then(toHex);
    const bad = (edit: (p: Uint8Array) => Uint8Array) => send(edit(Uint8Array.from(good!)));
    expect(await bad((p) => ((p[4] = 7), p))).toBe('6802');
    expect(await bad((p) => (p.set(uintToBytesLE(2n ** 255n - 1n, 32), 5), p))).toBe('6802');
    expect(await bad((p) => Uint8Array.from([...p, 0]))).toBe('6802');
    expect(await send(fromHex('0000000001'))).toBe('6802');
    expect((await send(good!)).endsWith('9000')).toBe(true);
  });
});
