/**
 * Writes the long-text SIGN_TEXT vectors of docs/apdu-extensions.md ("Long texts"): GET_CAPABILITIES of version 1.4,
 * and a Socialcap-like vote batch (three votes, 2,269 bytes of JSON) sent by the client to the software Ledger with
 * `extensions: '1.4'` (test mnemonic), recorded as a transcript, with the request beside it as JSON. The reply is
 * checked here against mina-signer's own `signMessage` before it is written (legacy message signatures are
 * deterministic).
 *
 *   npx tsx tools/extension-vectors/sign-text-long.ts
 *
 * test/extension/sign-text-long.test.ts replays them byte for byte.
 */
import { writeFileSync } from 'node:fs';
import Client from 'mina-signer';
import { MinaLedgerApp, type TextToSign } from '../../src/apdu.js';
import { SoftwareLedger, TEST_MNEMONIC } from '../../src/emulator.js';
import { socialcapVotes } from '../../test/support/socialcap.js';
import { keyOf } from '../../test/support/vectors.js';
import { FIXTURES, recorder } from './recorder.js';

const device = () => SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { extensions: '1.4', warn: () => {} });

{
  const { transport, lines } = recorder(device());
  await new MinaLedgerApp(transport).getCapabilities();
  writeFileSync(new URL('extension-get-capabilities-1.4.apdu', FIXTURES), `${lines.join('\n')}\n`);
}
const request: TextToSign = { account: 0, networkId: 0, origin: 'https://socialcap.app', message: socialcapVotes() };
const what = "a Socialcap-like elector's batch of three votes (2,269 bytes of JSON), account 0, testnet, shown in 39 pages";
const { transport, lines } = recorder(device());
const signature = await new MinaLedgerApp(transport).signLongText(request);
const expected = new Client({ network: 'testnet' }).signMessage(request.message, keyOf(0)).signature;
if (signature.field !== expected.field || signature.scalar !== expected.scalar) {
  throw new Error("socialcap: the device's signature is not mina-signer's signMessage signature");
}
writeFileSync(new URL('extension-sign-text-socialcap.apdu', FIXTURES), `${lines.join('\n')}\n`);
writeFileSync(new URL('extension-sign-text-socialcap.json', FIXTURES), `${JSON.stringify({ what, ...request }, null, 2)}\n`);
console.log(`socialcap: ${new TextEncoder().encode(request.message).length} bytes of text in ${lines.length / 2} APDUs`);
