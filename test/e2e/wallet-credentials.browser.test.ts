/**
 * The wallet page's Credentials screen and its accessibility, end to end in the packaged Chromium against the built
 * wallet and web dapp (test/support/wallet-harness.ts): the scenarios are in wallet-credentials-scenario.ts and
 * wallet-a11y-scenario.ts.
 */
import { afterAll, describe, it } from 'vitest';
import { closeEnv } from '../support/wallet-harness.js';
import { walletAccessibility } from './wallet-a11y-scenario.js';
import { walletCredentials } from './wallet-credentials-scenario.js';

afterAll(closeEnv);

describe("the wallet's Credentials screen and its accessibility in Chromium (examples/wallet)", () => {
  it(
    'an issuer site stores a credential; the wallet lists it only after the device unlocks the store (STORE_KEY naming the wallet), with its issuer, the site, its field names and the device code; Delete, approved on the device, removes it',
    walletCredentials,
    400_000,
  );

  it(
    'axe-core finds no serious or critical violation on Home, Activity, Sites, Credentials and the request sheet, at 390 and 1280 px',
    walletAccessibility,
    300_000,
  );
});
