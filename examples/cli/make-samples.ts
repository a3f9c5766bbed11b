/**
 * Writes the sample files the README's command lines use (`npx tsx examples/cli/make-samples.ts`; they are committed,
 * so this only needs running to change them):
 *
 *   - tx.json: a zkApp command as o1js writes it (`tx.toJSON()`): account 0 of the test mnemonic pays a 0.1 MINA fee
 *     and sends 1 MINA to account 1, creating it (the web dapp's Berkeley sample);
 *   - credential.json: a native credential (nationality, age 30, valid until 2100) issued to account 0 of the test
 *     mnemonic by an issuer key made here and thrown away (mina-attestations `Credential.toJSON`);
 *   - request.json: an https presentation request (mina-attestations `PresentationRequest.toJSON`): the web dapp's
 *     sample spec, "age ≥ 18 and not expired", the issuer revealed, claimed at 2026-01-01.
 *
 * Account 0 is what `--device software` and `chain-ledger speculos-server` answer (the public test mnemonic, NOT
 * hardware), so the README's lines run as written against them.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { sampleSpec } from '../web-dapp/src/sample-spec.js';

const ACCOUNT_0 = 'B62qnzbXmRNo9q32n4SNu2mpB8e7FYYLH8NmaX6oFCBYjjQ8SbD7uzV';
const here = (file: string) => new URL(file, import.meta.url);

const [o1js, A] = await Promise.all([import('o1js'), import('mina-attestations')]);
const { PrivateKey, PublicKey, UInt64 } = o1js;

const command = JSON.parse(await readFile(here('../web-dapp/src/sample-zkapp-command.json'), 'utf8')) as {
  feePayer: { body: { publicKey: string } };
};
if (command.feePayer.body.publicKey !== ACCOUNT_0) throw new Error('the web dapp sample is not paid by account 0');
await writeFile(here('tx.json'), `${JSON.stringify(command, null, 2)}\n`);

const Nationality = A.DynamicString({ maxLength: 50 });
const data = { nationality: Nationality.from('Austria'), age: UInt64.from(30), expiresAt: UInt64.from(Date.UTC(2100, 0, 1)) };
const credential = A.Credential.sign(PrivateKey.random(), { owner: PublicKey.fromBase58(ACCOUNT_0), data });
await writeFile(here('credential.json'), `${JSON.stringify(JSON.parse(A.Credential.toJSON(credential)), null, 2)}\n`);

const request = A.PresentationRequest.https(
  sampleSpec(o1js, A),
  { createdAt: UInt64.from(Date.UTC(2026, 0, 1)) },
  { action: 'prove you are an adult' },
);
await writeFile(here('request.json'), `${JSON.stringify(JSON.parse(A.PresentationRequest.toJSON(request)), null, 2)}\n`);
console.log('wrote examples/cli/tx.json, credential.json and request.json');
process.exit(0); // o1js keeps worker threads alive
