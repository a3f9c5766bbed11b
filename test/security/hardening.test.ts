/**
 * Security hardening (issue #14), each finding of the security review rebuilt as a test that failed before its fix:
 *
 * 1. stored credentials never reach a page: no list/delete in `request()` or on the provider object; the host-side
 *    `credentialManager` asks the device before deleting;
 * 3. in a browser page the origin is `location.origin`, full stop; bridges must pass the origin of every call;
 * 4. `wrapProvider` checks origin and connection before delegating, and passes the origin on;
 * 5. the store key cannot be obtained through `signMessage` on any app version, and its reply is never kept.
 *
 * Browser pages are simulated by defining `globalThis.location`, as the rest of the suite does.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../src/credentials-node.js';
import type { Review } from '../../src/emulator.js';
import { createLedgerProvider, credentialManager, wrapProvider, type ChainProvider, type ProviderError } from '../../src/index.js';
import { PendingCalls } from '../../src/provider/pending.js';
import { credentialIssuer, type Issuer } from '../support/credentials.js';
import { providerFailure as failure, rejection, settled } from '../support/provider-failure.js';
import { addressOf } from '../support/vectors.js';
import { ORIGIN, providerRig, quietLedger, storeProvider, tempDirs, within } from '../support/rig.js';

const ACCOUNT0 = addressOf(0);
const tempDir = tempDirs('hardening');

let issuer: Issuer;
beforeAll(async () => {
  issuer = await credentialIssuer();
}, 120_000);

function rig(options: { origin?: string; bridge?: boolean; version?: string; dir?: string; extensions?: true | '1.0' } = {}) {
  const reviews: Review[] = [];
  let answer = true;
  const ledger = quietLedger({
    extensions: options.extensions ?? true,
    // Extension 1.0 signs presentations with SIGN_FIELDS, behind the Blind signing setting.
    blindSigning: options.extensions === '1.0',
    version: options.version,
    approve: (review) => (reviews.push(review), answer),
  });
  const chain = storeProvider(ledger, options.dir ?? tempDir(), {
    origin: options.origin ?? ORIGIN,
    ...(options.bridge ? { bridge: true } : {}),
  });
  return { ledger, chain, reviews, reject: (no = true) => (answer = !no) };
}

/** Runs `body` as if in a browser page at `origin` (`globalThis.location`). */
async function inPage<T>(origin: string, body: () => T | Promise<T>): Promise<T> {
  const saved = Object.getOwnPropertyDescriptor(globalThis, 'location');
  Object.defineProperty(globalThis, 'location', { value: { origin }, configurable: true });
  try {
    return await body();
  } finally {
    if (saved) Object.defineProperty(globalThis, 'location', saved);
    else delete (globalThis as { location?: unknown }).location;
  }
}

const creationError = (create: () => unknown) => {
  try {
    create();
  } catch (error) {
    return error as { code: number; data?: { field?: string; reason?: string } };
  }
  throw new Error('expected the creation to be refused');
};

// ---- 1. credentials ----

describe('1. stored credentials never reach a page', () => {
  it('chain_listCredentials and chain_deleteCredential are unknown to request(): 20006, nothing reaches the device', async () => {
    const { chain, ledger } = rig();
    await chain.requestAccounts();
    await chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0) });
    const before = ledger.exchanges.length;
    for (const method of ['chain_listCredentials', 'chain_deleteCredential', 'mina_listCredentials']) {
      expect(await failure(chain.request({ method, params: { id: '0'.repeat(64) } } as never))).toMatchObject({ code: 20006 });
    }
    expect(ledger.exchanges.length).toBe(before);
    // …and the page-facing objects have no such method.
    for (const name of ['listCredentials', 'deleteCredential']) {
      expect(name in chain).toBe(false);
      expect(name in wrapProvider({}, { transport: ledger, network: 'devnet', origin: ORIGIN, whenUnsupported: 'refuse' })).toBe(false);
    }
  }, 120_000);

  it('the host-side manager lists; deleting needs an approval on the device ("Delete credential <hash>"), a rejection deletes nothing', async () => {
    const { chain, reviews, reject } = rig();
    await chain.requestAccounts();
    await chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0, 'Chile') });
    const storeApproval = reviews.flatMap((r) => r.screens).find((s) => s.text?.startsWith('Store credential'))!.text!;
    const manager = credentialManager(chain);
    const [entry] = await manager.list();
    reject();
    const seen = reviews.length;
    expect(await failure(manager.delete(entry!.id))).toMatchObject({ code: 1002 });
    const asked = reviews
      .slice(seen)
      .flatMap((r) => r.screens)
      .find((s) => s.title === 'Message')!.text!;
    // The hash the user approved when storing is the one shown when deleting.
    expect(asked).toBe(`Delete credential ${storeApproval.split(' ')[2]}`);
    expect(await manager.list()).toHaveLength(1);
    reject(false);
    expect(await manager.delete(entry!.id)).toBe(true);
    expect(await manager.list()).toEqual([]);
    const prompts = reviews.length;
    expect(await manager.delete(entry!.id)).toBe(false); // absent: nothing asked
    expect(reviews.length).toBe(prompts);
  }, 120_000);
});

// ---- 3. origins ----

