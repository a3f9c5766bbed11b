/**
 * The command line, read and checked before anything touches a device: the flags (`node:util` parseArgs), their
 * values, and which flags each command takes. A mistake is a `UsageError` in the CLI's own words (flags, not API
 * options), which main.ts reports with exit code 2.
 */
import { parseArgs } from 'node:util';

/** A mistake on the command line (a flag, an argument, a file): exit code 2, nothing sent to the device. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  /** The command whose help to point at, when the mistake is in its arguments. */
  readonly command: string | undefined;

  constructor(message: string, command?: string) {
    super(message);
    this.command = command;
  }
}

/** Every flag, its kind, and the line of help that describes it. */
export const FLAGS = {
  device: { type: 'string', default: 'usb', help: '--device usb|speculos[:PORT]|software   the Ledger to use (default usb)' },
  network: {
    type: 'string',
    default: 'devnet',
    help: '--network mainnet|devnet|local          default devnet (local: an in-process chain, funded for you)',
  },
  account: { type: 'string', default: '0', help: "--account N                             account m/44'/12586'/N'/0/0 (default 0)" },
  'confirm-address': {
    type: 'boolean',
    default: false,
    help: '--confirm-address                       show the address on the device to confirm it (default: read silently)',
  },
  credentials: {
    type: 'string',
    help: '--credentials DIR                       the credential store directory (default ~/.local/share/chain-ledger/credentials)',
  },
  graphql: {
    type: 'string',
    help: '--graphql URL                           the Mina node GraphQL endpoint to broadcast with (mainnet, devnet); no user:password@',
  },
  'graphql-header': {
    type: 'string',
    multiple: true,
    help: "--graphql-header 'Name: value'          a header for --graphql (repeatable), e.g. 'authorization: Bearer …'",
  },
  'only-sign': {
    type: 'boolean',
    default: false,
    help: '--only-sign                             return the signed command instead of broadcasting it',
  },
  yes: {
    type: 'boolean',
    default: false,
    help: '--yes                                   answer yes for scripts: a blind zkApp command is signed, a presentation request presented; what is asked is still printed',
  },
  'spend-cap': {
    type: 'string',
    default: '10',
    help: [
      '--spend-cap MINA                        the most MINA a zkApp command may take from the account, fee included (default 10);',
      "                                          a change of the account's permissions, verification key, delegate or timing, or",
      '                                          another token leaving it, counts as the whole balance: refused unless you type its',
      '                                          name when asked (never with --yes)',
    ].join('\n  '),
  },
  origin: {
    type: 'string',
    default: 'http://localhost',
    help: '--origin URL                            the verifier origin of an https presentation request (default http://localhost)',
  },
  port: {
    type: 'string',
    default: '5000',
    help: '--port N                                speculos-server: the port on 127.0.0.1 (default 5000)',
  },
  extension: {
    type: 'boolean',
    default: false,
    help: '--extension                             speculos-server: the chain-ledger protocol extension on (the released app has none)',
  },
  'app-version': {
    type: 'string',
    default: '1.6.0',
    help: '--app-version X.Y.Z                     speculos-server: the Mina app version it behaves as (default 1.6.0)',
  },
  'blind-signing': {
    type: 'boolean',
    default: false,
    help: "--blind-signing                         speculos-server: the app's Blind signing setting on (default off, as installed)",
  },
  help: {
    type: 'boolean',
    short: 'h',
    default: false,
    help: "--help, -h                              this help, or a command's (chain-ledger COMMAND --help)",
  },
  version: { type: 'boolean', short: 'v', default: false, help: '--version, -v                           the version of chain-ledger' },
} as const;

export type FlagName = keyof typeof FLAGS;
/** The flags every command takes. */
export const COMMON_FLAGS: readonly FlagName[] = ['device', 'network', 'account', 'confirm-address', 'help'];

export interface CommandLine {
  command: string | undefined;
  args: string[];
  flags: {
    device: string;
    network: string;
    account: string;
    'confirm-address': boolean;
    credentials?: string;
    graphql?: string;
    'graphql-header'?: string[];
    'only-sign': boolean;
    yes: boolean;
    'spend-cap': string;
    origin: string;
    port: string;
    extension: boolean;
    'app-version': string;
    'blind-signing': boolean;
    help: boolean;
    version: boolean;
  };
  /** The flags written on the command line (not defaulted). */
  given: Set<FlagName>;
}

