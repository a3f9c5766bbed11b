#!/usr/bin/env node
/**
 * `chain-ledger`: the provider's methods from a terminal. Results are JSON on stdout; progress ("⏳ Confirm … on your
 * Ledger (3.2 s)"), the device's screens (software Ledger) and errors are human text on stderr. Every argument, flag
 * and file is checked before the device is touched. Exit codes: 0 done, 1 the operation failed (the device, the
 * node, the provider: `{"error": {code, message, data}}` on stdout), 2 a usage mistake (nothing was sent).
 */
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { LedgerProviderOptions } from '../provider/options.js';
import { createLedgerProvider } from '../provider/provider.js';
import { toProviderError } from '../provider/to-provider-error.js';
import {
  COMMON_FLAGS,
  FLAGS,
  UsageError,
  checkAccountFlag,
  checkDevice,
  checkHeaders,
  checkMina,
  checkNetwork,
  checkUrl,
  quote,
  readCommandLine,
  type CommandLine,
  type FlagName,
} from './args.js';
import { COMMANDS, type Command } from './commands.js';
import { openDevice } from './device.js';
import { ProgressLines, failureLine } from './report.js';
import {
  answerFromStdin,
  confirmBeyondCapOnTerminal,
  confirmOnTerminal,
  presentationNotSatisfiedOnTerminal,
  presentationOnTerminal,
} from './review.js';

const err = (text: string) => process.stderr.write(`${text}\n`);
const out = (text: string) => process.stdout.write(`${text}\n`);

const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

function usage(): string {
  const commands = Object.values(COMMANDS).map((c) => `  ${c.synopsis.padEnd(28)} ${c.summary}`);
  const flags = Object.values(FLAGS).map((f) => `  ${f.help}`);
  return `Usage: chain-ledger COMMAND [ARGUMENTS] [OPTIONS]

Commands:
${commands.join('\n')}

Options:
${flags.join('\n')}

Results are JSON on stdout; progress and the device's screens go to stderr. Exit codes: 0 done, 1 the operation
failed (its error as JSON on stdout), 2 a usage mistake (nothing was sent to the device).
`;
}

/** The flags a command takes: the common ones and its own; a command that serves (no device), its own and --help. */
const flagsOf = (command: Command): readonly FlagName[] => [...(command.serve ? ['help' as const] : COMMON_FLAGS), ...command.flags];