describe('3. in a browser page the origin is location.origin, full stop', () => {
  it('a page cannot bind a provider to another origin, nor use an opaque origin', async () => {
    const ledger = quietLedger();
    await inPage('https://phish.example', () => {
      expect(
        creationError(() => createLedgerProvider({ transport: ledger, network: 'devnet', origin: 'https://bank.example' })),
      ).toMatchObject({
        code: 20003,
        data: { field: 'origin' },
      });
      // Its own origin, spelled out or not, is fine.
      expect(createLedgerProvider({ transport: ledger, network: 'devnet', origin: 'https://phish.example' }).origin).toBe(
        'https://phish.example',
      );
      expect(createLedgerProvider({ transport: ledger, network: 'devnet' }).origin).toBe('https://phish.example');
      // A page cannot declare itself a bridge either.
      expect(
        creationError(() => createLedgerProvider({ transport: ledger, network: 'devnet', origin: 'https://bank.example', bridge: true })),
      ).toMatchObject({
        code: 20003,
        data: { field: 'bridge' },
      });
    });
    await inPage('null', () => {
      for (const origin of [undefined, 'https://bank.example']) {
        expect(creationError(() => createLedgerProvider({ transport: ledger, network: 'devnet', origin }))).toMatchObject({
          code: 20003,
          data: { field: 'origin', reason: expect.stringMatching(/opaque/) },
        });
      }
    });
  });

  it('a page cannot claim another origin per call (context.origin), and an origin turned opaque is refused; nothing reaches the device', async () => {
    await inPage(ORIGIN, async () => {
      const { chain, ledger } = rig({ origin: undefined });
      await chain.requestAccounts();
      const before = ledger.exchanges.length;
      for (const origin of ['https://bank.example', 'null', '']) {
        expect(await failure(chain.request({ method: 'chain_signMessage', params: { message: 'hi' } }, { origin }))).toMatchObject({
          code: 23001,
        });
        expect(await failure(chain.signMessage({ message: 'hi' }, { origin }))).toMatchObject({ code: 23001 });
      }
      expect(ledger.exchanges.length).toBe(before);
      // Its own origin, given or not, works.
      await chain.signMessage({ message: 'hi' }, { origin: ORIGIN });
      await chain.signMessage({ message: 'hi' });
      // The same provider, reached from an opaque context (a sandboxed frame of the page): refused.
      await inPage('null', async () => {
        expect(await failure(chain.signMessage({ message: 'hi' }))).toMatchObject({ code: 23001 });
        expect(await failure(chain.signMessage({ message: 'hi' }, { origin: ORIGIN }))).toMatchObject({ code: 23001 });
      });
    });
  });

  it('bridge mode: the messaging layer must give the origin of every call; without one → 23001, nothing reaches the device', async () => {
    const { chain, ledger } = rig({ bridge: true });
    expect(await failure(chain.requestAccounts())).toMatchObject({ code: 23001, data: { reason: expect.stringMatching(/bridge/) } });
    await chain.requestAccounts({ origin: ORIGIN });
    const before = ledger.exchanges.length;
    expect(await failure(chain.request({ method: 'chain_signMessage', params: { message: 'hi' } }))).toMatchObject({ code: 23001 });
    expect(await failure(chain.signMessage({ message: 'hi' }))).toMatchObject({ code: 23001 });
    expect(await failure(chain.signMessage({ message: 'hi' }, { origin: 'https://evil.example' }))).toMatchObject({ code: 23001 });
    expect(ledger.exchanges.length).toBe(before);
    expect((await chain.signMessage({ message: 'hi' }, { origin: ORIGIN })).publicKey).toBe(ACCOUNT0);
    // An extension's own pages (chrome-extension:) are bridges, not web pages: they may name the origin they serve.
    await inPage('chrome-extension://abcdefghijklmnop', () => {
      const ext = createLedgerProvider({ transport: ledger, network: 'devnet', origin: ORIGIN, bridge: true });
      expect(ext.origin).toBe(ORIGIN);
    });
  });
});

// ---- 4. wrapProvider ----

describe('4. wrapProvider checks the origin and the connection before delegating, and passes the origin on', () => {
  function wrapped() {
    const calls: { method: string; context: unknown }[] = [];
    const original: ChainProvider = {
      request: async (args, context) => (calls.push({ method: args.method, context }), 'from original'),
      createNullifier: async (_args, context) => (calls.push({ method: 'createNullifier', context }), 'from original'),
    };
    const ledger = quietLedger({ extensions: false });
    const chain = wrapProvider(original, { transport: ledger, network: 'devnet', origin: ORIGIN, whenUnsupported: 'delegate' });
    return { chain, calls, ledger };
  }

  it('an unknown method from a wrong origin, or before connect, is never delegated', async () => {
    const { chain, calls, ledger } = wrapped();
    expect(await failure(chain.request({ method: 'mina_getBalance', params: [] } as never))).toMatchObject({ code: 1001 });
    expect(await failure(chain.createNullifier({ message: ['1'] }))).toMatchObject({ code: 1001 });
    await chain.requestAccounts();
    const before = ledger.exchanges.length;
    expect(
      await failure(chain.request({ method: 'mina_getBalance', params: [] } as never, { origin: 'https://evil.example' })),
    ).toMatchObject({
      code: 23001,
    });
    expect(await failure(chain.createNullifier({ message: ['1'] }, { origin: 'https://evil.example' }))).toMatchObject({ code: 23001 });
    expect(calls).toEqual([]);
    expect(ledger.exchanges.length).toBe(before);
  });

  it('a delegated call carries the checked origin', async () => {
    const { chain, calls } = wrapped();
    await chain.requestAccounts();
    expect(await chain.request({ method: 'mina_getBalance', params: [] } as never, { origin: ORIGIN })).toBe('from original');
    expect(await chain.createNullifier({ message: ['1'] })).toBe('from original');
    expect(calls).toEqual([
      { method: 'mina_getBalance', context: { origin: ORIGIN } },
      { method: 'createNullifier', context: { origin: ORIGIN } },
    ]);
  });
});

// ---- 5. the store key ----

