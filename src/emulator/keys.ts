/**
 * Key derivation exactly as the Mina app does it (src/crypto.c): BIP39 seed → secp256k1 BIP32 at
 * m/44'/12586'/account'/0/0 → clear the top two bits of the first byte → Pallas scalar.
 * The account is hardened by OR-ing 0x80000000, so N and N + 2^31 give the same key, as on the device.
 */
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { derivePublicKey } from './signer.js';
import { base58check, bytesToUintBE, concatBytes, uintToBytesLE } from '../apdu/bytes.js';
import { MINA_COIN_TYPE } from '../apdu/constants.js';

const HARDENED = 0x80000000;
const PRIVATE_KEY_VERSION = [0x5a, 0x01] as const;

export interface AccountKey {
  /** The Pallas scalar. */
  secret: bigint;
  /** mina-signer's base58 form ("EK…"). */
  privateKeyBase58: string;
  address: string;
}

/** Throws on an invalid English BIP39 mnemonic; never echoes the words. */
export function mnemonicToSeed(mnemonic: string, passphrase = ''): Uint8Array {
  const normalized = mnemonic.trim().split(/\s+/).join(' ');
  if (!validateMnemonic(normalized, wordlist)) throw new Error('SoftwareLedger: not a valid BIP39 mnemonic (English wordlist)');
  return mnemonicToSeedSync(normalized, passphrase);
}

export function derivationPath(account: number): string {
  return `44'/${MINA_COIN_TYPE}'/${account >>> 0}'/0/0`;
}

export function deriveAccountKey(root: HDKey, account: number): AccountKey {
  const node = root
    .deriveChild(HARDENED + 44)
    .deriveChild(HARDENED + MINA_COIN_TYPE)
    .deriveChild((account | HARDENED) >>> 0)
    .deriveChild(0)
    .deriveChild(0);
  const key = Uint8Array.from(node.privateKey!);
  key[0]! &= 0x3f;
  const secret = bytesToUintBE(key);
  key.fill(0);
  const privateKeyBase58 = base58check.encode(concatBytes(Uint8Array.from(PRIVATE_KEY_VERSION), uintToBytesLE(secret, 32)));
  return { secret, privateKeyBase58, address: derivePublicKey(privateKeyBase58) };
}

export function rootFromSeed(seed: Uint8Array): HDKey {
  return HDKey.fromMasterSeed(seed);
}
