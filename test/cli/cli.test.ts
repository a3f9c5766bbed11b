/**
 * The `chain-ledger` CLI as users run it: the built bin (dist/cli/main.js, `npm test` builds first) in a child
 * process, against the software Ledger and against `startSpeculosServer` over loopback HTTP.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Field, Nullifier } from 'o1js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureLine } from '../../src/cli/report.js';
import { startSpeculosServer } from '../../src/emulator.js';
import { credentialIssuer, issuerHash, verifiedOutput } from '../support/credentials.js';
import { addressOf } from '../support/vectors.js';
import { handOverWithStateWrite, verifySigned } from '../support/zkapp.js';
import { quietLedger } from '../support/rig.js';
import { freePort, startSpeculosCli } from '../support/speculos-cli.js';

const BIN = resolve(import.meta.dirname, '../../dist/cli/main.js');
const FIXTURE = resolve(import.meta.dirname, '../fixtures/zkapp-command-berkeley.json');
const work = mkdtempSync(join(tmpdir(), 'chain-ledger-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string; json: any }> {
  return cliWithInput(undefined, ...args);
}

/** `cli`, with `input` written to its stdin, which is then closed (`undefined`: left open, as a terminal's). */
function cliWithInput(input: string | undefined, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string; json: any }> {
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { timeout: 240_000, env: { ...process.env, XDG_DATA_HOME: join(work, 'data') } },
      (error, stdout, stderr) => {
        const code = error ? ((error as { code?: number }).code ?? 1) : 0;
        let json: unknown;
        try {
          json = JSON.parse(stdout);
        } catch {
          json = undefined;
        }
        done({ code: typeof code === 'number' ? code : 1, stdout, stderr, json });
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

describe('chain-ledger CLI with --device software', () => {
  it('address: JSON on stdout, read silently; --confirm-address shows it on the device, the prompt timed on stderr', async () => {
    const silent = await cli('address', '--device', 'software', '--account', '3');
    expect(silent.code).toBe(0);
    expect(silent.json).toEqual({ address: addressOf(3) });
    expect(silent.stderr).toMatch(/NOT HARDWARE/);
    expect(silent.stderr).not.toMatch(/Confirm the address/);
    expect(silent.stderr).not.toContain("44'/12586'/3'/0/0");
    expect(silent.stderr).toMatch(/connected B62q\w+ \(software Ledger.*\) \(\d+\.\d s\)/);
    const shown = await cli('address', '--device', 'software', '--account', '3', '--confirm-address');
    expect(shown.json).toEqual({ address: addressOf(3) });
    expect(shown.stderr.match(/⏳ Confirm the address on your Ledger \(\d+\.\d s\)/g)).toHaveLength(1); // once, not twice
    expect(shown.stderr).toContain("44'/12586'/3'/0/0");
  });

  it('--version prints the package version, --help and COMMAND --help print on stdout (exit 0)', async () => {
    const { version } = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string };
    const v = await cli('--version');
    expect(v).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
    const all = await cli('--help');
    expect(all.code).toBe(0);
    for (const command of ['address', 'send-zkapp FILE', 'nullifier FIELD...', 'store-credential FILE', 'present REQUEST_FILE']) {
      expect(all.stdout).toContain(command);
    }
    expect(all.stdout).toMatch(/Exit codes: 0 done, 1 the operation\s+failed .*, 2 a usage mistake/s);
    const one = await cli('send-zkapp', '--help');
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^Usage: chain-ledger send-zkapp FILE/);
    expect(one.stdout).toContain('--only-sign');
    expect(one.stdout).toContain('--graphql URL');
    expect(one.stdout).not.toContain('--origin');
  });

  it('send-zkapp --only-sign: a signed command that verifies', async () => {
    const r = await cli('send-zkapp', FIXTURE, '--only-sign', '--device', 'software');
    expect(r.code).toBe(0);
    expect(verifySigned('berkeley', 'devnet', r.json.signedData, addressOf(0))).toBe(true);
  });

  it('send-zkapp on the local chain: broadcast, a transaction hash', async () => {
    const r = await cli('send-zkapp', FIXTURE, '--device', 'software', '--network', 'local');
    expect(r.code).toBe(0);
    expect(r.json.hash).toMatch(/^5J[1-9A-HJ-NP-Za-km-z]+$/);
  });

  it('nullifier: verifies with o1js', async () => {
    const r = await cli('nullifier', '7', '8', '--device', 'software', '--network', 'mainnet');
    expect(r.code).toBe(0);
    expect(r.json.data).toEqual(['7', '8']);
    expect(() => Nullifier.fromJSON(r.json).verify([Field(7), Field(8)])).not.toThrow();
  });

  it('store-credential then present: the request shown in words with the fitting credential, answered on the terminal before anything is computed; a presentation the verifier accepts', async () => {
    // The tests' issuer and request (test/support/credentials.ts): its circuit is the one the global setup compiled.
    const issuer = await credentialIssuer();
    const credentialFile = join(work, 'credential.json');
    writeFileSync(credentialFile, issuer.issue(addressOf(0)));
    const store = join(work, 'store');
    const stored = await cli('store-credential', credentialFile, '--device', 'software', '--credentials', store);
    expect(stored.code).toBe(0);
    expect(JSON.parse(stored.json.credential).credential.owner.value).toBe(addressOf(0));
    // The id delete-credential takes; listing after the store asked the device for nothing more.
    expect(stored.json.id).toMatch(/^[0-9a-f]{64}$/);
    // The store key once, on STORE_KEY (extension 1.3): the device names the site asking.
    expect(stored.stderr.match(/│ Unlock: credentials/g)).toHaveLength(1);
    expect(stored.stderr).toMatch(/│ Requested by: http:\/\/localhost/);

    const { req, json } = issuer.presentationRequest();
    const requestFile = join(work, 'request.json');
    writeFileSync(requestFile, JSON.stringify(json));
    const present = ['present', requestFile, '--device', 'software', '--credentials', store, '--origin', 'https://verifier.example'];
    // No: refused (1002) after the review, and the Ledger was asked for nothing but the store key.
    const refused = await cliWithInput('n\n', ...present);
    expect(refused.code).toBe(1);
    expect(refused.json.error).toMatchObject({ code: 1002, data: { reason: 'the presentation request was declined' } });
    expect(refused.stderr).toMatch(/│ It proves: createdAt \(\d+\) ≤ credential\.expiresAt/);
    expect(refused.stderr).toMatch(/│ For "credential" \(used\): native credential [0-9a-f]{8} from B62q/);
    expect(refused.stderr).not.toMatch(/Check the verifier/); // the owner signature was never asked
    const presented = await cliWithInput('y\n', ...present);
    expect(presented.code).toBe(0);
    expect(presented.stderr).toMatch(/Present it \(the owner signature on the Ledger next\)\? \[y\/N\]/);
    // Progress while it compiles and proves, each line stamped with the seconds since the start: the presentation's
    // stages in order (the prover loads, the store key and the owner's signature on the device, compile, proof).
    expect(presented.stderr).toMatch(/⏳ .+ \(\d+\.\d s\)/);
    const stages = presented.stderr
      .split('\n')
      // (The question's line ends with no newline: stdin is not echoed, so the next line continues it.)
      .map((line) => line.replace(/^.*\[y\/N\] /, ''))
      .map((line) => /^(?:… (loading|compiling|proving)|⏳ (Approve|Check|Blind-sign))/.exec(line)?.slice(1).find(Boolean))
      .filter(Boolean);
    expect(stages.join(' ')).toMatch(/^loading (Approve )?compiling (Check|Blind-sign) proving$/);
    expect(await verifiedOutput(issuer.A, req, presented.json.presentation, 'https://verifier.example')).toBe(
      issuerHash(issuer.A, issuer.key),
    );
    // The owner's view (host-side, never a page method): list, then delete with an approval on the device.
    const listed = await cli('list-credentials', '--device', 'software', '--credentials', store);
    expect(listed.code).toBe(0);
    expect(listed.json).toHaveLength(1);
    expect(listed.json[0].id).toBe(stored.json.id);
    const deleted = await cli('delete-credential', listed.json[0].id, '--device', 'software', '--credentials', store);
    expect(deleted.json).toEqual({ deleted: true });
    expect(deleted.stderr).toMatch(/Message: Delete credential [0-9a-f]{8}/);
    expect((await cli('list-credentials', '--device', 'software', '--credentials', store)).json).toEqual([]);
  }, 300_000);

  it('rekey-store: the owner re-keys the store (a fresh salt, the same entries); false without a store', async () => {
    const { FileCredentialStore } = await import('../../src/credentials-node.js');
    const { deriveStoreSecret } = await import('../../src/credentials/store-key.js');
    const { MinaLedgerApp } = await import('../../src/apdu.js');
    const store = join(work, 'rekey-store');
    expect((await cli('rekey-store', '--device', 'software', '--credentials', store)).json).toEqual({ rekeyed: false });
    // An entry written under the secret the software Ledger (the vectors' mnemonic) re-derives.
    const files = new FileCredentialStore(store);
    const secret = await deriveStoreSecret(new MinaLedgerApp(quietLedger()), 0, addressOf(0));
    const { id } = await files.add(addressOf(0), secret, JSON.stringify({ name: 'kept' }));
    const before = JSON.parse(readFileSync(files.fileOf(addressOf(0)), 'utf8'));
    const r = await cli('rekey-store', '--device', 'software', '--credentials', store);
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ rekeyed: true });
    // The secret came from the device: STORE_KEY (extension 1.3), the same key INS 05 gave for the entry written above.
    expect(r.stderr).toContain('│ Unlock: credentials');
    const after = JSON.parse(readFileSync(files.fileOf(addressOf(0)), 'utf8'));
    expect(after.salt).not.toBe(before.salt);
    expect(await files.list(addressOf(0), secret)).toMatchObject([{ id, credential: JSON.stringify({ name: 'kept' }) }]);
  }, 120_000);

  it('a failed operation exits 1 with the ProviderError as JSON on stdout and one line on stderr', async () => {
    // 2^255 is no field element: the provider refuses it (20003) before anything is signed.
    const bad = await cli('nullifier', `0x8${'0'.repeat(63)}`, '--device', 'software');
    expect(bad.code).toBe(1);
    expect(bad.json.error).toMatchObject({ code: 20003, message: 'Invalid method parameter(s).', data: { field: 'message[0]' } });
    expect(bad.stderr).toMatch(/✖ 20003 invalid input: /);
  });

  it("errors in the provider's words reach the terminal in the CLI's: flags, not option names", () => {
    const line = failureLine({
      code: 20003,
      message: 'Invalid method parameter(s).',
      data: { reason: 'this provider has no graphqlUrl to broadcast with: configure one, or pass onlySign: true' },
    });
    expect(line).toBe('✖ 20003 invalid input: this provider has no --graphql URL to broadcast with: configure one, or pass --only-sign');
  });
});

