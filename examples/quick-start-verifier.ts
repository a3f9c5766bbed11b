/**
 * The verifier of `npm start` (quick-start.ts), in a worker thread: `Presentation.verify` for the verifier's origin.
 * Its first step compiles the request's circuit for the verification key (tens of seconds the first time on 2 cores,
 * cached in ~/.cache/o1js after), which would block the walk-through's thread, and its progress lines with it. It
 * says each stage as it starts (`{ stage }`), then `{ output }`: the output claim the proof names (the issuer's hash).
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

const { requestJson, presentationJson, verifierIdentity } = workerData as {
  requestJson: string;
  presentationJson: string;
  verifierIdentity: string;
};
const o1js = await import('o1js');
// o1js compiles ≈ 2.5× faster on its native backend, an optional dependency of o1js: chosen before o1js starts (O1JS_BACKEND overrides).
if (!process.env.O1JS_BACKEND && nativeBackendInstalled()) o1js.setBackend('native');
const A = await import('mina-attestations');
parentPort!.postMessage({ stage: "compiling the request's circuit for its verification key" });
const compiled = await A.Presentation.compile(A.PresentationRequest.fromJSON('https', requestJson));
parentPort!.postMessage({ stage: 'checking the proof' });
const output = await A.Presentation.verify(compiled, A.Presentation.fromJSON(presentationJson), { verifierIdentity });
parentPort!.postMessage({ output: String(output) });

function nativeBackendInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve(`@o1js/native-${process.platform}-${process.arch}`);
    return true;
  } catch {
    return false;
  }
}
