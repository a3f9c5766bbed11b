/**
 * Security properties of the provider, gathered in one place:
 *
 * - a device that signs with another key, or for another network (mainnet vs devnet), is caught for every method:
 *   22001, and the bad value is never returned nor broadcast (the local chain is unchanged);
 * - a wrong address on connect: a bad checksum is refused; another account's (valid) address cannot be told apart
 *   at connect, and then every signature is refused (22001) — nothing signed by the wrong key is ever returned;
 * - origins: a call from another origin (23001) never reaches the device; insecure origins are refused at creation
 *   exactly as src/provider/origin.ts documents (https, or http on localhost / 127.0.0.1 / [::1]);
 * - secrets (the mnemonic, the seed, the derived private keys in every form) never appear in console output,
 *   process.stdout/stderr, results, errors, the device log, the CLI's output, nor in util.inspect, JSON.stringify or
 *   structuredClone of the SoftwareLedger and of the provider.
 *
 * The corrupted devices are structural transports around a SoftwareLedger that rewrite requests or replies, as in
 * test/reliability/bad-replies/. Failure messages name leaked secrets, never print them.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { AccountUpdate, Mina, PrivateKey, PublicKey, UInt64 } from 'o1js';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { SoftwareLedger, TEST_MNEMONIC } from '../../src/emulator.js';
import { mnemonicToSeed, rootFromSeed } from '../../src/emulator/keys.js';
import { createLedgerProvider, credentialManager, type LedgerProvider, type Network } from '../../src/index.js';
import type { ApduTransport } from '../../src/transport.js';
import type { LocalChain } from '../../src/zkapp/local-chain.js';
import { credentialIssuer, type Issuer } from '../support/credentials.js';
import { fundedLocalChain } from '../support/local-chain.js';
import { addressOf, vectors } from '../support/vectors.js';
import { berkeleyCommand } from '../support/zkapp.js';
import { REPO, spawnBounded } from '../support/process.js';
import { providerFailure as failure } from '../support/provider-failure.js';
import { ORIGIN, OTHER_MNEMONIC, quietLedger, storeProvider, tempDirs } from '../support/rig.js';

// The tests come first; the rig and the oracles they use follow them, at the end of the file.

describe('a device that signs with another key or for another network → 22001, nothing returned or broadcast', () => {
  it.each(TABLE)(
    '%s: %s',
    async (_name, corruption, c) => {
      const rig = await corruptedRig(c.network);
      await c.prepare?.(rig.chain);
      rig.state.mode = corruption;
      const { result, unchanged } = await c.call(rig.chain, rig.dir);
      const error = await failure(result);
      expect(error).toMatchObject({ code: 22001, data: { reason: expect.stringMatching(/does not verify/) } });
      if (corruption === 'other network') expect(rig.state.rewritten).toBeGreaterThan(0);
      await unchanged();

      // With the honest device again, the same call works (and, for broadcast, the chain moves by exactly one nonce).
      rig.state.mode = 'honest';
      const before = c.network === 'local' ? await localChain.nonceOf(ACCOUNT0) : undefined;
      if (c.method.startsWith('requestPresentation')) return; // proving is slow; recovery is in device-faults.test.ts
      const again = await c.call(rig.chain, rig.dir);
      await expect(again.result).resolves.toBeDefined();
      if (c.network === 'local') expect(await localChain.nonceOf(ACCOUNT0)).toBe(before! + 1);
    },
    60_000,
  );
});

// ---- the address at connect ----

function addressRewriter(reply: (address: string) => string) {
  const honest = quietLedger({ extensions: true, blindSigning: true });
  const transport: ApduTransport = {
    async send(cla, ins, p1, p2, data, statusList) {
      const answer = await honest.send(cla, ins, p1, p2, data, statusList);
      if (ins !== 0x02) return answer;
      const out = Uint8Array.from(answer);
      out.set(new TextEncoder().encode(reply(ACCOUNT0)), 0); // 55 ASCII bytes ‖ NUL ‖ status word
      return out;
    },
  };
  return { honest, transport };
}

describe('the address on connect', () => {
  it.each([
    ['a bad base58 checksum', (a: string) => a.slice(0, 20) + (a[20] === 'X' ? 'Y' : 'X') + a.slice(21)],
    ['a corrupted prefix', (a: string) => `C${a.slice(1)}`],
  ])('%s is refused (22001) and nothing is connected', async (_name, rewrite) => {
    const { transport } = addressRewriter(rewrite);
    const chain = createLedgerProvider({ transport, network: 'devnet', origin: ORIGIN });
    expect(await failure(chain.requestAccounts())).toMatchObject({ code: 22001, data: { reason: expect.stringMatching(/address/) } });
    expect(await chain.getAccounts()).toEqual([]);
    expect(await failure(chain.signMessage({ message: 'hi' }))).toMatchObject({ code: 1001 });
  });

  it("another account's valid address cannot be told apart at connect, but nothing signed by the real key is ever returned for it", async () => {
    const { transport } = addressRewriter(() => addressOf(1));
    const chain = createLedgerProvider({ transport, network: 'devnet', origin: ORIGIN });
    // Documented limit: the host has no proof of possession at connect (the Mina app offers none).
    expect(await chain.requestAccounts()).toEqual([addressOf(1)]);
    for (const call of [
      chain.signMessage({ message: 'hi' }),
      chain.createNullifier({ message: ['1'] }),
      (async () => {
        const command = berkeleyCommand();
        command.feePayer.body.publicKey = addressOf(1);
        return chain.sendTransaction({ transaction: command, onlySign: true });
      })(),
    ]) {
      expect(await failure(call)).toMatchObject({ code: 22001, data: { reason: expect.stringMatching(/does not verify/) } });
    }
  });
});

// ---- origins ----

describe('origins', () => {
  const calls: [string, (c: LedgerProvider, origin: string) => Promise<unknown>][] = [
    ['chain_requestAccounts', (c, origin) => c.request({ method: 'chain_requestAccounts' }, { origin })],
    ['chain_signMessage', (c, origin) => c.request({ method: 'chain_signMessage', params: { message: 'hi' } }, { origin })],
    ['chain_createNullifier', (c, origin) => c.request({ method: 'chain_createNullifier', params: { message: ['1'] } }, { origin })],
    [
      'chain_sendTransaction',
      (c, origin) => c.request({ method: 'chain_sendTransaction', params: { transaction: berkeleyCommand(), onlySign: true } }, { origin }),
    ],
    [
      'chain_storePrivateCredential',
      (c, origin) => c.request({ method: 'chain_storePrivateCredential', params: { credential: {} } }, { origin }),
    ],
    [
      'chain_requestPresentation',
      (c, origin) => c.request({ method: 'chain_requestPresentation', params: { presentation: { presentationRequest: {} } } }, { origin }),
    ],
    ['chain_switchChain', (c, origin) => c.request({ method: 'chain_switchChain', params: { networkID: 'mina:mainnet' } }, { origin })],
    ['signMessage with { origin }', (c, origin) => c.signMessage({ message: 'hi' }, { origin })],
  ];
  const origins = ['https://evil.example', 'http://dapp.example', 'https://dapp.example:8443', 'https://sub.dapp.example', 'null'];

  it.each(calls.flatMap(([name, call]) => origins.map((origin) => [name, origin, call] as const)))(
    '%s from %s → 23001, nothing reaches the device',
    async (_name, origin, call) => {
      const ledger = quietLedger({ extensions: true, blindSigning: true });
      const chain = storeProvider(ledger, tempDir());
      await chain.requestAccounts();
      const before = ledger.exchanges.length;
      expect(await failure(call(chain, origin))).toMatchObject({ code: 23001, message: 'Origin dismatch.' });
      expect(ledger.exchanges.length).toBe(before);
      expect(chain.network).toBe('devnet'); // switchChain from another origin changed nothing
    },
  );

  it.each([
    ['http://dapp.example', /insecure origin/],
    ['http://192.168.1.10:8080', /insecure origin/],
    ['http://localhost.evil.example', /insecure origin/],
    ['ws://localhost', /insecure origin/],
    ['file:///etc/passwd', /./],
    ['https://dapp.example:443', /bare origin/], // the URL's origin drops the default port
    ['https://dapp.example/', /bare origin/],
    ['HTTPS://DAPP.EXAMPLE', /bare origin/],
  ])('refuses to serve %s (20003, field origin)', (origin, reason) => {
    const ledger = quietLedger({ extensions: true });
    let error: unknown;
    try {
      createLedgerProvider({ transport: ledger, network: 'devnet', origin });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ name: 'ProviderError', code: 20003, data: { field: 'origin', reason: expect.stringMatching(reason) } });
  });

  it.each([
    'http://localhost',
    'http://localhost:5173',
    'http://127.0.0.1:8080',
    'http://127.0.0.2', // all of 127.0.0.0/8 is loopback, a secure context in browsers
    'http://[::1]:3000',
    'https://dapp.example:8443',
  ])('serves %s', (origin) => {
    const ledger = quietLedger({ extensions: true });
    expect(createLedgerProvider({ transport: ledger, network: 'devnet', origin }).origin).toBe(origin);
  });

  it('in a browser page on an insecure origin, a provider without an explicit origin is refused', () => {
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'location');
    Object.defineProperty(globalThis, 'location', { value: { origin: 'http://dapp.example' }, configurable: true });
    try {
      const ledger = quietLedger({ extensions: true });
      expect(() => createLedgerProvider({ transport: ledger, network: 'devnet' })).toThrow(
        expect.objectContaining({
          code: 20003,
          data: expect.objectContaining({ field: 'origin', reason: expect.stringMatching(/insecure/) }),
        }),
      );
    } finally {
      if (saved) Object.defineProperty(globalThis, 'location', saved);
      else delete (globalThis as { location?: unknown }).location;
    }
  });
});

// ---- secrets ----

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

// ---- the rig and the oracles used above (module code: it runs before vitest collects the tests) ----

const ACCOUNT0 = addressOf(0);

let issuer: Issuer;
let localChain: LocalChain;
/** One presentation request for the whole file (building it is not what is tested). */
let requestJson: unknown;
const tempDir = tempDirs('security');