describe('5. the store key cannot be obtained through signMessage, and its reply is never kept', () => {
  const spellings = [
    'chain-ledger credential store key v1',
    'Message : chain-ledger credential store key v1', // what 1.4.0/1.4.1/1.4.4 sign raw = the 1.4.5+ store-key text
    'Message : Chain-Ledger Credential Store key v1',
    'x chain-ledger credential store',
  ];
  it.each(['1.4.0', '1.4.1', '1.4.2', '1.4.4', '1.4.5', '1.6.0'])(
    'app %s: every spelling is refused (20003) before reaching the device',
    async (version) => {
      const { chain, ledger } = rig({ version });
      await chain.requestAccounts();
      const before = ledger.exchanges.length;
      for (const message of spellings) {
        expect(await failure(chain.signMessage({ message }))).toMatchObject({ code: 20003, data: { field: 'message' } });
      }
      expect(ledger.exchanges.length).toBe(before);
      expect((await chain.signMessage({ message: 'Message : hello' })).publicKey).toBe(ACCOUNT0); // the rest still works
    },
  );

  it("the software Ledger's exchanges never hold the store-key signature", async () => {
    const { MinaLedgerApp } = await import('../../src/device/client.js');
    const { signatureToRawHex } = await import('../../src/apdu/signature.js');
    const { STORE_KEY_MESSAGE } = await import('../../src/apdu/store-key.js');
    // The key signature, made on a second instance of the same device (deterministic).
    const twin = quietLedger();
    const keyHex = signatureToRawHex(await new MinaLedgerApp(twin).signMessage(0, STORE_KEY_MESSAGE, 1));
    const { chain, ledger } = rig();
    await chain.requestAccounts();
    await chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0) });
    const redacted = ledger.exchanges.filter((e) => e.redacted);
    expect(redacted).toHaveLength(1);
    expect(redacted[0]!.reply).toBe('9000');
    for (const device of [ledger, twin]) {
      for (const e of device.exchanges) expect(e.reply.includes(keyHex.slice(0, 64))).toBe(false);
    }
  }, 120_000);
});

// ---- 6. smaller ones ----

/** How long a store call may take before it counts as a hang (a hang is a failure, not a stalled suite). */
const STORE_MS = 15_000;

describe('6. the file store: links, FIFOs and shared directories never hang or pass', () => {
  const SECRET = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
  const text = JSON.stringify({
    version: 'v0',
    witness: { type: 'unsigned' },
    credential: { owner: { _type: 'PublicKey', value: ACCOUNT0 }, data: {} },
  });

  it('a dangling symbolic link at the lock path: the writer waits its bounded time, then "io" (it spun forever)', async () => {
    const { symlinkSync } = await import('node:fs');
    const dir = tempDir();
    const store = new FileCredentialStore(dir, { lockTimeoutMs: 300 });
    symlinkSync(join(dir, 'nowhere'), `${store.fileOf(ACCOUNT0)}.lock`);
    const error = await rejection(store.add(ACCOUNT0, SECRET, text), 'the writer', STORE_MS);
    expect(error).toMatchObject({ name: 'CredentialStoreError', kind: 'io' });
  });

  it('a FIFO or a symbolic link at the store path is refused ("io"), never read or blocked on', async () => {
    const { execFileSync } = await import('node:child_process');
    const { symlinkSync, writeFileSync } = await import('node:fs');
    const dir = tempDir();
    const store = new FileCredentialStore(dir);
    execFileSync('mkfifo', [store.fileOf(ACCOUNT0)]);
    expect(await rejection(store.list(ACCOUNT0, SECRET), 'the FIFO read', STORE_MS)).toMatchObject({
      kind: 'io',
      message: expect.stringMatching(/not a regular file/),
    });
    const other = addressOf(1);
    writeFileSync(join(dir, 'elsewhere.json'), '{}');
    symlinkSync(join(dir, 'elsewhere.json'), store.fileOf(other));
    expect(await rejection(store.list(other, SECRET), 'the link read', STORE_MS)).toMatchObject({
      kind: 'io',
      message: expect.stringMatching(/symbolic link/),
    });
  });

  it('a store directory writable by group or others is refused; 0700 is used', async () => {
    const { chmodSync } = await import('node:fs');
    const dir = tempDir();
    const store = new FileCredentialStore(dir);
    for (const mode of [0o777, 0o770, 0o702]) {
      chmodSync(dir, mode);
      for (const call of [store.list(ACCOUNT0, SECRET), store.add(ACCOUNT0, SECRET, text)] as Promise<unknown>[]) {
        expect(await rejection(call, `a store call (mode ${mode.toString(8)})`, STORE_MS)).toMatchObject({
          kind: 'io',
          message: expect.stringMatching(/writable by/),
        });
      }
    }
    chmodSync(dir, 0o700);
    expect((await store.add(ACCOUNT0, SECRET, text)).duplicate).toBe(false);
  });
});

describe('6. what pages are told: no local paths, no URL credentials', () => {
  it('a store failure reaches the page as a generic reason; the host log gets the path', async () => {
    const { mkdirSync } = await import('node:fs');
    const dir = tempDir();
    const logged: string[] = [];
    const ledger = quietLedger();
    const store = new FileCredentialStore(dir);
    const chain = createLedgerProvider({
      transport: ledger,
      network: 'devnet',
      origin: ORIGIN,
      credentialStore: store,
      onHostLog: (m) => logged.push(m),
    });
    await chain.requestAccounts();
    mkdirSync(store.fileOf(ACCOUNT0)); // a directory where the file should be
    const error = await failure(chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0) }));
    expect(error).toMatchObject({ code: 22001 });
    expect(JSON.stringify(error)).not.toContain(dir);
    expect(logged.join('\n')).toContain(dir);
  }, 120_000);

  it('graphqlUrl with credentials is refused at creation; headers carry them; URLs in reasons are redacted', async () => {
    const { createServer } = await import('node:http');
    const ledger = quietLedger({ blindSigning: true });
    for (const graphqlUrl of ['https://operator:S3CRET@node.example/graphql', 'https://operator@node.example/graphql']) {
      expect(creationError(() => createLedgerProvider({ transport: ledger, network: 'devnet', origin: ORIGIN, graphqlUrl }))).toMatchObject(
        {
          code: 20003,
          data: { field: 'graphqlUrl' },
        },
      );
    }
    expect(
      creationError(() =>
        createLedgerProvider({ transport: ledger, network: 'devnet', origin: ORIGIN, graphqlHeaders: { 'bad header': 'x' } }),
      ),
    ).toMatchObject({
      code: 20003,
      data: { field: 'graphqlHeaders' },
    });
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(503).end('down');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const { berkeleyCommand } = await import('../support/zkapp.js');
      const chain = createLedgerProvider({
        transport: ledger,
        network: 'devnet',
        origin: ORIGIN,
        graphqlUrl: `http://127.0.0.1:${port}/graphql?apikey=TOKEN-123`,
        graphqlHeaders: { authorization: 'Bearer HEADER-SECRET' },
      });
      await chain.requestAccounts();
      const error = await failure(chain.sendTransaction({ transaction: berkeleyCommand() }));
      expect(seen[0]).toBe('Bearer HEADER-SECRET');
      expect(JSON.stringify(error)).toContain(`127.0.0.1:${port}/graphql`);
      expect(JSON.stringify(error)).not.toContain('TOKEN-123');
      expect(JSON.stringify(error)).not.toContain('HEADER-SECRET');
    } finally {
      server.close();
    }
  });
});