function commandHelp(name: string, command: Command): string {
  const flags = flagsOf(command).map((f) => `  ${FLAGS[f].help}`);
  return `Usage: chain-ledger ${command.synopsis} [OPTIONS]

${command.help}

Options:
${flags.join('\n')}

Exit codes: 0 done, 1 the operation failed, 2 a usage mistake. All commands: chain-ledger --help (${name} is one).
`;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** What to run, from a command line that passed every check: a device command with its provider options, or a served one. */
async function prepare(line: CommandLine) {
  const command = COMMANDS[line.command!];
  if (!command) throw new UsageError(`unknown command ${quote(line.command!)}`);
  const misplaced = [...line.given].filter((f) => f !== 'version' && !flagsOf(command).includes(f));
  if (misplaced.length > 0) throw new UsageError(`${line.command} does not take --${misplaced[0]}`, line.command);
  const { serve } = command;
  if (serve) return { kind: 'serve' as const, serve, input: await command.prepare(line) };
  const device = checkDevice(line.flags.device);
  const network = checkNetwork(line.flags.network);
  const accountIndex = checkAccountFlag(line.flags.account);
  const graphqlUrl = line.flags.graphql === undefined ? undefined : checkUrl('--graphql', line.flags.graphql);
  const graphqlHeaders = line.flags['graphql-header'] ? checkHeaders(line.flags['graphql-header']) : undefined;
  const origin = checkUrl('--origin', line.flags.origin);
  // A command that signs zkApp commands: a spend cap always, and the terminal's review before a blind signature.
  const zkapp = command.flags.includes('spend-cap')
    ? { spendCap: checkMina('--spend-cap', line.flags['spend-cap']), yes: line.flags.yes }
    : undefined;
  const input = await command.prepare(line);
  const options = { network, origin, accountIndex, confirmAddress: line.flags['confirm-address'], graphqlUrl, graphqlHeaders };
  return { kind: 'device' as const, command, input, device, options, credentials: line.flags.credentials, zkapp, yes: line.flags.yes };
}

export async function main(argv: string[]): Promise<number> {
  const prepared = await readInvocation(argv);
  if (typeof prepared === 'number') return prepared;
  if (prepared.kind === 'serve') return prepared.serve(prepared.input, { out, err, stdin: process.stdin, stopped: stopSignal() });

  const progress = new ProgressLines(err);
  let close = async () => {};
  try {
    const device = await openDevice(prepared.device, err);
    close = device.close;
    const chain = createLedgerProvider(await providerOptionsFor(prepared, device.transport, progress));
    const [address] = await chain.requestAccounts();
    progress.say(`connected ${address} (${device.label})`);
    progress.watch();
    const result = await prepared.command.run!({ chain, address: address!, say: (text) => progress.say(text) }, prepared.input);
    out(JSON.stringify(result, null, 2));
    return EXIT.ok;
  } catch (error) {
    const e = toProviderError(error);
    err(failureLine(e));
    out(JSON.stringify({ error: e }, null, 2));
    return EXIT.failed;
  } finally {
    progress.stop();
    await close();
  }
}

type Prepared = Awaited<ReturnType<typeof prepare>>;
type DevicePrepared = Extract<Prepared, { kind: 'device' }>;

/** Resolves on Ctrl-C or SIGTERM (a served command's end). */
function stopSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

/**
 * The command to run, checked before any device is opened; or the exit code when there is none to run: `--version`
 * and `--help` answered, a usage error said (with where to read more).
 */
async function readInvocation(argv: string[]): Promise<Prepared | number> {
  try {
    const line = readCommandLine(argv);
    if (line.flags.version) {
      out(version());
      return EXIT.ok;
    }
    if (line.flags.help) {
      const command = line.command === undefined ? undefined : COMMANDS[line.command];
      out(command ? commandHelp(line.command!, command) : usage());
      return EXIT.ok;
    }
    if (line.command === undefined) throw new UsageError('no command given');
    return await prepare(line);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(`chain-ledger: ${error.message}`);
    err(error.command ? `See: chain-ledger ${error.command} --help` : 'See: chain-ledger --help');
    return EXIT.usage;
  }
}

/** The provider's options for the command: the device, progress on stderr, a zkApp command's review, the store. */
async function providerOptionsFor(
  prepared: DevicePrepared,
  transport: LedgerProviderOptions['transport'],
  progress: ProgressLines,
): Promise<LedgerProviderOptions> {
  const { graphqlUrl, graphqlHeaders, ...options } = prepared.options;
  const providerOptions: LedgerProviderOptions = {
    ...options,
    transport,
    ...(graphqlUrl ? { graphqlUrl } : {}),
    ...(graphqlHeaders ? { graphqlHeaders } : {}),
    onDeviceAction: progress.deviceAction,
    onProgress: progress.progress,
  };
  // What is asked as plain lines on stderr; no "still working" line while the user reads it and answers.
  const answer = (question: string) => {
    progress.stop();
    return answerFromStdin(question).finally(() => progress.watch());
  };
  if (prepared.zkapp) {
    providerOptions.spendCap = prepared.zkapp.spendCap;
    providerOptions.confirmZkapp = confirmOnTerminal({ yes: prepared.zkapp.yes, say: err, answer });
    providerOptions.confirmBeyondSpendCap = confirmBeyondCapOnTerminal({ yes: prepared.zkapp.yes, say: err, answer });
  }
  // A presentation request is shown, and answered, before anything is read from the store (`present`; --yes for scripts).
  providerOptions.confirmPresentation = presentationOnTerminal({ yes: prepared.yes, say: err, answer });
  providerOptions.onPresentationNotSatisfied = presentationNotSatisfiedOnTerminal(err);
  if (prepared.credentials) {
    const { FileCredentialStore } = await import('../credentials/file-store.js');
    providerOptions.credentialStore = new FileCredentialStore(prepared.credentials);
  }
  return providerOptions;
}

// Run when executed (also through npm's bin symlink), not when imported.
const invoked = process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (invoked) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      err(`chain-ledger: ${String(error)}`);
      process.exit(EXIT.failed);
    },
  );
}
