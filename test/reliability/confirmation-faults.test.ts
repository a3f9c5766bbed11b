/**
 * Device faults at each confirmation of a multi-step call (a command with two commitments, a first credential store:
 * its approval, then the store key): the documented code, nothing partially signed or stored, and the next call
 * works; and one full presentation proved and verified after an unplug at its owner signature. The fault matrix of
 * single steps: device-faults.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { credentialManager } from '../../src/index.js';
import { credentialIssuer, issuerHash, verifiedOutput, type Issuer } from '../support/credentials.js';
import { type Rig, accountFiles, approveAll, faultRigs, unplugAt } from '../support/fault-rig.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { ORIGIN, never } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';
import { berkeleyCommand, manyUpdates, verifySigned } from '../support/zkapp.js';

const ACCOUNT0 = addressOf(0);
const rig = faultRigs();
let issuer: Issuer;

beforeAll(async () => {
  issuer = await credentialIssuer();
}, 120_000);

describe('each confirmation of a multi-step call', () => {
  // manyUpdates(…, 4, 2): two updates on the partial commitment, the fee payer and two on the full: 2 INS 06 requests.
  const twoCommitments = () => manyUpdates(berkeleyCommand(), 4, 2);
  const ins06 = (r: Rig) => r.ledger.exchanges.filter((e) => e.request.startsWith('e006')).length;

  it.each([
    ['rejected', 1, 1002],
    ['rejected', 2, 1002],
    ['unplugged', 1, 1001],
    ['unplugged', 2, 1001],
  ] as const)(
    'sendTransaction with two commitments: %s at confirmation %i of 2 → %i, no partially signed command',
    async (what, at, code) => {
      const r = await rig('devnet');
      let seen = 0;
      r.ledger.approve = (review) => {
        if (review.kind !== 'field-element' || ++seen !== at) return true;
        if (what === 'rejected') return false;
        r.ledger.unplug();
        return never();
      };
      const before = ins06(r);
      expect(await failure(r.chain.sendTransaction({ transaction: twoCommitments(), onlySign: true }))).toMatchObject({ code });
      expect(seen).toBe(at);
      // Only the confirmations up to the fault were answered (an unplugged one never is).
      expect(ins06(r) - before).toBe(what === 'rejected' ? at : at - 1);

      r.ledger.plug();
      approveAll(r);
      await r.chain.requestAccounts();
      const after = ins06(r);
      const result = (await r.chain.sendTransaction({ transaction: twoCommitments(), onlySign: true })) as { signedData: string };
      expect(ins06(r) - after).toBe(2);
      expect(verifySigned('berkeley', 'devnet', result.signedData, ACCOUNT0)).toBe(true);
    },
  );

  it.each([
    ['rejected', 1],
    ['rejected', 2],
    ['unplugged', 2],
  ] as const)(
    'storePrivateCredential, first of the connection: %s at confirmation %i of 2 (approval, store key) → nothing stored',
    async (what, at) => {
      const r = await rig('devnet');
      let seen = 0;
      const texts: string[] = [];
      r.ledger.approve = (review) => {
        if (review.kind !== 'message') return true;
        texts.push(review.screens.find((s) => s.title === 'Message')?.text ?? '');
        if (++seen !== at) return true;
        if (what === 'rejected') return false;
        r.ledger.unplug();
        return never();
      };
      const credential = issuer.issue(ACCOUNT0, 'Peru');
      expect(await failure(r.chain.storePrivateCredential({ credential }))).toMatchObject({ code: what === 'rejected' ? 1002 : 1001 });
      expect(texts[0]).toMatch(/^Store credential [0-9a-f]{8} from /);
      if (at === 2) expect(texts[1]).toBe('chain-ledger credential store key v1');
      expect(accountFiles(r.dir)).toEqual([]);

      r.ledger.plug();
      approveAll(r);
      await r.chain.requestAccounts();
      await r.chain.storePrivateCredential({ credential });
      expect(await credentialManager(r.chain).list()).toHaveLength(1);
    },
  );
});

describe('a full presentation after a fault', () => {
  it('unplugged at the owner signature, plugged back: the next presentation is proved and the verifier accepts it', async () => {
    const r = await rig('devnet');
    await r.chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0) });
    unplugAt(r, 'sign-fields');
    const { req, json } = issuer.presentationRequest();
    expect(await failure(r.chain.requestPresentation({ presentation: { presentationRequest: json } }))).toMatchObject({ code: 1001 });
    r.ledger.plug();
    approveAll(r);
    await r.chain.requestAccounts();
    const { presentation } = await r.chain.requestPresentation({ presentation: { presentationRequest: json } });
    expect(await verifiedOutput(issuer.A, req, presentation, ORIGIN)).toBe(issuerHash(issuer.A, issuer.key));
  }, 300_000);
});
