/**
 * chain-ledger's structural `ApduTransport` over one way of sending raw APDUs through Ledger's Device Management
 * Kit: a device action's `internalApi.sendApdu` (inside a task: the signer kit, `DmkTransport.runTask`) or
 * `dmk.sendApdu` (outside one). So the commands of src/device/commands.ts — their validation, version gates,
 * chunking and reply checks — run unchanged on any DMK transport.
 *
 * DMK logs every APDU and its reply to the loggers given to `addLogger`, at `LogLevel.Debug` (its `ConsoleLogger`'s
 * default), and one reply must never be logged: the credential store's key (src/apdu/store-key.ts). No DMK path
 * escapes that log, so the store-key request is refused here, before it is sent, unless the integrator stated that
 * no debug logger is attached (`noDebugLogger`).
 */
import type { ApduResponse, DmkError, InternalApi } from '@ledgerhq/device-management-kit';
import { concatBytes } from '../apdu/bytes.js';
import { SW_OK } from '../apdu/constants.js';
import { LedgerInputError, formatStatusWord } from '../apdu/errors.js';
import { isStoreKeyRequest } from '../apdu/store-key.js';
import type { AppVersion } from '../apdu/version.js';
import { channelOver, prepareCommand } from '../device/command-runner.js';
import type { CommandChannel } from '../device/commands.js';
import type { ApduTransport } from '../transport/types.js';
import { toLedgerErrorFromDmk } from './errors.js';

/** Sends one raw APDU (CLA INS P1 P2 Lc data) and resolves DMK's reply, or rejects with a DMK error. */
export type SendRawApdu = (apdu: Uint8Array) => Promise<ApduResponse>;

/** Why a DMK session without `noDebugLogger` does not carry the store-key request: the reason pages and callers get. */
export const DMK_STORE_KEY_REFUSAL =
  "Ledger's Device Management Kit logs every APDU reply at LogLevel.Debug, and this one would be the credential store key: pass noDebugLogger: true (DmkTransport, SignerMinaBuilder) once no logger at debug level is added to the kit (addLogger)";

/** The error a `send` rejects with when the status word is not in its list, shaped as `@ledgerhq/hw-transport`'s. */
class TransportStatusError extends Error {
  override readonly name = 'TransportStatusError';
  constructor(readonly statusCode: number) {
    super(`Ledger device: status ${formatStatusWord(statusCode)}`);
  }
}

/**
 * The `ApduTransport.send` contract over `sendRaw`: Lc always written, reply data ‖ status word, the list checked.
 * A store-key request is refused before it is sent (`LedgerInputError`, field `message`) while `storeKeyRefusal`
 * gives a reason.
 */
export function sendOver(sendRaw: SendRawApdu, storeKeyRefusal: () => string | undefined): ApduTransport['send'] {
  return async (cla, ins, p1, p2, data = new Uint8Array(0), statusList = [SW_OK]) => {
    const apdu = concatBytes(Uint8Array.of(cla, ins, p1, p2, data.length), data);
    const refusal = isStoreKeyRequest(apdu) ? storeKeyRefusal() : undefined;
    if (refusal !== undefined) throw new LedgerInputError('message', refusal);
    let response: ApduResponse;
    try {
      response = await sendRaw(apdu);
    } catch (error) {
      throw toLedgerErrorFromDmk(error);
    }
    const reply = concatBytes(response.data, response.statusCode);
    const statusCode = (response.statusCode[0]! << 8) | response.statusCode[1]!;
    if (!statusList.includes(statusCode)) throw new TransportStatusError(statusCode);
    return reply;
  };
}

/** `sendRaw` of a device action's internal API, whose `sendApdu` resolves an Either instead of rejecting. */
export function internalSendRaw(api: InternalApi): SendRawApdu {
  return async (apdu) =>
    (await api.sendApdu(apdu)).caseOf<ApduResponse>({
      Left: (error: DmkError) => {
        throw error;
      },
      Right: (response) => response,
    });
}

/** An `ApduTransport` inside a device action (a task of `CallTaskInAppDeviceAction`), store-key requests refused. */
export function internalApiTransport(api: InternalApi): ApduTransport {
  return { send: sendOver(internalSendRaw(api), () => DMK_STORE_KEY_REFUSAL) };
}

/** A command channel inside a device action; the app version is read (once) on it when a command's gate needs it. */
export function internalApiChannel(api: InternalApi, storeKeyRefusal: () => string | undefined): CommandChannel {
  let version: Promise<AppVersion> | undefined;
  const channel = channelOver(sendOver(internalSendRaw(api), storeKeyRefusal), () => {
    version ??= prepareCommand('getAppVersion').run(channel);
    return version;
  });
  return channel;
}
