/**
 * How a command of ./commands.ts runs, for every client: its arguments checked and encoded first (`prepareCommand`:
 * nothing is sent when they are refused), then, on the held device, the version read its gate needs, the request or
 * its chunks, the reply decoded and checked. `MinaLedgerApp` runs it on its device queue, the DMK signer kit inside a
 * device action; `channelOver` is the channel both build from their `send`.
 */
import { CLA, SW_OK } from '../apdu/constants.js';
import { type ApduRequest, splitReply } from '../apdu/codec.js';
import { LedgerAppVersionError, LedgerReplyError, statusToError, toLedgerError } from '../apdu/errors.js';
import { FEATURES, supports, type AppVersion } from '../apdu/version.js';
import type { ApduTransport } from '../transport/types.js';
import {
  commandRow,
  type CommandArgs,
  type CommandChannel,
  type CommandName,
  type CommandOutput,
  type DeviceInteraction,
} from './commands.js';

/** A stage of a running command: `getAppConfig` while its gate reads the version, then the command itself. */
export type CommandStep = 'getAppConfig' | CommandName;

/** A command whose arguments were checked and encoded: nothing is sent until it runs. */
export interface PreparedCommand<Output> {
  /** Runs it on a held device; `onStep` is told each step as it starts, with what the user does meanwhile. */
  run(channel: CommandChannel, onStep?: (step: CommandStep, interaction: DeviceInteraction) => void): Promise<Output>;
}

/**
 * Checks and encodes command `name` with `args`.
 *
 * @throws `LedgerInputError` naming the bad argument (then nothing is sent).
 */
export function prepareCommand<N extends CommandName>(name: N, ...args: CommandArgs<N>): PreparedCommand<CommandOutput<N>> {
  const definition = commandRow(name);
  const requests = definition.encode(...args);
  const interaction = typeof definition.interaction === 'function' ? definition.interaction(...args) : definition.interaction;
  const feature = typeof definition.feature === 'function' ? definition.feature(...args) : definition.feature;
  return {
    async run(channel, onStep) {
      let version: AppVersion | undefined;
      if (feature !== undefined || definition.readsVersion) {
        onStep?.('getAppConfig', 'none');
        version = await channel.version();
        if (feature !== undefined && !supports(version, feature)) {
          throw new LedgerAppVersionError(feature, FEATURES[feature], version.version);
        }
      }
      onStep?.(name, interaction);
      const context = { args, version };
      try {
        return definition.decode(await exchangeAll(channel, requests), context);
      } catch (error) {
        if (definition.diagnose) throw (await definition.diagnose(error, channel)) ?? error;
        if (definition.refused) return definition.refused(error, context);
        throw error;
      }
    },
  };
}

/**
 * Sends a request's chunks in order; every chunk but the last must answer 0x9000 with no data. The command holds the
 * device for all of them, so no other caller's chunk lands in between; a cancelled call stops between chunks, and
 * the device discards the partial request when the next first chunk arrives.
 */
async function exchangeAll(channel: CommandChannel, requests: ApduRequest[]): Promise<Uint8Array> {
  let reply: Uint8Array = new Uint8Array(0);
  for (const [i, request] of requests.entries()) {
    reply = await channel.exchange(request);
    if (i < requests.length - 1 && reply.length !== 0) throw new LedgerReplyError('the device answered a middle chunk with data');
  }
  return reply;
}

/**
 * The channel over an `ApduTransport`-style `send`: the one place status words are read. A transport's error becomes
 * the Ledger error for it (`toLedgerError`), and the status word is checked again, for a structural transport that
 * ignores `statusList`.
 */
export function channelOver(send: ApduTransport['send'], version: () => Promise<AppVersion>): CommandChannel {
  return {
    async exchange(request, cla = CLA) {
      let reply: Uint8Array;
      try {
        reply = await send(cla, request.ins, request.p1, request.p2, request.data, [SW_OK]);
      } catch (error) {
        throw toLedgerError(error, request.ins);
      }
      const { data, statusCode } = splitReply(reply);
      if (statusCode !== SW_OK) throw statusToError(statusCode, request.ins);
      return data;
    },
    version,
  };
}
