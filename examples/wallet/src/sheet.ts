/**
 * The request sheet: a site's request opens over the wallet (the whole screen on a phone), in the consent-first
 * order of the request panel (who asks and what, the holder's review, then the device). While no device is chosen,
 * the device's connect buttons are in the sheet too, so that the holder answers "connect your Ledger" without
 * leaving the request. The holder closes the sheet once the request is over ("Back to the wallet").
 */
import { $ } from './dom.js';

export class Sheet {
  #deviceChosen = false;

  constructor() {
    $('sheet-close').onclick = () => this.close();
  }

  get isOpen(): boolean {
    return !$('sheet').hidden;
  }

  open(): void {
    $('sheet').hidden = false;
    document.body.dataset.sheet = 'open';
    if (!this.#deviceChosen) $('sheet-device-slot').append($('device-connect'));
  }

  close(): void {
    $('sheet').hidden = true;
    document.body.dataset.sheet = 'closed';
    $('device-card').append($('device-connect'));
  }

  /** A request is over (or none is running): the holder may close the sheet. */
  settled(over: boolean): void {
    $('sheet-close').hidden = !over;
  }

  /** A device is in use: its connect buttons go back to Home. */
  deviceChosen(): void {
    this.#deviceChosen = true;
    $('device-card').append($('device-connect'));
  }
}
