import { expect, it } from 'vitest';
import { SignerMinaBuilder, toPromise } from '../../src/dmk.js';
import { quietLedger } from '../support/rig.js';
import { dmkSession } from '../support/dmk.js';

it('smoke', async () => {
  const ledger = quietLedger({ appOpen: false, extensions: true });
  const s = await dmkSession(ledger);
  try {
    const signer = new SignerMinaBuilder({ dmk: s.dmk, sessionId: s.sessionId }).build();
    const seen: string[] = [];
    const config = await toPromise(signer.getAppConfiguration(), { onInteraction: (i) => seen.push(i) });
    console.log(config, seen, s.requests);
    const address = await toPromise(signer.getAddress(0, { checkOnDevice: true }), { onInteraction: (i) => seen.push(i) });
    console.log(address, seen);
    const bad = await toPromise(signer.getAddress(-1)).catch((e) => e);
    console.log(bad.name, bad.message);
  } finally { await s.close(); }
});
