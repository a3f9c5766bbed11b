/**
 * Writes the SIGN_TEXT vectors of docs/apdu-extensions.md: GET_CAPABILITIES of version 1.2, and real sign-in texts
 * sent by the client to the software Ledger (the reference implementation, test mnemonic), recorded as transcripts,
 * with each request beside it as JSON. Every reply is checked here against mina-signer's own `signMessage` before it
 * is written: legacy message signatures are deterministic, so the device's signature must be that one exactly.
 *
 *   npx tsx tools/extension-vectors/sign-text.ts
 *
 * test/extension/sign-text.test.ts replays them byte for byte.
 */
import { writeFileSync } from 'node:fs';
import Client from 'mina-signer';
import { MinaLedgerApp, type TextToSign } from '../../src/apdu.js';
import { SoftwareLedger, TEST_MNEMONIC } from '../../src/emulator.js';
import { addressOf, keyOf } from '../../test/support/vectors.js';
import { FIXTURES, device, recorder } from './recorder.js';

/** Auro's documented sign-in text (aurowallet/docs howto/sign-message.md), on a page at https://dapp.example/. */
const AURO_SIGN_IN = `Click "Sign" to sign in. No password needed!

This request will not trigger a blockchain transaction or cost any gas fees.

I accept the Auro Test zkApp Terms of Service: https://dapp.example/

address: ${addressOf(0)}
iat: 1700000000000`;

const vectors: Record<string, TextToSign & { what: string }> = {
  'sign-in': {
    what: "Auro's documented sign-in text (newlines), account 0, testnet, asked by https://dapp.example",
    account: 0,
    networkId: 0,
    origin: 'https://dapp.example',
    message: AURO_SIGN_IN,
  },
  mainnet: {
    what: 'a short text with a tab and characters outside ASCII (shown escaped), account 0, mainnet',
    account: 0,
    networkId: 1,
    origin: 'https://shop.example',
    message: 'Pay\t12 MINA to Café ☕ — ok? 👍',
  },
};

const summary: string[] = [];
{
  // The 1.2 reply by name: `device()` is the latest version (extensions: true).
  const { transport, lines } = recorder(SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { extensions: '1.2', warn: () => {} }));
  await new MinaLedgerApp(transport).getCapabilities();
  writeFileSync(new URL('extension-get-capabilities-1.2.apdu', FIXTURES), `${lines.join('\n')}\n`);
}
for (const [name, v] of Object.entries(vectors)) {
  const { transport, lines } = recorder(device());
  const { what, ...request } = v;
  const signature = await new MinaLedgerApp(transport).signText(request);
  const expected = new Client({ network: request.networkId === 1 ? 'mainnet' : 'testnet' }).signMessage(request.message, keyOf(0));
  if (signature.field !== expected.signature.field || signature.scalar !== expected.signature.scalar) {
    throw new Error(`${name}: the device's signature is not mina-signer's signMessage signature`);
  }
  writeFileSync(new URL(`extension-sign-text-${name}.apdu`, FIXTURES), `${lines.join('\n')}\n`);
  writeFileSync(new URL(`extension-sign-text-${name}.json`, FIXTURES), `${JSON.stringify({ what, ...request }, null, 2)}\n`);
  summary.push(`${name}: ${new TextEncoder().encode(request.message).length} bytes of text in ${lines.length / 2} APDUs`);
}
console.log(summary.join('\n'));
