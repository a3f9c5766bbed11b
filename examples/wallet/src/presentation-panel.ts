/**
 * The wallet's review of a presentation request (the provider's `confirmPresentation`), before anything is read from
 * the credential store or computed on it: which site asks (the origin the browser reported), the verifier, the action,
 * what it proves (each assertion in words), what it reveals, the claims and the credentials asked for; then the
 * holder's stored credentials that could serve each input (`review.candidates()`: the store is unlocked for that, and
 * the device's prompt names the site on a Ledger with the extension), one to pick per input; then Approve or Refuse.
 * Only after Approve does the provider evaluate the request on the chosen credentials, compile and prove; what the
 * page learns before is one stage, `awaiting-approval`. An approved request the chosen credentials cannot satisfy is
 * shown here as a notice the holder closes (`notSatisfied`); the page then gets the answer a refusal gets.
 *
 * Self-contained: it builds its own elements inside the container it is given, and needs nothing of the page but
 * this module's CSS classes (style.css, `.presentation`), so another wallet UI can reuse it as it is.
 */
import type { CredentialCandidate, PresentationAnswer, PresentationReview } from 'chain-ledger';

/** An element with its properties (`textContent`, `className`, `type`…) and children. */
function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Record<string, unknown> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  Object.assign(element, props);
  element.append(...children);
  return element;
}

/** One term and its description. */
function row(list: HTMLDListElement, term: string, ...description: (Node | string)[]): void {
  list.append(el('dt', { textContent: term }), el('dd', {}, ...description));
}

const short = (address: string) => `${address.slice(0, 8)}…${address.slice(-6)}`;

export class PresentationPanel {
  readonly #container: HTMLElement;
  /** The review shown last (answered or not): the next one is shown once it is answered, in order. */
  #queue: Promise<unknown> = Promise.resolve();
  /** Told when a review or notice is shown (the page brings its panel into view). */
  onShow: () => void = () => {};

  constructor(container: HTMLElement) {
    this.#container = container;
    container.classList.add('presentation');
    container.hidden = true;
  }

  /** The holder's answer to `review` (false to refuse, else the chosen credential per input). */
  review(review: PresentationReview): Promise<PresentationAnswer> {
    const answer = this.#queue.then(() => (review.signal.aborted ? false : this.#show(review)));
    this.#queue = answer.catch(() => false);
    return answer;
  }

