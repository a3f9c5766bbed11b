/**
 * Part 3 of `npm start` (quick-start.ts): a credential issued to the Ledger account, stored encrypted, presented to a
 * verifier at http://localhost, and the presentation verified in a worker thread (quick-start-verifier.ts).
 */
import { credentialManager, type createLedgerProvider } from 'chain-ledger';
import { check, isNotSupported, lacksExtension, step, stepSay } from './quick-start-console.js';
import { sampleSpec } from './web-dapp/src/sample-spec.js';

/**
 * What the heavy steps cost, as measured on the 2 shared cores of the project's machine (README, Quick start): the
 * prover compiles the presentation circuit (83 s the first time, 20–46 s with its keys in ~/.cache/o1js, at load
 * 5–17) and proves (23–60 s); the verifier compiles it again for its verification key and checks (38–58 s).
 */
const PRESENTATION_TIME = '1–2 min on 2 busy cores; its compile is quicker once cached in ~/.cache/o1js';
const VERIFY_TIME = '30–60 s on 2 busy cores';

/** Part 3: a credential issued to the Ledger account, stored encrypted, and presented to a verifier. */
export async function credentials(chain: ReturnType<typeof createLedgerProvider>, address: string): Promise<void> {
  console.log(`\n── private credentials ${'─'.repeat(50)}`);
  const [o1js, A] = await step('Load o1js and mina-attestations (only now: they are heavy)', () =>
    Promise.all([import('o1js'), import('mina-attestations')]),
  );
  const { PrivateKey, PublicKey, UInt64, Poseidon } = o1js;
  const issuer = PrivateKey.random();
  const Nationality = A.DynamicString({ maxLength: 50 });
  const data = { nationality: Nationality.from('Austria'), age: UInt64.from(30), expiresAt: UInt64.from(Date.now() + 365 * 86_400_000) };
  const credential = A.Credential.toJSON(A.Credential.sign(issuer, { owner: PublicKey.fromBase58(address), data }));
  console.log(`   an issuer signed a credential for ${address.slice(0, 12)}…: nationality Austria, age 30`);

  await step('chain.storePrivateCredential(): validated, approved on the Ledger, stored encrypted', () =>
    chain.storePrivateCredential({ credential }),
  );
  const stored = await credentialManager(chain).list();
  check(stored.length === 1, `the account's store holds ${stored.length} credential (id ${stored[0]?.id.slice(0, 12)}…)`);

  // The web dapp's sample request: the spec the test suite's global setup also compiles.
  const request = A.PresentationRequest.https(
    sampleSpec(o1js, A),
    { createdAt: UInt64.from(Date.now()) },
    { action: 'prove you are an adult' },
  );
  console.log('   a verifier at http://localhost asks: "age ≥ 18 and not expired", output: the issuer');
  // What the device shows: the verifier and what is shared (SIGN_PRESENTATION, extension 1.1), or the fields blind.
  const instruction = chain.capabilities?.extension?.signPresentation ? 'SIGN_PRESENTATION' : 'SIGN_FIELDS';
  const title = `chain.requestPresentation(): the owner signs on the Ledger (${instruction}), the host proves (${PRESENTATION_TIME})`;
  if (!chain.capabilities?.extension?.signFields) {
    const error = await chain
      .requestPresentation({ presentation: { presentationRequest: JSON.parse(A.PresentationRequest.toJSON(request)) } })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    if (!isNotSupported(error)) throw error ?? new Error('requestPresentation succeeded on a device that reports no SIGN_FIELDS');
    const reason = (error as { data?: { reason?: string } }).data?.reason;
    lacksExtension('chain.requestPresentation()', 'SIGN_FIELDS (INS 0xA1)', `ProviderError 20006${reason ? `: ${reason}` : ''}`);
    return;
  }
  const { presentation } = await step(title, () =>
    chain.requestPresentation({ presentation: { presentationRequest: JSON.parse(A.PresentationRequest.toJSON(request)) } }),
  );
  console.log(`   presentation: ${presentation.length} characters`);
  const output = await step(`The verifier: Presentation.verify for its origin (${VERIFY_TIME})`, () =>
    verifyInWorker(A.PresentationRequest.toJSON(request), presentation, 'http://localhost'),
  );
  const expected = Poseidon.hashWithPrefix('mina-cred:v0:native', issuer.toPublicKey().toFields());
  check(output === expected.toString(), 'the proof verifies and names the expected issuer');
}

/**
 * `Presentation.verify` in a worker thread (quick-start-verifier.ts): its compile would block this thread, and the
 * step's progress lines with it. Each stage it starts is a progress line; resolves the output claim, as text.
 */
async function verifyInWorker(requestJson: string, presentationJson: string, verifierIdentity: string): Promise<string> {
  const { Worker } = await import('node:worker_threads');
  // npm start runs this file through tsx; a worker thread registers it again to import TypeScript (an ES module
  // given as a data: URL, so that o1js loads there as it does here).
  const start = `const { register } = await import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))});
register();
await import(${JSON.stringify(new URL('./quick-start-verifier.ts', import.meta.url).href)});`;
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(start)}`), {
    workerData: { requestJson, presentationJson, verifierIdentity },
  });
  try {
    return await new Promise<string>((resolve, reject) => {
      worker.on('message', (message: { stage?: string; output?: string }) => {
        if (message.stage) stepSay(`… ${message.stage}`);
        if (message.output !== undefined) resolve(message.output);
      });
      worker.on('error', reject);
      worker.on('exit', (code) => reject(new Error(`the verifier's worker stopped (exit code ${code})`)));
    });
  } finally {
    await worker.terminate();
  }
}
