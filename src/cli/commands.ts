/**
 * The CLI's commands: each says what it takes (arguments, flags), reads and checks them in `prepare` (files read and
 * parsed, values checked: nothing touches the device before all of it passed), then `run`s one provider method.
 */
import { readFile } from 'node:fs/promises';
import { isEntryId } from '../credentials/store.js';
import { credentialManager } from '../provider/credential-manager.js';
import type { LedgerProvider } from '../provider/provider.js';
import { type CommandLine, type FlagName, UsageError, checkAppVersion, checkPort, quote } from './args.js';
import { type ServerIo, serveSpeculos } from './speculos-server.js';

/** What a command needs from the rest of the CLI while it runs. */
export interface RunContext {
  chain: LedgerProvider;
  address: string;
  /** A line of progress on stderr. */
  say(text: string): void;
}

export interface Command {
  /** `send-zkapp FILE`. */
  synopsis: string;
  /** One line, for the command list. */
  summary: string;
  /** The command's own help, after its synopsis. */
  help: string;
  /** The flags it takes besides the common ones (args.ts COMMON_FLAGS). */
  flags: readonly FlagName[];
  /** Reads and checks the arguments: a `UsageError` for anything wrong. No device here. */
  prepare(line: CommandLine): Promise<unknown>;
  /** The provider call, with what `prepare` returned. */
  run?(context: RunContext, input: unknown): Promise<unknown>;
  /**
   * Instead of `run`, for a command that opens no device and calls no provider (speculos-server): it runs until it
   * is done and returns the exit code. Such a command takes only its own flags (not the common ones).
   */
  serve?(input: unknown, io: ServerIo): Promise<number>;
}

/** Exactly `names.length` positional arguments (a trailing `...` name: one or more). */
function positionals(line: CommandLine, command: string, names: string[]): string[] {
  const variadic = names.at(-1)?.endsWith('...') === true;
  const tooFew = line.args.length < names.length;
  const tooMany = !variadic && line.args.length > names.length;
  if (tooFew) throw new UsageError(`${command}: missing ${names[line.args.length]!.replace('...', '')}`, command);
  if (tooMany) throw new UsageError(`${command}: unexpected argument ${quote(line.args[names.length]!)}`, command);
  return line.args;
}

