/**
 * The device's screen and buttons behind the Speculos-compatible server: what is drawn now and what Speculos would
 * report of it (text events: screen-drawing.ts), the log of every event since the last reset, the buttons (pressed
 * and released as on Speculos: review-buttons.ts), the app's menu when no review is on screen (app-menu.ts), the
 * automation rules, and the ticker (accepted, without effect, as on the real Speculos).
 *
 * A review is shown by standing in for the device's `approve`: with buttons, each stage waits for the button that
 * answers it, as on the device; without, the device's own `approve` answers, and the screens the user would have
 * seen are still drawn (only the first stage's when it answers `'cancel'`).
 */
import { AppMenu, dashboardScreen, type MenuDevice } from './app-menu.js';
import { DEVICE_MODELS, type DeviceModel } from './device-models.js';
import type { Automation, AutomationAction } from './speculos-automation.js';
import { ButtonPanel, ReviewButtons, reviewArrows, type Button } from './review-buttons.js';
import { reviewStages, type Approver, type Review, type ReviewAnswer, type Screen } from './review.js';
import { renderDrawing, textEvents, type Arrows, type ScreenBitmap, type TextEvent } from './screen-drawing.js';
import { SCREEN_HEIGHT, SCREEN_WIDTH } from './screen-drawing.js';
import { renderTouchPage } from './touch-drawing.js';
import type { TouchModel, TouchPage } from './touch-flows.js';
import { TouchPanel } from './touch-panel.js';

/**
 * A text event as Speculos reports it. `clear` is always false, as on the real Speculos: its event broadcast resets the
 * current screen and reports nothing (speculos/api/events.py), so a tool finds screen boundaries with
 * `?currentscreenonly=true` (`currentEvents`) or from where the events are drawn.
 */
export interface SpeculosEvent extends TextEvent {
  clear: false;
}

/** What the display needs of the device. */
export interface DisplayDevice {
  approve: Approver;
  readonly version?: string;
  blindSigning?: boolean;
  readonly appOpen?: boolean;
  /** The device model (default the Nano S Plus): a Nano's buttons and BAGL screens, or a touch screen's NBGL pages. */
  readonly model?: DeviceModel;
  openApp?(): void;
  closeApp?(): void;
}

export type ButtonAction = 'press' | 'release' | 'press-and-release';
export type TickerAction = 'pause' | 'resume' | 'single-step';

const NO_ARROWS: Arrows = { left: false, right: false };
/** How many events the log keeps. */
const MAX_EVENTS = 1000;

/**
 * The software Ledger's screen and its two buttons, as the device draws and answers them: reviews walked one screen at
 * a time (right, left, both on a choice), "Processing..." and "Signing...", the idle screen and the app menu, the
 * dashboard once the app has quit; on a touch model (`device.model` 'stax' or 'flex') its touch screen instead, the
 * app's NBGL pages (`page`) answered with `finger` (touch-panel.ts). The
 * Speculos-compatible server is built on it; a page can draw it too (`bitmap()`, `subscribe`) and press its buttons
 * (`button`). It stands in for the device's `approve` while it lives; call `beforeExchange` / `afterReply` around
 * each exchange so that the screen goes back to idle when the app does.
 */
export class SpeculosDisplay {
  /** Every event since the last `clearLog()`, oldest first. */
  readonly log: SpeculosEvent[] = [];
  #screen: Screen | undefined;
  #arrows: Arrows = NO_ARROWS;
  #events: SpeculosEvent[] = [];
  readonly #listeners = new Set<(event: SpeculosEvent) => void>();
  readonly #panel = new ButtonPanel();
  readonly #menu: AppMenu;
  #review: { buttons: ReviewButtons; settle: (answer: ReviewAnswer) => void } | undefined;
  #automation: Automation | undefined;
  /** Whether the review answered in the exchange now running was approved (an error then leaves its screen up). */
  #approved = false;
  /** Whether a step of the menu is shown (the idle screen or another). */
  #onMenu = false;
  /** Whether the dashboard is shown (the app has quit). */
  #onDashboard = false;
  /** A Stax's or a Flex's touch screen (absent on a Nano). */
  readonly #touch: TouchPanel | undefined;
  readonly #restoreApprove: () => void;