beforeAll(async () => {
  [issuer, localChain] = await Promise.all([credentialIssuer(), fundedLocalChain()]);
}, 120_000);

// ---- corrupted devices ----

type Corruption = 'honest' | 'other key' | 'other network';

/**
 * A transport in front of the honest software Ledger that, once `mode` is set, either forwards to a device with
 * another seed ("other key"), or flips the network byte of INS 05 / INS 06 and the domain byte of SIGN_FIELDS
 * ("other network": the device signs for mainnet what the host asked for devnet, and the other way round).
 */
function corruptible(honest: SoftwareLedger, other: SoftwareLedger) {
  const state = { mode: 'honest' as Corruption, rewritten: 0 };
  const transport: ApduTransport = {
    async send(cla, ins, p1, p2, data = new Uint8Array(0), statusList) {
      if (state.mode === 'other key') return other.send(cla, ins, p1, p2, data, statusList);
      const flips = state.mode === 'other network' && (ins === 0x05 || ins === 0x06 || (ins === 0xa1 && p1 === 0x00));
      if (!flips) return honest.send(cla, ins, p1, p2, data, statusList);
      const copy = Uint8Array.from(data);
      copy[4] = copy[4]! ^ 1; // INS 05/06: account u32 ‖ network u8; SIGN_FIELDS first chunk: account u32 ‖ domain u8
      state.rewritten++;
      return honest.send(cla, ins, p1, p2, copy, statusList);
    },
  };
  return { transport, state };
}

