/**
 * Writes the vectors of docs/apdu-extensions.md for SIGN_ZKAPP and SIGN_PRESENTATION (SIGN_TEXT's: ./sign-text.ts):
 * real zkApp commands built with o1js as dapps build them, and real presentation requests built with
 * mina-attestations, sent by the client to the software Ledger (the reference implementation, test mnemonic, the
 * extension's latest version), recorded as transcripts.
 *
 *   npx tsx tools/extension-vectors/generate.ts
 *
 * Every input is fixed (keys of the test mnemonic, amounts, a fixed client nonce), and Mina signatures are
 * deterministic, so a second run writes the same bytes; test/extension/clear-signing-vectors.test.ts replays them.
 */
import { writeFileSync } from 'node:fs';
import { AccountUpdate, Field, Mina, Permissions, PublicKey, TokenId, UInt64, VerificationKey } from 'o1js';
import { MinaLedgerApp } from '../../src/apdu.js';
import { utf8 } from '../../src/apdu/bytes.js';
import { INS_SIGN_ZKAPP, encodeZkappStream, type ZkappStream } from '../../src/apdu/sign-zkapp.js';
import { INS_SIGN_PRESENTATION, chunk, encodeSignPresentation, type PresentationToSign } from '../../src/apdu/extension.js';
import { loadAttestations } from '../../src/upstream/attestations.js';
import { minaSignerInternals, type Era } from '../../src/upstream/mina-signer-internals.js';
import type { ApduTransport } from '../../src/transport/types.js';
import { zkappStreamOf } from '../../src/zkapp/clear-signing.js';
import type { ZkappCommandJson } from '../../src/zkapp/command.js';
import { createLocalChain } from '../../src/zkapp/local-chain.js';
import { berkeleyCommand, manyUpdates } from '../../test/support/zkapp.js';
import { addressOf } from '../../test/support/vectors.js';
import { FIXTURES, device, recorder } from './recorder.js';

// ---- zkApp commands ----

const chain = await createLocalChain();
await chain.fund(addressOf(0), 100_000_000_000n);
chain.activate();
const sender = PublicKey.fromBase58(addressOf(0));
const other = PublicKey.fromBase58(addressOf(1));
const tokenOwner = PublicKey.fromBase58(addressOf(2));

async function build(body: () => void, memo = 'chain-ledger vector'): Promise<ZkappCommandJson> {
  const tx = await Mina.transaction({ sender, fee: 100_000_000, memo }, async () => body());
  return JSON.parse(tx.toJSON());
}

/**
 * The payload of a request the client refuses to send (a text with a NUL: docs/apdu-extensions.md, "Text"), as a
 * host that skipped the rule would send it: encoded with `placeholder` (the same length, without the NUL), then the
 * placeholder's bytes replaced by the text's.
 */
function withText(payload: Uint8Array, placeholder: string, text: string): Uint8Array {
  const [from, to] = [utf8.encode(placeholder), utf8.encode(text)];
  if (from.length !== to.length) throw new Error('the placeholder must have the length of the text');
  const at = payload.findIndex((_, i) => from.every((b, j) => payload[i + j] === b));
  if (at < 0) throw new Error(`placeholder ${placeholder} not in the payload`);
  const out = Uint8Array.from(payload);
  out.set(to, at);
  return out;
}

/** Sends a chunked payload as raw APDUs (what the client would send), recording each exchange. */
async function sendRaw(transport: ApduTransport, ins: number, payload: Uint8Array): Promise<void> {
  for (const r of chunk(ins, payload)) await transport.send(0xe0, r.ins, r.p1, r.p2, r.data);
}

const foreign = manyUpdates(berkeleyCommand(), 2, 1);
foreign.feePayer.body.publicKey = addressOf(1);
foreign.feePayer.body.nonce = '7';

