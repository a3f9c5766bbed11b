/**
 * What a review is on a touch device. The app's own NBGL reviews (address, transaction, message) come with the review
 * (`review.nbgl`, from the app's src/*_nbgl.c). The others have no NBGL code to read: the blind-signing notice and the
 * INS 06 field element (the app's NBGL field review could not be read at v1.6.0), the dashboard's OpenApp and the
 * protocol extension's reviews. For those, this project's model: the same texts as the Nano's screens, as tag/value
 * pairs (a titled value once, its pages joined), the first screen as the intro's title, the go-on choice as the last
 * page's title; a notice (nothing to approve) ends on its reject.
 */
import type { Review, Screen } from './review.js';
import type { NbglReview } from './touch-flows.js';

const PAGE_SUFFIX = / \((\d+)\/\d+\)$/;

/** What `review` shows on a touch device (Stax, Flex): its NBGL use case, titles and tag/value pairs. */
export function nbglOf(review: Review): NbglReview {
  if (review.nbgl) return review.nbgl;
  const [intro, ...rest] = review.screens;
  const body = rest.slice(0, review.approvable ? -2 : -1);
  const goOn = review.approvable ? review.screens.at(-2) : undefined;
  const pairs: NbglReview['pairs'] = [];
  for (const screen of body) {
    const { item, value } = pairOf(screen);
    const last = pairs.at(-1);
    const page = Number(PAGE_SUFFIX.exec(screen.title)?.[1] ?? 1);
    if (last && page > 1 && last.item === item) last.value += value;
    else pairs.push({ item, value });
  }
  return {
    useCase: 'review',
    title: intro ? intro.lines.join(' ') : '',
    ...(goOn ? { finish: goOn.lines.join(' ') } : {}),
    pairs,
  };
}

/** A screen as one tag/value pair: its title (without " (i/n)") and the rest of its lines. */
function pairOf(screen: Screen): { item: string; value: string } {
  const byRow = new Map<number, string>();
  screen.lines.forEach((piece, i) => {
    const row = screen.rows[i] ?? i;
    byRow.set(row, (byRow.get(row) ?? '') + piece);
  });
  const [title = '', ...lines] = [...byRow.values()];
  return { item: title.replace(PAGE_SUFFIX, ''), value: lines.join('') };
}
