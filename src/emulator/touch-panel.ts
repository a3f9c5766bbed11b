/**
 * The touch screen of a Stax or a Flex running the Mina app, and what a finger does on it (touch-flows.ts has the
 * pages and zones): the app's home page and its settings (the Blind signing switch, then the app's information), a
 * review walked page by page (next, previous; "Reject transaction" then "Yes, reject"; approve by holding "Hold to
 * sign", or by tapping "Confirm" on an address), the status page after the answer, and the dashboard once the app
 * has quit.
 *
 * A finger acts when it is lifted, in the zone it was put down in; holding it for at least `LONG_PRESS_S` seconds
 * (Speculos's `delay`, or the time between `press` and `release`) is a long press, which only "Hold to sign" needs.
 */
import type { Review, ReviewAnswer } from './review.js';
import {
  confirmRejectPage,
  dashboardPage,
  homePage,
  reviewPages,
  settingsPages,
  spinnerPage,
  statusPage,
  zoneAt,
  type NbglReview,
  type TouchModel,
  type TouchPage,
} from './touch-flows.js';
import { nbglOf } from './touch-reviews.js';

/** The SDK's long press ("Hold to sign"): Ragger holds 3 s and says the SDK needs at least 2.4 s. */
export const LONG_PRESS_S = 2.4;

/** What the touch screen reads and changes on the device. */
export interface TouchDevice {
  readonly version: string;
  blindSigning: boolean;
  readonly appOpen: boolean;
  openApp(): void;
  closeApp(): void;
}

interface ActiveReview {
  nbgl: NbglReview;
  pages: TouchPage[];
  index: number;
  settle: (answer: ReviewAnswer) => void;
}

export class TouchPanel {
  #page: TouchPage | undefined;
  #review: ActiveReview | undefined;
  /** Where a finger was put down (its release acts there) and when. */
  #pressed: { x: number; y: number; at: number } | undefined;

  constructor(
    readonly model: TouchModel,
    private readonly device: TouchDevice,
    private readonly show: (page: TouchPage) => void,
  ) {}

  get page(): TouchPage | undefined {
    return this.#page;
  }

  /** Whether the status page of a review just answered is shown (it stays until tapped or the next review). */
  get onStatus(): boolean {
    return this.#page?.kind === 'status';
  }

  /** The app's home page, or the dashboard once the app has quit (`ui_idle`). */
  home(): void {
    this.#draw(this.device.appOpen ? homePage(this.model) : dashboardPage(this.model));
  }

  /** Shows `review` and resolves with the answer the finger gives. */
  review(review: Review): Promise<ReviewAnswer> {
    this.#review?.settle(false);
    return new Promise((settle) => {
      const nbgl = nbglOf(review);
      this.#review = { nbgl, pages: reviewPages(this.model, nbgl, review.approvable), index: 0, settle };
      this.#draw(this.#review.pages[0]!);
    });
  }

  /** Without a finger: the pages the user went through, then the status of the answer given. */
  shown(review: Review, answer: ReviewAnswer): void {
    const nbgl = nbglOf(review);
    const pages = reviewPages(this.model, nbgl, review.approvable);
    for (const page of answer === true ? pages : pages.slice(0, 1)) this.#draw(page);
    if (answer === true && review.approvable && nbgl.useCase === 'review') this.#draw(spinnerPage(this.model));
    this.#draw(statusPage(this.model, nbgl.useCase, answer === true && review.approvable));
  }

  /** Speculos's `POST /finger`: `press`, `release` or both, `delay` seconds apart. */
  finger(action: 'press' | 'release' | 'press-and-release', x: number, y: number, delay = 0, now = Date.now()): void {
    if (action === 'press') {
      this.#pressed = { x, y, at: now };
      return;
    }
    const down = action === 'release' ? this.#pressed : { x, y, at: now - delay * 1000 };
    this.#pressed = undefined;
    if (down) this.#tap(down.x, down.y, (now - down.at) / 1000 >= LONG_PRESS_S);
  }

  #tap(x: number, y: number, long: boolean): void {
    const page = this.#page;
    const zone = page && zoneAt(page, x, y);
    if (!page || !zone) return;
    if (this.#review) this.#onReview(this.#review, zone.action, long);
    else this.#onHome(zone.action);
  }

  /** The home page, the settings and the dashboard. */
  #onHome(action: string): void {
    const settings = (index: 0 | 1) => this.#draw(settingsPages(this.model, this.device.version, this.device.blindSigning)[index]);
    if (action === 'toggle-blind-signing') this.device.blindSigning = !this.device.blindSigning;
    if (action === 'quit') this.device.closeApp();
    if (action === 'open-app') this.device.openApp();
    if (action === 'settings' || action === 'toggle-blind-signing' || action === 'previous') settings(0);
    else if (action === 'next') settings(1);
    else if (action === 'quit' || action === 'open-app' || action === 'exit' || action === 'dismiss') this.home();
  }

  #onReview(review: ActiveReview, action: string, long: boolean): void {
    const last = review.pages.length - 1;
    if (action === 'next' || action === 'previous') review.index = Math.max(0, Math.min(last, review.index + (action === 'next' ? 1 : -1)));
    if (action === 'next' || action === 'previous' || action === 'go-back') this.#draw(review.pages[review.index]!);
    // An address review's Cancel answers at once; a review's reject asks first.
    else if (action === 'reject' && review.nbgl.useCase === 'address') this.#answer(review, 'cancel');
    else if (action === 'reject') this.#draw(confirmRejectPage(this.model));
    else if (action === 'yes-reject') this.#answer(review, false);
    else if ((action === 'hold' && long) || action === 'confirm') this.#answer(review, true);
  }

  #answer(review: ActiveReview, answer: ReviewAnswer): void {
    this.#review = undefined;
    // The app's review_choice: the spinner while it signs, then the status (an address is derived beforehand).
    if (answer === true && review.nbgl.useCase === 'review') this.#draw(spinnerPage(this.model));
    this.#draw(statusPage(this.model, review.nbgl.useCase, answer === true));
    review.settle(answer);
  }

  #draw(page: TouchPage): void {
    this.#page = page;
    this.show(page);
  }

  /** Ends a review still shown (the display closes). */
  close(): void {
    this.#review?.settle(false);
    this.#review = undefined;
  }
}