describe("6. a device's claims outside the spec are refused", () => {
  it.each([
    ['maxFields 193', [1, 0, 3, 193]],
    ['extension version 2.0', [2, 0, 3, 64]],
    ['unknown capability bits', [1, 0, 0x83, 64]],
  ])('GET_CAPABILITIES announcing %s → connect fails with 22001', async (_name, reply) => {
    const honest = quietLedger({ extensions: true });
    const transport = {
      async send(cla: number, ins: number, p1: number, p2: number, data?: Uint8Array, statusList?: readonly number[]) {
        if (ins === 0xa0) return Uint8Array.from([...reply, 0x90, 0x00]);
        return honest.send(cla, ins, p1, p2, data, statusList);
      },
    };
    const chain = createLedgerProvider({ transport, network: 'devnet', origin: ORIGIN });
    expect(await failure(chain.requestAccounts())).toMatchObject({ code: 22001 });
    expect(chain.capabilities).toBeUndefined();
  });
});

describe('6. prompt floods and silent chain switches', () => {
  it('at most maxRequestsPerMinute device calls start in any 60 s (Auro: 60 a minute per origin); the window slides', async () => {
    let now = 1_000_000;
    const calls = new PendingCalls(100, 3, () => now);
    const start = () => {
      try {
        calls.enter().leave();
        return 'ok';
      } catch (error) {
        return (error as ProviderError).code;
      }
    };
    expect([start(), start(), start(), start()]).toEqual(['ok', 'ok', 'ok', 1002]);
    now += 59_999;
    expect(start()).toBe(1002);
    now += 1;
    expect([start(), start(), start(), start()]).toEqual(['ok', 'ok', 'ok', 1002]);
    // Through the provider: the fourth signMessage of a page limited to 3 a minute never reaches the device.
    const ledger = quietLedger();
    const chain = createLedgerProvider({ transport: ledger, network: 'devnet', origin: ORIGIN, maxRequestsPerMinute: 3 });
    await chain.requestAccounts(); // one device call
    await chain.signMessage({ message: 'one' });
    await chain.signMessage({ message: 'two' });
    const sent = ledger.exchanges.length;
    expect(await failure(chain.signMessage({ message: 'three' }))).toMatchObject({
      code: 1002,
      data: { reason: expect.stringMatching(/rate limit/) },
    });
    expect(ledger.exchanges.length).toBe(sent);
  });

  it('at most maxPendingCalls calls wait for the device; the rest → 1002 at once; rejectPending() ends the queue', async () => {
    let release: (approved: boolean) => void = () => {};
    const ledger = quietLedger();
    const chain = createLedgerProvider({ transport: ledger, network: 'devnet', origin: ORIGIN, maxPendingCalls: 5 });
    await chain.requestAccounts();
    let prompts = 0;
    ledger.approve = () => (prompts++, new Promise<boolean>((resolve) => (release = resolve)));
    const calls = Array.from({ length: 50 }, (_, i) =>
      chain.signMessage({ message: `flood ${i}` }).then(
        () => 'ok',
        (e: ProviderError) => e.code,
      ),
    );
    // The 45 beyond the limit are refused without waiting for the device (else this would wait forever).
    expect(await Promise.all(calls.slice(5))).toEqual(Array(45).fill(1002));
    while (prompts === 0) await new Promise((r) => setTimeout(r, 5));
    expect(chain.rejectPending()).toBe(5);
    expect(await Promise.all(calls.slice(0, 5))).toEqual(Array(5).fill(1002));
    // The user answers the one prompt that was on the device; the next call is the only thing that follows it.
    const before = ledger.exchanges.length;
    ledger.approve = () => (prompts++, true);
    const after = chain.signMessage({ message: 'after' });
    release(true);
    expect((await after).publicKey).toBe(ACCOUNT0);
    expect(prompts).toBe(2);
    expect(ledger.exchanges.length).toBe(before + 2);
  });

  it("switchChain asks the integrator's hook: refused → 1002 and nothing changes; approved → switched and chainChanged", async () => {
    const asked: unknown[] = [];
    let answer = false;
    const { chain } = providerRig({}, { confirmSwitchChain: (request) => (asked.push(request), answer) });
    const changed: string[] = [];
    chain.on('chainChanged', ({ networkID }) => changed.push(networkID));
    expect(await failure(chain.switchChain({ networkID: 'mina:mainnet' }))).toMatchObject({ code: 1002 });
    expect(chain.network).toBe('devnet');
    expect(changed).toEqual([]);
    answer = true;
    expect(await chain.switchChain({ networkID: 'mina:mainnet' })).toEqual({ networkID: 'mina:mainnet' });
    expect(changed).toEqual(['mina:mainnet']);
    // The hook is told the endpoint calls on that network will use (its public one: the integrator's graphqlUrl and
    // headers serve the network the provider was created for only).
    const mainnet = {
      from: 'mina:devnet',
      to: 'mina:mainnet',
      origin: ORIGIN,
      graphqlUrl: 'https://api.minascan.io/node/mainnet/v1/graphql',
    };
    expect(asked).toEqual([mainnet, mainnet]);
    await chain.switchChain({ networkID: 'mina:mainnet' }); // no change: not asked
    expect(asked).toHaveLength(2);
  });
});

// ---- 2. bounded host work ----

