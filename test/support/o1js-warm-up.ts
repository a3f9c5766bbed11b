/**
 * Compiles the presentation circuits that the Node tests prove with, once, into o1js's file cache (o1js's default,
 * ~/.cache/o1js), through the same loader as the code under test (src/credentials/attestations.ts: the same o1js
 * backend, hence the same keys). Run by test/support/global-setup.ts in a child process; prints one line.
 *
 * The specs here are the ones the tests prove with (the circuit is named by a hash of its spec), over one native
 * credential with nationality, age and expiry:
 *   - createdAt ≤ expiresAt → the issuer: test/support/credentials.ts presentationSpec(), used by provider-credentials,
 *     device-faults, confirmation-faults, dishonest-device, presentations/abort, worker-reuse, the CLI test and the
 *     bench's one-credential presentation (bench/presentation-child.ts, which test/bench/processes-smoke.test.ts runs);
 *   - the web dapp's sample (examples/web-dapp/src/sample-spec.ts: also age ≥ 18): the e2e test seeds the page's
 *     key cache with its keys.
 * A Node test whose spec drifts from these still passes: its first compile then generates the keys itself.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadAttestations } from '../../src/upstream/attestations.js';
import { sampleSpec } from '../../examples/web-dapp/src/sample-spec.js';
import { presentationSpec } from './credentials.js';

const started = Date.now();
const modules = await loadAttestations();
const { o1js, attestations: A } = modules;

const specs = {
  // test/support/credentials.ts presentationSpec(): the Node tests' and the CLI's request.
  'createdAt ≤ expiresAt': presentationSpec(modules),
  // The web dapp's sample request: the e2e test seeds the page's key cache with these keys.
  'web dapp sample': sampleSpec(o1js, A),
};

/**
 * Whether o1js's cache already holds the four key files of this spec's circuit, so that compiling it (≈ 3–6 s of
 * reading and decoding keys) can be skipped. mina-attestations names the circuit `credential-` + the first 16 hex
 * digits of Keccak-256 over the serialized spec (build/src/program.js, programName; not exported), which is what a
 * request's JSON carries as `spec`. If that scheme ever changes, this only answers false: the circuit is compiled.
 */
function cached(spec: unknown): boolean {
  const request = A.PresentationRequest.noContext(spec as never, {} as never);
  const serialized = JSON.stringify((JSON.parse(A.PresentationRequest.toJSON(request)) as { spec: unknown }).spec);
  const name = `credential-${o1js.Hash.Keccak256.hash(o1js.Bytes.fromString(serialized)).toHex().slice(0, 16)}`;
  const dir = (o1js.Cache.FileSystemDefault as { cacheDirectory?: string }).cacheDirectory;
  if (dir === undefined) return false;
  return [`step-pk-${name}-run`, `step-vk-${name}-run`, `wrap-pk-${name}`, `wrap-vk-${name}`].every(
    (file) => existsSync(join(dir, file)) && existsSync(join(dir, `${file}.header`)),
  );
}

const outcomes: string[] = [];
for (const [name, spec] of Object.entries(specs)) {
  const start = Date.now();
  if (cached(spec)) {
    outcomes.push(`${name}: already cached`);
    continue;
  }
  await A.Presentation.precompile(spec as Parameters<typeof A.Presentation.precompile>[0]);
  outcomes.push(`${name}: compiled in ${Date.now() - start} ms`);
}
console.log(`o1js cache (${Date.now() - started} ms): ${outcomes.join('; ')}`);
process.exit(0); // o1js's worker threads would keep the process alive