/** Reads `argv`; an unknown flag, a missing value or a flag given a value it does not take is a `UsageError`. */
export function readCommandLine(argv: string[]): CommandLine {
  const options = Object.fromEntries(Object.entries(FLAGS).map(([name, { help: _, ...option }]) => [name, option]));
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options: options as never, allowPositionals: true, strict: true, tokens: true });
  } catch (error) {
    const message = (error as Error).message;
    // A value that starts with a dash (`--account -1`): parseArgs calls it "ambiguous" and suggests `--account=-XYZ`.
    const ambiguous = /^Option '--([\w-]+)' argument is ambiguous/.exec(message)?.[1];
    if (ambiguous !== undefined) throw new UsageError(dashValue(ambiguous as FlagName, argv));
    // parseArgs's own words name the flag ("Unknown option '--frob'", "Option '--account <value>' argument missing").
    throw new UsageError(message);
  }
  const [command, ...args] = parsed.positionals;
  const given = new Set((parsed.tokens ?? []).flatMap((token) => (token.kind === 'option' ? [token.name as FlagName] : [])));
  return { command, args, flags: parsed.values as CommandLine['flags'], given };
}

/**
 * What is wrong when the word after `--flag` starts with a dash: another flag (the value was forgotten), or a value
 * the flag never takes (`--account -1`: said as that flag's own check says it).
 */
function dashValue(flag: FlagName, argv: string[]): string {
  const value = argv[argv.indexOf(`--${flag}`) + 1] ?? '';
  const other = /^--?([\w-]+)/.exec(value)?.[1];
  const isFlag =
    other !== undefined && (Object.hasOwn(FLAGS, other) || Object.values(FLAGS).some((f) => 'short' in f && f.short === other));
  if (isFlag) return `--${flag} needs a value before ${value}`;
  if (flag === 'account') {
    try {
      checkAccountFlag(value);
    } catch (error) {
      return (error as UsageError).message;
    }
  }
  return `--${flag} ${quote(value)}: a value that starts with a dash is written --${flag}=${value}`;
}

/** `--network`: one of the three the provider serves. */
export function checkNetwork(value: string): 'mainnet' | 'devnet' | 'local' {
  if (value === 'mainnet' || value === 'devnet' || value === 'local') return value;
  throw new UsageError(`--network must be mainnet, devnet or local, not ${quote(value)}`);
}

/** `--account`: an account index, 0 to 2^31 - 1. */
export function checkAccountFlag(value: string): number {
  const n = /^\d{1,10}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n > 0x7fffffff)
    throw new UsageError(`--account must be an integer from 0 to 2147483647, not ${quote(value)}`);
  return n;
}

/** `--device`: usb, software, or speculos with an optional port. */
export function checkDevice(value: string): { kind: 'usb' } | { kind: 'software' } | { kind: 'speculos'; port: number } {
  if (value === 'usb' || value === 'software') return { kind: value };
  const speculos = /^speculos(?::(\d{1,5}))?$/.exec(value);
  const port = speculos ? Number(speculos[1] ?? 5000) : Number.NaN;
  if (!speculos || port < 1 || port > 65535) throw new UsageError(`--device must be usb, speculos[:PORT] or software, not ${quote(value)}`);
  return { kind: 'speculos', port };
}

/** `--port`: a TCP port, 1 to 65535. */
export function checkPort(value: string): number {
  const n = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= 1 && n <= 65535)) throw new UsageError(`--port must be a port number from 1 to 65535, not ${quote(value)}`);
  return n;
}

/** `--app-version`: a Mina app version, MAJOR.MINOR.PATCH. */
export function checkAppVersion(value: string): string {
  if (!/^\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(value))
    throw new UsageError(`--app-version must be a version such as 1.6.0, not ${quote(value)}`);
  return value;
}

/** An amount of MINA for `flag`: a plain decimal, at most 9 decimals. */
export function checkMina(flag: string, value: string): string {
  if (!/^\d{1,12}(?:\.\d{1,9})?$/.test(value))
    throw new UsageError(`${flag} must be an amount of MINA (e.g. 10 or 2.5), not ${quote(value)}`);
  return value;
}

/** An http(s) URL for `flag`, without user:password@ (credentials go in a header, never in a URL). */
export function checkUrl(flag: string, value: string): string {
  let url: URL | undefined;
  try {
    url = /^https?:\/\//.test(value) ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url) throw new UsageError(`${flag} must be an http(s) URL, not ${quote(value)}`);
  if (url.username || url.password) throw new UsageError(`${flag} must not hold user:password@: pass them with --graphql-header`);
  return value;
}

/** `--graphql-header 'Name: value'`, repeatable. */
export function checkHeaders(lines: string[]): Record<string, string> {
  return Object.fromEntries(
    lines.map((line) => {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      if (colon <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || /[\r\n\0]/.test(line)) {
        throw new UsageError(`--graphql-header must be 'Name: value', not ${quote(line)}`);
      }
      return [name, line.slice(colon + 1).trim()];
    }),
  );
}

/** A value as the user wrote it, shortened, for a message. */
export const quote = (value: string): string => JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
