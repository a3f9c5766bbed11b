/**
 * Writes src/connect/methods.ts, the connector's list of wallet methods, from the provider's method table
 * (src/provider/methods.ts): each wallet name, the direct method that sends it, and whether that method takes params.
 * The connector cannot import the table (its zod schemas and domain functions would enter every dapp's bundle), so
 * the names it needs are generated; test/connect/methods.test.ts fails when the file is not what the table makes.
 *
 *   npm run methods:generate
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WALLET_METHODS } from '../src/provider/methods.js';

/** Where the list goes. */
export const CONNECT_METHODS_FILE = fileURLToPath(new URL('../src/connect/methods.ts', import.meta.url));

/** The text of src/connect/methods.ts for the table `table` (formatted as Biome formats it). */
export function connectMethodsSource(table: Record<string, { method: string; params?: unknown }> = WALLET_METHODS): string {
  const rows = Object.entries(table).map(
    ([name, { method, params }]) => `  ${name}: { method: '${method}', params: ${params !== undefined} },`,
  );
  return `/**
 * The wallet methods the connector forwards: each wallet name, the direct method that sends it, and whether that
 * method takes params (\`(args, context?)\`) or not (\`(context?)\`). Generated from the provider's method table
 * (src/provider/methods.ts) by \`npm run methods:generate\`: importing the table would bring its zod schemas into the
 * dapp's bundle. Do not edit; test/connect/methods.test.ts checks that it is what the table makes.
 */
import type { ProviderMethod, WalletMethod } from '../provider/methods.js';
import type { RpcParams } from '../provider/rpc.js';

export const WALLET_METHODS = {
${rows.join('\n')}
} as const satisfies { [M in WalletMethod]: { method: ProviderMethod<M>; params: [RpcParams<M>] extends [undefined] ? false : true } };
`;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(CONNECT_METHODS_FILE, connectMethodsSource());
  console.log(`wrote ${CONNECT_METHODS_FILE}`);
}