  /** Tells the holder why an approved request cannot be presented; resolves when they close the notice. */
  notSatisfied({ review, reason }: { review: PresentationReview; reason: string }): Promise<void> {
    const closed = this.#queue.then(
      () =>
        new Promise<void>((resolve) => {
          const close = el('button', { type: 'button', textContent: 'Close', className: 'secondary' });
          close.dataset.answer = 'close';
          const notice = el(
            'div',
            { className: 'presentation-notice', role: 'alert' },
            el('p', {}, el('strong', { textContent: `${review.origin}'s request cannot be presented: ` }), reason, '.'),
            el('p', { className: 'note', textContent: 'Nothing was signed or proved. The site was told you declined, as for a refusal.' }),
            close,
          );
          this.#container.replaceChildren(notice);
          this.#container.hidden = false;
          this.#container.dataset.state = 'not-satisfied';
          this.onShow();
          close.focus({ preventScroll: true });
          close.onclick = () => {
            this.#hide();
            resolve();
          };
        }),
    );
    this.#queue = closed;
    return closed;
  }

  #hide(): void {
    this.#container.hidden = true;
    this.#container.replaceChildren();
    this.#container.dataset.state = 'idle';
  }

  /** Shows the request, lists the candidates, and waits for Approve, Refuse or the request's end. */
  #show(review: PresentationReview): Promise<PresentationAnswer> {
    const approve = el('button', { type: 'button', textContent: 'Approve, then confirm on the Ledger', disabled: true });
    const refuse = el('button', { type: 'button', textContent: 'Refuse', className: 'danger' });
    approve.dataset.answer = 'approve';
    refuse.dataset.answer = 'refuse';
    const choices = el(
      'div',
      { className: 'presentation-candidates' },
      el('p', { className: 'note', textContent: 'Unlocking your credentials…' }),
    );
    this.#container.replaceChildren(
      el('h3', {}, el('span', { className: 'origin', textContent: review.origin }), ' asks for a presentation of your credentials'),
      describe(review),
      el('h4', { textContent: 'Your stored credentials that could serve it' }),
      choices,
      el('p', {
        className: 'note',
        textContent:
          'Nothing is read from them, checked or proved until you approve. The site learns nothing before then; if you refuse, it is told only that you declined.',
      }),
      el('div', { className: 'row' }, approve, refuse),
    );
    this.#container.hidden = false;
    this.#container.dataset.state = 'reviewing';
    this.onShow();
    refuse.focus({ preventScroll: true });
    const picked = new Map<string, string>();
    return new Promise<PresentationAnswer>((resolve) => {
      const finish = (answer: PresentationAnswer) => {
        review.signal.removeEventListener('abort', ended);
        this.#hide();
        resolve(answer);
      };
      const ended = () => finish(false);
      review.signal.addEventListener('abort', ended, { once: true });
      refuse.onclick = () => finish(false);
      approve.onclick = () => finish(Object.fromEntries(picked));
      void this.#list(review, choices, picked, approve);
    });
  }

  /** The candidates per input, the newest picked; Approve once every input has one. A locked store can be retried. */
  async #list(review: PresentationReview, choices: HTMLElement, picked: Map<string, string>, approve: HTMLButtonElement): Promise<void> {
    let candidates: Record<string, CredentialCandidate[]>;
    try {
      candidates = await review.candidates();
    } catch (error) {
      const again = el('button', { type: 'button', className: 'secondary', textContent: 'Unlock again' });
      again.onclick = () => {
        choices.replaceChildren(el('p', { className: 'note', textContent: 'Unlocking your credentials…' }));
        void this.#list(review, choices, picked, approve);
      };
      const reason = (error as { data?: { reason?: string }; message?: string }).data?.reason ?? (error as Error).message;
      choices.replaceChildren(
        el('p', { className: 'presentation-error', textContent: `Your credentials stayed locked: ${reason}` }),
        again,
      );
      return;
    }
    if (review.signal.aborted) return;
    const groups = Object.entries(candidates).map(([input, list]) => {
      const fieldset = el('fieldset', { className: 'presentation-input' }, el('legend', { textContent: `For “${input}”` }));
      fieldset.dataset.input = input;
      if (list.length === 0) {
        fieldset.append(
          el('p', { className: 'presentation-none', textContent: 'No stored credential fits this input: you can only refuse.' }),
        );
        return fieldset;
      }
      picked.set(input, list[0]!.id); // the newest
      for (const [i, candidate] of list.entries())
        fieldset.append(option(input, candidate, i === 0, () => picked.set(input, candidate.id)));
      return fieldset;
    });
    choices.replaceChildren(...groups);
    choices.dataset.count = String(Object.values(candidates).reduce((n, list) => n + list.length, 0));
    approve.disabled = Object.values(candidates).some((list) => list.length === 0);
  }
}

/** What the request says, as a definition list. */
function describe(review: PresentationReview): HTMLDListElement {
  const list = el('dl', { className: 'presentation-request' });
  row(list, 'Site', review.origin);
  row(list, 'Verifier', review.verifier);
  if (review.action !== undefined) row(list, 'Action', review.action);
  row(
    list,
    'It proves',
    review.assertions.length === 0
      ? 'nothing beyond holding the credentials'
      : el('ul', {}, ...review.assertions.map((a) => el('li', { className: 'assertion', textContent: a }))),
  );
  row(list, 'It reveals', review.reveals);
  for (const claim of review.claims) row(list, `Claim ${claim.name}`, claim.value);
  for (const input of review.inputs) {
    row(list, `Credential “${input.key}”`, `${input.credentialType}, with ${input.fields.join(', ') || 'no fields'}`);
  }
  return list;
}

/** One candidate as a radio choice: issuer, kind, when stored, and its data. */
function option(input: string, candidate: CredentialCandidate, checked: boolean, onPick: () => void): HTMLLabelElement {
  const radio = el('input', { type: 'radio', name: `presentation-${input}`, value: candidate.id, checked });
  radio.onchange = onPick;
  const issuer = candidate.issuer ? `from ${short(candidate.issuer)}` : candidate.credentialType;
  const data = Object.entries(candidate.data)
    .map(([key, value]) => `${key}: ${value}`)
    .join(' · ');
  const label = el(
    'label',
    { className: 'presentation-candidate', title: candidate.issuer ?? '' },
    radio,
    el(
      'span',
      {},
      el('strong', { textContent: `${candidate.credentialType} credential ${issuer}` }),
      `, stored ${candidate.storedAt.slice(0, 10)}`,
    ),
    el('span', { className: 'presentation-data', textContent: data }),
  );
  label.dataset.id = candidate.id;
  return label;
}
