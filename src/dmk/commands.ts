/**
 * The Mina app's single-exchange commands as DMK commands (`getApdu` / `parseResponse`), for `dmk.sendCommand` and
 * for tasks of one's own: each is its row of src/device/commands.ts, the one `MinaLedgerApp` and the signer kit run.
 * The row's encoder checks the arguments (a bad one throws `LedgerInputError` from the constructor, before anything
 * is sent) and its decoder the reply; a status word becomes the same error `MinaLedgerApp` throws, carried by a
 * `MinaAppError`. A DMK command is one exchange, so the row's version gate is not run here: `SignMessageCommand`
 * takes the app version its reply is checked against. The chunked extension instructions (0xA1–0xA5) and the
 * version-gated flows are the signer's device actions (signer.ts).
 */
import type { Apdu, ApduResponse, Command, CommandResult } from '@ledgerhq/device-management-kit';
import type { AccountOrPath } from '../apdu/arguments.js';
import type { ApduRequest, NetworkId, PaymentOrDelegation } from '../apdu/codec.js';
import { CLA, SW_OK } from '../apdu/constants.js';
import { isLedgerError, statusToError } from '../apdu/errors.js';
import { parseVersion, type AppVersion } from '../apdu/version.js';
import { commandRow, type CommandArgs, type CommandContext, type CommandDefinition, type CommandOutput } from '../device/commands.js';
import { MinaAppError } from './errors.js';
import { kit } from './kit.js';

/** The rows that are one exchange. */
type SingleExchange = 'getAppVersion' | 'getCapabilities' | 'getAddress' | 'signTransaction' | 'signMessage' | 'signFieldElement';

/** A row of the command table as a DMK `Command`. Its failure is DMK's `DeviceExchangeError` shape: a `MinaAppError`. */
abstract class MinaCommand<N extends SingleExchange> implements Command<CommandOutput<N>, void, string> {
  abstract readonly name: string;
  readonly #request: ApduRequest;
  readonly #row: CommandDefinition<CommandArgs<N>, CommandOutput<N>>;
  readonly #context: CommandContext<CommandArgs<N>>;

  constructor(command: N, args: CommandArgs<N>, version?: AppVersion) {
    this.#row = commandRow(command);
    [this.#request] = this.#row.encode(...args) as [ApduRequest];
    this.#context = { args, version };
  }

  getApdu(): Apdu {
    const { ins, p1, p2, data } = this.#request;
    return new kit.ApduBuilder({ cla: CLA, ins, p1, p2 }).addBufferToData(data).build();
  }

  parseResponse(response: ApduResponse): CommandResult<CommandOutput<N>, string> {
    const statusCode = (response.statusCode[0]! << 8) | response.statusCode[1]!;
    try {
      return kit.CommandResultFactory<CommandOutput<N>, string>({ data: this.#decode(statusCode, response.data) });
    } catch (error) {
      if (!isLedgerError(error)) throw error;
      const failure = new MinaAppError(error, statusCode) as MinaAppError & { errorCode: string };
      return kit.CommandResultFactory<CommandOutput<N>, string>({ error: failure });
    }
  }

  /** The reply data of a 0x9000 answer, decoded and checked; another status word as the row refuses it. */
  #decode(statusCode: number, data: Uint8Array): CommandOutput<N> {
    if (statusCode === SW_OK) return this.#row.decode(data, this.#context);
    const error = statusToError(statusCode, this.#request.ins);
    if (!this.#row.refused) throw error;
    return this.#row.refused(error, this.#context);
  }
}

/** INS 01: the Mina app's version. */
export class GetAppVersionCommand extends MinaCommand<'getAppVersion'> {
  readonly name = 'getMinaAppVersion';
  constructor() {
    super('getAppVersion', []);
  }
}

/** INS 02: the address and public key of an account, shown on the device with `checkOnDevice` (silent: app ≥ 1.4.1). */
export class GetAddressCommand extends MinaCommand<'getAddress'> {
  readonly name = 'getMinaAddress';
  constructor(readonly args: { account: AccountOrPath; checkOnDevice?: boolean }) {
    super('getAddress', [args.account, args]);
  }
}

/** INS 03: a payment or a stake delegation, reviewed in clear. */
export class SignTransactionCommand extends MinaCommand<'signTransaction'> {
  readonly name = 'signMinaTransaction';
  constructor(readonly args: { transaction: PaymentOrDelegation }) {
    super('signTransaction', [args.transaction]);
  }
}

/**
 * INS 05: a message. The reply is checked against the text the app version signs (`appVersion`, from
 * `GetAppVersionCommand`: 1.4.x signed other texts than later apps).
 */
export class SignMessageCommand extends MinaCommand<'signMessage'> {
  readonly name = 'signMinaMessage';
  constructor(readonly args: { account: AccountOrPath; message: string | Uint8Array; networkId: NetworkId; appVersion: string }) {
    super('signMessage', [args.account, args.message, args.networkId], parseVersion(args.appVersion));
  }
}

/** INS 06: one field element (blind signing); the echoed element must be the one sent. */
export class SignFieldElementCommand extends MinaCommand<'signFieldElement'> {
  readonly name = 'signMinaFieldElement';
  constructor(readonly args: { account: AccountOrPath; field: bigint; networkId: NetworkId }) {
    super('signFieldElement', [args.account, args.field, args.networkId]);
  }
}

/** GET_CAPABILITIES (0xA0): the chain-ledger protocol extension, or null when the app answers 0x6D00 (the released app). */
export class GetCapabilitiesCommand extends MinaCommand<'getCapabilities'> {
  readonly name = 'getMinaCapabilities';
  constructor() {
    super('getCapabilities', []);
  }
}
