/**
 * The extension's SIGN_ZKAPP review says first how long it is: right after its title, "Contents" gives the number of
 * account updates and the screens each group of the review takes, and the numbers are those of the screens that follow.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromHex } from '../../src/apdu/bytes.js';
import { shownValue, type Review } from '../../src/emulator.js';
import { quietLedger } from '../support/rig.js';

const transcript = (file: string) =>
  readFileSync(new URL(`../fixtures/${file}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('=> '))
    .map((line) => line.slice(3));

async function zkappReviewOf(file: string): Promise<{ review: Review; replies: string[] }> {
  const reviews: Review[] = [];
  const device = quietLedger({ extensions: true, approve: (review) => (reviews.push(review), true) });
  const replies: string[] = [];
  for (const request of transcript(file)) replies.push(Buffer.from(await device.exchange(fromHex(request))).toString('hex'));
  expect(reviews.map((r) => r.kind)).toEqual(['zkapp']);
  return { review: reviews[0]!, replies };
}

/** The recorded replies of a transcript (`<= ` lines). */
const recordedReplies = (file: string) =>
  readFileSync(new URL(`../fixtures/${file}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('<= '))
    .map((line) => line.slice(3));

describe('SIGN_ZKAPP: the review says first how many account updates and screens follow', () => {
  const files = ['extension-sign-zkapp-transfer.apdu', 'extension-sign-zkapp-ten-updates.apdu', 'extension-sign-zkapp-state-write.apdu'];

  it.each(files)('%s: "Contents" counts the updates and every group of screens as shown', async (file) => {
    const { review, replies } = await zkappReviewOf(file);
    expect(replies).toEqual(recordedReplies(file)); // the same reply bytes: what is signed is unchanged
    const titles = review.screens.map((s) => s.title);
    expect(titles[0]).toBe('Review zkApp');
    expect(titles[1]).toMatch(/^Contents( \(1\/\d\))?$/);
    const contents = shownValue(review, 'Contents')!;
    const match =
      /^(\d+) account updates?, (\d+) screens: the fee payer (\d+), (?:updates? ([\d, -]+) one by one (\d+), )?(?:(\d+) that changes? nothing (\d+), )?what you sign (\d+), then Approve or Reject$/.exec(
        contents,
      );
    expect(match, contents).not.toBeNull();
    const [updates, total, feePayer, , shownScreens, counted, countedScreens, signs] = match!
      .slice(1)
      .map((m) => (m === undefined ? 0 : Number(m))) as [number, number, number, number, number, number, number, number];
    expect(total).toBe(review.screens.length);
    const update = titles.map((t, i) => [t, i] as const).filter(([t]) => /^Update \d+ of \d+$/.test(t));
    expect(update.every(([t]) => t.endsWith(` of ${updates}`))).toBe(true);
    const network = titles.indexOf('Network');
    const firstUpdate = update[0]?.[1];
    const also = titles.findIndex((t) => /^Also/.test(t));
    const youSign = titles.findIndex((t) => /^You sign/.test(t));
    expect((firstUpdate ?? (also >= 0 ? also : youSign)) - network).toBe(feePayer);
    expect(firstUpdate === undefined ? 0 : (also >= 0 ? also : youSign) - firstUpdate).toBe(shownScreens);
    expect(also >= 0 ? youSign - also : 0).toBe(countedScreens);
    expect(updates - update.length).toBe(counted);
    expect(review.screens.length - 2 - youSign).toBe(signs);
  });

  it('the three-update transfer says it has 3 account updates in 31 screens, on its second screen, before the fee payer', async () => {
    const { review } = await zkappReviewOf('extension-sign-zkapp-transfer.apdu');
    const titles = review.screens.map((s) => s.title);
    expect(titles.findIndex((t) => t.startsWith('Contents'))).toBe(1);
    expect(titles.findIndex((t) => t.startsWith('Contents'))).toBeLessThan(titles.findIndex((t) => t.startsWith('Fee payer')));
    // The three updates of the example: each listed (6 screens each), the fee payer's 6, "You sign" and its cover.
    expect(shownValue(review, 'Contents')).toBe(
      `3 account updates, ${review.screens.length} screens: the fee payer 6, updates 1-3 one by one 18, what you sign 2, then Approve or Reject`,
    );
    expect(review.screens.length).toBe(31);
  });
});
