/**
 * The Chromium the browser tests run: the one `npm install` brings (@sparticuz/chromium, a headless-shell build
 * shipped brotli-compressed inside the npm package, statically linked apart from libc, libgcc and libexpat), or any
 * Chromium/Chrome named by `CHROMIUM_BIN` (e.g. Debian's /usr/bin/chromium). No apt step, no browser download.
 *
 * The package's own `executablePath()` inflates into a fixed `$TMPDIR/chromium` and trusts any file already there
 * (a half-written one from an interrupted run, or another version's); so we inflate it ourselves, once per package
 * version, into node_modules/.cache, writing to a temporary name and renaming it into place (atomic: concurrent test
 * processes never see a partial binary). The vitest global setup (test/support/global-setup.ts) does it before any
 * test file starts; `chromiumPath()` in a test file then only finds it.
 */
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import { REPO } from './process.js';

const PACKAGE = '@sparticuz/chromium';

/**
 * Flags for running as root in a container: no sandbox (root), no GPU, no /dev/shm (small in containers), and none of
 * Chromium's background network services (this machine's network is closed; they would only log failures).
 * Deliberately none of @sparticuz/chromium's own `args` (--single-process, --disable-web-security, no site
 * isolation): the tests need a browser that enforces what a user's does.
 */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--no-first-run',
  '--no-default-browser-check',
];

/** Where the package's binary is inflated to: one directory per installed version of the package. */
async function packagedBinary(): Promise<{ source: string; target: string; version: string }> {
  const require = createRequire(join(REPO, 'package.json'));
  // The exports map hides package.json; the CommonJS entry is build/cjs/index.cjs, two levels below the root.
  const root = dirname(dirname(dirname(require.resolve(PACKAGE))));
  const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string };
  return {
    source: join(root, 'bin/chromium.br'),
    target: join(REPO, 'node_modules/.cache/chain-ledger/chromium', version, 'chromium'),
    version,
  };
}

/**
 * The browser for a test: `CHROMIUM_BIN` when set (it must exist), else the packaged one, inflated here if the
 * global setup has not done it yet (≈ 1–2 s, 190 MB, once per version). Throws with what to do when there is none.
 */
export async function chromiumPath(): Promise<string> {
  const fromEnv = process.env.CHROMIUM_BIN;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CHROMIUM_BIN is ${fromEnv}, which does not exist`);
    return fromEnv;
  }
  let packaged: Awaited<ReturnType<typeof packagedBinary>>;
  try {
    packaged = await packagedBinary();
  } catch (cause) {
    throw new Error(`${PACKAGE} is not installed (a devDependency: run \`npm install\`), and CHROMIUM_BIN is not set`, { cause });
  }
  const { source, target } = packaged;
  if (existsSync(target)) return target;
  await mkdir(dirname(target), { recursive: true });
  const partial = `${target}.${process.pid}.partial`;
  try {
    await pipeline(createReadStream(source), createBrotliDecompress(), createWriteStream(partial, { mode: 0o755 }));
    await chmod(partial, 0o755);
    await rename(partial, target);
  } finally {
    await rm(partial, { force: true });
  }
  return target;
}