describe('chain-ledger CLI: every argument, flag and file is checked before the device is touched (exit 2)', () => {
  const device = quietLedger({ extensions: true, blindSigning: true });
  let port = 0;
  let close = async () => {};
  beforeAll(async () => {
    const server = await startSpeculosServer(device, { buttons: false });
    port = server.port;
    close = server.close;
  });
  afterAll(() => close());

  it.each([
    [['send-zkapp', 'nonexist.json'], /send-zkapp: FILE "nonexist\.json": no such file/],
    [['send-zkapp', FIXTURE], /send-zkapp on devnet broadcasts through a Mina node: pass --graphql URL, or --only-sign/],
    [['send-zkapp', FIXTURE, '--network', 'mainnet', '--graphql', 'ftp://node'], /--graphql must be an http\(s\) URL/],
    [['send-zkapp', FIXTURE, '--only-sign', '--graphql-header', 'no colon'], /--graphql-header must be 'Name: value'/],
    [['store-credential', resolve(import.meta.dirname)], /store-credential: FILE .*: a directory, not a file/],
    [['present', FIXTURE.replace('.json', '.apdu')], /present: REQUEST_FILE .*: no such file/],
    [['delete-credential', 'nosuchid'], /delete-credential: ID must be 64 hex digits/],
    [['nullifier', '1.5'], /nullifier: FIELD 1 must be a non-negative integer/],
    [['nullifier'], /nullifier: missing FIELD/],
    [['address', 'extra'], /address: unexpected argument "extra"/],
    [['address', '--only-sign'], /address does not take --only-sign/],
    [['address', '--network', 'testnet'], /--network must be mainnet, devnet or local, not "testnet"/],
    [['address', '--account', '2147483648'], /--account must be an integer from 0 to 2147483647/],
    [['address', '--account', '-1'], /^chain-ledger: --account must be an integer from 0 to 2147483647, not "-1"$/m],
    [['address', '--account', '--confirm-address'], /^chain-ledger: --account needs a value before --confirm-address$/m],
    [['present', FIXTURE, '--origin', '-x'], /--origin "-x": a value that starts with a dash is written --origin=-x/],
    [['address', '--frob'], /Unknown option '--frob'/],
    [['send-zkapp', FIXTURE, '--only-sign', '--spend-cap', 'lots'], /--spend-cap must be an amount of MINA/],
    [['address', '--yes'], /address does not take --yes/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [[], /no command given/],
  ])('%j', async (args, message) => {
    const before = device.exchanges.length;
    const r = await cli(...args, '--device', `speculos:${port}`);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/See: chain-ledger (\S+ )?--help/);
    expect(device.exchanges.length).toBe(before);
  });

  it('--device is checked before anything is opened', async () => {
    const r = await cli('address', '--device', 'floppy');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--device must be usb, speculos\[:PORT\] or software, not "floppy"/);
  });
});

