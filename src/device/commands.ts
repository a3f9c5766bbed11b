/**
 * The Mina app's commands, each defined once: the arguments it takes, the request it encodes (validating them
 * first), the app version or feature it needs, what the user does on the device meanwhile, what the reply decodes
 * to, and what a refusal of it means. `MinaLedgerApp` (./client.ts) and the DMK signer kit (src/dmk/signer.ts) are
 * two runners of this table (./command-runner.ts): a method of either is one line naming its command, so both
 * clients have the same names, argument types and errors, and a command is read here and nowhere else.
 *
 * Adding a command: a row here (its key is the method name), then a one-line method in `MinaLedgerApp` and, for a
 * command a DMK user signs with, in `SignerMina` (the kit's step `signer.mina.steps.<name>` follows from the key).
 */
import { accountIndex, messageText, type AccountOrPath } from '../apdu/arguments.js';
import { encodeStoreKey, type StoreKeyRequest } from '../apdu/store-key.js';
import {
  type ApduRequest,
  type NetworkId,
  type PaymentOrDelegation,
  decodeAddressReply,
  decodeSignFieldReply,
  decodeSignMessageReply,
  decodeSignatureReply,
  decodeVersion,
  encodeGetAddress,
  encodeGetVersion,
  encodeSignFieldElement,
  encodeSignMessage,
  encodeSignTransaction,
} from '../apdu/codec.js';
import { decodeAddress, type DecodedAddress } from '../apdu/address.js';
import { CLA_BOLOS } from '../apdu/constants.js';
import { LedgerAppNotOpenError, isLedgerError } from '../apdu/errors.js';
import {
  decodeCapabilities,
  decodeNullifierReply,
  decodePresentationReply,
  encodeCreateNullifier,
  encodeGetCapabilities,
  encodeSignFields,
  encodeSignPresentation,
  type DeviceNullifier,
  type ExtensionCapabilities,
  type PresentationToSign,
  type SignatureDomain,
} from '../apdu/extension.js';
import { DASHBOARD_NAME, RUNNING_APP_REQUEST, decodeRunningApp } from '../apdu/os.js';
import { encodeSignLongText, encodeSignText, type TextToSign } from '../apdu/sign-text.js';
import { decodeZkappSignaturesReply, encodeSignZkapp, type ZkappSignatures, type ZkappStream } from '../apdu/sign-zkapp.js';
import type { MinaSignature } from '../apdu/signature.js';
import { signedMessageText, supports, type AppVersion, type Feature } from '../apdu/version.js';

/** What the device asks of the user while a command runs (the values of DMK's `UserInteractionRequired`). */
export type DeviceInteraction = 'none' | 'verify-address' | 'sign-transaction' | 'sign-personal-message' | 'sign-typed-data';

/** The device while a command holds it. */
export interface CommandChannel {
  /** Sends one request (CLA 0xE0 unless `cla`); resolves the data of a 0x9000 reply, rejects with its Ledger error. */
  exchange(request: ApduRequest, cla?: number): Promise<Uint8Array>;
  /** The app's version (INS 01), read once per client. */
  version(): Promise<AppVersion>;
}

/** What a decoder knows: the command's arguments, and the app's version when the command reads it. */
export interface CommandContext<Args> {
  args: Args;
  version: AppVersion | undefined;
}

/** One command of the Mina app (or of the chain-ledger protocol extension). */
export interface CommandDefinition<Args extends readonly unknown[], Output> {
  /** What the user does on the device while it runs. */
  interaction: DeviceInteraction | ((...args: Args) => DeviceInteraction);
  /** The app feature it needs: the version is read and checked before it is sent (`LedgerAppVersionError`). */
  feature?: Feature | ((...args: Args) => Feature | undefined);
  /** Its decoder reads the app's version (it is read before the command is sent). */
  readsVersion?: true;
  /** Checks the arguments (`LedgerInputError` naming the field: nothing is sent) and encodes one request or chunks. */
  encode(...args: Args): ApduRequest[];
  /** Decodes and checks the reply to the last request (`LedgerReplyError` when it is malformed). */
  decode(reply: Uint8Array, context: CommandContext<Args>): Output;
  /** What a failure means for this command when it is an answer rather than an error (0x6D00 → null); else throws it. */
  refused?(error: unknown, context: CommandContext<Args>): Output;
  /** A clearer error for a failure, found by asking the device; undefined keeps the error. */
  diagnose?(error: unknown, channel: CommandChannel): Promise<unknown>;
}

/** An address with its public key: the address is the key's base58check form; `publicKey` is the point (x, isOdd). */
export interface MinaAddress {
  /** "B62q…", 55 characters. */
  address: string;
  /** The compressed point the address encodes, as o1js's `PublicKey.from({ x, isOdd })` and mina-signer take it. */
  publicKey: DecodedAddress;
}