/** A JSON file: read and parsed here, so that a typo in a path is a usage error, not a device error. */
async function jsonFile(command: string, name: string, path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory, not a file' : code === 'EACCES' ? 'not readable' : code;
    throw new UsageError(`${command}: ${name} ${quote(path)}: ${why}`, command);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${command}: ${name} ${quote(path)} is not JSON (${(error as Error).message})`, command);
  }
}

export const COMMANDS: Record<string, Command> = {
  address: {
    synopsis: 'address',
    summary: "the account's address (read silently; --confirm-address shows it on the device)",
    help: 'Prints { "address": "B62q…" }. With --confirm-address the Ledger shows the address: compare it with the one printed.',
    flags: [],
    prepare: async (line) => positionals(line, 'address', []),
    run: async ({ address }) => ({ address }),
  },
  'send-zkapp': {
    synopsis: 'send-zkapp FILE',
    summary: 'sign a zkApp command (o1js tx.toJSON()) and broadcast it, or only sign it',
    help: `FILE holds the command as o1js writes it (tx.toJSON()). On devnet and mainnet it is broadcast through --graphql;
--only-sign prints { "signedData" } instead; --network local applies it to an in-process chain (the account funded).
Prints { "hash" } when broadcast. A Ledger without the chain-ledger extension signs zkApp commands blind (it shows a
hash): the command's summary (fee payer, fee, nonce, each update and what it changes, full or partial commitment)
is printed first and you are asked [y/N] (--yes answers for scripts). A command taking more than --spend-cap MINA from
the account (default 10, fee included) is refused before the Ledger is asked. What no amount of MINA counts counts
as the whole balance: a change of the account's own permissions (with send None, anyone can empty it later),
verification key, delegate or timing, or another token leaving it, is refused unless you type that change's name when
asked; --yes never confirms it.`,
    flags: ['graphql', 'graphql-header', 'only-sign', 'yes', 'spend-cap'],
    async prepare(line) {
      const [file] = positionals(line, 'send-zkapp', ['FILE']);
      const transaction = await jsonFile('send-zkapp', 'FILE', file!);
      if (typeof transaction !== 'object' || transaction === null || Array.isArray(transaction)) {
        throw new UsageError(`send-zkapp: FILE ${quote(file!)} must hold a zkApp command (a JSON object)`, 'send-zkapp');
      }
      const onlySign = line.flags['only-sign'];
      if (!onlySign && line.flags.network !== 'local' && !line.flags.graphql) {
        throw new UsageError(
          `send-zkapp on ${line.flags.network} broadcasts through a Mina node: pass --graphql URL, or --only-sign to print the signed command`,
          'send-zkapp',
        );
      }
      return { transaction, onlySign };
    },
    async run({ chain, address, say }, input) {
      const { transaction, onlySign } = input as { transaction: object; onlySign: boolean };
      if (chain.network === 'local' && !onlySign) {
        say('funding the account with 100 MINA on the local chain');
        await (await chain.localChain()).fund(address, 100_000_000_000n);
      }
      return chain.sendTransaction({ transaction, onlySign });
    },
  },
  nullifier: {
    synopsis: 'nullifier FIELD...',
    summary: 'a nullifier for the given field elements (needs the protocol extension)',
    help: 'Each FIELD is a field element in decimal (or 0x… hex). Prints the nullifier as o1js writes it, verified with o1js.',
    flags: [],
    async prepare(line) {
      const fields = positionals(line, 'nullifier', ['FIELD...']);
      fields.forEach((field, i) => {
        if (!/^(\d+|0x[0-9a-f]+|0o[0-7]+|0b[01]+)$/i.test(field)) {
          throw new UsageError(
            `nullifier: FIELD ${i + 1} must be a non-negative integer (decimal, 0x, 0o or 0b), not ${quote(field)}`,
            'nullifier',
          );
        }
      });
      return fields;
    },
    run: ({ chain }, fields) => chain.createNullifier({ message: fields as string[] }),
  },
  'store-credential': {
    synopsis: 'store-credential FILE',
    summary: 'store a private credential (mina-attestations JSON); prints its id',
    help: `FILE holds the credential as mina-attestations writes it (Credential.toJSON). The Ledger asks you to approve
storing it, and the first credential operation of a run asks for the store key. Prints { "id", "credential" }: the
id is what delete-credential takes.`,
    flags: ['credentials'],
    async prepare(line) {
      const [file] = positionals(line, 'store-credential', ['FILE']);
      return jsonFile('store-credential', 'FILE', file!);
    },
    async run({ chain }, credential) {
      const { credential: stored } = await chain.storePrivateCredential({ credential: credential as Record<string, unknown> });
      // The store key is kept for the connection: listing asks the device nothing more.
      const entry = (await credentialManager(chain).list()).find((e) => e.credential === stored);
      return { id: entry?.id, credential: stored };
    },
  },
  present: {
    synopsis: 'present REQUEST_FILE',
    summary: 'a presentation for a request (mina-attestations PresentationRequest JSON)',
    help: `REQUEST_FILE holds the request as mina-attestations writes it (PresentationRequest.toJSON). An https request
names its verifier: pass its origin with --origin. The request is shown in words with your stored credentials that fit
it (the Ledger asks for the store key), and you answer [y/N] before anything is computed on them (--yes: scripts).
Compiling the circuit takes 20–90 s on 2 busy cores (the most the first time, before its keys are cached in
~/.cache/o1js; it starts while you read), proving 20–60 s. Prints { "presentation" }.`,
    flags: ['credentials', 'origin', 'yes'],
    async prepare(line) {
      const [file] = positionals(line, 'present', ['REQUEST_FILE']);
      return jsonFile('present', 'REQUEST_FILE', file!);
    },
    run: ({ chain }, request) => chain.requestPresentation({ presentation: { presentationRequest: request as Record<string, unknown> } }),
  },
  'list-credentials': {
    synopsis: 'list-credentials',
    summary: 'the credentials stored for the account (the owner’s view; never a page method)',
    help: 'Prints [{ "id", "credential", "storedAt" }], oldest first. The Ledger asks for the store key.',
    flags: ['credentials'],
    prepare: async (line) => positionals(line, 'list-credentials', []),
    run: ({ chain }) => credentialManager(chain).list(),
  },
  'delete-credential': {
    synopsis: 'delete-credential ID',
    summary: 'delete a stored credential (approved on the device)',
    help: 'ID is a credential id as store-credential and list-credentials print it (64 hex digits). Prints { "deleted": true|false }.',
    flags: ['credentials'],
    async prepare(line) {
      const [id] = positionals(line, 'delete-credential', ['ID']);
      if (!isEntryId(id))
        throw new UsageError(
          `delete-credential: ID must be 64 hex digits (as list-credentials prints it), not ${quote(id!)}`,
          'delete-credential',
        );
      return id;
    },
    run: async ({ chain }, id) => ({ deleted: await credentialManager(chain).delete(id as string) }),
  },
  'speculos-server': {
    synopsis: 'speculos-server',
    summary: 'a software Ledger (test mnemonic, NOT hardware) on a Speculos port, for --device speculos:PORT',
    help: `Serves the software Ledger (the public test mnemonic: NOT hardware, never send real funds to its accounts)
behind the Speculos REST API on 127.0.0.1:--port, until Ctrl-C. Other commands (and npm start) use it with
--device speculos:PORT. Its screens are printed here; press its buttons here (arrow keys: left, right; down or space:
both; or the words left, right, both on stdin), or with POST /button/{left,right,both} as on Speculos.`,
    flags: ['port', 'extension', 'app-version', 'blind-signing'],
    async prepare(line) {
      positionals(line, 'speculos-server', []);
      return {
        port: checkPort(line.flags.port),
        extensions: line.flags.extension,
        version: checkAppVersion(line.flags['app-version']),
        blindSigning: line.flags['blind-signing'],
      };
    },
    serve: (input, io) => serveSpeculos(input as Parameters<typeof serveSpeculos>[0], io),
  },
  'rekey-store': {
    synopsis: 'rekey-store',
    summary: "re-encrypt the account's credential store under a fresh salt (the owner's view)",
    help: 'Prints { "rekeyed": true }, or false when the account has no store yet.',
    flags: ['credentials'],
    prepare: async (line) => positionals(line, 'rekey-store', []),
    run: async ({ chain }) => ({ rekeyed: await credentialManager(chain).rekey() }),
  },
};