describe('2. host work is bounded before any prompt', () => {
  function hashingRequest(maxLength: number, hashes: number, inputs = 1) {
    const { UInt64, Field } = issuer.A.o1js;
    const { PresentationSpec, Claim, Operation, Credential, DynamicString, PresentationRequest } = issuer.A.attestations;
    const Str = DynamicString({ maxLength });
    const credentialInputs = Object.fromEntries(
      Array.from({ length: inputs }, (_, i) => [`c${i}`, Credential.Native({ s: Str, expiresAt: UInt64 })]),
    );
    const spec = PresentationSpec({ ...credentialInputs, createdAt: Claim(UInt64) }, (all: any) => ({
      assert: [Operation.lessThanEq(all.createdAt, Operation.property(all.c0, 'expiresAt'))],
      outputClaim: Operation.record(
        Object.fromEntries(
          Array.from({ length: hashes }, (_, i) => [
            `h${i}`,
            Operation.hash(Operation.property(all.c0, 's'), Operation.constant(Field(i))),
          ]),
        ),
      ),
    }));
    return JSON.parse(PresentationRequest.toJSON(PresentationRequest.https(spec, { createdAt: UInt64.from(1) }, { action: 'login' })));
  }

  it('the measure: a real request passes; the 17 kB amplification request (198k rows) and its smaller cousins are over the bound', async () => {
    const { measurePresentationSpec, MAX_PRESENTATION_COST } = await import('../../src/presentations/request-bounds.js');
    const cost = (maxLength: number, hashes: number) => measurePresentationSpec(hashingRequest(maxLength, hashes).spec).cost;
    expect(cost(50, 1)).toBeLessThan(MAX_PRESENTATION_COST);
    expect(cost(1000, 1)).toBeLessThan(MAX_PRESENTATION_COST); // 10,967 rows: allowed
    expect(cost(1000, 10)).toBeGreaterThan(MAX_PRESENTATION_COST); // 32,315 rows
    expect(cost(1000, 80)).toBeGreaterThan(MAX_PRESENTATION_COST); // 198,355 rows: the review's 13-minute request
    expect(cost(1000, 80)).toBeGreaterThan(cost(1000, 10));
  });

  it.each([
    ['80 hashes of a 1,000-character string', () => hashingRequest(1000, 80), /too large to prove/],
    ['5 credential inputs', () => hashingRequest(8, 1, 5), /at most 4/],
  ])('%s → 20003 naming the spec, before the store key, any compile or any device request', async (_name, make, reason) => {
    const { chain, ledger } = rig();
    await chain.requestAccounts();
    const before = ledger.exchanges.length;
    const error = await failure(chain.requestPresentation({ presentation: { presentationRequest: make() } }));
    expect(error).toMatchObject({
      code: 20003,
      data: { field: 'presentation.presentationRequest.spec', reason: expect.stringMatching(reason) },
    });
    expect(ledger.exchanges.length).toBe(before);
  });

  it('a zkApp command with more account updates than a node accepts (11) → 20003 before any hashing or device request', async () => {
    const { berkeleyCommand, manyUpdates } = await import('../support/zkapp.js');
    const ledger = quietLedger({ blindSigning: true });
    const chain = createLedgerProvider({ transport: ledger, network: 'devnet', origin: ORIGIN, allowUnreviewedBlindSigning: true });
    await chain.requestAccounts();
    const before = ledger.exchanges.length;
    expect(await failure(chain.sendTransaction({ transaction: manyUpdates(berkeleyCommand(), 12), onlySign: true }))).toMatchObject({
      code: 20003,
      data: { field: 'transaction.accountUpdates' },
    });
    expect(ledger.exchanges.length).toBe(before);
    await chain.sendTransaction({ transaction: manyUpdates(berkeleyCommand(), 11), onlySign: true });
  });

  it('the o1js cache keeps the presentation circuits under the cap, least recently used first; shared files stay', async () => {
    const { pruneO1jsCache } = await import('../../src/presentations/o1js-cache.js');
    const { writeFileSync, utimesSync, readdirSync } = await import('node:fs');
    const dir = tempDir();
    const ids = ['1111111111111111', '2222222222222222', '3333333333333333', '4444444444444444'].map((h) => `credential-${h}`);
    ids.forEach((id, i) => {
      for (const file of [`step-pk-${id}-run`, `step-pk-${id}-run.header`]) {
        writeFileSync(join(dir, file), Buffer.alloc(file.endsWith('header') ? 10 : 1000));
        utimesSync(join(dir, file), 1_000_000 + i * 1000, 1_000_000 + i * 1000); // ids[0] oldest
      }
    });
    writeFileSync(join(dir, 'srs-fp-65536'), Buffer.alloc(5000));
    // ids[0] is the oldest but is being used now: it is kept, and the next oldest go.
    expect(await pruneO1jsCache(ids[0], 2100, dir)).toEqual([ids[1], ids[2]]);
    expect(readdirSync(dir).sort()).toEqual(
      ['srs-fp-65536', ...[ids[0], ids[3]].flatMap((id) => [`step-pk-${id}-run`, `step-pk-${id}-run.header`])].sort(),
    );
  });

  it('an AbortSignal fired while the proof is made: 1002, and the aborted caller never gets the presentation (it did before)', async () => {
    const dir = tempDir();
    // SIGN_FIELDS (extension 1.0): the owner signature this test recognises on the device.
    const first = rig({ dir, extensions: '1.0' });
    await first.chain.requestAccounts();
    await first.chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0) });
    const second = rig({ dir, extensions: '1.0' });
    await second.chain.requestAccounts();
    const controller = new AbortController();
    // The user approves the owner signature; the caller gives up right after (during the proof).
    second.ledger.approve = (review) => {
      if (review.screens.some((s) => s.title === 'Sign fields' || s.text === 'Sign fields')) setTimeout(() => controller.abort(), 0);
      return true;
    };
    // A request the stored credential satisfies: without the abort, a presentation would come back.
    const presentationRequest = issuer.presentationRequest().json;
    const before = second.ledger.exchanges.length;
    const error = await failure(second.chain.requestPresentation({ presentation: { presentationRequest } }, { signal: controller.signal }));
    expect(error, JSON.stringify(error)).toMatchObject({ code: 1002 });
    expect(controller.signal.aborted).toBe(true);
    const sent = second.ledger.exchanges.slice(before).map((e) => e.request.slice(2, 4));
    expect(sent).toContain('a1'); // the abort came after the owner signature, as intended
  }, 300_000);
});

