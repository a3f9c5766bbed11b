/**
 * One presentation benchmark configuration, in its own process (the o1js backend and cache location are fixed when
 * o1js starts): O1JS_BACKEND, XDG_CACHE_HOME and CREDENTIALS (1 or 2 credential inputs) come from the parent.
 * Prints one JSON line.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileCredentialStore } from '../src/credentials-node.js';
import { loadAttestations } from '../src/upstream/attestations.js';
import { SoftwareLedger, TEST_MNEMONIC } from '../src/emulator.js';
import { createLedgerProvider } from '../src/index.js';
import { presentationWorkers } from '../src/presentations/runner.js';
import { presentationSpec } from '../test/support/credentials.js';
import { median, round } from './lib.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const OWNER_KEY = 'EKDt66ubGg5SDiwcQABWfFZaruq6idcyrLLfyZQjoH4CN3PHEiNj'; // account 0 of the public test mnemonic
const ORIGIN = 'https://verifier.example';

const time = async <T>(run: () => Promise<T>): Promise<[T, number]> => {
  const t = performance.now();
  const value = await run();
  return [value, performance.now() - t];
};

const modules = await loadAttestations();
const { o1js, attestations: A } = modules;
const { UInt64, PrivateKey, PublicKey } = o1js;
const CREDENTIALS = Number(process.env.CREDENTIALS ?? 1);
const Nationality = A.DynamicString({ maxLength: 50 });
const Club = A.DynamicString({ maxLength: 30 });
const Passport = A.Credential.Native({ nationality: Nationality, age: UInt64, expiresAt: UInt64 });
const Membership = A.Credential.Native({ club: Club, since: UInt64, expiresAt: UInt64 });
// One credential: the passport has not expired. Two: neither the passport nor the membership has; both issuers out.
// (Typed loosely: the two specs have different input types, and everything below works on either.)
// The one-credential spec is the tests' (test/support/credentials.ts), which their global setup compiles into o1js's
// cache: the smoke test (test/bench/processes-smoke.test.ts) proves from those keys instead of compiling.
const spec: any =
  CREDENTIALS === 1
    ? presentationSpec(modules, Nationality)
    : A.PresentationSpec(
        { passport: Passport, membership: Membership, createdAt: A.Claim(UInt64) },
        ({ passport, membership, createdAt }) => ({
          assert: [
            A.Operation.lessThanEq(createdAt, A.Operation.property(passport, 'expiresAt')),
            A.Operation.lessThanEq(createdAt, A.Operation.property(membership, 'expiresAt')),
          ],
          outputClaim: A.Operation.record({ passport: A.Operation.issuer(passport), membership: A.Operation.issuer(membership) }),
        }),
      );
const [, compileMs] = await time(() => A.Presentation.precompile(spec));

const ledger = SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { extensions: true, warn: () => {} });
const store = new FileCredentialStore(mkdtempSync(join(tmpdir(), 'chain-ledger-bench-')));
// The device prompt of a presentation comes once it is prepared (compiled): the time to it is our compile's.
let prompted: number | undefined;
const chain = createLedgerProvider({
  transport: ledger,
  network: 'devnet',
  origin: ORIGIN,
  credentialStore: store,
  // The holder's review comes before the store is read (without it: 20006); the bench approves at once, with the
  // default choice, so that what is measured is the presentation.
  confirmPresentation: () => true,
  onDeviceAction: (action) => {
    if (action.method === 'requestPresentation' && action.status === 'confirm' && prompted === undefined) prompted = performance.now();
  },
});
const [owner] = await chain.requestAccounts();
const expiresAt = UInt64.from(Date.now() + 1e10);
const credentials = [
  A.Credential.sign(PrivateKey.random(), {
    owner: PublicKey.fromBase58(owner!),
    data: { nationality: Nationality.from('Austria'), age: UInt64.from(30), expiresAt },
  }),
  A.Credential.sign(PrivateKey.random(), {
    owner: PublicKey.fromBase58(owner!),
    data: { club: Club.from('Mina Club'), since: UInt64.from(2024), expiresAt },
  }),
].slice(0, CREDENTIALS);
for (const credential of credentials) await chain.storePrivateCredential({ credential: A.Credential.toJSON(credential) });
const ours: number[] = [];
/** Per presentation of ours, in order: from the call to the device prompt (loading, worker, compile). */
const toDevice: number[] = [];
const baseline: number[] = [];
let lastJson = '';
let device: typeof ledger.exchanges = [];
let lastRequest: ReturnType<typeof A.PresentationRequest.https> | undefined;
// The first proof in a process pays one-time costs (prover keys, caches): the order alternates per round so that
// neither side always pays them.
const runOurs = async (request: ReturnType<typeof A.PresentationRequest.https>) => {
  const json = JSON.parse(A.PresentationRequest.toJSON(request));
  const exchangesBefore = ledger.exchanges.length;
  prompted = undefined;
  const called = performance.now();
  const [result, oursMs] = await time(() => chain.requestPresentation({ presentation: { presentationRequest: json } }));
  ours.push(oursMs);
  toDevice.push(prompted === undefined ? Number.NaN : prompted - called);
  device = ledger.exchanges.slice(exchangesBefore);
  lastJson = result.presentation;
  lastRequest = request;
};
const runBaseline = async (request: ReturnType<typeof A.PresentationRequest.https>) => {
  const [, baseMs] = await time(() =>
    A.Presentation.create(PrivateKey.fromBase58(OWNER_KEY), { request, context: { verifierIdentity: ORIGIN }, credentials }),
  );
  baseline.push(baseMs);
};
for (let i = 0; i < ROUNDS; i++) {
  const request = A.PresentationRequest.https(spec, { createdAt: UInt64.from(Date.now()) }, { action: 'bench' });
  if (i % 2 === 0) {
    await runOurs(request);
    await runBaseline(request);
  } else {
    await runBaseline(request);
    await runOurs(request);
  }
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
    // Ours, first in the process (a fresh worker) and the next (the warm worker, the spec's program kept).
    oursFirstMs: round(ours[0]!, 0),
    oursNextMs: round(ours[1] ?? Number.NaN, 0),
    toDeviceFirstMs: round(toDevice[0]!, 0),
    toDeviceNextMs: round(toDevice[1] ?? Number.NaN, 0),
    workerStarts: presentationWorkers().started,
    firstVerifyMs: round(verifyTimes[0]!, 0),
    verifyMs: round(verifyTimes[1]!, 0),
    peakRssMB: round(process.resourceUsage().maxRSS / 1024, 0),
    credentials: CREDENTIALS,
    deviceRequests: device.length,
    apduBytes: device.reduce((sum, e) => sum + (e.request.length + e.reply.length) / 2, 0),
    rounds: ROUNDS,
  }),
);
process.exit(0);
