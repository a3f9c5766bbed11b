/**
 * One presentation benchmark configuration, in its own process (the o1js backend and cache location are fixed when
 * o1js starts): O1JS_BACKEND and XDG_CACHE_HOME come from the parent. Prints one JSON line.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileCredentialStore } from '../src/credentials/node.js';
import { loadAttestations } from '../src/credentials/attestations.js';
import { SoftwareLedger, TEST_MNEMONIC } from '../src/emulator/index.js';
import { createLedgerProvider } from '../src/index.js';
import { median, round } from './lib.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const OWNER_KEY = 'EKDt66ubGg5SDiwcQABWfFZaruq6idcyrLLfyZQjoH4CN3PHEiNj'; // account 0 of the public test mnemonic
const ORIGIN = 'https://verifier.example';

const time = async <T>(run: () => Promise<T>): Promise<[T, number]> => {
  const t = performance.now();
  const value = await run();
  return [value, performance.now() - t];
};

const { o1js, attestations: A } = await loadAttestations();
const { UInt64, PrivateKey, PublicKey } = o1js;
const Nationality = A.DynamicString({ maxLength: 50 });
const spec = A.PresentationSpec(
  { credential: A.Credential.Native({ nationality: Nationality, age: UInt64, expiresAt: UInt64 }), createdAt: A.Claim(UInt64) },
  ({ credential, createdAt }) => ({
    assert: [A.Operation.lessThanEq(createdAt, A.Operation.property(credential, 'expiresAt'))],
    outputClaim: A.Operation.issuer(credential),
  }),
);
const [, compileMs] = await time(() => A.Presentation.precompile(spec));

const ledger = SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { warn: () => {} });
const store = new FileCredentialStore(mkdtempSync(join(tmpdir(), 'chain-ledger-bench-')));
const chain = createLedgerProvider({ transport: ledger, network: 'devnet', origin: ORIGIN, credentialStore: store });
const [owner] = await chain.requestAccounts();
const data = { nationality: Nationality.from('Austria'), age: UInt64.from(30), expiresAt: UInt64.from(Date.now() + 1e10) };
const stored = A.Credential.sign(PrivateKey.random(), { owner: PublicKey.fromBase58(owner!), data });
await chain.storePrivateCredential({ credential: A.Credential.toJSON(stored) });

const ours: number[] = [];
const baseline: number[] = [];
let lastJson = '';
let lastRequest: ReturnType<typeof A.PresentationRequest.https> | undefined;
for (let i = 0; i < ROUNDS; i++) {
  const request = A.PresentationRequest.https(spec, { createdAt: UInt64.from(Date.now()) }, { action: 'bench' });
  const json = JSON.parse(A.PresentationRequest.toJSON(request));
  const [result, oursMs] = await time(() => chain.requestPresentation({ presentation: { presentationRequest: json } }));
  ours.push(oursMs);
  lastJson = result.presentation;
  lastRequest = request;
  const [, baseMs] = await time(() =>
    A.Presentation.create(PrivateKey.fromBase58(OWNER_KEY), { request, context: { verifierIdentity: ORIGIN }, credentials: [stored] }),
  );
  baseline.push(baseMs);
}
const compiled = await A.Presentation.compile(lastRequest!);
const verifyTimes: number[] = [];
for (let i = 0; i < 2; i++) {
  const [, ms] = await time(() => A.Presentation.verify(compiled, A.Presentation.fromJSON(lastJson), { verifierIdentity: ORIGIN }));
  verifyTimes.push(ms);
}
console.log(
  JSON.stringify({
    compileMs: round(compileMs, 0),
    oursMs: round(median(ours), 0),
    baselineMs: round(median(baseline), 0),
    ratio: round(median(ours) / median(baseline)),
    firstVerifyMs: round(verifyTimes[0]!, 0),
    verifyMs: round(verifyTimes[1]!, 0),
    peakRssMB: round(process.resourceUsage().maxRSS / 1024, 0),
    rounds: ROUNDS,
  }),
);
process.exit(0);
