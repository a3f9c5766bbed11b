/**
 * Field signing: Auro's `signFields` on the Ledger and `verifyFields` on the host.
 *
 * `signFields` signs with mina-signer's scheme (kimchi Schnorr over Poseidon of the fields, testnet domain on every
 * network, as mina-signer and o1js `Signature.verify` do): one field with INS 06 (app ≥ 1.6.0, blind signing, the
 * device shows the value; only with the integrator's `allowUnreviewedBlindSigning`, since that signature authorizes
 * any zkApp command with that commitment), several with the extension's SIGN_FIELDS. Every device signature is
 * verified here with mina-signer `verifyFields` before it is returned.
 */
import type { Capabilities } from '../device/capabilities.js';
import type { MessageContext } from './sign-message.js';
import { signatureToBase58 } from '../apdu/signature.js';
import { MAX_FIELDS } from '../apdu/extension.js';
import { minaSigners } from '../upstream/mina-signers.js';
import { ErrorCode, ProviderError } from '../errors/provider-error.js';

/** Fields one `signFields` call may sign: what SIGN_FIELDS takes in one request (more → 20006). */
export const MAX_SIGN_FIELDS = MAX_FIELDS;

export interface SignedFields {
  /** The message as given. */
  data: (string | number)[];
  publicKey: string;
  /** Base58, as mina-signer `signFields` and Auro return it. */
  signature: string;
}

/** What signing fields reads beyond a message's context: whether one field may be signed blind (INS 06). */
export interface SignFieldsContext extends MessageContext {
  /** The integrator's opt-in to blind signing nothing on the host reviews (a one-field signature authorizes zkApps). */
  allowUnreviewedBlindSigning?: boolean;
}

/** Why a one-field `signFields` is refused by default. */
export const ONE_FIELD_IS_BLIND =
  'one field is signed with INS 06, blind, and a signature over one field is exactly what authorizes a zkApp command (its commitment): refused unless the integrator accepts unreviewed blind signing (allowUnreviewedBlindSigning: true); two or more fields (SIGN_FIELDS of the chain-ledger extension) never verify as a transaction authorization';

/** What `verifyFields` checks: a base58 signature of `data` by `publicKey` (mina-signer's shape). */
export interface FieldsToVerify {
  publicKey: string;
  data: bigint[];
  signature: string;
}

/**
 * Why the connected device cannot sign `fields`, as the 20006 to refuse them with before the device is asked (the
 * provider checks it before the call waits for the device), or undefined: more fields than the device signs at once
 * (64, or fewer if it says so), one field on an app before 1.6.0 (no INS 06), several without SIGN_FIELDS.
 */
export function fieldsRefusal(capabilities: Capabilities, fields: readonly bigint[]): ProviderError | undefined {
  const unsupported = (reason: string) => new ProviderError(ErrorCode.MethodNotSupported, { reason });
  if (fields.length > MAX_SIGN_FIELDS) {
    return unsupported(
      `the Ledger signs at most ${MAX_SIGN_FIELDS} fields in one request (SIGN_FIELDS of the chain-ledger protocol extension); this message has ${fields.length}`,
    );
  }
  if (fields.length === 1) {
    return capabilities.signFieldElement
      ? undefined
      : unsupported(`Mina app ${capabilities.appVersion.version} cannot sign a field element: update it to 1.6.0 or newer (INS 06)`);
  }
  const extension = capabilities.extension;
  if (!extension?.signFields) {
    return unsupported(
      `Mina app ${capabilities.appVersion.version} signs one field element at most (INS 06): ${fields.length} fields need SIGN_FIELDS of the chain-ledger protocol extension`,
    );
  }
  if (fields.length > extension.maxFields) {
    return unsupported(
      `the Ledger signs at most ${extension.maxFields} fields in one request (SIGN_FIELDS); this message has ${fields.length}`,
    );
  }
  return undefined;
}

/**
 * Signs fields on the Ledger. One field: INS 06 with network id 0 (the testnet domain mina-signer's `signFields`
 * uses on every network), only with `allowUnreviewedBlindSigning` (its signature is a zkApp command's authorization,
 * and no host can review what one field means); several: extension SIGN_FIELDS, testnet domain. 20006 with the
 * reason when the device cannot sign them (`fieldsRefusal`), or one field is asked without the opt-in.
 */
export async function signFieldsOnLedger(
  ctx: SignFieldsContext,
  message: { fields: bigint[]; given: (string | number)[] },
): Promise<SignedFields> {
  const { app, accountIndex, address, capabilities, signal } = ctx;
  const { fields, given } = message;
  const refusal = fieldsRefusal(capabilities, fields);
  if (refusal) throw refusal;
  let signature: { field: string; scalar: string };
  if (fields.length === 1) {
    // One field is what INS 06 signs for a zkApp command: its signature authorizes any command with that commitment.
    if (ctx.allowUnreviewedBlindSigning !== true) {
      throw new ProviderError(ErrorCode.MethodNotSupported, { reason: ONE_FIELD_IS_BLIND });
    }
    ctx.onConfirm?.('Blind-sign the field element on your Ledger (it shows the value as 64 hex digits)');
    signature = await app.signFieldElement(accountIndex, fields[0]!, 0, { signal });
  } else {
    ctx.onConfirm?.('Review the fields on your Ledger and approve');
    signature = await app.signFields(accountIndex, fields, 'testnet', { signal });
  }
  const result: SignedFields = { data: [...given], publicKey: address, signature: signatureToBase58(signature) };
  const signers = await minaSigners();
  if (!signers.testnet.verifyFields({ data: fields, publicKey: address, signature: result.signature })) {
    throw new ProviderError(ErrorCode.Internal, { reason: 'the Ledger returned a fields signature that does not verify for this account' });
  }
  return result;
}

/** mina-signer `verifyFields` (testnet domain, as `signFields`); false for a signature that is not base58 or does not verify. */
export async function verifyFields(args: FieldsToVerify): Promise<boolean> {
  const signers = await minaSigners();
  try {
    return signers.testnet.verifyFields({ data: args.data, publicKey: args.publicKey, signature: args.signature });
  } catch {
    return false;
  }
}
