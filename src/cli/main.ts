#!/usr/bin/env node
/**
 * `chain-ledger`: the provider's methods from a terminal. Results are JSON on stdout; prompts ("Confirm on your
 * Ledger…"), the device's screens (software Ledger) and errors are human text on stderr. A failure exits 1 after
 * printing `{"error": {code, message, data}}` on stdout.
 */
import { realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { TEST_MNEMONIC, SoftwareLedger } from '../emulator/software-ledger.js';
import type { Review } from '../emulator/review.js';
import { createLedgerProvider, type LedgerProvider } from '../provider/provider.js';
import type { Network } from '../provider/options.js';
import { credentialManager } from '../provider/credential-manager.js';
import { toProviderError } from '../provider/to-provider-error.js';
import type { ApduTransport } from '../transport/types.js';

const USAGE = `Usage: chain-ledger <command> [options]

Commands:
  address                      the account's address (shown on the device on connect)
  send-zkapp FILE              sign a zkApp command (o1js tx.toJSON()) and broadcast it; --only-sign to just sign
  nullifier FIELD...           a nullifier for the given field elements (needs the protocol extension)
  store-credential FILE        store a private credential (mina-attestations JSON)
  present REQUEST_FILE         a presentation for a request (mina-attestations PresentationRequest JSON)
  list-credentials             the credentials stored for the account (the owner's view; never a page method)
  delete-credential ID         delete a stored credential (approved on the device)
  rekey-store                  re-encrypt the account's credential store under a fresh salt (the owner's view)

Options:
  --device usb|speculos[:port]|software   default: usb
  --network mainnet|devnet|local          default: devnet ('local' is an in-process chain, funded for you)
  --account N                             default: 0
  --graphql URL                           Mina node GraphQL endpoint (broadcast on mainnet/devnet); no user:password@
  --graphql-header 'Name: value'          a header for the GraphQL endpoint (repeatable), e.g. 'authorization: Bearer …'
  --origin URL                            verifier origin for https presentation requests (default http://localhost)
  --credentials DIR                       credential store directory
  --only-sign                             send-zkapp: return the signed command instead of broadcasting
`;

const err = (text: string) => process.stderr.write(`${text}\n`);

/** The command line, as node:util parseArgs reads it (throws on an unknown or malformed option). */
function parseCommandLine(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      device: { type: 'string', default: 'usb' },
      network: { type: 'string', default: 'devnet' },
      account: { type: 'string', default: '0' },
      graphql: { type: 'string' },
      'graphql-header': { type: 'string', multiple: true },
      origin: { type: 'string', default: 'http://localhost' },
      credentials: { type: 'string' },
      'only-sign': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}

export async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    err((error as Error).message);
    err(USAGE);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    err(USAGE);
    return values.help ? 0 : 2;
  }
  let close: () => Promise<void> = async () => {};
  try {
    const device = await openDevice(values.device!);
    close = device.close;
    const chain = createLedgerProvider({
      transport: device.transport,
      network: values.network as Network,
      origin: values.origin!,
      accountIndex: Number(values.account),
      ...(values.graphql ? { graphqlUrl: values.graphql } : {}),
      ...(values['graphql-header'] ? { graphqlHeaders: parseHeaders(values['graphql-header']) } : {}),
      ...(values.credentials ? { credentialStore: await fileStore(values.credentials) } : {}),
      onDeviceAction: ({ status, prompt }) => status === 'confirm' && err(`⏳ ${prompt}`),
    });
    const [address] = await chain.requestAccounts();
    err(`connected ${address} (${device.label})`);
    const result = await run(chain, address!, command, rest, values);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (error) {
    if ((error as { name?: string }).name === 'UsageError') {
      err(`${(error as Error).message}\n\n${USAGE}`);
      return 2;
    }
    const e = toProviderError(error);
    err(`✖ ${e.code} ${e.message}${e.data ? ` — ${e.data.reason}` : ''}`);
    process.stdout.write(`${JSON.stringify({ error: e }, null, 2)}\n`);
    return 1;
  } finally {
    await close();
  }
}

