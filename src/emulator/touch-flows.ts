/**
 * The Mina app v1.6.0 on the touch devices (Stax, Flex): the pages its NBGL code asks the SDK for, what each says, in
 * which order, and where a finger acts. The texts and the order come from the app's code (Zondax/ledger-mina
 * src/*_nbgl.c: `nbgl_useCaseReview`, `nbgl_useCaseAddressReview`, `nbgl_useCaseHomeAndSettings` with its Blind
 * signing switch) and the SDK's use cases (lib_nbgl nbgl_use_case.c: the intro page, the tag/value pages, the last
 * page's "Hold to sign", the "Reject transaction?" confirmation, the status page); the touch zones are where Ledger's
 * Ragger presses for each use case (ragger/firmware/touch/positions.py: `UseCaseReview`, `UseCaseChoice`,
 * `UseCaseAddressConfirmation`, `UseCaseHome`, `UseCaseSettings`, `UseCaseStatus`).
 *
 * Where the pages are drawn and how many tag/value pairs fit on one is this project's model (docs/software-ledger.md,
 * "Device models"): each text is one text event, laid out in a column in the Nano's regular font drawn twice as large.
 */
import { utf8 } from '../apdu/bytes.js';
import { textWidth } from './font.js';
import { DEVICE_MODELS, type DeviceModel } from './device-models.js';

/** The models with a touch screen. */
export type TouchModel = Extract<DeviceModel, 'stax' | 'flex'>;

/** A text event on a touch screen (as Speculos reports NBGL texts: one per line drawn). */
export interface TouchText {
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** What a tap (or a long press, `hold`) in a zone does. */
export type TouchAction =
  | 'next'
  | 'previous'
  | 'reject'
  | 'hold'
  | 'confirm'
  | 'yes-reject'
  | 'go-back'
  | 'dismiss'
  | 'settings'
  | 'quit'
  | 'exit'
  | 'toggle-blind-signing'
  | 'open-app';

/** A rectangle a finger acts in. */
export interface TouchZone {
  action: TouchAction;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A drawn button: its frame and, when it has one, its label (a text event too). */
export interface TouchButton {
  label?: string;
  x: number;
  y: number;
  w: number;
  h: number;
  /** A switch: on or off. */
  on?: boolean;
  /** An icon drawn in it instead of a label (the navigation bar's arrows, its reject cross). */
  icon?: 'left' | 'right' | 'crossmark';
}

/** One page as the device draws it. */
export interface TouchPage {
  kind: 'home' | 'settings' | 'info' | 'intro' | 'pairs' | 'finish' | 'confirm-reject' | 'spinner' | 'status' | 'dashboard';
  /** Its first text. */
  title: string;
  texts: TouchText[];
  buttons: TouchButton[];
  zones: TouchZone[];
  /** The Mina logo drawn above the texts (home, intro, finish). */
  logo?: boolean;
}

/** The content of an NBGL review, as the app passes it to the SDK. */
export interface NbglReview {
  /** `nbgl_useCaseReview` (a transaction, a message, a field) or `nbgl_useCaseAddressReview`. */
  useCase: 'review' | 'address';
  /** The intro page's title (`\n` breaks a line). */
  title: string;
  /** The last page's title ("Sign transaction"); an address review ends on its address page. */
  finish?: string;
  /** The address an address review shows first. */
  address?: string;
  pairs: Array<{ item: string; value: string }>;
}

/** The text scale: the Nano's 11 px regular font drawn at twice its size. */
export const TOUCH_SCALE = 2;
const LINE = 12 * TOUCH_SCALE + 6;
const MARGIN = 24;

/** Ragger's touch positions for each model (the centre of each zone). */
const POSITIONS: Record<TouchModel, Record<string, [number, number]>> = {
  stax: {
    upperLeft: [36, 36],
    upperRight: [342, 55],
    lowerLeft: [36, 606],
    lowerMiddle: [200, 606],
    lowerRight: [342, 606],
    lowerMiddleRight: [266, 615],
    aboveLowerMiddle: [200, 515],
  },
  flex: {
    upperLeft: [45, 45],
    upperRight: [405, 75],
    lowerLeft: [55, 530],
    lowerMiddle: [240, 550],
    lowerRight: [430, 550],
    lowerMiddleRight: [320, 550],
    aboveLowerMiddle: [240, 435],
  },
};
/** Half the size of a zone around its position. */
const ZONE = { w: 34, h: 30 };

const zone = (model: TouchModel, at: string, action: TouchAction): TouchZone => {
  const [x, y] = POSITIONS[model][at]!;
  return { action, x: x - ZONE.w, y: y - ZONE.h, w: 2 * ZONE.w, h: 2 * ZONE.h };
};
const whole = (model: TouchModel, action: TouchAction): TouchZone => ({ action, x: 0, y: 0, ...size(model) });
const size = (model: TouchModel) => ({ w: DEVICE_MODELS[model].width, h: DEVICE_MODELS[model].height });

/** The pixel width of a text at the touch scale. */
const widthOf = (text: string) => textWidth('regular', utf8.encode(text)) * TOUCH_SCALE;
/** How wide a line of text can be, in pixels (a value wraps there). */
const lineRoom = (model: TouchModel) => size(model).w - 2 * MARGIN;

/** A text split into lines that fit (at word boundaries when there are some, else anywhere). */
function wrapText(text: string, room: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const char of paragraph) {
      if (widthOf(line + char) > room) {
        const cut = line.lastIndexOf(' ');
        if (cut > 0 && char !== ' ') {
          lines.push(line.slice(0, cut));
          line = line.slice(cut + 1);
        } else {
          lines.push(line);
          line = '';
        }
        if (char === ' ') continue;
      }
      line += char;
    }
    lines.push(line);
  }
  return lines;
}

