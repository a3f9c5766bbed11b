/** Child processes the tests run (a build, the o1js warm-up, esbuild, the CLI), each bounded in time. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The package condition that points package.json "imports" (`#upstream/…`, the Node/browser twins) at src/*.ts
 * instead of dist/: vitest sets it (vitest.config.ts), and every Node process a test starts on the TypeScript sources
 * passes this flag (`node --conditions=…`, `tsx --conditions=…`, `esbuild --conditions=…`).
 */
export const SOURCE_CONDITION = 'chain-ledger-source';
export const SOURCE_CONDITION_FLAG = `--conditions=${SOURCE_CONDITION}`;

/** How a child process ended and what it wrote: `output` is stdout and stderr together, in the order they came. */
export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
  output: string;
}

/**
 * Runs `command args` in the repository and resolves how it ended, whatever its exit code, once its output streams
 * have closed; kills it and rejects, naming `what`, when it runs longer than `timeoutMs`. `env` adds to this
 * process's environment.
 */
export function spawnBounded(
  command: string,
  args: string[],
  timeoutMs: number,
  what = `${command} ${args.join(' ')}`,
  env: Record<string, string> = {},
): Promise<Finished> {
  const child = spawn(command, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const done: Finished = { code: null, stdout: '', stderr: '', output: '' };
  child.stdout.on('data', (c: Buffer) => {
    done.stdout += c.toString();
    done.output += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    done.stderr += c.toString();
    done.output += c.toString();
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
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ ...done, code });
    });
  });
}

/**
 * Runs `command args` in the repository and resolves its output (stdout and stderr together); rejects with the
 * output's tail when it exits non-zero, and kills it when it runs longer than `timeoutMs`.
 */
export async function runBounded(
  command: string,
  args: string[],
  timeoutMs: number,
  what = `${command} ${args.join(' ')}`,
  env: Record<string, string> = {},
): Promise<string> {
  const { code, output } = await spawnBounded(command, args, timeoutMs, what, env);
  if (code !== 0) throw new Error(`${what} exited ${code}:\n${output.slice(-4000)}`);
  return output;
}
