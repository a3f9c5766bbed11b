/**
 * The demo software Ledger drawn as the device the holder picked (chain-ledger/emulator's `SpeculosDisplay`, the
 * model the Speculos-compatible server runs):
 *
 * - a Nano S Plus or a Nano X: its 128 × 64 screen (the app's own screens, pixels from `renderScreen`) in a device
 *   frame, with its left, right and both buttons; right and left move through a stage's screens, both acts on a
 *   choice; with no review, the app menu, where both on "Blind signing" toggles it;
 * - a Stax or a Flex: its touch screen (the app's NBGL pages), which takes taps and long presses ("Hold to sign"
 *   needs the finger held, as on the device), and the same zones as buttons under it for the keyboard.
 *
 * One screen at a time; "Show all screens" lists the current review. A Nano's canvas is drawn at an integer scale
 * (square, sharp pixels), a touch screen's at the width the page gives it (down to 360 px wide screens).
 *
 * Its interface is `new DeviceView(ledger, elements)`, `press(button)` and `onReview`: it builds nothing outside
 * the elements it is given.
 */
import {
  DEVICE_MODELS,
  type Button,
  type Review,
  type Screen,
  type SoftwareLedger,
  SpeculosDisplay,
  type TouchAction,
  type TouchZone,
  nbglReviewOf,
  reviewArrows,
} from 'chain-ledger/emulator';

/** A Nano's largest scale (3: 384 × 192 CSS pixels); smaller when the page is narrower. */
const MAX_SCALE = 3;
/** A touch screen's largest width in CSS pixels. */
const MAX_TOUCH_WIDTH = 320;
/** What the frame adds around the screen, in CSS pixels (its padding and border: style.css `.nano-body`). */
const FRAME = 36;
const NANO = { ink: '#f2f5f7', paper: '#000' };
/** Speculos's long press, in seconds (a hold of "Hold to sign" shorter than this is a tap). */
const HOLD_S = 2.4;

/** The touch zones as buttons for the keyboard, by what they do. */
const ZONE_LABELS: Record<TouchAction, string> = {
  next: 'Next ▶',
  previous: '◀ Back',
  reject: 'Reject',
  hold: 'Hold to sign (keep it pressed)',
  confirm: 'Confirm',
  'yes-reject': 'Yes, reject',
  'go-back': 'Go back',
  dismiss: 'Dismiss',
  settings: 'Settings',
  quit: 'Quit app',
  exit: 'Home',
  'toggle-blind-signing': 'Blind signing on/off',
  'open-app': 'Open Mina',
};

export interface DeviceViewElements {
  /** The section holding the device (shown in demo mode). */
  section: HTMLElement;
  canvas: HTMLCanvasElement;
  left: HTMLButtonElement;
  both: HTMLButtonElement;
  right: HTMLButtonElement;
  /** Where a touch device's zones are offered as buttons (empty for a Nano). */
  touchButtons: HTMLElement;
  /** "Screen 3 of 28", or what the device is doing. */
  caption: HTMLElement;
  /** Shows or hides the list of the review's screens. */
  showAll: HTMLButtonElement;
  list: HTMLOListElement;
  /** Shown when the app has quit to the dashboard: opens it again. */
  reopen: HTMLButtonElement;
}

/**
 * The text of a screen as a person reads it: one line per row drawn (the pieces Speculos reports of one row joined
 * again), without the empty rows of the device's layout.
 */
export function screenText(screen: Screen): string[] {
  const rows = new Map<number, string>();
  screen.lines.forEach((piece, i) => {
    const row = screen.rows[i] ?? i;
    rows.set(row, (rows.get(row) ?? '') + piece);
  });
  return [...rows.values()].map((line) => line.trim()).filter((line) => line !== '');
}

export class DeviceView {
  readonly #display: SpeculosDisplay;
  readonly #ledger: SoftwareLedger;
  readonly #el: DeviceViewElements;
  readonly #touch: boolean;
  #review: Review | undefined;
  #drawPending = false;
  /** CSS pixels per device pixel. */
  #scale = 0;
  /** Called when a review appears (the page brings the device into view). */
  onReview: (review: Review) => void = () => {};

