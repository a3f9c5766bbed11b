/**
 * The device half of SIGN_PRESENTATION (extension INS 0xA4, docs/apdu-extensions.md), as the software Ledger runs it:
 * read who the verifier is and what the request asks, compute the presentation's context itself with mina-attestations'
 * own derivation (`HttpsRequest` / `ZkAppRequest` `deriveContext`: the verifier's identity and the action hashed from
 * the text the device shows), and sign `[context, credential hash, issuer, …]` (the owner signature mina-attestations
 * checks, testnet domain). The host cannot make it sign for another verifier than the one on screen.
 */
import { ByteReader, keyOf } from '../apdu/bytes.js';
import { displayTextProblem } from '../apdu/display-text.js';
import { MAX_PRESENTATION_CREDENTIALS, PRESENTATION_TYPES, ZKAPP_NETWORKS, type PresentationVerifier } from '../apdu/extension.js';
import { ZkappBodyError } from '../apdu/zkapp-body.js';
import { loadO1js } from '../upstream/o1js.js';
import type { PresentationView } from './review.js';

export interface DevicePresentation {
  account: number;
  view: PresentationView;
  /** The context the device computed (0 for a presentation bound to no verifier, as mina-attestations has it). */
  context: bigint;
  /** What the owner signature covers: the context, then each credential's hash and issuer. */
  fields: bigint[];
}

const malformed = (why: string): never => {
  throw new ZkappBodyError(`SIGN_PRESENTATION: ${why}`);
};

/** Parses the payload and computes the context; ZkappBodyError for anything malformed (→ 0x6802). */
export async function parsePresentationRequest(payload: Uint8Array): Promise<DevicePresentation> {
  const { account, parts, verifier, count, credentials, reveals } = readPresentationPayload(payload);
  const { context, shown } = await deriveContext(parts, verifier);
  return {
    account,
    view: { verifier: shown, action: parts?.action ?? '', credentials: count, reveals },
    context,
    fields: [context, ...credentials],
  };
}

/** The context's parts the host sends, and the action the device shows (absent for no-context requests). */
interface ContextInput {
  vkHash: bigint;
  claimsHash: bigint;
  serverNonce: bigint;
  clientNonce: bigint;
  action: string;
}

/** The payload's fields, in wire order, each text held to the device's text rule; the whole payload read. */
function readPresentationPayload(payload: Uint8Array) {
  const r = new ByteReader(payload, (message) => new ZkappBodyError(`SIGN_PRESENTATION: ${message}`));
  // A field ≥ p or text that is not UTF-8 fails as an overrun: "SIGN_PRESENTATION: field element ≥ p" / "…: text that is not UTF-8".
  // Every text is shown: a control character in it would not be shown as signed (the text rule, display-text.ts).
  const text = (what: string) => {
    const value = r.text();
    const problem = displayTextProblem(value);
    return problem ? malformed(`${what} ${problem}`) : value;
  };
  const account = r.u32be();
  const typeByte = r.u8();
  const type = keyOf(PRESENTATION_TYPES, typeByte);
  if (type === undefined) malformed(`type 0x${typeByte.toString(16)}`);
  let parts: ContextInput | undefined;
  let verifier: PresentationVerifier = { type: 'no-context' };
  if (type !== 'no-context') {
    parts = { vkHash: r.fieldLE(), claimsHash: r.fieldLE(), serverNonce: r.fieldLE(), clientNonce: r.fieldLE(), action: text('action') };
    if (type === 'https') verifier = { type, origin: text('origin') };
    else {
      const networkByte = r.u8();
      const network = keyOf(ZKAPP_NETWORKS, networkByte);
      if (network === undefined) malformed(`zkApp network 0x${networkByte.toString(16)}`);
      const x = r.fieldLE();
      const odd = r.u8();
      if (odd > 1) malformed('zkApp public key parity');
      verifier = { type: 'zk-app', network: network!, publicKey: { x, isOdd: odd === 1 }, tokenId: r.fieldLE() };
    }
  }
  const count = r.u8();
  if (count < 1 || count > MAX_PRESENTATION_CREDENTIALS) malformed(`${count} credentials`);
  const credentials = Array.from({ length: count }, () => [r.fieldLE(), r.fieldLE()] as const).flat();
  const reveals = text('reveals');
  r.end();
  return { account, parts, verifier, count, credentials, reveals };
}

/**
 * The context, computed by mina-attestations' own derivation from the verifier and the action the device shows, and
 * the verifier as the screen names it (0 and none for a request bound to no verifier).
 */
async function deriveContext(
  parts: ContextInput | undefined,
  verifier: PresentationVerifier,
): Promise<{ context: bigint; shown: PresentationView['verifier'] }> {
  const o1js = await loadO1js();
  const { HttpsRequest, ZkAppRequest } = await import('mina-attestations');
  const { Field, PublicKey, Bool, TokenId } = o1js;
  let context = 0n;
  let shown: PresentationView['verifier'] = { type: 'none' };
  if (parts === undefined) return { context, shown };
  const derived = { clientNonce: Field(parts.clientNonce), vkHash: Field(parts.vkHash), claims: Field(parts.claimsHash) };
  const input = { action: parts.action, serverNonce: Field(parts.serverNonce) };
  try {
    if (verifier.type === 'https') {
      // biome-ignore lint/suspicious/noExplicitAny: the request's spec and claims play no part in deriving the context.
      const request = HttpsRequest({} as any);
      context = request.deriveContext({ type: 'https', ...input }, { verifierIdentity: verifier.origin }, derived).toBigInt();
      shown = { type: 'https', origin: verifier.origin };
    } else if (verifier.type === 'zk-app') {
      const publicKey = PublicKey.from({ x: Field(verifier.publicKey.x), isOdd: Bool(verifier.publicKey.isOdd) });
      const identity = { publicKey, tokenId: Field(verifier.tokenId), network: verifier.network };
      // biome-ignore lint/suspicious/noExplicitAny: as above.
      const request = ZkAppRequest({} as any);
      context = request.deriveContext({ type: 'zk-app', ...input, verifierIdentity: identity }, undefined, derived).toBigInt();
      shown = {
        type: 'zk-app',
        address: publicKey.toBase58(),
        tokenId: verifier.tokenId === 1n ? 'MINA' : TokenId.toBase58(Field(verifier.tokenId)),
        network: verifier.network,
      };
    }
  } catch (error) {
    malformed(`the context cannot be derived: ${(error as Error)?.message ?? error}`);
  }
  return { context, shown };
}
