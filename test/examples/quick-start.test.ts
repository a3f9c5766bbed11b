/**
 * The walk-through (`npm start`, examples/quick-start.ts) as the README's first command runs it (the embedded software
 * Ledger with the extension: every step, the presentation included), and against a device that has only what the
 * released Mina app has: `--device speculos:PORT` on `startSpeculosServer` with a software Ledger whose extension is
 * off (the default). Everything the app supports runs and verifies; a zkApp command is shown by the host before the
 * device signs it blind; the nullifier and presentation steps say what the device lacks and the walk-through goes on;
 * the summary lists both; the exit code is 0.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSpeculosServer, type SpeculosServer } from '../../src/emulator.js';
import { REPO, SOURCE_CONDITION_FLAG, spawnBounded } from '../support/process.js';
import { quietLedger } from '../support/rig.js';

/** The part of the walk-through's output from the step titled `title` to the next step. */
function stepOf(stdout: string, title: string): string {
  const start = stdout.indexOf(`▶ ${title}`);
  expect(start, title).toBeGreaterThanOrEqual(0);
  const end = stdout.indexOf('\n▶', start + 1);
  return stdout.slice(start, end < 0 ? undefined : end);
}

describe('npm start (the embedded software Ledger, with the extension)', () => {
  it('runs every step; each heavy step says what it takes, the presentation is named for what the device shows, the verifier reports progress, and the released-app step asks for no second address', async () => {
    const { code, stdout, stderr } = await spawnBounded(
      join(REPO, 'node_modules/.bin/tsx'),
      [SOURCE_CONDITION_FLAG, 'examples/quick-start.ts'],
      480_000,
    );
    expect(stderr).not.toMatch(/✖/);
    expect(code).toBe(0);
    expect(stdout).not.toMatch(/skipped: the device lacks/);
    const present = stepOf(stdout, 'chain.requestPresentation()');
    expect(present.split('\n')[0]).toMatch(
      /the owner signs on the Ledger \(SIGN_PRESENTATION\), the host proves \(1–2 min on 2 busy cores/,
    );
    expect(present).toContain('│ Share | credentials');
    expect(present).toContain('│ Verifier | http://localhost');
    // Presentation.verify runs off the walk-through's thread: its stages are lines, as they start.
    const verify = stepOf(stdout, 'The verifier: Presentation.verify');
    expect(verify.split('\n')[0]).toContain('(30–60 s on 2 busy cores)');
    expect(verify).toMatch(
      /… compiling the request's circuit for its verification key \(\d+\.\d s\)\n[\s\S]*… checking the proof \(\d+\.\d s\)/,
    );
    expect(verify).toContain('✔ the proof verifies and names the expected issuer');
    expect(stepOf(stdout, 'Start the local chain').split('\n')[0]).toContain('5–15 s: o1js starts');
    // The released app: a second software Ledger, connected with its address read silently, says so; no address review.
    const released = stepOf(stdout, 'The same command on the released Mina app');
    expect(released).toContain('connected with its address read silently');
    expect(released).not.toContain('│ Get | Address');
    expect(released).toContain('│ Blind | Signing');
  }, 500_000);
});

describe('npm start -- --device speculos:PORT on the released app (no extension)', () => {
  let server: SpeculosServer;
  const device = quietLedger({ blindSigning: true });

  beforeAll(async () => {
    expect(device.extensions).toBe(false); // the default is the released app
    // The screens are published; the device's approver (approve all) stands in for the buttons.
    server = await startSpeculosServer(device, { port: 0, buttons: false });
  });
  afterAll(() => server?.close());

  it('runs what the app supports, shows each zkApp command on the host before the blind prompt, says what needs the extension, and exits 0', async () => {
    const { code, stdout, stderr } = await spawnBounded(
      join(REPO, 'node_modules/.bin/tsx'),
      [SOURCE_CONDITION_FLAG, 'examples/quick-start.ts', '--device', `speculos:${server.port}`],
      240_000,
    );
    expect(stderr).not.toMatch(/✖/);
    expect(code).toBe(0);
    expect(stdout).toContain(`Device: Speculos on port ${server.port}`);
    for (const verified of ['mina-signer verifyPayment', 'mina-signer verifyFields', 'the local chain applied it', 'verifyZkappCommand']) {
      expect(stdout).toContain(verified);
    }
    expect(stdout).toMatch(/chain\.createNullifier\(\)\n {3}skipped: the device lacks CREATE_NULLIFIER \(INS 0xA2\).*ProviderError 20006/);
    expect(stdout).toMatch(/chain\.requestPresentation\(\)\n {3}skipped: the device lacks SIGN_FIELDS \(INS 0xA1\).*ProviderError 20006/);
    const summary = stdout.slice(stdout.indexOf('── summary'));
    expect(summary).toMatch(
      /needs the chain-ledger extension, which this device lacks \(2\):\n {5}– chain\.createNullifier\(\)\n {5}– chain\.requestPresentation\(\)/,
    );
    expect(summary).toContain('✔ Blind-sign a zkApp commitment (INS 06');
    // Before the released app signs a zkApp command blind, the host shows what it does, under a spend cap.
    const review = stdout.slice(stdout.indexOf('▶ chain.sendTransaction(): a zkApp command'));
    expect(review).toMatch(/on the host, before the Ledger is asked \(http:\/\/localhost, spend cap 5 MINA\)/);
    expect(review).toContain('│   Fee: 0.1 MINA');
    expect(review).toMatch(/│ Update 3 of 3\n {3}│ {3}Account: B62\w+\n {3}│ {3}Token: MINA\n {3}│ {3}Balance: \+2\.5 MINA/);
    expect(review).toMatch(/│ {3}You sign: the fee payer and updates 1, 2 \(full commitment\): your signature covers the whole command/);
    expect(review).toContain('│   MINA leaving your account: 3.6 MINA (fee included)');
    expect(review).toContain('│   ⚠ On the Ledger: only a hash of this command (blind signing): this review is all you see');
    expect(review).toMatch(/│ {3}Nonce: 0 \(your account's next\)/);
    // A page's request for the account itself: the review shows the state write and the send permission's value,
    // and the spend cap asks about the change by name (the walk-through refuses): nothing reaches the device.
    const handOver = stdout.slice(stdout.indexOf("▶ A page asks to set your account's send permission to None"));
    expect(handOver).toMatch(/│ Update 2 of 2\n {3}│ {3}Account: B62\w+\n {3}│ {3}Token: MINA\n {3}│ {3}Sets state 0: 42\n/);
    expect(handOver).toMatch(/│ {3}⚠ Permissions: [^\n]*send None[^\n]*: anyone may then send on your account without your signature\n/);
    expect(handOver).toMatch(/⚠ beyond the spend cap: Update 1 changes your account's permissions: [^\n]*send None/);
    const refusedAt = handOver.indexOf('refused before the Ledger was asked (ProviderError 1002): nothing was signed');
    expect(refusedAt).toBeGreaterThan(0);
    expect(handOver.slice(0, refusedAt)).not.toMatch(/Blind-sign the zkApp/); // no device prompt came first
    expect(review.indexOf('on the host, before the Ledger is asked')).toBeLessThan(review.indexOf('Blind-sign the zkApp full commitment'));
    // The device's prompt is a progress line (the provider's onProgress), stamped with the seconds since the step began.
    expect(review).toMatch(/\n {3}⏳ Blind-sign the zkApp full commitment .*\(\d+\.\d s\)\n/);
    // The device really did the work: it answered the extension probe with 0x6D00 and signed over HTTP.
    expect(device.exchanges.some((e) => e.request.startsWith('e0a0') && e.reply === '6d00')).toBe(true);
    expect(device.exchanges.filter((e) => e.request.startsWith('e006') && e.reply.endsWith('9000')).length).toBeGreaterThanOrEqual(3);
  }, 250_000);
});