/** Texts laid out top to bottom from `top`, centred or from the margin. */
function column(model: TouchModel, lines: string[], top: number, centred: boolean): TouchText[] {
  return lines.map((text, i) => {
    const w = widthOf(text);
    const x = centred ? Math.floor((size(model).w - w) / 2) : MARGIN;
    return { text, x, y: top + i * LINE, w, h: 12 * TOUCH_SCALE };
  });
}

/** A footer or action button with its label, centred on one of Ragger's positions. */
function button(model: TouchModel, at: string, label: string): TouchButton {
  const [cx, cy] = POSITIONS[model][at]!;
  const w = Math.min(size(model).w - 2 * 8, widthOf(label) + 2 * MARGIN);
  const x = Math.max(8, Math.min(size(model).w - 8 - w, cx - Math.floor(w / 2)));
  return { label, x, y: cy - 28, w, h: 56 };
}

/** The label of a button as a text event, centred in its frame. */
const labelOf = (b: TouchButton): TouchText[] =>
  b.label
    ? [{ text: b.label, x: b.x + Math.floor((b.w - widthOf(b.label)) / 2), y: b.y + 16, w: widthOf(b.label), h: 12 * TOUCH_SCALE }]
    : [];

function page(kind: TouchPage['kind'], texts: TouchText[], buttons: TouchButton[], zones: TouchZone[], logo = false): TouchPage {
  const all = [...texts, ...buttons.flatMap(labelOf)];
  // The navigation bar's arrows, where its zones are.
  const arrows = zones
    .filter((z) => z.action === 'next' || z.action === 'previous')
    .map((z): TouchButton => ({ x: z.x, y: z.y, w: z.w, h: z.h, icon: z.action === 'next' ? 'right' : 'left' }));
  return { kind, title: all[0]?.text ?? '', texts: all, buttons: [...buttons, ...arrows], zones, ...(logo ? { logo } : {}) };
}

/** Where the texts of a page start: below the logo when there is one. */
const TOP = 96;
const BELOW_LOGO = 200;

/** The app's home page (`nbgl_useCaseHomeAndSettings` with no tagline: the SDK's own sentence). */
export function homePage(model: TouchModel): TouchPage {
  const texts = column(
    model,
    ['Mina', ...wrapText('This app enables signing transactions on the Mina network.', lineRoom(model))],
    BELOW_LOGO,
    true,
  );
  return page(
    'home',
    texts,
    [button(model, 'lowerMiddle', 'Quit app')],
    [zone(model, 'upperRight', 'settings'), zone(model, 'lowerMiddle', 'quit')],
    true,
  );
}

/** The settings: the Blind signing switch (menu_nbgl.c), then the app's information (version, developer, copyright). */
export function settingsPages(model: TouchModel, version: string, blindSigning: boolean): [TouchPage, TouchPage] {
  const room = lineRoom(model) - 80;
  const switchTexts = column(model, ['Blind signing', ...wrapText('Enable transaction blind signing', room)], TOP, false);
  const toggle: TouchButton = { x: size(model).w - MARGIN - 64, y: TOP, w: 64, h: 32, on: blindSigning };
  const row: TouchZone = { action: 'toggle-blind-signing', x: 0, y: TOP - 16, w: size(model).w, h: 3 * LINE };
  const settings = page('settings', switchTexts, [toggle], [zone(model, 'upperLeft', 'exit'), zone(model, 'lowerRight', 'next'), row]);
  const info = ['Version', version, 'Developer', 'Zondax AG', 'Copyright', '(c) 2024 Ledger'];
  const infoPage = page(
    'info',
    column(model, info, TOP, false),
    [],
    [zone(model, 'upperLeft', 'exit'), zone(model, 'lowerMiddleRight', 'previous')],
  );
  return [settings, infoPage];
}

/** The tag/value pairs in pages, as many as fit above the footer (a value too long for a page goes on in the next). */
function pairPages(model: TouchModel, pairs: NbglReview['pairs']): TouchText[][] {
  const bottom = POSITIONS[model].aboveLowerMiddle![1] - 40;
  const pages: TouchText[][] = [];
  let current: TouchText[] = [];
  let y = TOP;
  const flush = () => {
    if (current.length > 0) pages.push(current);
    current = [];
    y = TOP;
  };
  for (const { item, value } of pairs) {
    const lines = wrapText(value, lineRoom(model));
    if (y + (1 + Math.min(lines.length, 3)) * LINE > bottom) flush();
    current.push(...column(model, [item], y, false));
    y += LINE;
    for (const text of lines) {
      if (y + LINE > bottom) {
        flush();
        current.push(...column(model, [item], y, false));
        y += LINE;
      }
      current.push(...column(model, [text], y, false));
      y += LINE;
    }
    y += LINE / 2;
  }
  flush();
  return pages;
}

