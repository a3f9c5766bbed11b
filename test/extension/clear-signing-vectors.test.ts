/**
 * The SIGN_ZKAPP and SIGN_PRESENTATION vectors of docs/apdu-extensions.md (test/fixtures/extension-sign-*.apdu,
 * written by tools/extension-vectors/generate.ts from commands built with o1js and requests built with
 * mina-attestations): the client sends exactly the recorded APDUs, the software Ledger answers exactly the recorded
 * replies, and every value in them checks out with the libraries themselves.
 */
import { readFileSync } from 'node:fs';
import Client from 'mina-signer';
import { Field, PublicKey } from 'o1js';
import { HttpsRequest, ZkAppRequest } from 'mina-attestations';
import { describe, expect, it } from 'vitest';
import { MinaLedgerApp } from '../../src/apdu.js';
import { fromHex, toHex } from '../../src/apdu/bytes.js';
import type { PresentationToSign } from '../../src/apdu/extension.js';
import { signatureToBase58 } from '../../src/apdu/signature.js';
import { minaSignerInternals, type Era } from '../../src/upstream/mina-signer-internals.js';
import { openTranscript } from '../../src/transport/node.js';
import { zkappStreamOf } from '../../src/zkapp/clear-signing.js';
import type { ZkappCommandJson } from '../../src/zkapp/command.js';
import type { Review } from '../../src/emulator.js';
import { shownValue } from '../../src/emulator/review.js';
import { quietLedger } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');
const ACCOUNT0 = addressOf(0);

/** Replays every recorded request against a fresh software Ledger (1.1): the replies must be the recorded bytes. */
async function deviceReproduces(transcript: string): Promise<void> {
  const device = quietLedger({ extensions: true });
  const lines = transcript.trim().split('\n');
  for (let i = 0; i < lines.length; i += 2) {
    const reply = await device.exchange(fromHex(lines[i]!.slice(3)));
    expect(toHex(reply)).toBe(lines[i + 1]!.slice(3));
  }
}

describe('SIGN_ZKAPP vectors', () => {
  it.each(['transfer', 'token-transfer', 'deploy', 'ten-updates', 'foreign-fee-payer', 'escaped-text', 'state-write'])(
    '%s',
    async (name) => {
      const { era, network, command } = JSON.parse(fixture(`extension-sign-zkapp-${name}.json`)) as {
        era: Era;
        network: 'devnet' | 'mainnet';
        command: ZkappCommandJson;
      };
      const transcript = fixture(`extension-sign-zkapp-${name}.apdu`);
      const internals = await minaSignerInternals(era);
      const t = await openTranscript(transcript);
      const reply = await new MinaLedgerApp(t).signZkapp(zkappStreamOf(command, internals, era, network, 0));
      t.ensureDone();
      // The commitments the device computed are mina-signer's for this era and network…
      const expected = internals.transactionCommitments(internals.ZkappCommand.fromJSON(command), network);
      expect({ commitment: reply.commitment, fullCommitment: reply.fullCommitment }).toEqual(expected);
      // …and each signature verifies over the commitment it names, for account 0, with mina-signer.
      const publicKey = internals.PublicKey.toGroup(internals.PublicKey.fromBase58(ACCOUNT0));
      for (const s of reply.signatures) {
        const value = s.kind === 'fullCommitment' ? expected.fullCommitment : expected.commitment;
        expect(internals.verifyFieldElement({ r: s.r, s: s.s }, value, publicKey, network)).toBe(true);
      }
      // One signature per distinct value account 0 owes, read off the command (the fee payer; its signed updates).
      const ours = command.accountUpdates.filter((au) => au.body.publicKey === ACCOUNT0 && au.body.authorizationKind.isSigned);
      const owed = [
        ...(command.feePayer.body.publicKey === ACCOUNT0 || ours.some((au) => au.body.useFullCommitment) ? ['fullCommitment'] : []),
        ...(ours.some((au) => !au.body.useFullCommitment) ? ['commitment'] : []),
      ];
      expect(reply.signatures.map((s) => s.kind)).toEqual(owed);
      await deviceReproduces(transcript);
    },
  );
});