  constructor(
    private readonly device: DisplayDevice,
    private readonly options: { buttons: boolean; onExit?: () => void },
  ) {
    const menuDevice: MenuDevice = {
      get version() {
        return device.version ?? '1.6.0';
      },
      get blindSigning() {
        return device.blindSigning ?? false;
      },
      set blindSigning(value: boolean) {
        device.blindSigning = value;
      },
      closeApp: () => device.closeApp?.(),
    };
    this.#menu = new AppMenu(menuDevice);
    const model = device.model ?? 'nanosp';
    if (DEVICE_MODELS[model].touch) {
      const touchDevice = Object.assign(menuDevice, {
        get appOpen() {
          return device.appOpen ?? true;
        },
        openApp: () => device.openApp?.(),
        closeApp: () => device.closeApp?.(),
      });
      this.#touch = new TouchPanel(model as TouchModel, touchDevice, (page) => this.#showPage(page));
    }
    const original = device.approve;
    device.approve = (review) => (options.buttons ? this.#awaitButtons(review) : this.#showAnswered(review, original));
    this.#restoreApprove = () => {
      device.approve = original;
    };
    this.#toMenuStart();
  }

  /** The Nano screen shown now (undefined on a touch device). */
  get screen(): Screen | undefined {
    return this.#screen;
  }

  /** The touch page shown now (undefined on a Nano). */
  get page(): TouchPage | undefined {
    return this.#touch?.page;
  }