const commands: Record<string, { command: ZkappCommandJson; era: Era; network: 'devnet' | 'mainnet'; what: string }> = {
  transfer: {
    what: 'o1js: fundNewAccount and 1 MINA from account 0 to account 1 (the committed fixture), devnet, Berkeley',
    command: berkeleyCommand(),
    era: 'berkeley',
    network: 'devnet',
  },
  'token-transfer': {
    what: 'o1js: 10 units of the token of account 2 from account 0 to account 1, mainnet, Berkeley',
    command: await build(() => {
      const id = TokenId.derive(tokenOwner);
      AccountUpdate.createSigned(sender, id).balance.subInPlace(UInt64.from(10));
      AccountUpdate.create(other, id).balance.addInPlace(UInt64.from(10));
    }),
    era: 'berkeley',
    network: 'mainnet',
  },
  deploy: {
    what: 'o1js: account 0 sets a verification key (hash 12345), permissions (send: Proof) and a zkApp URI, devnet, Berkeley',
    command: await build(() => {
      const update = AccountUpdate.createSigned(sender);
      update.account.verificationKey.set(new VerificationKey({ data: '', hash: Field(12345) }));
      update.account.permissions.set({ ...Permissions.default(), send: Permissions.proof() });
      update.account.zkappUri.set('https://zkapp.example');
    }),
    era: 'berkeley',
    network: 'devnet',
  },
  'ten-updates': {
    what: '10 account updates of account 0, 3 on the partial commitment (two signatures), devnet, Mesa (32 app-state fields)',
    command: (await import('../../test/support/zkapp.js')).resizeState(manyUpdates(berkeleyCommand(), 10, 3), 32),
    era: 'mesa',
    network: 'devnet',
  },
  'foreign-fee-payer': {
    what: 'account 1 pays the fee; account 0 signs its one update on the partial commitment, devnet, Berkeley',
    command: foreign,
    era: 'berkeley',
    network: 'devnet',
  },
  'escaped-text': {
    what: 'o1js: account 0 sets a zkApp URI with a non-ASCII letter (shown escaped: https://tru\\u0173ted.example) and the token symbol MINA; a non-ASCII memo (shown caf\\u00e9 \\u2603 r\\u00e9sum\\u00e9), devnet, Berkeley',
    command: await build(() => {
      const update = AccountUpdate.createSigned(sender);
      update.account.zkappUri.set('https://tru\u0173ted.example');
      update.account.tokenSymbol.set('MINA');
    }, 'caf\u00e9 \u2603 r\u00e9sum\u00e9'),
    era: 'berkeley',
    network: 'devnet',
  },
  'state-write': {
    what: 'the transfer, plus account 7 (another zkApp) setting app state 0 := 42 and 1 := account 9\'s x with no authorization of its own, and account 8 emitting an event: every update listed, devnet, Berkeley',
    command: stateWrite(),
    era: 'berkeley',
    network: 'devnet',
  },
};

/**
 * The second security review's T3-C: the user signs the full commitment, which authorizes an update of another account
 * that writes that zkApp's app state (owner := someone) and has no authorization of its own; and an update emitting an
 * event. The device must list both.
 */
function stateWrite(): ZkappCommandJson {
  const keys = device();
  const command = berkeleyCommand();
  const write = structuredClone(command.accountUpdates[2]!);
  Object.assign(write.body, {
    publicKey: keys.addressOf(7),
    balanceChange: { magnitude: '0', sgn: 'Positive' },
    callDepth: 0,
    authorizationKind: { ...write.body.authorizationKind, isSigned: false, isProved: false },
  });
  write.body.update.appState = ['42', PublicKey.fromBase58(keys.addressOf(9)).x.toString(), null, null, null, null, null, null];
  const emitter = structuredClone(write);
  emitter.body.publicKey = keys.addressOf(8);
  emitter.body.update.appState = Array(8).fill(null);
  emitter.body.events = [['1', '2']];
  command.accountUpdates.push(write, emitter);
  return command;
}

/** Commands the client refuses (a NUL in a text the device shows), sent raw: the device answers 0x6802. */
const refused: Record<string, { command: ZkappCommandJson; what: string; placeholder: string; text: string; edit(s: ZkappStream): void }> = {
  'nul-uri': {
    what: 'o1js: account 0 sets the zkApp URI "https://trusted.example\\u0000.attacker.example/" (a NUL would end it on screen), devnet, Berkeley: refused, 0x6802',
    command: await build(() => {
      AccountUpdate.createSigned(sender).account.zkappUri.set('https://trusted.example\u0000.attacker.example/');
    }),
    placeholder: 'https://trusted.example#.attacker.example/',
    text: 'https://trusted.example\u0000.attacker.example/',
    edit: (stream) => {
      ((stream.updates[0]!.body as { update: { zkappUri: { value: { data: string } } } }).update.zkappUri.value.data =
        'https://trusted.example#.attacker.example/');
    },
  },
  'nul-memo': {
    what: 'o1js: 1 MINA from account 0 to account 1 with the memo "gift\\u0000 + signs away the account" cut short by a NUL, devnet, Berkeley: refused, 0x6802',
    command: await build(() => {
      AccountUpdate.createSigned(sender).send({ to: other, amount: UInt64.from(1_000_000_000) });
    }, 'gift\u0000 + signs away the account'),
    placeholder: 'gift# + signs away the account',
    text: 'gift\u0000 + signs away the account',
    edit: (stream) => {
      stream.memo = withText(stream.memo, 'gift\u0000', 'gift#');
    },
  },
};