describe('chain-ledger speculos-server', () => {
  it('serves the software Ledger on --port (said to be NOT hardware), another command drives it with --device speculos:PORT, its buttons pressed on its stdin; SIGINT stops it', async () => {
    const port = await freePort();
    const server = await startSpeculosCli(['--port', String(port), '--extension']);
    try {
      expect(server.output()).toContain(`Software Ledger on http://127.0.0.1:${port}: NOT hardware`);
      expect(server.output()).toMatch(/public test mnemonic/);
      expect(server.output()).toContain(`chain-ledger address --device speculos:${port} --confirm-address`);
      expect(server.output()).toMatch(/Ctrl-C stops it/);
      let settled = false;
      const address = cli('address', '--device', `speculos:${port}`, '--confirm-address', '--account', '2').finally(() => (settled = true));
      // The holder reads the screens the server prints and answers on its stdin.
      await server.approveUntil(() => settled);
      const r = await address;
      expect(r.code).toBe(0);
      expect(r.json).toEqual({ address: addressOf(2) });
      expect(r.stderr).toMatch(/Speculos on port/);
      expect(server.output()).toContain('│ Get | Address');
      expect(server.output()).toContain("│ Path | 44'/12586'/2'/0/0");
      expect(server.output()).toMatch(new RegExp(`│ Address \\(1/2\\) \\| ${addressOf(2).slice(0, 17)}`));
      server.child.kill('SIGINT');
      expect(await server.closed).toBe(0);
      expect(server.output().trimEnd().endsWith('stopped')).toBe(true);
    } finally {
      server.child.kill('SIGKILL');
    }
  }, 120_000);

  it('is listed in --help, and refuses what it does not take before it listens (exit 2)', async () => {
    expect((await cli('--help')).stdout).toMatch(/^ {2}speculos-server +a software Ledger \(test mnemonic, NOT hardware\)/m);
    for (const [args, message] of [
      [['--device', 'usb'], /speculos-server does not take --device/],
      [['--port', '70000'], /--port must be a port number from 1 to 65535, not "70000"/],
      [['--app-version', 'latest'], /--app-version must be a version such as 1\.6\.0, not "latest"/],
      [['extra'], /speculos-server: unexpected argument "extra"/],
    ] as const) {
      const r = await cli('speculos-server', ...args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});

describe('chain-ledger CLI with --device speculos:PORT (startSpeculosServer over HTTP)', () => {
  it('address and send-zkapp --only-sign through the unmodified Speculos transport', async () => {
    const device = quietLedger({ extensions: true, blindSigning: true });
    const server = await startSpeculosServer(device, { buttons: false });
    try {
      const address = await cli('address', '--device', `speculos:${server.port}`, '--account', '1');
      expect(address.code).toBe(0);
      expect(address.json).toEqual({ address: addressOf(1) });
      expect(address.stderr).toMatch(/Speculos on port/);
      const signed = await cli('send-zkapp', FIXTURE, '--only-sign', '--device', `speculos:${server.port}`);
      expect(signed.code).toBe(0);
      // One approval for the operation: the address was read silently (INS 02, P1 = 1), the command reviewed.
      expect(device.exchanges.filter((e) => e.request.startsWith('e002')).map((e) => e.request.slice(4, 6))).toEqual(['01', '01']);
      expect(verifySigned('berkeley', 'devnet', signed.json.signedData, addressOf(0))).toBe(true);
      // Extension 1.1: the command went to the device in clear (SIGN_ZKAPP, several chunks), not blind (INS 06).
      expect(device.exchanges.filter((e) => e.request.startsWith('e0a3')).length).toBeGreaterThan(1);
      expect(device.exchanges.some((e) => e.request.startsWith('e006'))).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('send-zkapp on a Ledger that signs blind: the summary on stderr, then [y/N] before the device; y signs, n or no answer refuses with nothing sent', async () => {
    // The released Mina app (no extension): zkApp commands are signed blind (INS 06, the device shows a hash).
    const device = quietLedger({ blindSigning: true });
    const server = await startSpeculosServer(device, { buttons: false });
    const blindRequests = () => device.exchanges.filter((e) => e.request.startsWith('e006')).length;
    try {
      const args = ['send-zkapp', FIXTURE, '--only-sign', '--device', `speculos:${server.port}`];
      const yes = await cliWithInput('y\n', ...args);
      expect(yes.code).toBe(0);
      expect(verifySigned('berkeley', 'devnet', yes.json.signedData, addressOf(0))).toBe(true);
      expect(yes.stderr).toMatch(/will sign this zkApp command blind/);
      for (const line of [
        `Fee payer: ${addressOf(0)} (you)`,
        'Fee: 0.1 MINA',
        /Balance: -1(\.0+)? MINA/,
        /\(full commitment\)/,
        /MINA leaving your account: /,
      ]) {
        expect(yes.stderr).toMatch(line);
      }
      // Asked before the device's prompt: the question comes before the first blind request's progress line.
      expect(yes.stderr.indexOf('Sign it on the Ledger? [y/N]')).toBeGreaterThan(yes.stderr.indexOf('Fee payer:'));
      const signed = blindRequests();
      expect(signed).toBeGreaterThan(0);

      for (const answer of ['n\n', '']) {
        const no = await cliWithInput(answer, ...args);
        expect(no.code).toBe(1);
        expect(no.json.error).toMatchObject({ code: 1002 });
        expect(blindRequests()).toBe(signed); // nothing reached the device
      }
    } finally {
      await server.close();
    }
  });

  it('send-zkapp --yes signs blind without asking (the summary still printed); over --spend-cap it is refused before the device', async () => {
    const device = quietLedger({ blindSigning: true });
    const server = await startSpeculosServer(device, { buttons: false });
    try {
      const args = ['send-zkapp', FIXTURE, '--only-sign', '--device', `speculos:${server.port}`];
      const yes = await cliWithInput(undefined, ...args, '--yes');
      expect(yes.code).toBe(0);
      expect(verifySigned('berkeley', 'devnet', yes.json.signedData, addressOf(0))).toBe(true);
      expect(yes.stderr).toMatch(/Fee payer: B62q/);
      expect(yes.stderr).not.toMatch(/\[y\/N\]/);
      const before = device.exchanges.length;
      // The fixture takes 2.1 MINA from the account (a new account's fee, 1 MINA sent, the fee): over a 2 MINA cap.
      const capped = await cliWithInput(undefined, ...args, '--yes', '--spend-cap', '2');
      expect(capped.code).toBe(1);
      expect(capped.json.error).toMatchObject({ code: 20003 });
      expect(device.exchanges.slice(before).some((e) => e.request.startsWith('e006'))).toBe(false); // connected, nothing signed
    } finally {
      await server.close();
    }
  });

  it("send-zkapp on a Ledger that signs blind shows another account's state write and the account's send: None; under the spend cap that change signs only once its name is typed, never with --yes", async () => {
    const device = quietLedger({ blindSigning: true });
    const server = await startSpeculosServer(device, { buttons: false });
    const file = join(work, 'hand-over.json');
    writeFileSync(file, JSON.stringify(handOverWithStateWrite(quietLedger().addressOf(7))));
    const blindRequests = () => device.exchanges.filter((e) => e.request.startsWith('e006')).length;
    try {
      const args = ['send-zkapp', file, '--only-sign', '--device', `speculos:${server.port}`];
      const scripted = await cliWithInput(undefined, ...args, '--yes');
      for (const shown of [
        'Update 4 of 4',
        '│   Sets state 0: 42',
        /│ {3}⚠ Permissions: .*send None, receive None/,
        /--yes never confirms this/,
      ]) {
        expect(scripted.stderr).toMatch(shown);
      }
      expect(scripted.code).toBe(1);
      expect(scripted.json.error).toMatchObject({ code: 1002 });
      // A general yes is no confirmation of the change; its name is.
      const yesOnly = await cliWithInput('y\nyes\n', ...args);
      expect(yesOnly.stderr).toMatch(/Type "permissions" to sign it anyway/);
      expect(yesOnly.json.error).toMatchObject({ code: 1002 });
      expect(blindRequests()).toBe(0);
      const named = await cliWithInput('y\npermissions\n', ...args);
      expect(named.code).toBe(0);
      expect(verifySigned('berkeley', 'devnet', named.json.signedData, addressOf(0))).toBe(true);
      expect(blindRequests()).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  it('no Speculos listening → exit 1 with 1001', async () => {
    const r = await cli('address', '--device', 'speculos:1');
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe(1001);
  });
});