  constructor(ledger: SoftwareLedger, elements: DeviceViewElements) {
    this.#ledger = ledger;
    this.#el = elements;
    this.#touch = DEVICE_MODELS[ledger.model].touch;
    this.#display = new SpeculosDisplay(ledger, { buttons: true });
    elements.section.dataset.model = ledger.model;
    const label = elements.section.querySelector('h2 small');
    if (label) label.textContent = `NOT HARDWARE · a ${DEVICE_MODELS[ledger.model].name} as it draws`;
    // The display now stands in for the device's approve: wrapped again, to know the review it shows.
    const shown = ledger.approve;
    ledger.approve = (review) => {
      this.#review = review;
      this.#renderList();
      this.onReview(review);
      this.#scheduleDraw();
      return Promise.resolve(shown(review)).finally(() => {
        if (this.#review === review) this.#review = undefined;
        this.#renderList();
        this.#scheduleDraw();
      });
    };
    // The app goes back to its idle screen after each reply, as the device does: the display is told around each APDU.
    const exchange = ledger.exchange.bind(ledger);
    ledger.exchange = async (apdu) => {
      this.#display.beforeExchange();
      const reply = await exchange(apdu);
      this.#display.afterReply(reply.length >= 2 && reply[reply.length - 2] === 0x90 && reply[reply.length - 1] === 0x00);
      this.#scheduleDraw();
      return reply;
    };
    this.#display.subscribe(() => this.#scheduleDraw());
    if (this.#touch) this.#takeTouches();
    else this.#takeButtons();
    elements.showAll.onclick = () => {
      const open = elements.list.hidden;
      elements.list.hidden = !open;
      elements.showAll.setAttribute('aria-expanded', String(open));
      elements.showAll.textContent = open ? 'Hide the list of screens' : 'Show all screens';
    };
    elements.reopen.onclick = () => {
      this.#ledger.openApp();
      this.#display.afterReply(true); // the app starts on its idle screen
      this.#scheduleDraw();
    };
    new ResizeObserver(() => this.#fit()).observe(elements.section);
    this.#fit();
  }

  /** One button, pressed and released, as the device reads it (a Nano's). */
  press(button: Button): void {
    this.#display.button(button, 'press-and-release');
    // The frame's keys move as they are pressed.
    const keys = [...this.#el.section.querySelectorAll('.nano-key')];
    for (const key of button === 'both' ? keys : [keys[button === 'left' ? 0 : 1]]) {
      key?.classList.add('pressed');
      setTimeout(() => key?.classList.remove('pressed'), 120);
    }
    this.#scheduleDraw();
  }

  #takeButtons(): void {
    const { left, right, both, section, touchButtons } = this.#el;
    touchButtons.hidden = true;
    const press = (button: Button) => () => this.press(button);
    left.onclick = press('left');
    right.onclick = press('right');
    both.onclick = press('both');
    section.addEventListener('keydown', (event) => {
      if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
        event.preventDefault();
        this.press(event.key === 'ArrowLeft' ? 'left' : 'right');
      }
    });
  }

  /** A finger on the canvas: put down, lifted (a long press when held), at the device's coordinates. */
  #takeTouches(): void {
    const { canvas, left, right, both, touchButtons } = this.#el;
    for (const b of [left, right, both]) b.hidden = true;
    touchButtons.hidden = false;
    const at = (event: PointerEvent) => {
      const box = canvas.getBoundingClientRect();
      const { width, height } = DEVICE_MODELS[this.#ledger.model];
      return [
        Math.floor(((event.clientX - box.left) / box.width) * width),
        Math.floor(((event.clientY - box.top) / box.height) * height),
      ] as const;
    };
    canvas.addEventListener('pointerdown', (event) => {
      canvas.setPointerCapture(event.pointerId);
      this.#display.finger('press', ...at(event));
    });
    canvas.addEventListener('pointerup', (event) => {
      this.#display.finger('release', ...at(event));
      this.#scheduleDraw();
    });
  }

  /** A zone as a button: pressed, then released (held: a long press), at the zone's centre. */
  #zoneButton(zone: TouchZone): HTMLButtonElement {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = zone.action === 'hold' || zone.action === 'confirm' ? '' : 'secondary';
    button.dataset.action = zone.action;
    button.textContent = ZONE_LABELS[zone.action];
    const [x, y] = [zone.x + Math.floor(zone.w / 2), zone.y + Math.floor(zone.h / 2)];
    let down = false;
    const press = () => {
      if (down) return;
      down = true;
      this.#display.finger('press', x, y);
    };
    const release = () => {
      if (!down) return;
      down = false;
      this.#display.finger('release', x, y);
      this.#scheduleDraw();
    };
    button.addEventListener('pointerdown', press);
    button.addEventListener('pointerup', release);
    button.addEventListener('pointerleave', release);
    button.addEventListener('keydown', (event) => {
      if (event.key !== ' ' && event.key !== 'Enter') return;
      event.preventDefault();
      press();
    });
    button.addEventListener('keyup', release);
    return button;
  }

  /** The scale that fits the section's width: an integer for a Nano (whole squares), any for a touch screen. */
  #fit(): void {
    const style = getComputedStyle(this.#el.section);
    const room = this.#el.section.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight) - FRAME;
    const { width } = DEVICE_MODELS[this.#ledger.model];
    const scale = this.#touch ? Math.min(MAX_TOUCH_WIDTH, room) / width : Math.max(1, Math.min(MAX_SCALE, Math.floor(room / width)));
    if (scale === this.#scale) return;
    this.#scale = scale;
    this.#el.section.style.setProperty('--screen-width', `${Math.floor(width * scale)}px`);
    this.#scheduleDraw();
  }

  #scheduleDraw(): void {
    if (this.#drawPending) return;
    this.#drawPending = true;
    queueMicrotask(() => {
      this.#drawPending = false;
      this.#draw();
    });
  }

  #paint(): void {
    const { canvas } = this.#el;
    const bitmap = this.#display.bitmap();
    const ratio = Math.max(1, Math.round(globalThis.devicePixelRatio || 1));
    // A Nano: whole device pixels; a touch screen: its own pixels, scaled by the browser.
    const px = this.#touch ? 1 : this.#scale * ratio;
    canvas.width = bitmap.width * px;
    canvas.height = bitmap.height * px;
    canvas.style.width = `${Math.floor(bitmap.width * this.#scale)}px`;
    canvas.style.height = `${Math.floor(bitmap.height * this.#scale)}px`;
    const g = canvas.getContext('2d');
    if (!g) return;
    if (this.#touch) {
      const image = g.createImageData(bitmap.width, bitmap.height);
      for (let i = 0; i < bitmap.pixels.length; i++)
        image.data.fill(bitmap.pixels[i] ? 0 : 255, i * 4, i * 4 + 3).fill(255, i * 4 + 3, i * 4 + 4);
      g.putImageData(image, 0, 0);
      return;
    }
    g.fillStyle = NANO.paper;
    g.fillRect(0, 0, canvas.width, canvas.height);
    g.fillStyle = NANO.ink;
    for (let y = 0; y < bitmap.height; y++) {
      for (let x = 0; x < bitmap.width; x++) if (bitmap.pixels[y * bitmap.width + x]) g.fillRect(x * px, y * px, px, px);
    }
  }

  #draw(): void {
    this.#paint();
    const { canvas, caption, reopen, section, touchButtons } = this.#el;
    const review = this.#review;
    const quit = !this.#ledger.appOpen;
    reopen.hidden = !quit;
    section.dataset.review = String(review !== undefined);
    if (this.#touch) {
      const page = this.#display.page;
      const text = page?.texts.map((t) => t.text) ?? [];
      canvas.setAttribute('aria-label', text.length ? `The device shows: ${text.join(' / ')}` : 'The device shows nothing');
      section.dataset.title = page?.title ?? '';
      touchButtons.replaceChildren(...(page?.zones ?? []).map((zone) => this.#zoneButton(zone)));
      caption.textContent =
        review === undefined
          ? `The Mina app on a ${DEVICE_MODELS[this.#ledger.model].name}: tap the screen, or the buttons under it.`
          : `Tap ▶ for the next page; "Hold to sign" approves when held ${HOLD_S} s; "Reject" asks first.`;
      return;
    }
    const screen = this.#display.screen;
    const text = screen ? screenText(screen) : [];
    canvas.setAttribute('aria-label', text.length ? `The device shows: ${text.join(' / ')}` : 'The device shows nothing');
    const index = review && screen ? review.screens.indexOf(screen) : -1;
    section.dataset.title = screen?.title ?? '';
    section.dataset.index = String(index);
    // The arrows drawn: a review's as the SDK draws them; the menu loops (both always); none on "Signing..." and such.
    const arrows =
      review && index >= 0
        ? reviewArrows(review)[index]!
        : { left: review === undefined && screen !== undefined, right: review === undefined && screen !== undefined };
    section.dataset.left = String(arrows.left);
    section.dataset.right = String(arrows.right);
    caption.textContent = quit
      ? 'The Mina app has quit to the dashboard (both buttons open it again).'
      : review === undefined
        ? 'The Mina app: its menu (right and left to browse; both on "Blind signing" toggles it).'
        : index >= 0
          ? `Screen ${index + 1} of ${review.screens.length}: right ▶ for the next, both buttons on Approve or Reject to answer.`
          : text.join(' ');
    for (const [i, item] of [...this.#el.list.children].entries()) {
      if (i === index) item.setAttribute('aria-current', 'step');
      else item.removeAttribute('aria-current');
    }
  }

  /** The review as text, one item per screen (a Nano's) or per tag/value pair (a touch device's). */
  #renderList(): void {
    const review = this.#review;
    const { list, showAll } = this.#el;
    showAll.hidden = review === undefined;
    if (review === undefined) {
      list.replaceChildren();
      return;
    }
    const items = this.#touch
      ? nbglReviewOf(review).pairs.map(({ item, value }) => [item, value])
      : review.screens.map((screen) => screenText(screen));
    list.replaceChildren(
      ...items.map(([title, ...rest]) => {
        const item = document.createElement('li');
        const heading = document.createElement('strong');
        heading.textContent = title ?? '';
        item.append(heading);
        if (rest.length > 0) {
          const value = document.createElement('span');
          value.textContent = rest.join('\n');
          item.append(value);
        }
        return item;
      }),
    );
  }
}