/** The Mina app's version and what it can do. */
export interface MinaAppConfiguration {
  version: string;
  /** The chain-ledger protocol extension the app speaks; null on the released Mina app. */
  extension: ExtensionCapabilities | null;
  /**
   * Whether the app's "Blind signing" setting is on, where the device reports it. The Mina app has no instruction
   * that tells (1.6.0 and every earlier release), nor does the extension (up to 1.2), so it is absent today; INS 06
   * then answers 0x6985 for a setting that is off as for a rejection.
   */
  blindSigningEnabled?: boolean;
}

/** Whether the address is shown on the device for the user to approve, or read silently (app ≥ 1.4.1). */
export interface AddressOptions {
  /** Show the address on the device and wait for the user's approval (default false: read silently). */
  checkOnDevice?: boolean;
  /** The same as `checkOnDevice` (`MinaLedgerApp`'s first name for it). */
  display?: boolean;
}

/** A row, its argument and output types kept as written (`CommandArgs` and `CommandOutput` read them). */
const command = <Args extends readonly unknown[], Output>(definition: CommandDefinition<Args, Output>) => definition;

/** 0x6D00 (an app without the extension): null; any other failure is thrown. */
function withoutExtension(error: unknown): null {
  if (isLedgerError(error, 'LedgerUnsupportedInstructionError')) return null;
  throw error;
}

/**
 * The dashboard answers E0 01 with 0x9000 too (its OS version, src/apdu/os.ts): when the reply is not a Mina
 * version, B0 01 says what runs. `LedgerAppNotOpenError` naming it, or undefined when Mina runs or nobody says.
 */
async function otherAppThan(error: unknown, channel: CommandChannel): Promise<LedgerAppNotOpenError | undefined> {
  if (!isLedgerError(error, 'LedgerReplyError')) return undefined;
  let running: string;
  try {
    running = decodeRunningApp(await channel.exchange(RUNNING_APP_REQUEST, CLA_BOLOS)).name;
  } catch {
    return undefined;
  }
  if (running === 'Mina') return undefined;
  const what = running === DASHBOARD_NAME ? 'the dashboard is open' : `${JSON.stringify(running.slice(0, 32))} is open`;
  return new LedgerAppNotOpenError(`The Mina app is not open (${what}): open it on the device`);
}

const shown = (options: AddressOptions) => options.checkOnDevice === true || options.display === true;

