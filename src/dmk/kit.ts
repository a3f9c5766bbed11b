/**
 * The one place Ledger's Device Management Kit (`@ledgerhq/device-management-kit`, an optional peer dependency) and
 * its peer rxjs are loaded: the other modules of chain-ledger/dmk take their runtime values from `kit` and `rx`, and
 * their types by `import type`.
 *
 * DMK's ESM build loads in bundlers (Vite, esbuild, webpack), tsx and vitest, but not in plain Node: its files
 * import directories and extensionless paths (ERR_UNSUPPORTED_DIR_IMPORT). So the module is imported first (a
 * bundler follows the literal specifier and gives the page's one copy), and where that fails in Node its CommonJS
 * build is required, which is what a Node program that uses DMK loads too. `process.getBuiltinModule` (Node ≥ 20.16)
 * reaches `node:module` without an import a bundler would try to follow.
 */
import type * as DeviceManagementKit from '@ledgerhq/device-management-kit';
import type * as Rxjs from 'rxjs';
import { LedgerNotFoundError } from '../apdu/errors.js';

/** The runtime values of `@ledgerhq/device-management-kit`. */
export type Kit = typeof DeviceManagementKit;

const PACKAGE = '@ledgerhq/device-management-kit';

interface NodeModuleApi {
  createRequire(from: string): (id: string) => unknown;
}

async function loadKit(): Promise<Kit> {
  try {
    return await import('@ledgerhq/device-management-kit');
  } catch (importError) {
    const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const nodeModule = process?.getBuiltinModule?.('node:module') as NodeModuleApi | undefined;
    if (!nodeModule) throw notInstalled(importError);
    try {
      return nodeModule.createRequire(import.meta.url)(PACKAGE) as Kit;
    } catch (requireError) {
      throw (requireError as { code?: unknown }).code === 'MODULE_NOT_FOUND' ? notInstalled(requireError) : requireError;
    }
  }
}

function notInstalled(cause: unknown): LedgerNotFoundError {
  return new LedgerNotFoundError(`chain-ledger/dmk needs Ledger's Device Management Kit: npm install ${PACKAGE} rxjs`, { cause });
}

export const kit: Kit = await loadKit();

/** rxjs, which DMK requires beside it (its own builds load in plain Node ESM). */
export const rx: typeof Rxjs = await import('rxjs').catch((error: unknown) => {
  throw notInstalled(error);
});
