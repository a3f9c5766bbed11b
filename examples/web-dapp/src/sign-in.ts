/**
 * Sign in with the Ledger, as Auro's docs teach it (aurowallet/docs howto/sign-message.md and
 * verifymessage-in-server-side.md): the page writes its sign-in text (several lines, about 300 bytes: what signing
 * means, the terms, the address and the time), the wallet signs exactly that text (`signMessage`), and the page
 * checks the signature against **its own** text with mina-signer's `verifyMessage`, not against what came back. On a
 * Ledger with the chain-ledger extension (SIGN_TEXT) the device signs the text itself and the check passes; the
 * released Mina app signs at most 65 bytes ("Message : " + text), so the wallet refuses at once with 20006 and says
 * why.
 *
 * mina-signer (its browser build, ≈ 140 kB) is loaded on the first sign-in: a lazy chunk.
 */

/** The sign-in text, in the shape of Auro's docs (their test dapp's is 287 bytes). */
export function signInText(page: string, address: string, issuedAt: number): string {
  return `Click "Sign" to sign in to the chain-ledger example dapp. No password needed!

This request will not trigger a blockchain transaction or cost any gas fees.

I accept the Terms of Service: ${page}

address: ${address}
iat: ${issuedAt}`;
}

/** A signed message as the wallet returns it (`signMessage`). */
export interface SignedText {
  publicKey: string;
  data: string;
  signature: { field: string; scalar: string };
}

/**
 * Whether `signed` is `address`'s signature of exactly `text` on `networkID`'s signing domain, by mina-signer's
 * `verifyMessage` (devnet and the other test networks use the testnet domain).
 */
export async function verifySignIn(signed: SignedText, text: string, address: string, networkID: string | undefined): Promise<boolean> {
  const { default: Client } = await import('mina-signer');
  const client = new Client({ network: networkID === 'mina:mainnet' ? 'mainnet' : 'testnet' });
  return signed.publicKey === address && client.verifyMessage({ data: text, publicKey: address, signature: signed.signature });
}
