/**
 * The wallet's screens (Home, Send, Accounts, Activity, Sites, Credentials) and their tabs: a bottom bar on a phone, a sidebar on
 * a desktop (layout.css). Tabs follow the ARIA tabs pattern: the arrow keys move between them, one is selected. The
 * screens are index.html's tabs (`data-screen`), so a new screen is its tab and section only.
 */
import { $ } from './dom.js';

export type Screen = string;

/** Called with the screen shown (to render it afresh). */
export function setUpNavigation(onShow: (screen: Screen) => void): (screen: Screen) => void {
  const SCREENS = [...document.querySelectorAll<HTMLElement>('[role="tab"][data-screen]')].map((tab) => tab.dataset.screen!);
  const show = (screen: Screen) => {
    for (const name of SCREENS) {
      const tab = $(`tab-${name}`);
      const selected = name === screen;
      tab.setAttribute('aria-selected', String(selected));
      tab.tabIndex = selected ? 0 : -1;
      $(`screen-${name}`).hidden = !selected;
    }
    document.body.dataset.screen = screen;
    onShow(screen);
  };
  SCREENS.forEach((name, i) => {
    const tab = $(`tab-${name}`);
    tab.onclick = () => show(name);
    tab.onkeydown = (event) => {
      const step =
        event.key === 'ArrowRight' || event.key === 'ArrowDown' ? 1 : event.key === 'ArrowLeft' || event.key === 'ArrowUp' ? -1 : 0;
      if (step === 0) return;
      event.preventDefault();
      const next = SCREENS[(i + step + SCREENS.length) % SCREENS.length]!;
      show(next);
      $(`tab-${next}`).focus();
    };
  });
  show('home');
  return show;
}
