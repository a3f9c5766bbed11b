/**
 * Secrets never leak: the mnemonic, the seed, the derived private keys in every form never appear in console output,
 * process.stdout/stderr, results, errors, the device log, the CLI's output, nor in util.inspect, JSON.stringify or
 * structuredClone of the SoftwareLedger and of the provider. Failure messages name leaked secrets, never print them.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { SoftwareLedger, TEST_MNEMONIC } from '../../src/emulator.js';
import { mnemonicToSeed, rootFromSeed } from '../../src/emulator/keys.js';
import { credentialManager } from '../../src/index.js';
import { credentialIssuer, type Issuer } from '../support/credentials.js';
import { REPO, spawnBounded } from '../support/process.js';
import { quietLedger, storeProvider, tempDirs } from '../support/rig.js';
import { addressOf, vectors } from '../support/vectors.js';
import { berkeleyCommand } from '../support/zkapp.js';

const ACCOUNT0 = addressOf(0);
const tempDir = tempDirs('secrets');
let issuer: Issuer;

beforeAll(async () => {
  issuer = await credentialIssuer();
}, 120_000);

interface Secret {
  name: string;
  value: string;
}

/** Every form of the test mnemonics' secrets that could leak: words, seed, root key, account keys. */
function secretsOf(): Secret[] {
  const out: Secret[] = [];
  for (const [label, mnemonic] of [
    ['vectors', vectors.mnemonic],
    ['TEST_MNEMONIC', TEST_MNEMONIC],
  ] as const) {
    const words = mnemonic.split(' ');
    // Any 4 consecutive words of the mnemonic (the whole phrase included).
    for (let i = 0; i + 4 <= words.length; i++)
      out.push({ name: `${label} mnemonic words ${i}–${i + 3}`, value: words.slice(i, i + 4).join(' ') });
    const seed = mnemonicToSeed(mnemonic);
    out.push({ name: `${label} seed (hex)`, value: Buffer.from(seed).toString('hex') });
    out.push({ name: `${label} seed (base64)`, value: Buffer.from(seed).toString('base64') });
    out.push({ name: `${label} BIP32 root xprv`, value: rootFromSeed(seed).privateExtendedKey });
  }
  for (const account of vectors.accounts) {
    const hex = account.privateKeyHex.toLowerCase();
    const reversed = Buffer.from(hex, 'hex').reverse().toString('hex');
    out.push({ name: `account ${account.account} private key (base58)`, value: account.privateKeyBase58 });
    out.push({ name: `account ${account.account} private key (hex)`, value: hex });
    out.push({ name: `account ${account.account} private key (HEX)`, value: hex.toUpperCase() });
    out.push({ name: `account ${account.account} private key (hex, reversed bytes)`, value: reversed });
    out.push({ name: `account ${account.account} private key (decimal, hex read big-endian)`, value: BigInt(`0x${hex}`).toString() });
    out.push({
      name: `account ${account.account} private key (decimal, hex read little-endian)`,
      value: BigInt(`0x${reversed}`).toString(),
    });
  }
  return out;
}
let SECRETS: Secret[];
beforeAll(() => {
  SECRETS = secretsOf();
  expect(SECRETS.length).toBeGreaterThan(50);
});

/** The names (never the values) of the secrets found in `text`. */
const leaksIn = (text: string) => SECRETS.filter((s) => text.includes(s.value)).map((s) => s.name);

