/**
 * chain-ledger's structural `ApduTransport` over one way of sending raw APDUs through Ledger's Device Management
 * Kit: a device action's `internalApi.sendApdu` (inside a task: the signer kit) or `dmk.sendApdu` (outside one). So
 * `MinaLedgerApp` — its validation, version gates, chunking and reply checks — runs unchanged on any DMK transport.
 */
import type { ApduResponse, DmkError, InternalApi } from '@ledgerhq/device-management-kit';
import { concatBytes } from '../apdu/bytes.js';
import { SW_OK } from '../apdu/constants.js';
import type { ApduTransport } from '../transport/types.js';
import { toLedgerErrorFromDmk } from './errors.js';

/** Sends one raw APDU (CLA INS P1 P2 Lc data) and resolves DMK's reply, or rejects with a DMK error. */
export type SendRawApdu = (apdu: Uint8Array) => Promise<ApduResponse>;

/** The error a `send` rejects with when the status word is not in its list, shaped as `@ledgerhq/hw-transport`'s. */
class TransportStatusError extends Error {
  override readonly name = 'TransportStatusError';
  constructor(readonly statusCode: number) {
    super(`Ledger device: status 0x${statusCode.toString(16).padStart(4, '0')}`);
  }
}

/** The `ApduTransport.send` contract over `sendRaw`: Lc always written, reply data ‖ status word, the list checked. */
export function sendOver(sendRaw: SendRawApdu): ApduTransport['send'] {
  return async (cla, ins, p1, p2, data = new Uint8Array(0), statusList = [SW_OK]) => {
    let response: ApduResponse;
    try {
      response = await sendRaw(concatBytes(Uint8Array.of(cla, ins, p1, p2, data.length), data));
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

/** An `ApduTransport` inside a device action (a task of `CallTaskInAppDeviceAction`). */
export function internalApiTransport(api: InternalApi): ApduTransport {
  return { send: sendOver(internalSendRaw(api)) };
}
