/** The page's element lookups, small text helpers and storage reads, shared by the screens. */

/** The element with `id`; a missing one is a bug of the page (index.html and the code disagree). */
export const $ = <T extends HTMLElement = HTMLElement>(id: string) => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`missing #${id}`);
  return element as T;
};

/** Sets an element's text and `data-*` attributes (what the tests and the styles read). */
export function setText(id: string, text: string, data: Record<string, string> = {}): void {
  const element = $(id);
  element.textContent = text;
  Object.assign(element.dataset, data);
}

/** A new element with a class and text. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text = ''): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (className) element.className = className;
  if (text) element.textContent = text;
  return element;
}

/** "B62qnzbX…SbD7uzV": enough to recognise an address in a list (the whole one is on Home, with its copy button). */
export const shortAddress = (address: string) => `${address.slice(0, 8)}…${address.slice(-7)}`;

/** A date and time in the holder's locale. */
export const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/**
 * The object kept under `key` in the wallet origin's storage, or `{}` where there is none or it is not one (a value
 * another version wrote, or one edited by hand): the page's small settings records (explorers, statuses).
 */
export function storedRecord<T>(key: string): Record<string, T> {
  try {
    const parsed = JSON.parse(localStorage.getItem(key) ?? '{}') as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, T>) : {};
  } catch {
    return {};
  }
}