describe('text the device shows: the vectors of docs/apdu-extensions.md, "Text"', () => {
  it('escaped-text: a URI and a memo beyond ASCII are shown escaped, never as look-alike letters', async () => {
    const { command } = JSON.parse(fixture('extension-sign-zkapp-escaped-text.json')) as { command: ZkappCommandJson };
    const reviews: Review[] = [];
    const device = quietLedger({ extensions: true, approve: (r) => (reviews.push(r), true) });
    const internals = await minaSignerInternals('berkeley');
    await new MinaLedgerApp(device).signZkapp(zkappStreamOf(command, internals, 'berkeley', 'devnet', 0));
    const review = reviews[0]!;
    expect(shownValue(review, 'Memo')).toBe('caf\\u00e9 \\u2603 r\\u00e9sum\\u00e9');
    const warnings = review.screens.filter((s) => s.title.startsWith('Warning')).map((s) => s.text ?? '');
    expect(warnings.join('')).toContain('sets the zkApp URI to https://tru\\u0173ted.example');
    expect(warnings.join('')).toContain('sets the token symbol to MINA');
  });

  it.each(['nul-uri', 'nul-memo'])('%s: the device refuses the command (0x6802) and the client never sends it', async (name) => {
    const { command } = JSON.parse(fixture(`extension-sign-zkapp-${name}.json`)) as { command: ZkappCommandJson };
    const transcript = fixture(`extension-sign-zkapp-${name}.apdu`);
    expect(transcript.trim().split('\n').at(-1)).toBe('<= 6802');
    await deviceReproduces(transcript);
    const internals = await minaSignerInternals('berkeley');
    const sent: number[] = [];
    const counting = { send: async (_cla: number, ins: number) => (sent.push(ins), Uint8Array.of(0x90, 0x00)) };
    await expect(new MinaLedgerApp(counting).signZkapp(zkappStreamOf(command, internals, 'berkeley', 'devnet', 0))).rejects.toMatchObject({
      name: 'LedgerInputError',
      message: expect.stringMatching(/control character/),
    });
    expect(sent).toEqual([]);
  });

  it('nul-action: the device refuses a presentation whose action holds a NUL (0x6802) and the client never sends it', async () => {
    const json = JSON.parse(fixture('extension-sign-presentation-nul-action.json')) as Record<string, unknown>;
    const transcript = fixture('extension-sign-presentation-nul-action.apdu');
    expect(transcript.trim().split('\n').at(-1)).toBe('<= 6802');
    await deviceReproduces(transcript);
    const sent: number[] = [];
    const counting = { send: async (_cla: number, ins: number) => (sent.push(ins), Uint8Array.of(0x90, 0x00)) };
    await expect(new MinaLedgerApp(counting).signPresentation(revive(json))).rejects.toMatchObject({
      name: 'LedgerInputError',
      field: 'action',
    });
    expect(sent).toEqual([]);
  });
});

describe('SIGN_PRESENTATION vectors', () => {
  it.each(['https', 'zk-app', 'no-context'])('%s', async (name) => {
    const json = JSON.parse(fixture(`extension-sign-presentation-${name}.json`)) as Record<string, unknown>;
    const request = revive(json);
    const transcript = fixture(`extension-sign-presentation-${name}.apdu`);
    const t = await openTranscript(transcript);
    const reply = await new MinaLedgerApp(t).signPresentation(request);
    t.ensureDone();
    // The context is mina-attestations' own derivation of the parts the device was given and the verifier it showed.
    const derived = { clientNonce: Field(request.clientNonce), vkHash: Field(request.vkHash), claims: Field(request.claimsHash) };
    const input = { action: request.action, serverNonce: Field(request.serverNonce) };
    const v = request.verifier;
    const expected =
      v.type === 'https'
        ? HttpsRequest({} as never).deriveContext({ type: 'https', ...input }, { verifierIdentity: v.origin }, derived)
        : v.type === 'zk-app'
          ? ZkAppRequest({} as never).deriveContext(
              {
                type: 'zk-app',
                ...input,
                verifierIdentity: {
                  publicKey: PublicKey.fromBase58(addressOf(1)),
                  tokenId: Field(v.tokenId),
                  network: v.network,
                },
              },
              undefined as never,
              derived,
            )
          : Field(0);
    expect(reply.context).toBe(expected.toBigInt());
    const fields = [reply.context, ...request.credentials.flatMap((c) => [c.hash, c.issuer])];
    const signature = signatureToBase58({ field: reply.r.toString(), scalar: reply.s.toString() });
    expect(new Client({ network: 'testnet' }).verifyFields({ data: fields, signature, publicKey: ACCOUNT0 })).toBe(true);
    await deviceReproduces(transcript);
  });
});

/** The JSON of a presentation vector back as the request (bigints from decimal text). */
function revive(json: Record<string, unknown>): PresentationToSign {
  const big = (v: unknown) => BigInt(v as string);
  const verifier = json.verifier as Record<string, unknown>;
  return {
    account: json.account as number,
    vkHash: big(json.vkHash),
    claimsHash: big(json.claimsHash),
    serverNonce: big(json.serverNonce),
    clientNonce: big(json.clientNonce),
    action: json.action as string,
    reveals: json.reveals as string,
    credentials: (json.credentials as { hash: string; issuer: string }[]).map((c) => ({ hash: big(c.hash), issuer: big(c.issuer) })),
    verifier:
      verifier.type === 'zk-app'
        ? {
            type: 'zk-app',
            network: verifier.network as 'devnet',
            publicKey: { x: big((verifier.publicKey as { x: string }).x), isOdd: (verifier.publicKey as { isOdd: boolean }).isOdd },
            tokenId: big(verifier.tokenId),
          }
        : (verifier as PresentationToSign['verifier']),
  };
}