/**
 * A device with extension 1.0, which signs zkApp commands and presentations blind (INS 06, SIGN_FIELDS): what the
 * host checks there is each signature. In clear (SIGN_ZKAPP, SIGN_PRESENTATION) the host also compares the values the
 * device computed with its own: test/extension/clear-signing.test.ts.
 */
async function corruptedRig(network: Network) {
  const honest = quietLedger({ extensions: '1.0', blindSigning: true });
  const other = quietLedger({ extensions: '1.0', blindSigning: true }, OTHER_MNEMONIC);
  const { transport, state } = corruptible(honest, other);
  const dir = tempDir();
  // The released app signs zkApp commands blind: the opt-in, since what is tested is the host's verification.
  const chain = storeProvider(transport, dir, {
    network,
    localChain: network === 'local' ? localChain : undefined,
    allowUnreviewedBlindSigning: true,
  });
  await chain.requestAccounts();
  return { honest, other, chain, state, dir };
}

async function payment(): Promise<{ json: string; to: string }> {
  localChain.activate();
  const to = PrivateKey.random().toPublicKey();
  const sender = PublicKey.fromBase58(ACCOUNT0);
  const tx = await Mina.transaction({ sender, fee: 100_000_000, memo: 'security' }, async () => {
    AccountUpdate.fundNewAccount(sender);
    AccountUpdate.createSigned(sender).send({ to, amount: UInt64.from(1_000_000_000) });
  });
  return { json: tx.toJSON(), to: to.toBase58() };
}

