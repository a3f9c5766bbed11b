/**
 * Protocol constants of the Mina Ledger app (Zondax/ledger-mina v1.6.0, src/main.c and globals.h).
 * Byte layouts and status words: docs/apdu.md, which follows the app's C code.
 */

/** Every Mina app instruction uses this class byte; any other answers 0x6E00. */
export const CLA = 0xe0;

export const INS_GET_VERSION = 0x01;
export const INS_GET_ADDRESS = 0x02;
export const INS_SIGN_TX = 0x03;
/** Crypto self-test, compiled only into non-release builds (release apps answer 0x6D00). */
export const INS_TEST_CRYPTO = 0x04;
export const INS_SIGN_MESSAGE = 0x05;
export const INS_SIGN_FIELD_ELEMENT = 0x06;

/** BOLOS (OS-level) "get running app name and version", answered by the dashboard and by every app. */
export const CLA_BOLOS = 0xb0;
export const INS_BOLOS_APP_INFO = 0x01;

/** GET_ADDRESS P1 (≥ 1.4.1; older apps ignore P1 and always show the address). */
export const P1_SHOW_ADDRESS = 0x00;
export const P1_SILENT_ADDRESS = 0x01;

export const SW_OK = 0x9000;
/** The user rejected on the device; also "blind signing not enabled" dismissed on INS 06. */
export const SW_REJECTED = 0x6985;
/** Never emitted by a Mina app, but older clients treat it as "cancel", as do we. */
export const SW_CANCELLED = 0x6986;
/** INVALID_PARAMETER (0x6800 | SDK code 2): every validation failure inside the app. */
export const SW_INVALID_DATA = 0x6802;
export const SW_INS_NOT_SUPPORTED = 0x6d00;
/** Wrong CLA or Lc ≠ data length; from the dashboard also "no app open". */
export const SW_CLA_NOT_SUPPORTED = 0x6e00;
export const SW_APP_NOT_OPEN = 0x6e01;
export const SW_APP_NOT_OPEN_ALT = 0x6511;
export const SW_UNKNOWN_APDU = 0x6d02;
export const SW_EMPTY_APDU = 0x6982;
export const SW_LOCKED = 0x5515;
export const SW_USER_REFUSED_OS = 0x5501;

/** Short APDUs only: the app refuses anything longer than 5 + 255 bytes. */
export const MAX_APDU_DATA = 255;
export const MAX_APDU_LENGTH = 260;

/** SIGN_TX body: account u32, 2 × 55-char address, amount u64, fee u64, nonce u32, valid_until u32, memo 32, tag, network. */
export const SIGN_TX_BODY_LENGTH = 172;
export const ADDRESS_LENGTH = 55;
export const MEMO_MAX_BYTES = 32;
export const TX_TAG_PAYMENT = 0x00;
export const TX_TAG_DELEGATION = 0x04;
/** valid_until when the caller gives none: the largest global slot, as every client sends. */
export const VALID_UNTIL_NONE = 0xffffffff;

export const NETWORK_ID_TESTNET = 0;
export const NETWORK_ID_MAINNET = 1;

/** "Message : " — prefixed to INS 05 messages by app 1.4.2/1.4.3 and ≥ 1.4.5 before signing. */
export const MESSAGE_PREFIX = 'Message : ';
/** The random-oracle bit buffer holds 75 bytes, so the signed text must fit in 75 bytes. */
export const SIGNED_TEXT_MAX_BYTES = 75;

/** Pallas base field modulus p (field elements, signature r). */
export const PALLAS_P = 28948022309329048855892746252171976963363056481941560715954676764349967630337n;
/** Pallas scalar field modulus q (private keys, signature s). */
export const PALLAS_Q = 28948022309329048855892746252171976963363056481941647379679742748393362948097n;

/** Accounts are BIP32 indices hardened by the device itself: N and N + 2^31 would derive the same key. */
export const MAX_ACCOUNT = 0x7fffffff;
export const MAX_U32 = 0xffffffff;
export const MAX_U64 = 0xffffffffffffffffn;

/** Mina's SLIP-44 coin type. */
export const MINA_COIN_TYPE = 12586;
