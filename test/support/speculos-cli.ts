/**
 * `chain-ledger speculos-server` as a holder uses it: started as a child process (the built bin), its printed screens
 * read, its buttons pressed on its stdin. For the CLI test and the README's command lines.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { resolve } from 'node:path';
import { expect } from 'vitest';

export const BIN = resolve(import.meta.dirname, '../../dist/cli/main.js');

/** A TCP port free on 127.0.0.1 now. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as AddressInfo;
  await new Promise((done) => probe.close(done));
  return port;
}

export interface SpeculosCli {
  child: ChildProcessWithoutNullStreams;
  /** What it printed so far (stdout and stderr). */
  output(): string;
  /** Resolves its exit code once it has exited. */
  closed: Promise<number | null>;
  /**
   * Answers the reviews it shows until `done()` is true, as a holder does on the device: right to the stage's last
   * screen (where right changes nothing: its stop choice), left to its go-on choice, both; again for each stage. The
   * app's home screen ("Mina | is ready") is left alone (its menu is not a review).
   */
  approveUntil(done: () => boolean, maxPresses?: number): Promise<void>;
}

/** Starts `chain-ledger speculos-server ARGS` and waits until it says where it listens. */
export async function startSpeculosCli(args: string[]): Promise<SpeculosCli> {
  const child = spawn(process.execPath, [BIN, 'speculos-server', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const closed = new Promise<number | null>((done) => child.once('close', done));
  await expect.poll(() => output, { timeout: 30_000 }).toMatch(/Software Ledger on http:\/\/127\.0\.0\.1:\d+: NOT hardware/);
  /** Presses `button`; whether the screen changed (a new screen line printed) within `ms`. */
  const moved = async (button: string, ms = 1_500) => {
    const before = output.length;
    child.stdin.write(`${button}\n`);
    return expect
      .poll(() => output.length, { timeout: ms })
      .toBeGreaterThan(before)
      .then(
        () => true,
        () => false,
      );
  };
  return {
    child,
    output: () => output,
    closed,
    async approveUntil(done, maxPresses = 200) {
      for (let presses = 0; !done(); presses++) {
        if (presses > maxPresses) throw new Error(`the review did not end after ${maxPresses} presses:\n${output}`);
        if (output.trimEnd().endsWith('│ Mina | is ready')) {
          await new Promise((wake) => setTimeout(wake, 200));
          continue;
        }
        if (await moved('right')) continue;
        await moved('left');
        await moved('both', 10_000);
      }
    },
  };
}
