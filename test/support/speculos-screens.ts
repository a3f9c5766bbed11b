/**
 * Reading the screens a Speculos transport streams (`automationEvents`), as a test against the real Speculos would:
 * the text events of each screen in drawing order, a screen's first event (its title) marked `clear` (the screen was
 * cleared before it was drawn). Every wait has a deadline: a missing screen fails the test instead of hanging it.
 */
import type { SpeculosControls } from '../../src/transport/node.js';

/** How long a wait for a screen lasts by default. */
export const WAIT_MS = 5_000;
/** While a wait may also end by `until` settling (which no event announces), it looks again this often. */
const POLL_MS = 50;

/** A text event as Speculos streams it (the transport's type declares only text, x and y). */
export type SpeculosEvent = { text: string; x: number; y: number; w?: number; h?: number; clear?: boolean };

/** `events` grouped into screens, each its text lines (a screen starts on its title row). */
export function screensOf(events: readonly SpeculosEvent[]): string[][] {
  const screens: string[][] = [];
  for (const e of events) {
    if (e.clear === true || screens.length === 0) screens.push([e.text]);
    else screens.at(-1)!.push(e.text);
  }
  return screens;
}

/** What the transport's event stream delivered, read in order with a cursor; every wait has a timeout. */
export class ScreenLog {
  readonly events: SpeculosEvent[] = [];
  #cursor = 0;
  #wake: (() => void) | undefined;
  #subscription: { unsubscribe(): void };

  constructor(controls: SpeculosControls) {
    this.#subscription = controls.automationEvents.subscribe((event) => {
      this.events.push(event);
      this.#wake?.();
    });
  }

  get texts(): string[] {
    return this.events.map((e) => e.text);
  }

  /** Moves the cursor past every event so far; returns how many there are (where the next one will be). */
  skipSeen(): number {
    this.#cursor = this.events.length;
    return this.#cursor;
  }

  /** The next event after the cursor that matches; the cursor moves past it. */
  async next(match: (event: SpeculosEvent) => boolean, what: string, ms = WAIT_MS): Promise<SpeculosEvent> {
    return (await this.#next(match, what, ms))!;
  }

  /** Waits until `text` is drawn. */
  async waitFor(text: string, ms = WAIT_MS): Promise<void> {
    await this.next((e) => e.text === text, JSON.stringify(text), ms);
  }

  /** The title of the next screen drawn. */
  async nextTitle(ms = WAIT_MS): Promise<string> {
    return (await this.next((e) => e.clear === true, 'the next screen', ms)).text;
  }

  /** The title of the next screen drawn, or undefined once `until` has settled with no screen left to read. */
  async nextTitleUntil(until: { settled: boolean }, ms = WAIT_MS): Promise<string | undefined> {
    return (await this.#next((e) => e.clear === true, 'the next screen', ms, until))?.text;
  }

  close(): void {
    this.#subscription.unsubscribe();
  }

  async #next(
    match: (event: SpeculosEvent) => boolean,
    what: string,
    ms: number,
    until?: { settled: boolean },
  ): Promise<SpeculosEvent | undefined> {
    const deadline = Date.now() + ms;
    for (;;) {
      while (this.#cursor < this.events.length) {
        const event = this.events[this.#cursor++]!;
        if (match(event)) return event;
      }
      if (until?.settled) return undefined;
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        throw new Error(`timed out after ${ms} ms waiting for ${what}; screens seen: ${JSON.stringify(this.texts)}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, until ? Math.min(remaining, POLL_MS) : remaining);
        this.#wake = () => {
          clearTimeout(timer);
          this.#wake = undefined;
          resolve();
        };
      });
    }
  }
}
