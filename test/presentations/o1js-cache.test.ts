/**
 * The o1js file cache of presentation circuits is kept under its cap (src/presentations/o1js-cache.ts): whole circuits
 * go, least recently used first, never the one in use nor the files every circuit shares (the SRS, Lagrange bases).
 */
import { utimesSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pruneO1jsCache } from '../../src/presentations/o1js-cache.js';
import { tempDirs } from '../support/rig.js';

const tempDir = tempDirs('o1js-cache');

describe('pruneO1jsCache', () => {
  it('the o1js cache keeps the presentation circuits under the cap, least recently used first; shared files stay', async () => {
    const dir = tempDir();
    const ids = ['1111111111111111', '2222222222222222', '3333333333333333', '4444444444444444'].map((h) => `credential-${h}`);
    ids.forEach((id, i) => {
      for (const file of [`step-pk-${id}-run`, `step-pk-${id}-run.header`]) {
        writeFileSync(join(dir, file), Buffer.alloc(file.endsWith('header') ? 10 : 1000));
        utimesSync(join(dir, file), 1_000_000 + i * 1000, 1_000_000 + i * 1000); // ids[0] oldest
      }
    });
    writeFileSync(join(dir, 'srs-fp-65536'), Buffer.alloc(5000));
    // ids[0] is the oldest but is being used now: it is kept, and the next oldest go.
    expect(await pruneO1jsCache(ids[0], 2100, dir)).toEqual([ids[1], ids[2]]);
    expect(readdirSync(dir).sort()).toEqual(
      ['srs-fp-65536', ...[ids[0], ids[3]].flatMap((id) => [`step-pk-${id}-run`, `step-pk-${id}-run.header`])].sort(),
    );
  });
});
