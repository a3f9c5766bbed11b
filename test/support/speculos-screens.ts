/**
 * Reading the screens a Speculos transport streams (`automationEvents`), as a test against the real Speculos would:
 * the text events of each screen in drawing order. Speculos marks no screen boundary (`clear` is always false), so a
 * screen is found from where its events are drawn (`startsScreen`). Every wait has a deadline: a missing screen
 * fails the test instead of hanging it.
 */
import { textEvents, type ScreenLayout } from '../../src/emulator/screen-drawing.js';
import type { SpeculosControls } from '../../src/transport/node.js';

/** How long a wait for a screen lasts by default. */
export const WAIT_MS = 5_000;
/** While a wait may also end by `until` settling (which no event announces), it looks again this often. */
const POLL_MS = 50;

/** A text event as Speculos streams it (the transport's type declares only text, x and y). */
export type SpeculosEvent = { text: string; x: number; y: number; w?: number; h?: number; clear?: boolean };

/** The largest gap between two pieces of one row (Speculos's OCR, MAX_BLANK_SPACE_NANO). */
const MAX_BLANK_SPACE = 12;
/**
 * How much lower a row's event starts than the one above it, at least: rows are 14 pixels apart, and an event's top is
 * its highest glyph's (1 to 3 pixels below the line's top for letters and digits). An OCR box's height is no guide:
 * it is computed from bitmap bytes and can reach past the next row.
 */
const ROW_STEP = 10;
/** Below this, an event is a paged value's title (the paging layout's first row, baseline 15). */
const PAGING_TITLE_BOTTOM = 12;
/** The layouts whose first text is drawn where no other layout draws a later row (a bold title, pnn's first line). */
const FIRST_ROWS: ScreenLayout[] = ['paging', 'bn', 'pbb', 'pb', 'pnn'];

/** Whether `event` is drawn exactly as the first text of one of those layouts would be. */
const drawnAsFirstRow = (event: SpeculosEvent) =>
  FIRST_ROWS.some((layout) => {
    const first = textEvents({ layout, texts: [event.text] })[0];
    return first !== undefined && first.x === event.x && first.y === event.y && first.w === event.w && first.h === event.h;
  });

/**
 * Whether `event` starts a new screen after `previous`, from the Nano's own layouts (Speculos reports no boundary):
 * the events of a screen are drawn top to bottom, each row lower than the one before (`ROW_STEP`) or, for the pieces the
 * OCR cuts a row into (a leading space, an `_`), just right of the previous piece; and an event drawn exactly as a
 * screen's first row (a bold title, an icon's first line: screen-drawing.ts) starts one, as a `pb` choice after a
 * short value does.
 */
export function startsScreen(previous: SpeculosEvent | undefined, event: SpeculosEvent): boolean {
  if (!previous) return true;
  const lowerRow = event.y - previous.y >= ROW_STEP;
  const end = previous.x + (previous.w ?? 0);
  const nextPiece = event.x >= end && event.x - end < MAX_BLANK_SPACE;
  // The row under a paged value's title (its top rows, y < 12) is that value's: a bold title can draw the same box.
  return (!lowerRow && !nextPiece) || (lowerRow && previous.y >= PAGING_TITLE_BOTTOM && drawnAsFirstRow(event));
}

/** `events` grouped into screens, each its text lines. */
export function screensOf(events: readonly SpeculosEvent[]): string[][] {
  const screens: string[][] = [];
  events.forEach((e, i) => {
    if (startsScreen(events[i - 1], e)) screens.push([e.text]);
    else screens.at(-1)!.push(e.text);
  });
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
  async next(match: (event: SpeculosEvent, index: number) => boolean, what: string, ms = WAIT_MS): Promise<SpeculosEvent> {
    return (await this.#next(match, what, ms))!;
  }

  /** Waits until `text` is drawn. */
  async waitFor(text: string, ms = WAIT_MS): Promise<void> {
    await this.next((e) => e.text === text, JSON.stringify(text), ms);
  }

  /** The title of the next screen drawn. */
  async nextTitle(ms = WAIT_MS): Promise<string> {
    return (await this.next(this.#startsScreen, 'the next screen', ms)).text;
  }

  /** The title of the next screen drawn, or undefined once `until` has settled with no screen left to read. */
  async nextTitleUntil(until: { settled: boolean }, ms = WAIT_MS): Promise<string | undefined> {
    return (await this.#next(this.#startsScreen, 'the next screen', ms, until))?.text;
  }

  /** Whether the event at the cursor starts a screen (the one before it is the previous event). */
  readonly #startsScreen = (event: SpeculosEvent, index: number): boolean => startsScreen(this.events[index - 1], event);

  close(): void {
    this.#subscription.unsubscribe();
  }

  async #next(
    match: (event: SpeculosEvent, index: number) => boolean,
    what: string,
    ms: number,
    until?: { settled: boolean },
  ): Promise<SpeculosEvent | undefined> {
    const deadline = Date.now() + ms;
    for (;;) {
      while (this.#cursor < this.events.length) {
        const index = this.#cursor++;
        const event = this.events[index]!;
        if (match(event, index)) return event;
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
