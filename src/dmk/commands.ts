/**
 * The Mina app's single-exchange instructions as DMK commands (`getApdu` / `parseResponse`), for `dmk.sendCommand`
 * and for tasks of one's own. Each is built from the codec (src/apdu/codec.ts): the same encoder validates the
 * arguments (a bad one throws `LedgerInputError` from the constructor, before anything is sent) and the same decoder
 * checks the reply; a status word becomes the same error `MinaLedgerApp` throws, carried by a `MinaAppError`. The
 * chunked extension instructions (0xA1–0xA4) and the version-gated flows are the signer's device actions
 * (signer.ts), which run `MinaLedgerApp` itself.
 */
import type { Apdu, ApduResponse, Command, CommandResult } from '@ledgerhq/device-management-kit';
import {
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
  type ApduRequest,
  type NetworkId,
  type PaymentOrDelegation,
} from '../apdu/codec.js';
import { CLA, SW_OK } from '../apdu/constants.js';
import { isLedgerError, statusToError } from '../apdu/errors.js';
import { decodeCapabilities, encodeGetCapabilities, type ExtensionCapabilities } from '../apdu/extension.js';
import type { MinaSignature } from '../apdu/signature.js';
import { parseVersion, signedMessageText, supports, type AppVersion } from '../apdu/version.js';
import { MinaAppError } from './errors.js';
import { kit } from './kit.js';

/** A command's failure as DMK types it (a `DeviceExchangeError`): `MinaAppError` always has a status word here. */
type MinaCommandResult<Output> = CommandResult<Output, string>;

/** One request of the codec and the decoder of its reply, as a DMK `Command`. */
abstract class MinaCommand<Output> implements Command<Output, void, string> {
  abstract readonly name: string;
  readonly #request: ApduRequest;

  constructor(request: ApduRequest) {
    this.#request = request;
  }

  /** The reply data of a 0x9000 answer, decoded and checked (throws `LedgerReplyError` when malformed). */
  protected abstract decode(data: Uint8Array): Output;

  /** What a status word other than 0x9000 means for this command (default: the client's error for it). */
  protected refused(statusCode: number): Output {
    throw statusToError(statusCode, this.#request.ins);
  }

  getApdu(): Apdu {
    const { ins, p1, p2, data } = this.#request;
    return new kit.ApduBuilder({ cla: CLA, ins, p1, p2 }).addBufferToData(data).build();
  }

  parseResponse(response: ApduResponse): MinaCommandResult<Output> {
    const statusCode = (response.statusCode[0]! << 8) | response.statusCode[1]!;
    try {
      const data = statusCode === SW_OK ? this.decode(response.data) : this.refused(statusCode);
      return kit.CommandResultFactory<Output, string>({ data });
    } catch (error) {
      if (!isLedgerError(error)) throw error;
      const failure = new MinaAppError(error, statusCode) as MinaAppError & { errorCode: string };
      return kit.CommandResultFactory<Output, string>({ error: failure });
    }
  }
}

/** INS 01: the Mina app's version. */
export class GetAppVersionCommand extends MinaCommand<AppVersion> {
  readonly name = 'getMinaAppVersion';
  constructor() {
    super(encodeGetVersion());
  }
  protected decode(data: Uint8Array): AppVersion {
    return decodeVersion(data);
  }
}

/** INS 02: the address of account N, shown on the device with `checkOnDevice` (silent reads need app ≥ 1.4.1). */
export class GetAddressCommand extends MinaCommand<string> {
  readonly name = 'getMinaAddress';
  constructor(readonly args: { account: number; checkOnDevice?: boolean }) {
    super(encodeGetAddress(args.account, args.checkOnDevice === true));
  }
  protected decode(data: Uint8Array): string {
    return decodeAddressReply(data);
  }
}

/** INS 03: a payment or a stake delegation, reviewed in clear. */
export class SignTransactionCommand extends MinaCommand<MinaSignature> {
  readonly name = 'signMinaTransaction';
  constructor(readonly args: { transaction: PaymentOrDelegation }) {
    super(encodeSignTransaction(args.transaction));
  }
  protected decode(data: Uint8Array): MinaSignature {
    return decodeSignatureReply(data);
  }
}

/**
 * INS 05: a message. The reply is checked against the text the app version signs (`appVersion`, from
 * `GetAppVersionCommand`: 1.4.x signed other texts than later apps).
 */
export class SignMessageCommand extends MinaCommand<MinaSignature & { signedMessage: string }> {
  readonly name = 'signMinaMessage';
  readonly #version: AppVersion;
  constructor(readonly args: { account: number; message: string; networkId: NetworkId; appVersion: string }) {
    super(encodeSignMessage(args.account, args.message, args.networkId));
    this.#version = parseVersion(args.appVersion);
  }
  protected decode(data: Uint8Array): MinaSignature & { signedMessage: string } {
    return decodeSignMessageReply(data, signedMessageText(this.#version, this.args.message), supports(this.#version, 'echoedMessage'));
  }
}

/** INS 06: one field element (blind signing); the echoed element must be the one sent. */
export class SignFieldElementCommand extends MinaCommand<MinaSignature> {
  readonly name = 'signMinaFieldElement';
  constructor(readonly args: { account: number; field: bigint; networkId: NetworkId }) {
    super(encodeSignFieldElement(args.account, args.field, args.networkId));
  }
  protected decode(data: Uint8Array): MinaSignature {
    return decodeSignFieldReply(data, this.args.field);
  }
}

/** GET_CAPABILITIES (0xA0): the chain-ledger protocol extension, or null when the app answers 0x6D00 (the released app). */
export class GetCapabilitiesCommand extends MinaCommand<ExtensionCapabilities | null> {
  readonly name = 'getMinaCapabilities';
  constructor() {
    super(encodeGetCapabilities());
  }
  protected decode(data: Uint8Array): ExtensionCapabilities {
    return decodeCapabilities(data);
  }
  protected override refused(statusCode: number): ExtensionCapabilities | null {
    const error = statusToError(statusCode);
    if (error.name === 'LedgerUnsupportedInstructionError') return null;
    throw error;
  }
}
