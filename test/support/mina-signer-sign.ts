/** mina-signer's own zkApp signer per era (a second party signing with its private key, for tests). */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ERA_PACKAGES, type Era } from '../../src/upstream/mina-signer-internals.js';

const modules = {} as Record<Era, { signZkappCommand(json: unknown, privateKey: string, network: string): any }>;
for (const era of ['berkeley', 'mesa'] as const) {
  const dir = dirname(createRequire(import.meta.url).resolve(ERA_PACKAGES[era]));
  modules[era] = await import(pathToFileURL(join(dir, 'src', 'sign-zkapp-command.js')).href);
}

export function forEra(era: Era) {
  return modules[era];
}
