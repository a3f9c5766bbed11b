/**
 * FileCredentialStore against what else its directory can hold: a symbolic link or a FIFO at the store or the lock
 * path, a directory others can write. Each is refused or waited for within a bound, never followed, read, blocked on
 * or spun on. Every wait is bounded (`STORE_MS`): a hang fails the test instead of stalling the suite.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../src/credentials-node.js';
import { rejection, settled } from '../support/provider-failure.js';
import { tempDirs, within } from '../support/rig.js';
import { addressOf } from '../support/vectors.js';

const ACCOUNT0 = addressOf(0);
const tempDir = tempDirs('file-store');

/** How long a store call may take before it counts as a hang. */
const STORE_MS = 15_000;

describe('the file store: links, FIFOs and shared directories never hang or pass', () => {
  const SECRET = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
  const text = JSON.stringify({
    version: 'v0',
    witness: { type: 'unsigned' },
    credential: { owner: { _type: 'PublicKey', value: ACCOUNT0 }, data: {} },
  });

  it('a dangling symbolic link at the lock path: the writer waits its bounded time, then "io", never spins on it', async () => {
    const dir = tempDir();
    const store = new FileCredentialStore(dir, { lockTimeoutMs: 300 });
    symlinkSync(join(dir, 'nowhere'), `${store.fileOf(ACCOUNT0)}.lock`);
    const error = await rejection(store.add(ACCOUNT0, SECRET, text), 'the writer', STORE_MS);
    expect(error).toMatchObject({ name: 'CredentialStoreError', kind: 'io' });
  });

  it('a FIFO at the lock path: the writer waits its bounded time, then "io", never blocks on it; a stale one is broken', async () => {
    const plainOwner = JSON.stringify({ version: 'v0', witness: { type: 'unsigned' }, credential: { owner: ACCOUNT0, data: {} } });
    const dir = tempDir();
    const store = new FileCredentialStore(dir, { lockTimeoutMs: 300 });
    const lock = `${store.fileOf(ACCOUNT0)}.lock`;
    execFileSync('mkfifo', [lock]);
    const error = await rejection(store.add(ACCOUNT0, SECRET, plainOwner), 'the writer', STORE_MS);
    expect(error).toMatchObject({ name: 'CredentialStoreError', kind: 'io', message: expect.stringMatching(/held by another process/) });
    expect(lstatSync(lock).isFIFO()).toBe(true);
    expect(await within(settled(store.list(ACCOUNT0, SECRET)), 'the read', STORE_MS)).toEqual({ value: [] }); // readers take no lock
    // Left there by a crash long ago: broken like any stale lock, and the write goes through.
    const old = Date.now() / 1000 - 3600;
    utimesSync(lock, old, old);
    expect(await within(settled(store.add(ACCOUNT0, SECRET, plainOwner)), 'the writer', STORE_MS)).toMatchObject({
      value: { duplicate: false },
    });
  });

  it('a FIFO or a symbolic link at the store path is refused ("io"), never read or blocked on', async () => {
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