/**
 * The pages of a review (`nbgl_useCaseReview`: intro, pairs, "Hold to sign"; or `nbgl_useCaseAddressReview`); a
 * notice (`approvable` false) ends on a page with nothing to approve.
 */
export function reviewPages(model: TouchModel, review: NbglReview, approvable = true): TouchPage[] {
  const address = review.useCase === 'address';
  const reject = address ? 'Cancel' : 'Reject transaction';
  const footer = button(model, 'lowerLeft', reject);
  const intro = page(
    'intro',
    column(model, review.title.split('\n'), BELOW_LOGO, true),
    [footer],
    [zone(model, address ? 'aboveLowerMiddle' : 'lowerRight', 'next'), zone(model, 'lowerLeft', 'reject')],
    true,
  );
  const pairs = address ? [{ item: 'Address', value: review.address ?? '' }, ...review.pairs] : review.pairs;
  const navigation = [zone(model, 'lowerMiddle', 'previous'), zone(model, 'lowerRight', 'next'), zone(model, 'lowerLeft', 'reject')];
  // Between the first and the last page, the navigation bar's reject is a cross (no text).
  const cross: TouchButton = { ...zone(model, 'lowerLeft', 'reject'), icon: 'crossmark' };
  const middle = pairPages(model, pairs);
  if (address) {
    const confirm = button(model, 'aboveLowerMiddle', 'Confirm');
    const last = middle.length - 1;
    return [
      intro,
      ...middle.map((texts, i) =>
        i === last
          ? page('finish', texts, [confirm, footer], [zone(model, 'aboveLowerMiddle', 'confirm'), zone(model, 'lowerLeft', 'reject')])
          : page('pairs', texts, [cross], navigation),
      ),
    ];
  }
  const hold = button(model, 'aboveLowerMiddle', 'Hold to sign');
  // The last page goes back from its header (upper left): its footer is "Reject transaction".
  const back = [zone(model, 'upperLeft', 'previous'), zone(model, 'lowerLeft', 'reject')];
  const finish = approvable
    ? page(
        'finish',
        column(model, [review.finish ?? 'Sign transaction'], BELOW_LOGO, true),
        [hold, footer],
        [zone(model, 'aboveLowerMiddle', 'hold'), ...back],
        true,
      )
    : page('finish', column(model, [review.title], BELOW_LOGO, true), [footer], back, true);
  return [intro, ...middle.map((texts) => page('pairs', texts, [cross], navigation)), finish];
}

/** The SDK's confirmation after "Reject transaction" (`nbgl_useCaseConfirm`): reject, or go back to the review. */
export function confirmRejectPage(model: TouchModel): TouchPage {
  const buttons = [button(model, 'aboveLowerMiddle', 'Yes, reject'), button(model, 'lowerLeft', 'Go back to transaction')];
  return page('confirm-reject', column(model, ['Reject transaction?'], BELOW_LOGO, true), buttons, [
    zone(model, 'aboveLowerMiddle', 'yes-reject'),
    zone(model, 'lowerLeft', 'go-back'),
  ]);
}

/** What the app shows while it signs an approved review (`nbgl_useCaseSpinner("Processing")`). */
export function spinnerPage(model: TouchModel): TouchPage {
  return page('spinner', column(model, ['Processing'], BELOW_LOGO, true), [], []);
}

/** The status the app asks for once answered (`nbgl_useCaseReviewStatus`); a tap dismisses it. */
export function statusPage(model: TouchModel, useCase: NbglReview['useCase'], approved: boolean): TouchPage {
  const text =
    useCase === 'address'
      ? approved
        ? 'Address verified'
        : 'Address verification\ncancelled'
      : approved
        ? 'Transaction signed'
        : 'Transaction rejected';
  return page('status', column(model, text.split('\n'), BELOW_LOGO, true), [], [whole(model, 'dismiss')]);
}

/** The OS's dashboard with the Mina app installed (a model: one tile that opens it). */
export function dashboardPage(model: TouchModel): TouchPage {
  const tile: TouchButton = { x: MARGIN, y: TOP, w: 120, h: 120 };
  const texts = column(model, ['Mina'], TOP + 128, false);
  return page('dashboard', texts, [tile], [{ action: 'open-app', x: tile.x, y: tile.y, w: tile.w, h: tile.h + LINE }]);
}

/** The zone a finger at (x, y) is in, if any (the last drawn, on top, first). */
export function zoneAt(page: TouchPage, x: number, y: number): TouchZone | undefined {
  return [...page.zones].reverse().find((z) => x >= z.x && x < z.x + z.w && y >= z.y && y < z.y + z.h);
}
