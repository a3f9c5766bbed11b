/**
 * The reviews of every instruction as PNG snapshots, as a Zemu test keeps them for a real app (with Docker; here
 * without): each screen as the Nano S Plus draws it, in the order the device shows it, the transient screens
 * ("Processing...", "Signing...") where the app draws them, compared pixel by pixel with
 * test/fixtures/snapshots/<review>/00000.png, … (test/support/screen-snapshots.ts).
 *
 * After a deliberate change to what the device shows: `npm run snapshots:update`, look at the PNGs, commit them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../../src/apdu/bytes.js';
import { encodeSignLongText } from '../../src/apdu/sign-text.js';
import { idleScreen, menuSteps } from '../../src/emulator/app-menu.js';
import { reviewArrows, reviewStages, type Arrows, type Review, type Screen } from '../../src/emulator.js';
import { quietLedger } from '../support/rig.js';
import { compareScreens } from '../support/screen-snapshots.js';
import { recorded } from '../support/speculos-recordings.js';
import { exchange } from '../support/vectors.js';

/** The reviews a device shows for `requests` (hex APDUs, in order), approving each. */
async function reviewsOf(requests: string[], options: { extensions?: boolean | '1.4'; blindSigning?: boolean } = {}): Promise<Review[]> {
  const reviews: Review[] = [];
  const device = quietLedger({ ...options, approve: (review) => (reviews.push(review), true) });
  for (const request of requests) await device.exchange(fromHex(request));
  return reviews;
}

/** Every screen of `review` in the order the device shows it, with the arrows drawn on it. */
function shown(review: Review): Array<{ screen: Screen; arrows?: Arrows }> {
  const arrows = reviewArrows(review);
  const out: Array<{ screen: Screen; arrows?: Arrows }> = [];
  let index = 0;
  reviewStages(review).forEach((stage, i) => {
    if (i > 0 && review.betweenStages) out.push({ screen: review.betweenStages });
    for (const screen of stage) out.push({ screen, arrows: arrows[index++] });
  });
  if (review.approvable && review.afterApproval) out.push({ screen: review.afterApproval });
  return out;
}

/** The requests of an @ledgerhq/hw-transport-mocker transcript (test/fixtures/*.apdu). */
const transcript = (file: string) =>
  readFileSync(new URL(`../fixtures/${file}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('=> '))
    .map((line) => line.slice(3));

/** SIGN_TEXT 1.4 of a 16 KiB text (too long to page through: shown as its SHA-256), as hex APDUs. */
const longTextRequests = () =>
  encodeSignLongText({ account: 0, networkId: 0, origin: 'https://socialcap.app', message: 'vote;'.repeat(3277).slice(0, 16384) }).map(
    ({ ins, p1, p2, data }) => toHex(Uint8Array.of(0xe0, ins, p1, p2, data.length)) + toHex(data),
  );

/** sign_tx_1 with another memo (32 bytes at offset 138 of the data): spaces, an _, bytes the font lacks. */
function withMemo(memo: Uint8Array): string {
  const apdu = fromHex(exchange('sign_tx_1').request);
  apdu.fill(0, 5 + 138, 5 + 170);
  apdu.set(memo, 5 + 138);
  return Buffer.from(apdu).toString('hex');
}

const cases: Array<[string, () => Promise<Review[]>]> = [
  ['ins02-address', () => reviewsOf([exchange('get_address_0_show').request])],
  ['ins03-payment-testnet', () => reviewsOf([exchange('sign_tx_1').request])],
  ['ins03-payment-mainnet', () => reviewsOf([recorded('payment mainnet basic').request])],
  ['ins03-payment-odd-memo', () => reviewsOf([withMemo(new TextEncoder().encode('  a_b hé ☃ x'))])],
  ['ins03-delegation-testnet', () => reviewsOf([exchange('sign_tx_5').request])],
  ['ins03-delegation-mainnet', () => reviewsOf([recorded('delegation mainnet').request])],
  ['ins05-message', () => reviewsOf([exchange('sign_msg_1').request])],
  ['ins06-field-element', () => reviewsOf([exchange('sign_field_devnet').request], { blindSigning: true })],
  ['ins06-blind-signing-off', () => reviewsOf([exchange('sign_field_devnet_blind_signing_disabled').request])],
  ['a1-sign-fields', () => reviewsOf(transcript('extension-sign-fields.apdu'), { extensions: true, blindSigning: true })],
  ['a2-create-nullifier', () => reviewsOf(transcript('extension-create-nullifier.apdu'), { extensions: true })],
  ['a3-sign-zkapp', () => reviewsOf(transcript('extension-sign-zkapp-transfer.apdu'), { extensions: true })],
  ['a3-sign-zkapp-escaped-text', () => reviewsOf(transcript('extension-sign-zkapp-escaped-text.apdu'), { extensions: true })],
  ['a3-sign-zkapp-state-write', () => reviewsOf(transcript('extension-sign-zkapp-state-write.apdu'), { extensions: true })],
  ['a4-sign-presentation', () => reviewsOf(transcript('extension-sign-presentation-https.apdu'), { extensions: true })],
  // SIGN_TEXT: Auro's sign-in text in pages with its line breaks; a text with a tab and non-ASCII, escaped.
  ['a5-sign-text', () => reviewsOf(transcript('extension-sign-text-sign-in.apdu'), { extensions: true })],
  ['a5-sign-text-escaped', () => reviewsOf(transcript('extension-sign-text-mainnet.apdu'), { extensions: true })],
  ['a5-sign-text-long-hash', () => reviewsOf(longTextRequests(), { extensions: '1.4', blindSigning: true })],
];

describe('the screens of each instruction match their PNG snapshots', () => {
  it.each(cases)('%s', async (name, reviews) => {
    const [review, ...more] = await reviews();
    expect(more).toEqual([]);
    expect(await compareScreens(name, shown(review!))).toEqual([]);
  });

  it('the idle screen and the app menu', async () => {
    const steps = menuSteps({ version: '1.6.0', blindSigning: false });
    expect(steps[0]!.lines).toEqual(idleScreen().lines);
    const arrows = { left: true, right: true };
    expect(
      await compareScreens(
        'menu',
        steps.map((screen) => ({ screen, arrows })),
      ),
    ).toEqual([]);
  });
});
