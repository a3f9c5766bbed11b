/**
 * The Mina app's idle flow: what the device shows when no review is on screen, and its buttons. As v1.6.0 draws it on
 * a Nano S Plus (Zondax/ledger-mina src/menu_bagl.c at v1.6.0, fea8b5b, release build):
 *
 *   [Mina logo] Mina / is ready  →  Version / 1.6.0  →  Developer / Zondax AG  →  Copyright / (c) 2024 Ledger
 *   →  Blind signing / Enabled|Disabled  →  [dashboard icon] Quit  →  (loops back to the first)
 *
 * The flow loops (`FLOW_LOOP`): right on Quit shows "Mina is ready", left on it shows Quit, and both arrows are always
 * drawn. Both buttons act on two steps only: on "Blind signing" they toggle the setting and go back to the first step
 * (`toggle_blindsign(); ui_idle();`); on Quit they leave the app (`os_sched_exit`). Apps before 1.6.0 have no Blind
 * signing step.
 */
import { atLeast } from '../apdu/version.js';
import { bn, pb, pnn, type Screen } from './review.js';
import type { Button } from './review-buttons.js';
import type { Arrows } from './screen-drawing.js';

/** What the menu reads and changes on the device. */
export interface MenuDevice {
  readonly version: string;
  blindSigning: boolean;
  /** Leaves the app (the dashboard then answers the app's instructions). */
  closeApp?(): void;
}

/** What a button did to the menu. */
export type MenuOutcome = 'moved' | 'toggled' | 'quit' | 'none';

/** The idle screen: the first step of the menu. */
export const idleScreen = (): Screen => pnn('mina', 'Mina', 'is ready');

/**
 * The OS's dashboard once the app has quit, as this project models it (no screen of a device's dashboard was recorded,
 * and Speculos runs no dashboard: it exits with the app): the Mina app's tile, its logo over its name; both buttons
 * open it.
 */
export const dashboardScreen = (): Screen => pb('mina', 'Mina');

/** The steps of the menu for `device`, the Blind signing one showing the setting now. */
export function menuSteps(device: MenuDevice): Screen[] {
  return [
    idleScreen(),
    bn('Version', device.version),
    bn('Developer', 'Zondax AG'),
    bn('Copyright', '(c) 2024 Ledger'),
    ...(atLeast(device.version, '1.6.0') ? [bn('Blind signing', device.blindSigning ? 'Enabled' : 'Disabled')] : []),
    pb('dashboard', 'Quit'),
  ];
}

/** The app's menu and its buttons. */
export class AppMenu {
  #index = 0;

  constructor(readonly device: MenuDevice) {}

  /** The step shown now. */
  get screen(): Screen {
    return menuSteps(this.device)[this.#index]!;
  }

  /** A looping flow draws both arrows on every step. */
  get arrows(): Arrows {
    return { left: true, right: true };
  }

  /** Back to the first step ("Mina is ready"), as the app does after every reply (`ui_idle`). */
  reset(): void {
    this.#index = 0;
  }

  /** One button event (buttons act when released). */
  press(button: Button): MenuOutcome {
    const steps = menuSteps(this.device);
    if (button === 'right' || button === 'left') {
      this.#index = (this.#index + (button === 'right' ? 1 : steps.length - 1)) % steps.length;
      return 'moved';
    }
    const title = steps[this.#index]!.title;
    if (title === 'Blind signing') {
      this.device.blindSigning = !this.device.blindSigning;
      this.#index = 0;
      return 'toggled';
    }
    if (title === 'Quit') {
      this.#index = 0;
      this.device.closeApp?.();
      return 'quit';
    }
    return 'none';
  }
}
