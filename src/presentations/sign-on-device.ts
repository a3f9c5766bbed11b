/**
 * The device stage of a presentation: the owner's signature over the prepared message fields, made on the Ledger and
 * verified on the host before anything is proved. Testnet domain, which is what mina-attestations verifies on every
 * network. With the extension's SIGN_PRESENTATION (1.1) the device shows the verifier and what is revealed and
 * computes the context itself; else SIGN_FIELDS, blind.
 */
import { signatureToBase58 } from '../apdu/signature.js';
import type { PresentationToSign } from '../apdu/extension.js';
import { ErrorCode, ProviderError } from '../errors/provider-error.js';
import type { AttestationsModules } from '../upstream/attestations.js';
import type { PresentationContext } from './context.js';
import type { ContextParts, Prepared } from './presentation-worker.js';
import type { ValidRequest } from './validate.js';

type O1js = AttestationsModules['o1js'];

/** Asks the device for the owner signature of `prepared`; resolves with it (base58) once it verifies. */
export async function signOnDevice(ctx: PresentationContext, o1js: O1js, request: ValidRequest, prepared: Prepared): Promise<string> {
  ctx.signal?.throwIfAborted(); // before the device step
  const fields = prepared.messageFields.map((f: string) => BigInt(f));
  const inClear = ctx.clearSigning ? toSign(ctx.accountIndex, request, fields, prepared.context, o1js) : undefined;
  const raw = inClear ? await signInClear(ctx, inClear, fields[0]) : await signBlind(ctx, fields);
  const signatureBase58 = signatureToBase58(raw);
  const signature = o1js.Signature.fromBase58(signatureBase58);
  const owner = o1js.PublicKey.fromBase58(ctx.address);
  const message = fields.map((f) => o1js.Field(f));
  if (!signature.verify(owner, message).toBoolean()) {
    throw new ProviderError(ErrorCode.Internal, { reason: 'the Ledger returned an owner signature that does not verify' });
  }
  return signatureBase58;
}

/** SIGN_PRESENTATION: the device shows the verifier and computes the context, which must be the host's (`context`). */
async function signInClear(ctx: PresentationContext, presentation: PresentationToSign, context: bigint | undefined) {
  const reply = await ctx.withDevice((app) => {
    ctx.onConfirm?.('Check the verifier and what is shared on your Ledger, and approve');
    return app.signPresentation(presentation, { signal: ctx.signal });
  });
  // The device computed the context from what it showed; it must be the one the proof will carry.
  if (reply.context !== context) {
    throw new ProviderError(ErrorCode.Internal, {
      reason: 'the Ledger computed another presentation context than the host: it did not sign for this verifier',
    });
  }
  return { field: reply.r.toString(), scalar: reply.s.toString() };
}

/** SIGN_FIELDS: blind (the device shows a digest of the fields), behind the app's Blind signing setting. */
function signBlind(ctx: PresentationContext, fields: bigint[]) {
  return ctx.withDevice((app) => {
    ctx.onConfirm?.('Blind-sign the presentation on your Ledger (it shows a digest of the fields) and approve');
    return app.signFields(ctx.accountIndex, fields, 'testnet', { signal: ctx.signal });
  });
}

/**
 * SIGN_PRESENTATION's request: the verifier (the page's origin for https, the zkApp for zk-app requests, none), the
 * context parts the device hashes with the text it shows, the credentials' hashes and issuers, and a description of
 * what the presentation reveals. Undefined where the device cannot compute the context (a zkApp on a custom network):
 * the owner signature is then SIGN_FIELDS, blind.
 */
function toSign(
  account: number,
  { type, json, verifierIdentity, reveals }: ValidRequest,
  fields: bigint[],
  parts: ContextParts | undefined,
  o1js: O1js,
): PresentationToSign | undefined {
  const credentials = [];
  for (let i = 1; i + 1 < fields.length; i += 2) credentials.push({ hash: fields[i]!, issuer: fields[i + 1]! });
  const base = { account, credentials, reveals, vkHash: 0n, claimsHash: 0n, serverNonce: 0n, clientNonce: 0n, action: '' };
  if (type === 'no-context' || parts === undefined) return { ...base, verifier: { type: 'no-context' } };
  const action = String((json.inputContext as { action?: unknown } | undefined)?.action ?? '');
  const common = {
    ...base,
    vkHash: BigInt(parts.vkHash),
    claimsHash: BigInt(parts.claimsHash),
    serverNonce: BigInt(parts.serverNonce),
    clientNonce: BigInt(parts.clientNonce),
    action,
  };
  if (type === 'https') return { ...common, verifier: { type: 'https', origin: verifierIdentity ?? '' } };
  const zkapp = parts.zkapp;
  if (!zkapp || (zkapp.network !== 'mainnet' && zkapp.network !== 'devnet')) return undefined;
  const pk = o1js.PublicKey.fromBase58(zkapp.publicKey);
  return {
    ...common,
    verifier: {
      type: 'zk-app',
      network: zkapp.network,
      publicKey: { x: pk.x.toBigInt(), isOdd: pk.isOdd.toBoolean() },
      tokenId: BigInt(zkapp.tokenId),
    },
  };
}