async function run(
  chain: LedgerProvider,
  address: string,
  command: string,
  args: string[],
  values: Record<string, unknown>,
): Promise<unknown> {
  switch (command) {
    case 'address':
      return { address };
    case 'send-zkapp': {
      const transaction = await readArg(args[0], 'FILE');
      if (chain.network === 'local') {
        err('funding the account with 100 MINA on the local chain');
        await (await chain.localChain()).fund(address, 100_000_000_000n);
      }
      return chain.sendTransaction({ transaction, onlySign: values['only-sign'] === true });
    }
    case 'nullifier':
      return chain.createNullifier({ message: args });
    case 'store-credential':
      return chain.storePrivateCredential({ credential: await readArg(args[0], 'FILE') });
    case 'present':
      return chain.requestPresentation({ presentation: { presentationRequest: JSON.parse(await readArg(args[0], 'REQUEST_FILE')) } });
    case 'list-credentials':
      return credentialManager(chain).list();
    case 'delete-credential': {
      if (!args[0]) throw Object.assign(new Error('missing ID'), { name: 'UsageError' });
      return { deleted: await credentialManager(chain).delete(args[0]) };
    }
    case 'rekey-store':
      return { rekeyed: await credentialManager(chain).rekey() };
    default:
      throw Object.assign(new Error(`unknown command ${command}`), { name: 'UsageError' });
  }
}

function parseHeaders(lines: string[]): Record<string, string> {
  return Object.fromEntries(
    lines.map((line) => {
      const colon = line.indexOf(':');
      if (colon <= 0)
        throw Object.assign(new Error(`--graphql-header must be 'Name: value', not ${JSON.stringify(line.slice(0, 40))}`), {
          name: 'UsageError',
        });
      return [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
    }),
  );
}

async function readArg(path: string | undefined, name: string): Promise<string> {
  if (!path) throw Object.assign(new Error(`missing ${name}`), { name: 'UsageError' });
  return readFile(path, 'utf8');
}

async function fileStore(dir: string) {
  const { FileCredentialStore } = await import('../credentials/file-store.js');
  return new FileCredentialStore(dir);
}

async function openDevice(spec: string): Promise<{ transport: ApduTransport; label: string; close(): Promise<void> }> {
  if (spec === 'software') {
    // Demo and test use only: the public test mnemonic, reviews approved automatically and printed on stderr. The
    // chain-ledger extension (INS 0xA0–0xA2) is on, which the released Mina app lacks: the label says so.
    const transport = SoftwareLedger.fromMnemonic(TEST_MNEMONIC, {
      extensions: true,
      blindSigning: true,
      warn: (text) => err(`⚠ ${text}`),
      approve: (review: Review) => {
        err(review.screens.map((s) => `  │ ${s.title}${s.text ? `: ${s.text}` : ''}`).join('\n'));
        return true;
      },
    });
    return { transport, label: 'software Ledger, NOT hardware, with the chain-ledger extension', close: async () => {} };
  }
  const node = await import('../transport/node.js');
  if (spec === 'usb') {
    err('waiting for a Ledger on USB (unlocked, Mina app open)…');
    const transport = await node.openNodeHid({ listenTimeoutMs: 30_000 });
    return { transport, label: 'USB', close: () => transport.close() };
  }
  const speculos = /^speculos(?::(\d+))?$/.exec(spec);
  if (speculos) {
    const port = Number(speculos[1] ?? 5000);
    const transport = await node.openSpeculos({ apiPort: port });
    return { transport, label: `Speculos on port ${port}`, close: () => transport.close() };
  }
  throw Object.assign(new Error(`--device must be usb, speculos[:port] or software, not ${spec}`), { name: 'UsageError' });
}

// Run when executed (also through npm's bin symlink), not when imported.
const invoked = process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (invoked) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      err(String(error));
      process.exit(1);
    },
  );
}
