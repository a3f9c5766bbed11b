/** The repository's esbuild, run as a child process the way the tests bundle an entry point. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const ESBUILD = join(REPO, 'node_modules/.bin/esbuild');

/**
 * Runs esbuild with `args` in the repository (bounded: 30 s) and returns what it wrote to stdout (the bundle, when
 * there is no --outfile). Throws with esbuild's stderr when it fails, naming `what` it was bundling.
 */
export async function esbuild(args: string[], what: string): Promise<string> {
  const child = spawn(ESBUILD, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error('esbuild did not finish within 30 s'))), 30_000);
    child.on('exit', (c) => (clearTimeout(timer), resolve(c)));
    child.on('error', (e) => (clearTimeout(timer), reject(e)));
  });
  if (code !== 0) throw new Error(`esbuild could not bundle ${what} (exit ${code}):\n${err}`);
  return out;
}