const summary: string[] = [];
for (const [name, v] of Object.entries(commands)) {
  const internals = await minaSignerInternals(v.era);
  const stream = zkappStreamOf(v.command, internals, v.era, v.network, 0);
  const { transport, lines } = recorder(device());
  await new MinaLedgerApp(transport).signZkapp(stream);
  writeFileSync(new URL(`extension-sign-zkapp-${name}.apdu`, FIXTURES), `${lines.join('\n')}\n`);
  writeFileSync(new URL(`extension-sign-zkapp-${name}.json`, FIXTURES), `${JSON.stringify({ what: v.what, era: v.era, network: v.network, command: v.command }, null, 2)}\n`);
  summary.push(`${name}: ${encodeZkappStream(stream).length} bytes in ${lines.length / 2} APDUs`);
}
for (const [name, v] of Object.entries(refused)) {
  const internals = await minaSignerInternals('berkeley');
  const stream = zkappStreamOf(v.command, internals, 'berkeley', 'devnet', 0);
  v.edit(stream);
  const { transport, lines } = recorder(device());
  await sendRaw(transport, INS_SIGN_ZKAPP, withText(encodeZkappStream(stream), v.placeholder, v.text));
  writeFileSync(new URL(`extension-sign-zkapp-${name}.apdu`, FIXTURES), `${lines.join('\n')}\n`);
  const json = { what: v.what, era: 'berkeley', network: 'devnet', refused: true, command: v.command };
  writeFileSync(new URL(`extension-sign-zkapp-${name}.json`, FIXTURES), `${JSON.stringify(json, null, 2)}\n`);
  summary.push(`${name}: refused with ${lines.at(-1)}`);
}

// ---- presentation requests ----

const { o1js, attestations: A, hashClaims } = await loadAttestations();
const { UInt64: U64 } = o1js;
const Nationality = A.DynamicString({ maxLength: 50 });
const spec = A.PresentationSpec(
  { credential: A.Credential.Native({ nationality: Nationality, age: U64, expiresAt: U64 }), createdAt: A.Claim(U64) },
  ({ credential, createdAt }) => ({
    assert: [A.Operation.lessThanEq(createdAt, A.Operation.property(credential, 'expiresAt'))],
    outputClaim: A.Operation.issuer(credential),
  }),
);
const compiled = await A.Presentation.precompile(spec);
const vkHash = compiled.verificationKey.hash.toBigInt();
const claims = { createdAt: U64.from(1_800_000_000_000) };
const claimsHash = hashClaims(claims);
const credentials = [{ hash: 1111n, issuer: 2222n }];
const base = { account: 0, vkHash, claimsHash, serverNonce: 4242n, clientNonce: 1234n, credentials, reveals: 'the issuer of credential' };
const presentations: Record<string, PresentationToSign & { what: string }> = {
  https: { ...base, what: 'https request, action "login", verifier https://shop.example', action: 'login', verifier: { type: 'https', origin: 'https://shop.example' } },
  'zk-app': {
    ...base,
    what: 'zk-app request, method verifyPresentation, zkApp = account 1 on devnet, MINA token',
    action: 'verifyPresentation',
    verifier: { type: 'zk-app', network: 'devnet', publicKey: { x: PublicKey.fromBase58(addressOf(1)).x.toBigInt(), isOdd: PublicKey.fromBase58(addressOf(1)).isOdd.toBoolean() }, tokenId: 1n },
  },
  'no-context': { ...base, what: 'no-context request (bound to no verifier: context 0)', action: '', verifier: { type: 'no-context' } },
};
for (const [name, p] of Object.entries(presentations)) {
  const { transport, lines } = recorder(device());
  const { what, ...request } = p;
  await new MinaLedgerApp(transport).signPresentation(request);
  writeFileSync(new URL(`extension-sign-presentation-${name}.apdu`, FIXTURES), `${lines.join('\n')}\n`);
  const json = JSON.stringify({ what, ...request }, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2);
  writeFileSync(new URL(`extension-sign-presentation-${name}.json`, FIXTURES), `${json}\n`);
  summary.push(`presentation ${name}: ${lines.length / 2} APDUs`);
}
// Refused: an action with a NUL ("login" on screen, the whole text in the context).
{
  const { transport, lines } = recorder(device());
  const action = 'login\u0000 and consent to selling my data';
  const request = { ...base, action, verifier: { type: 'https', origin: 'https://shop.example' } } as const;
  const payload = new Uint8Array(encodeSignPresentation({ ...request, action: action.replace('\u0000', '#') }).flatMap((r) => [...r.data]));
  await sendRaw(transport, INS_SIGN_PRESENTATION, withText(payload, 'login#', 'login\u0000'));
  writeFileSync(new URL('extension-sign-presentation-nul-action.apdu', FIXTURES), `${lines.join('\n')}\n`);
  const what = 'https request whose action holds a NUL ("login" would be shown, the whole text signed into the context): refused, 0x6802';
  const json = JSON.stringify({ what, refused: true, ...request }, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2);
  writeFileSync(new URL('extension-sign-presentation-nul-action.json', FIXTURES), `${json}\n`);
  summary.push(`presentation nul-action: refused with ${lines.at(-1)}`);
}
console.log(summary.join('\n'));
process.exit(0);
