/**
 * How the software Ledger fails: a status word the app answers (`fail`, thrown as `Rejected` and turned into the
 * two-byte reply), and the errors its transport surface throws, shaped as `@ledgerhq/hw-transport`'s and matched by
 * `name` as everywhere in this library.
 */
import { SW_INVALID_DATA } from '../apdu/constants.js';
import { formatStatusWord } from '../apdu/errors.js';

/** A status word the app answers instead of data. */
export class Rejected {
  constructor(readonly statusCode: number) {}
}

/** Ends the instruction with `statusCode` as the reply. */
export const fail = (statusCode: number): never => {
  throw new Rejected(statusCode);
};

/** What a request parser throws on a read past the end of the data: the app's 0x6802. */
export const invalidData = (): Rejected => new Rejected(SW_INVALID_DATA);

/** Errors thrown by `send()` mimic @ledgerhq/hw-transport's, matched by name as everywhere in this library. */
export class TransportStatusError extends Error {
  override readonly name = 'TransportStatusError';
  readonly statusCode: number;
  readonly statusText: string;
  constructor(statusCode: number) {
    super(`Ledger device: status ${formatStatusWord(statusCode)}`);
    this.statusCode = statusCode;
    this.statusText = 'UNKNOWN_ERROR';
  }
}

export class DisconnectedDeviceError extends Error {
  override readonly name: 'DisconnectedDevice' | 'DisconnectedDeviceDuringOperation';
  constructor(during: boolean) {
    super(during ? 'The device was disconnected during the exchange' : 'The device is disconnected');
    this.name = during ? 'DisconnectedDeviceDuringOperation' : 'DisconnectedDevice';
  }
}
