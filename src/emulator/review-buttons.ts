/**
 * The two buttons of a Nano and how a review answers them, as the SDK's flow engine does (lib_ux ux_flow_engine.c,
 * `ux_flow_button_callback`):
 *
 * - A button acts when released: pressing does nothing visible, and while any button is held the others pressed join
 *   it, so pressing left and right and releasing both is one "both" (`ButtonPanel`).
 * - Right and left move through the screens of the current stage, and stop at its ends (the Mina app's review flows
 *   do not loop). Both act only on a choice screen: a stage ends on its go-on choice then its stop choice
 *   (Generate/Cancel, Approve/Reject, ACCEPT RISK/Reject); a notice ends on its Reject only (`ReviewButtons`).
 */
import type { Review, ReviewAnswer, Screen } from './review.js';
import type { Arrows } from './screen-drawing.js';

export type Button = 'left' | 'right' | 'both';

/** Speculos's button numbers: 1 left, 2 right. */
const BUTTON_BITS = { left: 1, right: 2 } as const;

/**
 * Which buttons are held, and the button event their release makes. `press`/`release` return the event (a button
 * released once every button is up), or undefined.
 */
export class ButtonPanel {
  #held = 0;
  #pressed = 0;

  press(button: 'left' | 'right'): undefined {
    this.#held |= BUTTON_BITS[button];
    this.#pressed |= BUTTON_BITS[button];
    return undefined;
  }

  /** Releasing a button that is not held does nothing. */
  release(button: 'left' | 'right'): Button | undefined {
    if (!(this.#held & BUTTON_BITS[button])) return undefined;
    this.#held &= ~BUTTON_BITS[button];
    if (this.#held !== 0) return undefined;
    const pressed = this.#pressed;
    this.#pressed = 0;
    return pressed === 3 ? 'both' : pressed === 1 ? 'left' : 'right';
  }
}

/** What a button did to a review. */
export type ReviewStep =
  | { kind: 'none' }
  | { kind: 'moved' }
  /** The stage's go-on choice: the next stage starts (after `review.betweenStages`, if any). */
  | { kind: 'next-stage' }
  | { kind: 'decided'; answer: ReviewAnswer };

/** One review walked with the buttons. */
export class ReviewButtons {
  /** The screen shown, an index into `review.screens`. */
  #index = 0;

  constructor(readonly review: Review) {}

  get screen(): Screen {
    return this.review.screens[this.#index]!;
  }

  /** The current stage: its index and where its screens start and end in `review.screens`. */
  get #stage(): { stage: number; first: number; last: number } {
    const starts = this.review.stages ?? [0];
    const stage = starts.filter((start) => start <= this.#index).length - 1;
    return { stage, first: starts[stage]!, last: (starts[stage + 1] ?? this.review.screens.length) - 1 };
  }

  /** The SDK draws the left arrow unless on a stage's first screen, the right one unless on its last. */
  get arrows(): Arrows {
    return reviewArrows(this.review)[this.#index]!;
  }

  press(button: Button): ReviewStep {
    const { stage, first, last } = this.#stage;
    if (button === 'right' || button === 'left') {
      const next = button === 'right' ? Math.min(this.#index + 1, last) : Math.max(this.#index - 1, first);
      if (next === this.#index) return { kind: 'none' };
      this.#index = next;
      return { kind: 'moved' };
    }
    // Both buttons: the stop choice ends the review; the go-on choice (not on a notice) goes on or approves.
    if (this.#index === last) return { kind: 'decided', answer: stage === 0 && (this.review.stages?.length ?? 1) > 1 ? 'cancel' : false };
    if (!this.review.approvable || this.#index !== last - 1) return { kind: 'none' };
    if (stage === (this.review.stages?.length ?? 1) - 1) return { kind: 'decided', answer: true };
    this.#index = last + 1;
    return { kind: 'next-stage' };
  }
}

/** The arrows the SDK draws on each screen of `review` (none back past a stage's first screen, none on past its last). */
export function reviewArrows(review: Review): Arrows[] {
  const starts = review.stages ?? [0];
  return review.screens.map((_, i) => {
    const stage = starts.filter((start) => start <= i).length - 1;
    const last = (starts[stage + 1] ?? review.screens.length) - 1;
    return { left: i > starts[stage]!, right: i < last };
  });
}
