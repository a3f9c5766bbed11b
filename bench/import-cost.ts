/**
 * What `import('chain-ledger')` costs, in time and memory, before and after the methods that need o1js and
 * mina-attestations are touched, against importing the upstream libraries themselves. Every scenario runs in a
 * fresh Node process (a module is loaded once per process), `ROUNDS` times, alternating scenarios; the medians are
 * reported. A module hook records every module resolved, to show which heavy libraries each phase loaded.
 *
 * The built package (dist/) is what users import, so it is measured; `npm run build` must have run.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { median, round } from './lib.js';

const run = promisify(execFile);
const ROUNDS = Number(process.env.BENCH_IMPORT_ROUNDS ?? 5);
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));

/** Reports each resolved module URL on stderr (node:module register, in the child). */
const HOOK = `export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  process.stderr.write('resolved ' + result.url + '\\n');
  return result;
}`;
const REGISTER = `import { register } from 'node:module'; register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}));`;

/** A child script: runs `body` after `t0`, then prints one JSON line with the time and memory at each mark. */
const script = (body: string) => `
  const marks = [];
  const t0 = performance.now();
  const mark = (name) => { marks.push({ name, ms: performance.now() - t0, rssMB: process.memoryUsage().rss / 2 ** 20 }); console.error('--- mark ' + name); };
  ${body}
  console.log(JSON.stringify(marks));
  process.exit(0);`;

const dist = (file: string) => JSON.stringify(new URL(file, `file://${DIST}`).href);
const CONNECT = `
  const chain = await import(${dist('index.js')});
  mark('import');
  const { SoftwareLedger, TEST_MNEMONIC } = await import(${dist('emulator.js')});
  const p = chain.createLedgerProvider({ transport: SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { extensions: true, warn: () => {} }), network: 'devnet', origin: 'http://localhost' });
  await p.requestAccounts();
  await p.signMessage({ message: 'hi' });
  mark('signMessage');`;

interface Scenario {
  name: string;
  body: string;
}

const SCENARIOS: Scenario[] = [
  { name: 'chain-ledger', body: `await import(${dist('index.js')}); mark('import');` },
  { name: 'chain-ledger + signMessage', body: CONNECT },
  {
    name: 'chain-ledger + createNullifier',
    body: `${CONNECT}
      await p.createNullifier({ message: ['1'] });
      mark('createNullifier');`,
  },
  {
    name: 'chain-ledger + a credential method',
    // An empty credential: refused by mina-attestations' schema (20003), after loading it, as any credential call would.
    body: `${CONNECT}
      const { FileCredentialStore } = await import(${dist('credentials-node.js')});
      const { mkdtempSync } = await import('node:fs');
      const { tmpdir } = await import('node:os');
      const q = chain.createLedgerProvider({ transport: SoftwareLedger.fromMnemonic(TEST_MNEMONIC, { extensions: true, warn: () => {} }), network: 'devnet', origin: 'http://localhost', credentialStore: new FileCredentialStore(mkdtempSync(tmpdir() + '/chain-ledger-bench-')) });
      await q.requestAccounts();
      await q.storePrivateCredential({ credential: {} }).catch((e) => { if (e.code !== 20003) throw e; });
      mark('credential method');`,
  },
  {
    name: 'mina-signer (baseline)',
    body: `const { default: Client } = await import('mina-signer'); new Client({ network: 'testnet' }); mark('import');`,
  },
  { name: 'o1js (baseline)', body: `await import('o1js'); mark('import');` },
  { name: 'mina-attestations (baseline)', body: `await import('mina-attestations'); mark('import');` },
];

const LIBRARIES = ['@ledgerhq', 'mina-signer', 'o1js', 'mina-attestations'];

interface Mark {
  name: string;
  ms: number;
  rssMB: number;
}

async function once(s: Scenario): Promise<{ marks: Mark[]; loaded: Record<string, string[]> }> {
  const { stdout, stderr } = await run(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, '--input-type=module', '-e', script(s.body)],
    { cwd: fileURLToPath(new URL('..', import.meta.url)), timeout: 300_000, maxBuffer: 64 * 1024 * 1024 },
  );
  const marks = JSON.parse(stdout.trim().split('\n').at(-1)!) as Mark[];
  // Which heavy libraries had been loaded when each mark was reached.
  const loaded: Record<string, string[]> = {};
  for (const m of marks) {
    const upTo = stderr.slice(0, stderr.indexOf(`--- mark ${m.name}\n`));
    loaded[m.name] = LIBRARIES.filter((lib) => upTo.includes(`node_modules/${lib}/`));
  }
  return { marks, loaded };
}

export async function benchImportCost(rounds = ROUNDS) {
  if (!existsSync(`${DIST}index.js`)) throw new Error('dist/ is missing: run `npm run build` first');
  const samples = new Map<string, { marks: Mark[]; loaded: Record<string, string[]> }[]>();
  for (let r = 0; r < rounds; r++) {
    for (const s of SCENARIOS) {
      const result = await once(s);
      samples.set(s.name, [...(samples.get(s.name) ?? []), result]);
    }
  }
  const rows = SCENARIOS.map((s) => {
    const results = samples.get(s.name)!;
    const last = results[0]!.marks.at(-1)!.name;
    const at = (m: Mark[]) => m.find((x) => x.name === last)!;
    return {
      scenario: s.name,
      until: last,
      ms: round(median(results.map((x) => at(x.marks).ms)), 0),
      rssMB: round(median(results.map((x) => at(x.marks).rssMB)), 0),
      loaded: results[0]!.loaded[last] ?? [],
      rounds,
    };
  });
  const base = rows.find((r) => r.scenario === 'mina-signer (baseline)')!;
  return rows.map((r) => ({ ...r, ratioMs: round(r.ms / base.ms), ratioRss: round(r.rssMB / base.rssMB) }));
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await benchImportCost(), null, 2));
