/**
 * The runnable examples of docs/transports.md, as a reader runs them (`npx tsx examples/transports/…`): LedgerJS and
 * Ledger's Device Management Kit, each against the software Ledger behind chain-ledger's Speculos-compatible server.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, spawnBounded } from '../support/process.js';

const ADDRESS_0 = 'B62qnzbXmRNo9q32n4SNu2mpB8e7FYYLH8NmaX6oFCBYjjQ8SbD7uzV';
const tsx = (script: string) => spawnBounded(join(REPO, 'node_modules/.bin/tsx'), [script], 120_000);

describe('examples/transports', () => {
  it('ledgerjs.ts: requestAccounts and a message mina-signer verifies, over @ledgerhq/hw-transport-node-speculos-http', async () => {
    const { code, stdout } = await tsx('examples/transports/ledgerjs.ts');
    expect(code).toBe(0);
    expect(stdout).toContain(`requestAccounts → ${ADDRESS_0}`);
    expect(stdout).toContain('signMessage → verified by mina-signer: true');
  });

  it('dmk.ts: the signer kit opens the Mina app from the dashboard (its states printed), then window.chain on the same session', async () => {
    const { code, stdout } = await tsx('examples/transports/dmk.ts');
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /pending, signer\.mina\.steps\.openApp, confirm-open-app\n.*pending, signer\.mina\.steps\.openApp, none\n.*pending, signer\.mina\.steps\.getAddress, verify-address\nsigner\.getAddress → B62qnzb\w+ \(x [0-9a-f]{8}…, (odd|even)\)/,
    );
    expect(stdout).toContain('signer.getAppConfiguration → Mina app 1.6.0, extension none');
    expect(stdout).toContain('chain.signMessage → verified by mina-signer: true');
  });
});
