/**
 * The wallet's screens (Home, Activity, Sites, Credentials) and their tabs: a bottom bar on a phone, a sidebar on a desktop
 * (layout.css). Tabs follow the ARIA tabs pattern: the arrow keys move between them, one is selected.
 */
import { $ } from './dom.js';

export type Screen = 'home' | 'activity' | 'sites' | 'credentials';
const SCREENS: Screen[] = ['home', 'activity', 'sites', 'credentials'];

/** Called with the screen shown (to render it afresh). */
export function setUpNavigation(onShow: (screen: Screen) => void): (screen: Screen) => void {
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