// ---- issue #14, second pass: the gaps an audit of the fixes found ----

/** The store-key signature (r ‖ s, hex) of the vectors' device, made on a twin of it (deterministic). */
async function storeKeyHex(): Promise<string> {
  const { MinaLedgerApp } = await import('../../src/device/client.js');
  const { signatureToRawHex } = await import('../../src/apdu/signature.js');
  const { STORE_KEY_MESSAGE } = await import('../../src/apdu/store-key.js');
  return signatureToRawHex(await new MinaLedgerApp(quietLedger()).signMessage(0, STORE_KEY_MESSAGE, 1));
}

describe('5b. the store-key reply stays off @ledgerhq/logs whatever transport the provider is given', () => {
  it('a raw @ledgerhq/hw-transport-node-speculos-http transport (not through openSpeculos): the key never reaches a log listener', async () => {
    const { createRequire } = await import('node:module');
    const { startSpeculosServer } = await import('../../src/emulator.js');
    const require = createRequire(import.meta.url);
    // The CommonJS builds: the transport and the @ledgerhq/logs it publishes on.
    const SpeculosHttpTransport = require('@ledgerhq/hw-transport-node-speculos-http').default as {
      open(options: { baseURL: string; apiPort: string }): Promise<{ close(): Promise<void> }>;
    };
    const { listen } = require('@ledgerhq/logs') as typeof import('@ledgerhq/logs');
    const keyHex = await storeKeyHex();
    const server = await startSpeculosServer(quietLedger({ extensions: true, approve: () => true }), { port: 0, buttons: false });
    const raw = await within(SpeculosHttpTransport.open({ baseURL: 'http://127.0.0.1', apiPort: String(server.port) }), 'open');
    const logged: string[] = [];
    const stop = listen((entry) => logged.push(`${entry.type} ${entry.message ?? ''}`));
    try {
      const chain = storeProvider(raw as never, tempDir());
      await within(chain.requestAccounts(), 'requestAccounts');
      await within(chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0) }), 'storePrivateCredential', 60_000);
      expect(await within(credentialManager(chain).list(), 'list')).toHaveLength(1);
      expect(logged.filter((line) => line.startsWith('apdu <= ')).length).toBeGreaterThan(2); // other replies are logged
      for (const line of logged) expect(line).not.toContain(keyHex.slice(0, 64));
    } finally {
      stop();
      await raw.close();
      await server.close();
    }
  }, 120_000);

  it('an @ledgerhq Transport of unknown shape: credential calls → 20006 before any prompt; the store-key request is refused, never logged', async () => {
    const { createRequire } = await import('node:module');
    const { MinaLedgerApp } = await import('../../src/device/client.js');
    const { STORE_KEY_MESSAGE } = await import('../../src/apdu/store-key.js');
    const require = createRequire(import.meta.url);
    const Transport = require('@ledgerhq/hw-transport').default as new () => object;
    const { log, listen } = require('@ledgerhq/logs') as typeof import('@ledgerhq/logs');
    const ledger = quietLedger({ extensions: true });
    // A transport the library does not know (a BLE or WebUSB one, say): it logs every reply, as @ledgerhq ones do.
    class LoggingTransport extends Transport {
      async exchange(apdu: Buffer): Promise<Buffer> {
        log('apdu', `=> ${apdu.toString('hex')}`);
        const reply = Buffer.from(await ledger.exchange(apdu));
        log('apdu', `<= ${reply.toString('hex')}`);
        return reply;
      }
    }
    const raw = new LoggingTransport();
    const keyHex = await storeKeyHex();
    const logged: string[] = [];
    const stop = listen((entry) => logged.push(`${entry.type} ${entry.message ?? ''}`));
    try {
      const chain = storeProvider(raw as never, tempDir());
      await chain.requestAccounts();
      expect((await chain.signMessage({ message: 'still works' })).publicKey).toBe(ACCOUNT0);
      const before = ledger.exchanges.length;
      for (const call of [chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0) }), credentialManager(chain).list()]) {
        expect(await failure(call)).toMatchObject({ code: 20006, data: { reason: expect.stringMatching(/log the credential store key/) } });
      }
      expect(ledger.exchanges.length).toBe(before); // nothing was asked
      // Not through the provider either: the request never reaches the device.
      await expect(new MinaLedgerApp(raw as never).signMessage(0, STORE_KEY_MESSAGE, 1)).rejects.toBeDefined();
      expect(ledger.exchanges.slice(before).map((e) => e.request.slice(0, 4))).toEqual(['e001']); // its version read only
      for (const line of logged) expect(line).not.toContain(keyHex.slice(0, 64));
    } finally {
      stop();
    }
  }, 120_000);
});