/** Captures console.* and process.stdout/stderr writes while `run` runs (nothing is passed through). */
async function captureOutput(run: (log: (value: unknown) => void) => Promise<void>): Promise<string> {
  const chunks: string[] = [];
  const record = (...args: unknown[]) => chunks.push(args.map((a) => (typeof a === 'string' ? a : inspect(a, { depth: 8 }))).join(' '));
  const spies = (['log', 'info', 'warn', 'error', 'debug', 'trace'] as const).map((m) => vi.spyOn(console, m).mockImplementation(record));
  const out = process.stdout.write;
  const err = process.stderr.write;
  process.stdout.write = ((chunk: unknown) => (chunks.push(String(chunk)), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: unknown) => (chunks.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    // A careless page logs everything it gets: results, errors, the device and the provider.
    await run((value) => console.log(value));
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    for (const spy of spies) spy.mockRestore();
  }
  return chunks.join('\n');
}

describe('secrets never leak', () => {
  it('the test secrets are what the device really uses (so the search below is meaningful)', () => {
    const ledger = quietLedger({ extensions: true });
    expect(ledger.addressOf(0)).toBe(vectors.accounts[0]!.address);
    // The detector works: a text containing a key is flagged.
    expect(leaksIn(`key: ${vectors.accounts[0]!.privateKeyBase58}`)).toEqual(['account 0 private key (base58)']);
  });

  it('full flows (connect, sign, zkApp, nullifier, store, list, errors) print nothing secret, on the console or stdout/stderr', async () => {
    let captured = 0;
    const text = await captureOutput(async (log) => {
      // The default warn (console.warn) is kept: the not-hardware warning is printed, and it holds no secret.
      const ledger = SoftwareLedger.fromMnemonic(vectors.mnemonic, {
        extensions: true,
        blindSigning: true,
        approve: (r) => (log(r), true),
      });
      const chain = storeProvider(ledger, tempDir(), { onDeviceAction: log, allowUnconfirmedSwitchChain: true });
      chain.on('disconnect', log);
      chain.on('accountsChanged', log);
      log(await chain.requestAccounts());
      log(await chain.signMessage({ message: 'log everything' }));
      log(await chain.sendTransaction({ transaction: berkeleyCommand(), onlySign: true }));
      log(await chain.createNullifier({ message: ['1', '2', '3'] }));
      log(await chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0) }));
      log(await credentialManager(chain).list());
      log(await chain.switchChain({ networkID: 'mina:mainnet' }));
      log(await chain.signMessage({ message: 'on mainnet' }));
      // Errors: rejected, invalid, reserved message, bad origin, unplugged.
      ledger.approve = () => false;
      log(await chain.signMessage({ message: 'no' }).catch((e: unknown) => e));
      ledger.approve = () => true;
      log(await chain.createNullifier({ message: ['-1'] }).catch((e: unknown) => e));
      log(await chain.signMessage({ message: 'chain-ledger credential store key v1' }).catch((e: unknown) => e));
      log(
        await chain
          .request({ method: 'chain_signMessage', params: { message: 'x' } }, { origin: 'https://evil.example' })
          .catch((e: unknown) => e),
      );
      ledger.unplug();
      log(await chain.signMessage({ message: 'gone' }).catch((e: unknown) => e));
      // A bad mnemonic is refused without echoing it.
      log(
        await Promise.resolve()
          .then(() => SoftwareLedger.fromMnemonic(vectors.mnemonic.replace(/\w+$/, 'zzzz')))
          .catch((e: unknown) => e),
      );
      // The device, the provider and the exchange log, as a page would dump them.
      log(ledger);
      log(chain);
      log(JSON.stringify(ledger));
      log(JSON.stringify(chain));
      log(JSON.stringify(ledger.exchanges));
      captured++;
    });
    expect(captured).toBe(1);
    expect(text).toMatch(/NOT HARDWARE/); // the capture worked: the warning went through console.warn
    expect(text).toMatch(/data: 'log everything'/); // the result was logged: SIGN_TEXT's data is the message itself
    expect(leaksIn(text)).toEqual([]);
  }, 60_000);

  it('util.inspect (every option), JSON.stringify and structuredClone of the SoftwareLedger and the provider reveal nothing', async () => {
    const ledger = quietLedger({ extensions: true, blindSigning: true });
    const chain = storeProvider(ledger, tempDir());
    await chain.requestAccounts();
    await chain.signMessage({ message: 'hi' });
    await chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0, 'Peru') }); // the store secret is now held
    for (const [name, value] of [
      ['ledger', ledger],
      ['provider', chain],
    ] as const) {
      const views: string[] = [
        inspect(value),
        inspect(value, { showHidden: true, depth: Infinity, getters: true }),
        inspect(value, { customInspect: false, showHidden: true, depth: Infinity, getters: true }),
        String(JSON.stringify(value)),
        String(value),
        JSON.stringify(Object.getOwnPropertyDescriptors(value), (_k, v) =>
          typeof v === 'bigint' ? v.toString() : typeof v === 'function' ? 'fn' : v,
        ),
      ];
      let cloned: unknown;
      try {
        cloned = structuredClone(value);
        views.push(inspect(cloned, { showHidden: true, depth: Infinity }));
      } catch (error) {
        // A device holding functions (its `approve` hook) cannot be cloned at all: nothing to leak.
        expect((error as { name?: string }).name, name).toBe('DataCloneError');
      }
      for (const view of views) expect(leaksIn(view), name).toEqual([]);
      expect(views.join('\n')).not.toMatch(/storeSecret|secret: \d/i);
    }
  });

  it('the CLI (`chain-ledger address --device software`) prints nothing secret', async () => {
    const bin = join(REPO, 'dist/cli/main.js');
    expect(existsSync(bin), 'dist/cli/main.js is missing: run `npm run build`').toBe(true);
    // Not runBounded: a failing CLI fails on `code` below without printing its output (searched here for secrets).
    const { code, stdout, stderr } = await spawnBounded(process.execPath, [bin, 'address', '--device', 'software'], 30_000, 'the CLI');
    expect(code).toBe(0);
    expect(TEST_MNEMONIC).toBe(vectors.mnemonic); // the CLI's software Ledger has the keys searched for
    expect(JSON.parse(stdout)).toEqual({ address: ACCOUNT0 });
    expect(stderr).toMatch(/NOT HARDWARE/);
    expect(leaksIn(stdout + stderr)).toEqual([]);
  }, 40_000);
});
