/** Child processes the tests run (a build, the o1js warm-up, esbuild), each bounded in time. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs `command args` in the repository and resolves its output (stdout and stderr together); rejects with the
 * output's tail when it exits non-zero, and kills it when it runs longer than `timeoutMs`.
 */
export function runBounded(command: string, args: string[], timeoutMs: number, what = `${command} ${args.join(' ')}`): Promise<string> {
  const child = spawn(command, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    out += c.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${what} exited ${code}:\n${out.slice(-4000)}`));
    });
  });
}