interface Case {
  method: string;
  network: Network;
  corruptions: Corruption[];
  /** Device state the call needs first (with the honest device): the store key for presentations. */
  prepare?(chain: LedgerProvider): Promise<void>;
  /** `dir` is the rig's credential store directory. */
  call(chain: LedgerProvider, dir: string): Promise<{ result: Promise<unknown>; unchanged(): Promise<void> }>;
}

const CASES: Case[] = [
  {
    method: 'signMessage',
    network: 'devnet',
    corruptions: ['other key', 'other network'],
    call: async (c) => ({ result: c.signMessage({ message: 'security' }), unchanged: async () => {} }),
  },
  {
    method: 'signMessage (mainnet provider)',
    network: 'mainnet',
    corruptions: ['other network'],
    call: async (c) => ({ result: c.signMessage({ message: 'security' }), unchanged: async () => {} }),
  },
  {
    method: 'sendTransaction (onlySign)',
    network: 'devnet',
    corruptions: ['other key', 'other network'],
    call: async (c) => ({ result: c.sendTransaction({ transaction: berkeleyCommand(), onlySign: true }), unchanged: async () => {} }),
  },
  {
    method: 'sendTransaction (broadcast, local chain)',
    network: 'local',
    corruptions: ['other key', 'other network'],
    async call(c) {
      const nonce = await localChain.nonceOf(ACCOUNT0);
      const balance = await localChain.balanceOf(ACCOUNT0);
      const { json, to } = await payment();
      return {
        result: c.sendTransaction({ transaction: json }),
        async unchanged() {
          // Never broadcast: nothing applied to the chain.
          expect(await localChain.nonceOf(ACCOUNT0)).toBe(nonce);
          expect(await localChain.balanceOf(ACCOUNT0)).toBe(balance);
          expect(await localChain.balanceOf(to)).toBeUndefined();
        },
      };
    },
  },
  {
    method: 'createNullifier',
    network: 'devnet',
    corruptions: ['other key'], // a nullifier has no network
    call: async (c) => ({ result: c.createNullifier({ message: ['1', '2'] }), unchanged: async () => {} }),
  },
  {
    method: 'storePrivateCredential (the approval signature)',
    network: 'devnet',
    corruptions: ['other key', 'other network'],
    call: async (c, dir) => {
      return {
        result: c.storePrivateCredential({ credential: issuer.issue(ACCOUNT0) }),
        async unchanged() {
          expect(readdirSync(dir).filter((f) => f.endsWith('.json'))).toEqual([]);
        },
      };
    },
  },
  {
    method: 'requestPresentation (the owner signature)',
    network: 'devnet',
    corruptions: ['other key', 'other network'],
    // Store a credential with the honest device first (this also derives the store key), so the only device step
    // left in the presentation is the owner signature.
    prepare: async (c) => void (await c.storePrivateCredential({ credential: issuer.issue(ACCOUNT0, 'Chile') })),
    call: async (c) => ({
      result: c.requestPresentation({ presentation: { presentationRequest: (requestJson ??= issuer.presentationRequest().json) } }),
      unchanged: async () => {},
    }),
  },
];

const TABLE = CASES.flatMap((c) => c.corruptions.map((corruption) => [c.method, corruption, c] as const));
