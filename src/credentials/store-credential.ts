/**
 * chain_storePrivateCredential: validate a stored credential (mina-attestations' own schema, then its cryptography),
 * check that it belongs to the connected account, let the user approve it on the Ledger (a short message signed
 * with the extension's SIGN_TEXT, which shows the site asking, or with INS 05 on the released app, which cannot), and
 * keep it in the encrypted store.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import type { Capabilities } from '../device/capabilities.js';
import type { MinaLedgerApp } from '../device/client.js';
import { toHex, utf8 } from '../apdu/bytes.js';
import type { NetworkId } from '../apdu/codec.js';
import { ErrorCode, ProviderError, invalidParams } from '../errors/provider-error.js';
import { loadAttestations } from '#upstream/attestations';
import { safeParseWithoutStacks } from '../upstream/parse-without-stacks.js';
import { MAX_CREDENTIAL_BYTES, type CredentialStore } from './store.js';
import type { ReportProgress } from '../util/progress.js';

export interface CredentialContext {
  app: MinaLedgerApp;
  /** Runs a device step (prompts that belong together) holding the device; a step inside a step runs in it. */
  withDevice: <T>(step: (app: MinaLedgerApp) => Promise<T>) => Promise<T>;
  address: string;
  accountIndex: number;
  networkId: NetworkId;
  /** The site asking (the provider's bound origin): shown with the store approval where the device can show it. */
  origin: string;
  /** What the connected app can do: with SIGN_TEXT (extension 1.2) the approval names the site. */
  capabilities?: Capabilities;
  store: CredentialStore;
  /** The account's store secret, derived from the device (may ask the user once per connection). */
  storeSecret: () => Promise<Uint8Array>;
  signal?: AbortSignal;
  onConfirm?: (prompt: string) => void;
  /** Verifies a message signature (INS 05 or SIGN_TEXT) over the text the device signed. */
  verifyMessage: (signed: { field: string; scalar: string; signedMessage: string }) => boolean;
  /** Told at each stage of the call (docs/provider.md, `onProgress`). */
  progress?: ReportProgress;
}

/** zod issues from mina-attestations' schemas, as one 20003 naming the path under `prefix`. */
export function schemaError(prefix: string, issues: readonly { path: readonly PropertyKey[]; message: string }[]): ProviderError {
  const issue = issues[0];
  const path = (issue?.path ?? []).reduce<string>((p, k) => (typeof k === 'number' ? `${p}[${k}]` : `${p}.${String(k)}`), prefix);
  return invalidParams(path, issue?.message ?? 'does not match the schema');
}

const short = (address: string) => `${address.slice(0, 8)}..${address.slice(-4)}`;

/**
 * The 8 hex digits the device shows in the store and delete approvals of a credential ("Store credential
 * 1a2b3c4d from …"): the start of sha256 over its normalised JSON text. Shown on the device, so not a secret; what a
 * wallet records to tell which stored credential a site stored.
 */
export const credentialCode = (text: string): string => toHex(sha256(utf8.encode(text))).slice(0, 8);

export async function storePrivateCredential(ctx: CredentialContext, credential: Record<string, unknown>): Promise<{ credential: string }> {
  const { attestations, validation } = await loadAttestations();
  const parsed = safeParseWithoutStacks(validation.StoredCredentialSchema, credential);
  if (!parsed.success) throw schemaError('credential', parsed.error.issues);

  let stored: Awaited<ReturnType<typeof attestations.Credential.fromJSON>>;
  try {
    stored = await attestations.Credential.fromJSON(JSON.stringify(credential));
    if ((stored.witness as { type?: string } | undefined)?.type !== 'unsigned') await attestations.Credential.validate(stored);
  } catch (error) {
    throw invalidParams('credential', `the credential does not validate: ${(error as Error).message}`);
  }
  const owner = stored.credential.owner.toBase58();
  if (owner !== ctx.address) {
    throw invalidParams('credential.credential.owner', `the credential belongs to ${owner}, not to the connected account ${ctx.address}`);
  }
  const text = attestations.Credential.toJSON(stored);
  // Everything the store would refuse is refused here, before the user is asked to approve anything.
  if (utf8.encode(text).length > MAX_CREDENTIAL_BYTES) {
    throw invalidParams('credential', `at most ${MAX_CREDENTIAL_BYTES} bytes once normalised`);
  }

  // What the user approves: a short hash of the credential and its issuer, ≤ 65 printable ASCII characters.
  const witness = stored.witness as { type: string; issuer?: { toBase58(): string } };
  const issuer = witness.type === 'native' && witness.issuer ? short(witness.issuer.toBase58()) : witness.type;
  const approval = `Store credential ${credentialCode(text)} from ${issuer}`;
  // One device step: the approval, then (once per connection) the store key; the checks above and the store's write
  // below are host work, done without holding the device.
  const secret = await ctx.withDevice(async (app) => {
    ctx.onConfirm?.(`Approve storing the credential from ${ctx.origin} on your Ledger`);
    const signed = await signApproval(ctx, app, approval);
    if (!ctx.verifyMessage(signed)) {
      throw new ProviderError(ErrorCode.Internal, { reason: 'the Ledger returned an approval signature that does not verify' });
    }
    return ctx.storeSecret();
  });
  await ctx.store.add(ctx.address, secret, text);
  return { credential: text };
}

/**
 * The device's signature of `approval`: with SIGN_TEXT (extension 1.2) it shows "Requested by" and the site with the
 * text, and signs the text itself; the released app's INS 05 shows the text only (the wallet's panel names the site).
 */
async function signApproval(ctx: CredentialContext, app: MinaLedgerApp, approval: string) {
  const { accountIndex: account, networkId, origin, signal } = ctx;
  if (!ctx.capabilities?.extension?.signText) return app.signMessage(account, approval, networkId, { signal });
  return { ...(await app.signText({ account, networkId, origin, message: approval }, { signal })), signedMessage: approval };
}

/**
 * Host-side delete (see provider/credential-manager.ts): the user approves `Delete credential <8 hex>` on the
 * Ledger, the same hash the store approval showed, before the entry is removed. An absent id asks nothing.
 */
export async function deleteCredential(ctx: CredentialContext, id: string): Promise<boolean> {
  const secret = await ctx.storeSecret();
  const entry = (await ctx.store.list(ctx.address, secret)).find((e) => e.id === id);
  if (!entry) return false;
  const approval = `Delete credential ${credentialCode(entry.credential)}`;
  ctx.onConfirm?.('Approve deleting the credential on your Ledger');
  const signed = await ctx.app.signMessage(ctx.accountIndex, approval, ctx.networkId, { signal: ctx.signal });
  if (!ctx.verifyMessage(signed)) {
    throw new ProviderError(ErrorCode.Internal, { reason: 'the Ledger returned an approval signature that does not verify' });
  }
  return ctx.store.remove(ctx.address, secret, id);
}

/**
 * Host-side re-key (see provider/credential-manager.ts): the account's store re-encrypted under a fresh salt with
 * the secret the device re-derives (the store-key approval, once per connection). False if there is no store.
 * 20006 for a store without `rekey`, asked before the device.
 */
export async function rekeyCredentials(ctx: CredentialContext): Promise<boolean> {
  const { store } = ctx;
  if (typeof store.rekey !== 'function') {
    throw new ProviderError(ErrorCode.MethodNotSupported, { reason: 'this credential store cannot be re-keyed (it has no rekey method)' });
  }
  return store.rekey(ctx.address, await ctx.storeSecret());
}
