import { join } from 'node:path';
import { chromiumPath } from './chromium.js';
import { REPO, SOURCE_CONDITION_FLAG, runBounded } from './process.js';

const WARM_UP_TIMEOUT_MS = 600_000;

async function warmUpO1js(): Promise<string> {
  const out = await runBounded(
    join(REPO, 'node_modules/.bin/tsx'),
    [SOURCE_CONDITION_FLAG, 'test/support/o1js-warm-up.ts'],
    WARM_UP_TIMEOUT_MS,
    'the o1js warm-up',
  );
  return out.trim();
}

export default async function setup(): Promise<void> {
  const started = Date.now();
  // Without a browser only the browser tests can fail, and they say why (chromiumPath() again): not the whole run.
  const browser = chromiumPath().catch((e: Error) => `none (${e.message})`);
  const [path, circuits] = await Promise.all([browser, warmUpO1js()]);
  console.log(`global setup (${Date.now() - started} ms): browser ${path}; ${circuits}`);
}
