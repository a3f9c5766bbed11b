/** The repository's esbuild, run as a child process the way the tests bundle an entry point. */
import { join } from 'node:path';
import { REPO, spawnBounded } from './process.js';

const ESBUILD = join(REPO, 'node_modules/.bin/esbuild');

/**
 * Runs esbuild with `args` in the repository (bounded: 30 s) and returns what it wrote to stdout (the bundle, when
 * there is no --outfile). Throws with esbuild's stderr when it fails, naming `what` it was bundling.
 */
export async function esbuild(args: string[], what: string): Promise<string> {
  const { code, stdout, stderr } = await spawnBounded(ESBUILD, args, 30_000, 'esbuild');
  if (code !== 0) throw new Error(`esbuild could not bundle ${what} (exit ${code}):\n${stderr}`);
  return stdout;
}
