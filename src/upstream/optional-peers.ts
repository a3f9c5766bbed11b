/**
 * o1js and mina-attestations are optional peer dependencies (package.json `peerDependenciesMeta`): they are large
 * (o1js ≈ 180 MB installed) and only some methods need them (nullifiers, the local chain, credentials and
 * presentations), so an application that uses only the device client, payments or message signing does not install
 * them. The loaders import them through `importPeer`, the one place a missing one becomes an error that names it.
 */
import { ErrorCode, ProviderError } from '../errors/provider-error.js';

/** The versions chain-ledger is built and tested with, as in package.json `peerDependencies` (exact: see README). */
export const OPTIONAL_PEERS = { o1js: '2.15.0', 'mina-attestations': '0.5.3' } as const;
export type OptionalPeer = keyof typeof OPTIONAL_PEERS;

/**
 * `load()` (an import of `name` or of a module inside it); when the package is not installed, a `ProviderError` 20006
 * (Method not supported) whose reason names the package and the install command.
 */
export async function importPeer<T>(name: OptionalPeer, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isMissing(error, name)) throw missingPeer(name);
    throw error;
  }
}

/** The error of a method that needs `name` where it is not installed. */
export function missingPeer(name: OptionalPeer): ProviderError {
  return new ProviderError(ErrorCode.MethodNotSupported, {
    reason: `this method needs ${name}, which is not installed: npm install ${name}@${OPTIONAL_PEERS[name]} (an optional peer dependency of chain-ledger)`,
  });
}

/**
 * Node's "Cannot find package 'o1js' imported from …" (ERR_MODULE_NOT_FOUND), and the same error from the module
 * chain-ledger/vite puts in a bundle in place of a package that was not installed at build time.
 */
function isMissing(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String(message).includes(`'${name}'`);
}