describe('2b. re-keying is reachable: credentialManager(provider).rekey(), the interface, IndexedDB, the CLI', () => {
  it('rekey() re-derives the secret through the device and re-encrypts under a fresh salt; ids and contents stay', async () => {
    const { readFileSync } = await import('node:fs');
    const dir = tempDir();
    const { chain, reviews } = rig({ dir });
    const store = new FileCredentialStore(dir);
    const manager = credentialManager(chain);
    await chain.requestAccounts();
    expect(await manager.rekey()).toBe(false); // no store yet: nothing written
    await chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0) });
    const [entry] = await manager.list();
    const before = JSON.parse(readFileSync(store.fileOf(ACCOUNT0), 'utf8'));
    expect(await manager.rekey()).toBe(true);
    const after = JSON.parse(readFileSync(store.fileOf(ACCOUNT0), 'utf8'));
    expect(after.salt).not.toBe(before.salt);
    expect(after.check).not.toBe(before.check);
    expect(after.entries[0].id).toBe(before.entries[0].id);
    expect(after.entries[0].data).not.toBe(before.entries[0].data);
    expect(await manager.list()).toEqual([entry]);
    // A new connection (the same device re-derives the same secret, asked on the device again) opens it.
    const again = rig({ dir });
    await again.chain.requestAccounts();
    expect(await credentialManager(again.chain).list()).toEqual([entry]);
    expect(again.reviews.flatMap((r) => r.screens).some((s) => s.text === 'chain-ledger credential store key v1')).toBe(true);
    expect(reviews.length).toBeGreaterThan(0);
  }, 120_000);

  it('a store without rekey → 20006 before the device is asked', async () => {
    const ledger = quietLedger({ extensions: true });
    const inner = new FileCredentialStore(tempDir());
    const chain = createLedgerProvider({
      transport: ledger,
      network: 'devnet',
      origin: ORIGIN,
      credentialStore: { list: inner.list.bind(inner), add: inner.add.bind(inner), remove: inner.remove.bind(inner) },
    });
    await chain.requestAccounts();
    const before = ledger.exchanges.length;
    expect(await failure(credentialManager(chain).rekey())).toMatchObject({ code: 20006 });
    expect(ledger.exchanges.length).toBe(before);
  });

  it('IndexedDbCredentialStore.rekey: a fresh salt, the entries re-encrypted, ids kept; the old salt no longer in use', async () => {
    const { IDBFactory } = await import('fake-indexeddb');
    const { IndexedDbCredentialStore } = await import('../../src/credentials/indexeddb-store.js');
    const factory = new IDBFactory();
    const store = new IndexedDbCredentialStore('rekey-test', { indexedDB: factory });
    const SECRET = Uint8Array.from({ length: 32 }, (_, i) => 255 - i);
    const header = async () => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = factory.open('rekey-test');
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      try {
        return await new Promise<{ salt: string; check: string; mac: string }>((resolve, reject) => {
          const get = db.transaction('headers').objectStore('headers').get(ACCOUNT0);
          get.onsuccess = () => resolve(get.result);
          get.onerror = () => reject(get.error);
        });
      } finally {
        db.close();
      }
    };
    expect(await store.rekey(ACCOUNT0, SECRET)).toBe(false);
    const a = await store.add(ACCOUNT0, SECRET, JSON.stringify({ name: 'a' }));
    const b = await store.add(ACCOUNT0, SECRET, JSON.stringify({ name: 'b' }));
    const listed = await store.list(ACCOUNT0, SECRET);
    const first = await header();
    expect(await store.rekey(ACCOUNT0, SECRET)).toBe(true);
    const second = await header();
    expect(second.salt).not.toBe(first.salt);
    expect(second.check).not.toBe(first.check);
    expect(second.mac).not.toBe(first.mac);
    expect(await store.list(ACCOUNT0, SECRET)).toEqual(listed);
    expect(listed.map((e) => e.id).sort()).toEqual([a.id, b.id].sort());
    await expect(
      store.rekey(
        ACCOUNT0,
        Uint8Array.from({ length: 32 }, () => 7),
      ),
    ).rejects.toMatchObject({ kind: 'wrong-key' });
    expect((await header()).salt).toBe(second.salt); // a wrong secret writes nothing
    await store.close();
  });
});