/** Every command, by the method name both clients give it. */
export const COMMANDS = {
  /** INS 01: the app's version. */
  getAppVersion: command<[], AppVersion>({
    interaction: 'none',
    encode: () => [encodeGetVersion()],
    decode: (reply) => decodeVersion(reply),
    diagnose: otherAppThan,
  }),
  /** INS 01 and GET_CAPABILITIES (0xA0): the version and the extension, without asking the user. */
  getAppConfiguration: command<[], MinaAppConfiguration>({
    interaction: 'none',
    readsVersion: true,
    encode: () => [encodeGetCapabilities()],
    decode: (reply, { version }) => ({ version: version!.version, extension: decodeCapabilities(reply) }),
    refused: (error, { version }) => ({ version: version!.version, extension: withoutExtension(error) }),
  }),
  /** GET_CAPABILITIES (0xA0): the extension, or null when the app answers 0x6D00 (the released app). */
  getCapabilities: command<[], ExtensionCapabilities | null>({
    interaction: 'none',
    encode: () => [encodeGetCapabilities()],
    decode: (reply) => decodeCapabilities(reply),
    refused: withoutExtension,
  }),
  /** INS 02: the address of an account, shown on the device with `checkOnDevice`. */
  getAddress: command<[account: AccountOrPath, options: AddressOptions], MinaAddress>({
    interaction: (_, options) => (shown(options) ? 'verify-address' : 'none'),
    // Apps before 1.4.1 ignore P1 and always ask the user: a "silent" read is refused rather than surprise them.
    feature: (_, options) => (shown(options) ? undefined : 'silentAddress'),
    encode: (account, options) => [encodeGetAddress(accountIndex(account), shown(options))],
    decode: (reply) => {
      const address = decodeAddressReply(reply);
      return { address, publicKey: decodeAddress(address) as DecodedAddress }; // the decoder checked it
    },
  }),
  /** INS 03: a payment or a stake delegation, reviewed in clear. */
  signTransaction: command<[tx: PaymentOrDelegation], MinaSignature>({
    interaction: 'sign-transaction',
    encode: (tx) => [encodeSignTransaction(tx)],
    decode: (reply) => decodeSignatureReply(reply),
  }),
  /** INS 05 (≥ 1.4.0): a message; the reply must carry the text this app version signs. */
  signMessage: command<
    [account: AccountOrPath, message: string | Uint8Array, networkId: NetworkId],
    MinaSignature & { signedMessage: string }
  >({
    interaction: 'sign-personal-message',
    feature: 'signMessage',
    encode: (account, message, networkId) => [encodeSignMessage(accountIndex(account), messageText(message), networkId)],
    decode: (reply, { args: [, message], version }) =>
      decodeSignMessageReply(reply, signedMessageText(version!, messageText(message)), supports(version!, 'echoedMessage')),
  }),
  /** INS 06 (≥ 1.6.0): one field element, blind; the echoed element must be the one sent. */
  signFieldElement: command<[account: AccountOrPath, field: bigint, networkId: NetworkId], MinaSignature>({
    interaction: 'sign-transaction',
    feature: 'signFieldElement',
    encode: (account, field, networkId) => [encodeSignFieldElement(accountIndex(account), field, networkId)],
    decode: (reply, { args: [, field] }) => decodeSignFieldReply(reply, field),
  }),
  /** SIGN_FIELDS (0xA1, extension): 2–64 field elements. */
  signFields: command<[account: AccountOrPath, fields: bigint[], domain: SignatureDomain], MinaSignature>({
    interaction: 'sign-typed-data',
    encode: (account, fields, domain) => encodeSignFields(accountIndex(account), fields, domain),
    decode: (reply) => decodeSignatureReply(reply),
  }),
  /** CREATE_NULLIFIER (0xA2, extension): the nullifier and its proof values (the caller verifies them). */
  createNullifier: command<[account: AccountOrPath, fields: bigint[], origin: string | undefined], DeviceNullifier>({
    interaction: 'sign-typed-data',
    encode: (account, fields, origin) => encodeCreateNullifier(accountIndex(account), fields, origin),
    decode: (reply) => decodeNullifierReply(reply),
  }),
  /** SIGN_ZKAPP (0xA3, extension 1.1): a zkApp command in clear (the caller compares the commitments, verifies). */
  signZkapp: command<[stream: ZkappStream], ZkappSignatures>({
    interaction: 'sign-transaction',
    encode: (stream) => encodeSignZkapp(stream),
    decode: (reply) => decodeZkappSignaturesReply(reply),
  }),
  /** SIGN_PRESENTATION (0xA4, extension 1.1): the owner signature and the context the device computed. */
  signPresentation: command<[presentation: PresentationToSign], { context: bigint; r: bigint; s: bigint }>({
    interaction: 'sign-typed-data',
    encode: (presentation) => encodeSignPresentation(presentation),
    decode: (reply) => decodePresentationReply(reply),
  }),
  /** SIGN_TEXT (0xA5, extension 1.2): a message of up to 1024 bytes of UTF-8, signed as mina-signer signs it. */
  signText: command<[text: TextToSign], MinaSignature>({
    interaction: 'sign-personal-message',
    encode: (text) => encodeSignText(text),
    decode: (reply) => decodeSignatureReply(reply),
  }),
  /**
   * SIGN_TEXT with a long text (0xA5, extension 1.4): up to 16 KiB, paged on the device or, past what a person pages
   * through, shown as its hash behind Blind signing; signed as mina-signer signs it. `MinaLedgerApp` only, for now.
   */
  signLongText: command<[text: TextToSign], MinaSignature>({
    interaction: 'sign-personal-message',
    encode: (text) => encodeSignLongText(text),
    decode: (reply) => decodeSignatureReply(reply),
  }),
  /** STORE_KEY (extension 1.3): the credential store's key, the site asking shown; never a DMK kit method (its log). */
  storeKey: command<[request: StoreKeyRequest], MinaSignature>({
    interaction: 'sign-personal-message',
    encode: (request) => encodeStoreKey(request),
    decode: (reply) => decodeSignatureReply(reply),
  }),
} as const;

/** The name of a command: the method that runs it on `MinaLedgerApp` (and on the DMK signer kit). */
export type CommandName = keyof typeof COMMANDS;
/** What command `N` takes. */
export type CommandArgs<N extends CommandName> = (typeof COMMANDS)[N] extends CommandDefinition<infer A, unknown> ? A : never;
/** What command `N` resolves. */
export type CommandOutput<N extends CommandName> = ReturnType<(typeof COMMANDS)[N]['decode']>;

/** The row of command `name`, typed by its name (the table's rows differ in type, so the lookup needs this one cast). */
export function commandRow<N extends CommandName>(name: N): CommandDefinition<CommandArgs<N>, CommandOutput<N>> {
  return COMMANDS[name] as unknown as CommandDefinition<CommandArgs<N>, CommandOutput<N>>;
}
