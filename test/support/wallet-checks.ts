/**
 * What the e2e test (test/e2e/web-dapp.browser.test.ts) checks outside the pages: results verified in Node with the
 * libraries a verifier uses (mina-signer for both eras, o1js, mina-attestations), the device screen drawn in Node
 * and the one the wallet drew, what the hostile script and the wallet probe recorded, the store key's secrets as the
 * device gives them, and small reads of a page's state (its IndexedDB names, the HID shim's counts).
 */
import { createHash } from 'node:crypto';
import ClientMesa from 'mina-signer';
import ClientBerkeley from 'mina-signer-berkeley';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { MinaLedgerApp, signatureToRawHex } from '../../src/apdu.js';
import { STORE_KEY_MESSAGE } from '../../src/apdu/store-key.js';
import { SoftwareLedger, TEST_MNEMONIC, renderScreen, reviewArrows, type Review } from '../../src/emulator.js';
import type { HostileLog, WalletProbeLog } from './hostile.js';

export const verifiers = { berkeley: new ClientBerkeley({ network: 'devnet' }), mesa: new ClientMesa({ network: 'devnet' }) };

/** mina-signer's `verifyZkappCommand` (the era's) on a sendTransaction result's `signedData`. */
export function verifySignedData(era: 'berkeley' | 'mesa', signedData: string, publicKey: string): boolean {
  const data = JSON.parse(signedData);
  return verifiers[era].verifyZkappCommand({ data, publicKey, signature: data.zkappCommand.feePayer.authorization });
}

/** A createNullifier result: its data is the message, and o1js's `Nullifier.verify` accepts it for that message. */
export async function verifyNullifier(json: unknown, message: string[]): Promise<void> {
  const { Field, Nullifier } = await import('o1js');
  const { data, ...nullifier } = json as { data: unknown };
  expect(data).toEqual(message);
  Nullifier.fromJSON(nullifier as never).verify(message.map((m) => Field(m))); // throws if it does not verify
}

/** mina-attestations' `Presentation.verify` of an https presentation for `verifierIdentity`: its output claim. */
export async function verifyPresentation(requestJson: string, presentationJson: string, verifierIdentity: string): Promise<unknown> {
  const { Presentation, PresentationRequest } = await import('mina-attestations');
  return Presentation.verify(PresentationRequest.fromJSON('https', requestJson), Presentation.fromJSON(presentationJson), {
    verifierIdentity,
  });
}

/** The first screen of the address review (account 0, shown on the device), as renderScreen draws it in Node. */
export async function firstAddressScreen(): Promise<string> {
  let review: Review | undefined;
  const ledger = SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { warn: () => {}, approve: (r) => ((review = r), true) });
  await new MinaLedgerApp(ledger).getAddress(0, { display: true });
  return renderScreen(review!.screens[0]!, reviewArrows(review!)[0]).pixels.join('');
}

/** The wallet's device canvas read back as 128 × 64 bits (each device pixel's centre), and whether its scale is whole. */
export const canvasBits = (popup: Page) =>
  popup.evaluate(() => {
    const canvas = document.getElementById('device-screen') as HTMLCanvasElement;
    const scale = canvas.width / 128;
    const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
    let bits = '';
    for (let y = 0; y < 64; y++) {
      for (let x = 0; x < 128; x++) {
        const i = (Math.floor((y + 0.5) * scale) * canvas.width + Math.floor((x + 0.5) * scale)) * 4;
        bits += data[i]! > 128 ? '1' : '0';
      }
    }
    return { integerScale: Number.isInteger(scale) && canvas.height === 64 * scale, bits };
  });

/** What the hostile script in a dapp page recorded. */
export const hostileLog = (page: Page) => page.evaluate(() => (window as unknown as { __hostile: HostileLog }).__hostile);
/** What the wallet probe saw in a wallet page: the raw keys WebCrypto imported, the plaintexts it decrypted. */
export const probeLog = (popup: Page) => popup.evaluate(() => (window as unknown as { __walletProbe: WalletProbeLog }).__walletProbe);

/**
 * The store key as the device gives it, from a fresh software Ledger of the test mnemonic (the signature is
 * deterministic): the signature's field and scalar, its raw hex, and the store secret derived from it.
 */
export async function storeKeySecrets(): Promise<string[]> {
  const signed = await new MinaLedgerApp(SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { warn: () => {} })).signMessage(
    0,
    STORE_KEY_MESSAGE,
    1,
  );
  const rawSignature = signatureToRawHex({ field: signed.field, scalar: signed.scalar });
  const storeSecret = createHash('sha256').update(Buffer.from(rawSignature, 'hex')).digest('hex');
  return [signed.field, signed.scalar, rawSignature, storeSecret];
}

/** The names of the IndexedDB databases of a page's origin. */
export const databases = (page: Page) => page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name).sort());

/** The HID shim's counts in a wallet window: its chooser and getDevices calls, and the malformed reports it saw. */
export const hidWire = (popup: Page) =>
  popup.evaluate(() => ({ calls: window.__hidShim!.calls, errors: window.__hidShim!.protocolErrors.length }));