  /** The text events of the screen shown now (kept apart from the log: a reset of the log does not clear them). */
  get currentEvents(): SpeculosEvent[] {
    return [...this.#events];
  }

  /** The pixels shown now, arrows included. */
  bitmap(): ScreenBitmap {
    if (this.#touch) return renderTouchPage(this.#touch.page, this.#touch.model);
    if (!this.#screen) return { width: SCREEN_WIDTH, height: SCREEN_HEIGHT, pixels: new Uint8Array(SCREEN_WIDTH * SCREEN_HEIGHT) };
    return renderDrawing(this.#screen.drawing, this.#arrows);
  }

  subscribe(listener: (event: SpeculosEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  clearLog(): void {
    this.log.length = 0;
  }

  setAutomation(automation: Automation): void {
    this.#automation = automation;
  }

  /**
   * `POST /ticker`: accepted and without effect on the app's timed steps, as on the real Speculos, where a paused
   * ticker still lets the app go from "Processing..." to the address by itself.
   */
  ticker(_action: TickerAction): void {}

  /** A button action as Speculos's `POST /button/{left,right,both}` takes it. */
  button(button: Button, action: ButtonAction): void {
    const sides = button === 'both' ? (['left', 'right'] as const) : ([button] as const);
    if (action !== 'release') for (const side of sides) this.#panel.press(side);
    if (action === 'press') return;
    for (const side of sides) {
      const event = this.#panel.release(side);
      if (event) this.#onButton(event);
    }
  }

  /** A finger on the touch screen, as Speculos's `POST /finger` takes it (no effect on a Nano). */
  finger(action: ButtonAction, x: number, y: number, delay?: number): void {
    this.#touch?.finger(action, x, y, delay);
  }

  /** An exchange is starting. */
  beforeExchange(): void {
    this.#approved = false;
  }

  /**
   * The device replied: it goes back to its idle screen after a success or a rejection; an error after an approval
   * leaves the screen as it was ("Signing...", or the Approve screen of a message), as the real app does.
   */
  afterReply(ok: boolean): void {
    if (!ok && this.#approved) return;
    if (this.#touch) {
      // The status page of the answer stays until tapped (the device dismisses it after 3 s).
      if (!this.#touch.onStatus && this.#touch.page?.kind !== 'home') this.#touch.home();
    } else if (!this.#onMenu) this.#toMenuStart();
  }

  close(): void {
    this.#restoreApprove();
    this.#review?.settle(false);
    this.#touch?.close();
    this.#listeners.clear();
  }

  #show(screen: Screen | undefined, arrows: Arrows = NO_ARROWS, onMenu = false, onDashboard = false): void {
    this.#onMenu = onMenu;
    this.#onDashboard = onDashboard;
    this.#screen = screen;
    this.#arrows = arrows;
    this.#emit(screen ? textEvents(screen.drawing) : []);
  }

  #showPage(page: TouchPage): void {
    this.#emit(page.texts);
  }

  /** The events of the screen drawn now: the current screen's, logged, streamed, matched by the automation rules. */
  #emit(events: TextEvent[]): void {
    this.#events = events.map(({ text, x, y, w, h }) => ({ text, x, y, w, h, clear: false as const }));
    for (const event of this.#events) {
      this.log.push(event);
      if (this.log.length > MAX_EVENTS) this.log.shift();
      for (const listener of this.#listeners) listener(event);
      if (this.#automation) this.#automate(this.#automation.actionsFor(event));
    }
  }

  /** The app's `ui_idle`: the first step of its menu, its home page on a touch device (the dashboard once it quit). */
  #toMenuStart(): void {
    this.#menu.reset();
    if (this.#touch) this.#touch.home();
    else if (this.device.appOpen === false) this.#show(dashboardScreen(), { left: true, right: true }, false, true);
    else this.#show(this.#menu.screen, this.#menu.arrows, true);
  }

  /** Automation actions run once the screen is drawn, as the app reads its buttons after drawing. */
  #automate(actions: AutomationAction[]): void {
    if (actions.length === 0) return;
    queueMicrotask(() => {
      for (const action of actions) {
        if (action[0] === 'button') {
          const side = action[1] === 1 ? 'left' : action[1] === 2 ? 'right' : undefined;
          if (side) this.button(side, action[2] ? 'press' : 'release');
        } else if (action[0] === 'finger') this.finger(action[3] ? 'press' : 'release', action[1], action[2]);
        else if (action[0] === 'setbool') this.#automation?.setVariable(action[1], action[2]);
        else if (action[0] === 'exit') this.options.onExit?.();
      }
    });
  }

  #onButton(button: Button): void {
    const active = this.#review;
    if (!active) {
      if (this.#onDashboard && button === 'both') {
        this.device.openApp?.(); // both buttons on an app's tile open it
        this.#toMenuStart();
        return;
      }
      if (!this.#onMenu) return;
      const outcome = this.#menu.press(button);
      if (outcome === 'quit') this.#toMenuStart();
      else if (outcome !== 'none') this.#show(this.#menu.screen, this.#menu.arrows, true);
      return;
    }
    const step = active.buttons.press(button);
    if (step.kind === 'moved') this.#show(active.buttons.screen, active.buttons.arrows);
    else if (step.kind === 'next-stage') this.#nextStage(active.buttons);
    else if (step.kind === 'decided') {
      this.#review = undefined;
      this.#decided(active.buttons.review, step.answer);
      active.settle(step.answer);
    }
  }

  #nextStage(buttons: ReviewButtons): void {
    if (buttons.review.betweenStages) this.#show(buttons.review.betweenStages);
    this.#show(buttons.screen, buttons.arrows);
  }

  #touchAnswered(review: Review, answer: ReviewAnswer): ReviewAnswer {
    this.#approved = answer === true && review.approvable;
    return answer;
  }

  /** After the answer: "Signing..." while an approved transaction is signed, the idle screen after a rejection. */
  #decided(review: Review, answer: ReviewAnswer): void {
    this.#approved = answer === true && review.approvable;
    if (this.#approved && review.afterApproval) this.#show(review.afterApproval);
    else if (!this.#approved) this.#toMenuStart();
  }

  #awaitButtons(review: Review): Promise<ReviewAnswer> {
    if (this.#touch) return this.#touch.review(review).then((answer) => this.#touchAnswered(review, answer));
    this.#review?.settle(false);
    return new Promise((resolve) => {
      const buttons = new ReviewButtons(review);
      this.#review = { buttons, settle: resolve };
      this.#show(buttons.screen, buttons.arrows);
    });
  }

  /** Without buttons: the device's own approver answers; the screens the user went through are drawn. */
  async #showAnswered(review: Review, original: Approver): Promise<ReviewAnswer> {
    if (this.#touch) {
      const answer = await original(review);
      this.#touch.shown(review, answer);
      return this.#touchAnswered(review, answer);
    }
    const arrows = reviewArrows(review);
    const [first, ...later] = reviewStages(review).map((stage, i, all) => {
      const start = all.slice(0, i).reduce((n, s) => n + s.length, 0);
      return stage.map((screen, j) => [screen, arrows[start + j]] as const);
    });
    for (const [screen, at] of first!) this.#show(screen, at);
    const answer = await original(review);
    if (answer !== 'cancel') {
      for (const stage of later) {
        if (review.betweenStages) this.#show(review.betweenStages);
        for (const [screen, at] of stage) this.#show(screen, at);
      }
    }
    this.#decided(review, answer);
    return answer;
  }
}
