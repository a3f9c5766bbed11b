import { beforeAll, describe, expect, it } from 'vitest';
import { loadAttestations } from '../../src/credentials/attestations.js';
import { FileCredentialStore } from '../../src/credentials/node.js';

import { createLedgerProvider } from '../../src/index.js';
import { addressOf } from '../support/vectors.js';
import { quietLedger, tempDirs } from '../support/rig.js';
import { issuerHash, verifiedOutput } from '../support/credentials.js';

const ORIGIN = 'https://attestations-demo.example';
const tempDir = tempDirs('positional');
let dir: string;
let A: Awaited<ReturnType<typeof loadAttestations>>;

beforeAll(async () => {
  dir = tempDir();
  A = await loadAttestations();
}, 60_000);

describe('mina-attestations web demo: positional params', () => {
  it('request({ params: [credential] }) stores it; request({ params: [{ presentationRequest }] }) proves; the verifier accepts', async () => {
    const { PrivateKey, PublicKey, UInt64 } = A.o1js;
    const { Credential, PresentationSpec, PresentationRequest, Operation, Claim } = A.attestations;
    const issuerKey = PrivateKey.random();
    const credential = Credential.toJSON(
      Credential.sign(issuerKey, {
        owner: PublicKey.fromBase58(addressOf(0)),
        data: { age: UInt64.from(30), expiresAt: UInt64.from(Date.now() + 1e10) },
      }),
    );

    const ledger = quietLedger({ extensions: true });
    const chain = createLedgerProvider({
      transport: ledger,
      network: 'devnet',
      origin: ORIGIN,
      credentialStore: new FileCredentialStore(dir),
    });
    await chain.requestAccounts();

    // The demo passes the credential JSON text as the only positional parameter.
    const stored = (await chain.request({ method: 'chain_storePrivateCredential', params: [credential] })) as { credential: string };
    expect(JSON.parse(stored.credential)).toEqual(JSON.parse(credential));
    // An object credential in the same position, and the object form inside the array, are read the same way.
    await chain.request({ method: 'chain_storePrivateCredential', params: [JSON.parse(credential)] });
    await chain.request({ method: 'chain_storePrivateCredential', params: [{ credential }] });

    const spec = PresentationSpec(
      { credential: Credential.Native({ age: UInt64, expiresAt: UInt64 }), createdAt: Claim(UInt64) },
      ({ credential: c, createdAt }) => ({
        assert: [Operation.lessThanEq(createdAt, Operation.property(c, 'expiresAt'))],
        outputClaim: Operation.issuer(c),
      }),
    );
    const request = PresentationRequest.https(spec, { createdAt: UInt64.from(Date.now()) }, { action: 'demo-login' });
    const presentationRequest = JSON.parse(PresentationRequest.toJSON(request));
    const { presentation } = (await chain.request({ method: 'chain_requestPresentation', params: [{ presentationRequest }] })) as {
      presentation: string;
    };
    expect(await verifiedOutput(A, request, presentation, ORIGIN)).toBe(issuerHash(A, issuerKey));
  }, 300_000);
});