describe('3b. presentations: an abort during the compile rejects at once', () => {
  /** Another request for the same credential, revealing the age: a circuit of its own. */
  function ageRequest() {
    const { UInt64: U } = issuer.A.o1js;
    const { PresentationSpec, Claim, Operation, Credential, PresentationRequest } = issuer.A.attestations;
    const spec = PresentationSpec(
      { credential: Credential.Native({ nationality: issuer.Nationality, age: U, expiresAt: U }), createdAt: Claim(U) },
      ({ credential, createdAt }: any) => ({
        assert: [Operation.lessThanEq(createdAt, Operation.property(credential, 'expiresAt'))],
        outputClaim: Operation.property(credential, 'age'),
      }),
    );
    return JSON.parse(PresentationRequest.toJSON(PresentationRequest.https(spec, { createdAt: U.from(Date.now()) }, { action: 'age' })));
  }

  /** A connected provider with one stored credential and the store key already derived (no device request left but the signature). */
  async function withCredential() {
    // The owner signature with SIGN_FIELDS (extension 1.0): what these tests measure is the host's work around it.
    const ledger = quietLedger({ extensions: '1.0', blindSigning: true });
    const chain = storeProvider(ledger, tempDir());
    await chain.requestAccounts();
    await chain.storePrivateCredential({ credential: issuer.issue(ACCOUNT0) });
    return { chain, ledger };
  }

  it('an abort 0.3 s after the call starts (during the compile) → 1002 within a bounded time, and no device request', async () => {
    const { chain, ledger } = await withCredential();
    const before = ledger.exchanges.length;
    const controller = new AbortController();
    const started = performance.now();
    // A spec no worker has compiled in this process (a warm worker keeps the last specs' programs: their prepare is quick).
    const call = chain.requestPresentation({ presentation: { presentationRequest: ageRequest() } }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    const error = await failure(within(call, 'the aborted presentation', 10_000));
    const settledAfter = performance.now() - started;
    expect(error).toMatchObject({ code: 1002 });
    expect(settledAfter).toBeLessThan(3_000); // the compile alone takes tens of seconds
    expect(
      ledger.exchanges.slice(before).map((e) => e.request.slice(0, 4)),
      `${settledAfter}`,
    ).toEqual([]); // the owner signature was never asked
  }, 120_000);

  // That the event loop stays free while a presentation compiles and proves (its timers keep firing) is checked on
  // the proof test/credentials/provider-credentials.test.ts makes anyway: one proof, checked several ways (#12).
});

describe('4b. switchChain is refused unless the integrator confirms or opts in', () => {
  it('no confirmSwitchChain → 1002, nothing changes, no chainChanged; allowUnconfirmedSwitchChain: true switches', async () => {
    const changed: string[] = [];
    const { chain } = providerRig();
    chain.on('chainChanged', ({ networkID }) => changed.push(networkID));
    for (const call of [
      chain.switchChain({ networkID: 'mina:mainnet' }),
      chain.request({ method: 'mina_switchChain', params: { networkID: 'mina:mainnet' } }),
    ]) {
      expect(await failure(call)).toMatchObject({ code: 1002, data: { reason: expect.stringMatching(/confirmSwitchChain/) } });
    }
    expect(chain.network).toBe('devnet');
    expect(changed).toEqual([]);
    expect(await chain.switchChain({ networkID: 'mina:devnet' })).toEqual({ networkID: 'mina:devnet' }); // no change: fine

    const open = providerRig({}, { allowUnconfirmedSwitchChain: true }).chain;
    expect(await open.switchChain({ networkID: 'mina:mainnet' })).toEqual({ networkID: 'mina:mainnet' });
    expect(open.network).toBe('mainnet');
  });

  it('the options are checked at creation (20003 naming them)', () => {
    const ledger = quietLedger();
    for (const [field, value] of [
      ['allowUnconfirmedSwitchChain', 'yes'],
      ['confirmSwitchChain', true],
    ] as const) {
      expect(
        creationError(() => createLedgerProvider({ transport: ledger, network: 'devnet', origin: ORIGIN, [field]: value } as never)),
      ).toMatchObject({
        code: 20003,
        data: { field },
      });
    }
  });
});

describe('6b. smaller ones', () => {
  const SECRET = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
  const text = JSON.stringify({ version: 'v0', witness: { type: 'unsigned' }, credential: { owner: ACCOUNT0, data: {} } });

  it('a FIFO at the lock path: the writer waits its bounded time, then "io", never blocks on it; a stale one is broken', async () => {
    const { execFileSync } = await import('node:child_process');
    const { utimesSync, lstatSync } = await import('node:fs');
    const dir = tempDir();
    const store = new FileCredentialStore(dir, { lockTimeoutMs: 300 });
    const lock = `${store.fileOf(ACCOUNT0)}.lock`;
    execFileSync('mkfifo', [lock]);
    const error = await rejection(store.add(ACCOUNT0, SECRET, text), 'the writer', STORE_MS);
    expect(error).toMatchObject({ name: 'CredentialStoreError', kind: 'io', message: expect.stringMatching(/held by another process/) });
    expect(lstatSync(lock).isFIFO()).toBe(true);
    expect(await within(settled(store.list(ACCOUNT0, SECRET)), 'the read', STORE_MS)).toEqual({ value: [] }); // readers take no lock
    // Left there by a crash long ago: broken like any stale lock, and the write goes through.
    const old = Date.now() / 1000 - 3600;
    utimesSync(lock, old, old);
    expect(await within(settled(store.add(ACCOUNT0, SECRET, text)), 'the writer', STORE_MS)).toMatchObject({ value: { duplicate: false } });
  });

  it('wrapProvider passes rejectPending() through to its Ledger provider', async () => {
    const ledger = quietLedger();
    const chain = wrapProvider({}, { transport: ledger, network: 'devnet', origin: ORIGIN, whenUnsupported: 'refuse' });
    await chain.requestAccounts();
    let prompts = 0;
    let release: (approved: boolean) => void = () => {};
    ledger.approve = () => (prompts++, new Promise<boolean>((resolve) => (release = resolve)));
    const code = (e: ProviderError) => e.code;
    const onDevice = chain.request({ method: 'chain_signMessage', params: { message: 'one' } }).then(() => 'ok', code);
    const waiting = chain.signJsonMessage({ message: [{ label: 'a', value: 'b' }] }).then(() => 'ok', code);
    while (prompts === 0) await new Promise((r) => setTimeout(r, 5));
    expect(chain.rejectPending()).toBe(2);
    expect(await Promise.all([onDevice, waiting])).toEqual([1002, 1002]);
    expect(prompts).toBe(1);
    release(false);
  });

  it('raw o1js / worker / file-system text naming local paths: pages get the context, onHostLog the detail', async () => {
    const { toProviderError, invalidParams } = await import('../../src/provider/to-provider-error.js');
    const path = '/home/alice/.cache/o1js/step-pk-credential-0123';
    const raw = `ENOENT: no such file or directory, open '${path}'`;
    const wrapped = toProviderError(
      invalidParams('presentation.presentationRequest', `cannot prepare a presentation for this request: ${raw}`),
    );
    expect(wrapped).toMatchObject({ code: 20003, data: { field: 'presentation.presentationRequest' } });
    expect(wrapped.data!.reason).toMatch(/^cannot prepare a presentation for this request \(.*host's log/);
    expect(JSON.stringify(wrapped)).not.toContain('/home/alice');
    for (const other of [`at file:///home/alice/x.js:1:2`, `C:\\Users\\alice\\AppData\\x.bin missing`]) {
      expect(JSON.stringify(toProviderError(new Error(other)))).not.toContain('alice');
    }
    // Not a local path: URLs (already redacted elsewhere) and ordinary text stay as they were.
    for (const plain of ['node at http://127.0.0.1:8080/graphql refused', 'expected 1/2 of the fields', 'Sign fields / Digest']) {
      expect(toProviderError(new Error(plain)).data!.reason).toBe(plain);
    }
    // Through the provider: a store that fails with raw file-system text.
    const logged: string[] = [];
    const inner = new FileCredentialStore(tempDir());
    const chain = createLedgerProvider({
      transport: quietLedger({ extensions: true }),
      network: 'devnet',
      origin: ORIGIN,
      onHostLog: (m) => logged.push(m),
      credentialStore: {
        ...{ add: inner.add.bind(inner), remove: inner.remove.bind(inner) },
        list: async () => {
          throw new Error(raw);
        },
      },
    });
    await chain.requestAccounts();
    const error = await failure(credentialManager(chain).list());
    expect(error).toMatchObject({ code: 22001 });
    expect(JSON.stringify(error)).not.toContain('/home/alice');
    expect(logged.join('\n')).toContain(path);
  });
});
