/** What the connected Mina app can do, read once at connect; every method checks it before touching the device. */
import type { ExtensionCapabilities } from '../apdu/extension.js';
import { supports, type AppVersion } from '../apdu/version.js';

export interface Capabilities {
  appVersion: AppVersion;
  silentAddress: boolean;
  signMessage: boolean;
  /** INS 06: zkApp commitments (blind signing). */
  signFieldElement: boolean;
  /**
   * The chain-ledger protocol extension (nullifiers, multi-field signing, docs/apdu-extensions.md), probed at
   * connect; null when the app lacks it (every released Mina app today).
   */
  extension: ExtensionCapabilities | null;
}

/** The capabilities of app `appVersion` with the extension it answered (or null). */
export function capabilitiesOf(appVersion: AppVersion, extension: ExtensionCapabilities | null): Capabilities {
  return {
    appVersion,
    silentAddress: supports(appVersion, 'silentAddress'),
    signMessage: supports(appVersion, 'signMessage'),
    signFieldElement: supports(appVersion, 'signFieldElement'),
    extension,
  };
}
