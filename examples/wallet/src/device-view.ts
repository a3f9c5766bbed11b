/**
 * The demo software Ledger drawn as a device: its screen as the Nano S Plus shows it (chain-ledger/emulator's
 * `SpeculosDisplay`: the app's own screens, pixels from `renderScreen`), in a device frame, with its left, right and
 * both buttons. The buttons drive the review exactly as the device's do (the same model the Speculos-compatible
 * server runs: right and left move through a stage's screens, both acts on a choice; with no review, the app menu,
 * where both on "Blind signing" toggles it). One screen at a time; "Show all screens" lists the current review.
 *
 * The canvas is drawn at an integer scale of the device's 128 × 64 pixels (times the screen's pixel ratio), so the
 * pixels stay square and sharp, and the scale follows the width the page gives it (down to 360 px wide screens).
 */
import { type Button, type Review, type Screen, type SoftwareLedger, SpeculosDisplay, reviewArrows } from 'chain-ledger/emulator';

const WIDTH = 128;
const HEIGHT = 64;
/** The largest scale (3: 384 × 192 CSS pixels); smaller when the page is narrower. */
const MAX_SCALE = 3;
/** What the frame adds around the screen, in CSS pixels (its padding and border: style.css `.nano-body`). */
const FRAME = 36;
const LIT = '#f2f5f7';
const DARK = '#000';

export interface DeviceViewElements {
  /** The section holding the device (shown in demo mode). */
  section: HTMLElement;
  canvas: HTMLCanvasElement;
  left: HTMLButtonElement;
  both: HTMLButtonElement;
  right: HTMLButtonElement;
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
  #review: Review | undefined;
  #drawPending = false;
  #scale = 0;
  /** Called when a review appears (the page brings the device into view). */
  onReview: (review: Review) => void = () => {};

  constructor(ledger: SoftwareLedger, elements: DeviceViewElements) {
    this.#ledger = ledger;
    this.#el = elements;
    this.#display = new SpeculosDisplay(ledger, { buttons: true });
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
    const press = (button: Button) => () => this.press(button);
    elements.left.onclick = press('left');
    elements.right.onclick = press('right');
    elements.both.onclick = press('both');
    elements.section.addEventListener('keydown', (event) => {
      if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
        event.preventDefault();
        this.press(event.key === 'ArrowLeft' ? 'left' : 'right');
      }
    });
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

  /** One button, pressed and released, as the device reads it. */
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

  /** The scale that fits the section's width: an integer, so every device pixel is a whole square of pixels. */
  #fit(): void {
    const style = getComputedStyle(this.#el.section);
    const room = this.#el.section.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight) - FRAME;
    const scale = Math.max(1, Math.min(MAX_SCALE, Math.floor(room / WIDTH)));
    if (scale === this.#scale) return;
    this.#scale = scale;
    this.#el.section.style.setProperty('--screen-width', `${WIDTH * scale}px`);
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

  #draw(): void {
    const { canvas, caption, left, right, both, reopen, section } = this.#el;
    const screen = this.#display.screen;
    const bitmap = this.#display.bitmap();
    const ratio = Math.max(1, Math.round(globalThis.devicePixelRatio || 1));
    const px = this.#scale * ratio;
    canvas.width = WIDTH * px;
    canvas.height = HEIGHT * px;
    canvas.style.width = `${WIDTH * this.#scale}px`;
    canvas.style.height = `${HEIGHT * this.#scale}px`;
    const g = canvas.getContext('2d');
    if (g) {
      g.fillStyle = DARK;
      g.fillRect(0, 0, canvas.width, canvas.height);
      g.fillStyle = LIT;
      for (let y = 0; y < HEIGHT; y++) {
        for (let x = 0; x < WIDTH; x++) if (bitmap.pixels[y * WIDTH + x]) g.fillRect(x * px, y * px, px, px);
      }
    }
    const text = screen ? screenText(screen) : [];
    canvas.setAttribute('aria-label', text.length ? `The device shows: ${text.join(' / ')}` : 'The device shows nothing');
    const review = this.#review;
    const index = review && screen ? review.screens.indexOf(screen) : -1;
    const quit = !this.#ledger.appOpen;
    reopen.hidden = !quit;
    section.dataset.review = String(review !== undefined);
    section.dataset.title = screen?.title ?? '';
    section.dataset.index = String(index);
    // The arrows drawn: a review's as the SDK draws them; the menu loops (both always); none on "Signing..." and such.
    const arrows =
      review && index >= 0
        ? reviewArrows(review)[index]!
        : { left: review === undefined && screen !== undefined, right: review === undefined && screen !== undefined };
    section.dataset.left = String(arrows.left);
    section.dataset.right = String(arrows.right);
    left.disabled = right.disabled = both.disabled = quit;
    caption.textContent = quit
      ? 'The Mina app has quit to the dashboard.'
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

  /** The review's screens as text, one item per screen (its title, then its lines), for "Show all screens". */
  #renderList(): void {
    const review = this.#review;
    const { list, showAll } = this.#el;
    showAll.hidden = review === undefined;
    if (review === undefined) {
      list.replaceChildren();
      return;
    }
    list.replaceChildren(
      ...review.screens.map((screen) => {
        const [title, ...rest] = screenText(screen);
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
