/**
 * Two arguments every client of the Mina app takes in more than one form (`MinaLedgerApp` and the DMK signer kit
 * alike, src/device/commands.ts): an account, as its index or as Ledger's derivation-path string, and a message, as
 * text or as its UTF-8 bytes. Each is reduced here to the one form the codec encodes, or refused naming the field.
 */
import { checkAccountIndex } from './codec.js';
import { MAX_ACCOUNT } from './constants.js';
import { LedgerInputError } from './errors.js';

/**
 * An account of the Mina app: its index N (0 ≤ N < 2^31), or the derivation path `"44'/12586'/N'/0/0"` (an `m/`
 * before it is accepted). The app derives only m/44'/12586'/N'/0/0 and takes N alone (INS 02–06 and the extension
 * carry it as u32 BE), so every other path is one it cannot sign for, and is refused before anything is sent.
 */
export type AccountOrPath = number | string;

/** `44'/12586'/N'/0/0`, N in canonical decimal (no leading zero); the hardened marker is `'`, as Ledger's kits write it. */
const MINA_PATH = /^(?:m\/)?44'\/12586'\/(0|[1-9]\d{0,9})'\/0\/0$/;

/**
 * The account index of `account` (an index or a Mina derivation path).
 *
 * @throws `LedgerInputError` naming `field`: an index out of range, or a path the Mina app cannot sign for (named in
 *   the message).
 */
export function accountIndex(account: unknown, field = 'account'): number {
  if (typeof account !== 'string') return checkAccountIndex(account, field);
  const index = Number(MINA_PATH.exec(account)?.[1] ?? Number.NaN);
  if (!(index <= MAX_ACCOUNT)) {
    const shown = account.length > 64 ? `${JSON.stringify(account.slice(0, 64))}…` : JSON.stringify(account);
    throw new LedgerInputError(
      field,
      `the Mina app cannot sign for the path ${shown}: it signs for 44'/12586'/N'/0/0 only, with 0 ≤ N < 2^31 (or give N)`,
    );
  }
  return index;
}

/** Strict UTF-8 that keeps a leading byte-order mark: the text is exactly the bytes, or there is none. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A message given as text or as bytes, as text: bytes must be UTF-8 (what each signing instruction takes beyond
 * that, INS 05 printable ASCII and SIGN_TEXT any text without NUL, its encoder checks). Anything else (from
 * JavaScript) is returned as it is, for the encoder to refuse.
 *
 * @throws `LedgerInputError` (`field`) for bytes that are not UTF-8.
 */
export function messageText(message: string | Uint8Array, field = 'message'): string {
  if (typeof message === 'string' || !ArrayBuffer.isView(message)) return message;
  try {
    return strictUtf8.decode(message);
  } catch {
    throw new LedgerInputError(field, 'these bytes are not UTF-8 text, which is all the Mina app signs as a message');
  }
}
