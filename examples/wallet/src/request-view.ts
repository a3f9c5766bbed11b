/**
 * The wallet window's current request: who asks and what, what the call is doing now (the provider's `onProgress`
 * stages, each with the time it started, the current one with a running clock), "Confirm on your Ledger…" while the
 * device waits, the host's questions (a blind zkApp command's summary, a network switch), then the outcome. The panel
 * is brought into view and focused when a request arrives, so the user never has to look for it.
 */
import type { DeviceAction, ProgressEvent } from 'chain-ledger';

const $ = <T extends HTMLElement = HTMLElement>(id: string) => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`missing #${id}`);
  return element as T;
};

/** What each stage is, as the user reads it. */
const STAGES: Record<ProgressEvent['stage'], string> = {
  'loading-prover': 'Loading the prover (o1js, mina-attestations)',
  'awaiting-approval': 'Waiting for your answer to the request below',
  compiling: 'Compiling the presentation circuit',
  'waiting-for-prover-window': 'Waiting for you to open the prover window',
  'unlock-device': 'Unlock your Ledger',
  'open-app': 'Open the Mina app on your Ledger',
  'confirm-on-device': 'Waiting for your answer on the Ledger',
  proving: 'Proving (in this window’s worker)',
  broadcasting: 'Sending to the network',
  done: 'Done',
  failed: 'Failed',
};

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export class RequestView {
  /** Called before the panel is brought into view: the page opens its request sheet. */
  onShow: () => void = () => {};
  #started = 0;
  /** The question asked last (answered or not): the next one is shown once it is answered. */
  #questions: Promise<unknown> = Promise.resolve();
  #timer: ReturnType<typeof setInterval> | undefined;
  /** The stage running now: its list item and when it started (ms since the request). */
  #current: { item: HTMLLIElement; at: number } | undefined;

  /** A request arrived: shown, and the panel brought into view and focused. */
  start(origin: string, method: string, params: unknown): void {
    const request = $('request');
    request.dataset.method = method;
    request.textContent = `${origin} asks: ${method}`;
    request.dataset.state = 'working';
    $('request-card').dataset.state = 'working';
    const details = $('request-details');
    details.textContent = describeParams(params, SIGNS_TEXT.test(method));
    $('request-details-box').hidden = params === undefined;
    const progress = $<HTMLOListElement>('progress');
    progress.replaceChildren();
    progress.dataset.stages = '';
    progress.hidden = true;
    this.#current = undefined;
    this.#started = performance.now();
    clearInterval(this.#timer);
    this.#timer = setInterval(() => this.#tick(), 1000);
    this.#tick();
    this.bringIntoView();
  }

  /** The call settled: its outcome, and the time it took. */
  settle(method: string, origin: string, error?: { code: number; message: string; data?: { reason?: string } }): void {
    clearInterval(this.#timer);
    this.#finishCurrent();
    const took = seconds(performance.now() - this.#started);
    const text = error
      ? `${method}: error ${error.code} (${error.message}${error.data?.reason ? `: ${error.data.reason}` : ''})`
      : `${method}: done in ${took}, the result went to ${origin}`;
    const request = $('request');
    request.textContent = text;
    request.dataset.state = error ? 'error' : 'done';
    $('request-card').dataset.state = error ? 'error' : 'done';
    $('request-elapsed').textContent = '';
    this.status('');
  }

  /** The running stage has ended: its line keeps when it started. */
  #finishCurrent(): void {
    const current = this.#current;
    if (!current) return;
    current.item.classList.remove('current');
    const when = current.item.querySelector('.when');
    if (when) when.textContent = `· ${seconds(current.at)}`;
    this.#current = undefined;
  }

  /** One stage of the call (`onProgress`): a line in the list, the running clock moved to it. */
  progress({ stage, elapsedMs, prompt, retry }: ProgressEvent): void {
    const list = $<HTMLOListElement>('progress');
    list.hidden = false;
    list.dataset.stages = [list.dataset.stages, stage].filter(Boolean).join(' ');
    list.dataset.stage = stage;
    this.#finishCurrent();
    const item = document.createElement('li');
    item.dataset.stage = stage;
    const what = document.createElement('span');
    // (The device's prompt is the status line above: not repeated here.)
    what.textContent = `${STAGES[stage]}${retry ? ' (again, in a fresh worker)' : ''}`;
    if (stage === 'confirm-on-device' && prompt) item.title = prompt;
    const when = document.createElement('span');
    when.className = 'when';
    when.textContent = `· ${seconds(elapsedMs)}`;
    item.append(what, ' ', when);
    list.append(item);
    if (stage === 'done' || stage === 'failed') this.#current = undefined;
    else {
      item.classList.add('current');
      this.#current = { item, at: elapsedMs };
    }
    this.#tick();
  }

  /**
   * What to do on the device while it waits (its prompt: "Confirm the address on your Ledger"), said once; nothing once
   * it answered.
   */
  deviceAction({ status, prompt }: DeviceAction): void {
    this.status(status !== 'confirm' ? '' : /\bledger\b/i.test(prompt) ? prompt : `Confirm on your Ledger: ${prompt}`);
  }

  status(text: string): void {
    const status = $('status');
    status.hidden = text === '';
    status.textContent = text;
  }

  /**
   * Asks the user in the request panel (a blind zkApp command's summary, a network switch): true when they choose
   * `yes`. Questions are asked one at a time, in the order they came: a second one (another call of the site) waits
   * until the first is answered, so a click meant for one never answers another. The question is brought into view
   * and its first button focused.
   */
  ask(question: string | Node, yes: string): Promise<boolean> {
    const answer = this.#questions.then(() => this.#show(question, yes));
    this.#questions = answer.catch(() => false);
    return answer;
  }

  /** A text question is shown as its text; a laid-out one (a zkApp command's review) as it is. */
  #show(question: string | Node, yes: string): Promise<boolean> {
    const panel = $('summary');
    $('summary-text').replaceChildren(
      typeof question === 'string' ? Object.assign(document.createElement('p'), { textContent: question }) : question,
    );
    const approve = $<HTMLButtonElement>('summary-approve');
    const reject = $<HTMLButtonElement>('summary-reject');
    approve.textContent = yes;
    panel.hidden = false;
    this.bringIntoView();
    approve.focus({ preventScroll: true });
    return new Promise((resolve) => {
      const answer = (ok: boolean) => () => {
        panel.hidden = true;
        approve.onclick = reject.onclick = null;
        resolve(ok);
      };
      approve.onclick = answer(true);
      reject.onclick = answer(false);
    });
  }

  /** The request panel at the top of the window, focused (for a screen reader, and for the keyboard). */
  bringIntoView(): void {
    this.onShow();
    const card = $('request-card');
    card.scrollIntoView({ block: 'start' });
    if (!card.contains(document.activeElement)) card.focus({ preventScroll: true });
  }

  /** The elapsed time: of the request in its header, of the running stage on its line. */
  #tick(): void {
    const elapsed = performance.now() - this.#started;
    const request = $('request');
    if (request.dataset.state === 'working') {
      request.dataset.elapsed = String(Math.round(elapsed / 1000));
      $('request-elapsed').textContent = `${Math.round(elapsed / 1000)} s`;
    } else $('request-elapsed').textContent = '';
    const current = this.#current;
    if (current) {
      const when = current.item.querySelector('.when');
      const running = Math.max(0, Math.round((elapsed - current.at) / 1000));
      if (when) when.textContent = `· ${seconds(current.at)}${running >= 1 ? ` · ${running} s so far` : ''}`;
    }
  }
}

/** The request's arguments as JSON, shortened: what will be signed is shown in full on the device. */
/**
 * The methods that sign a text: their parameters are shown whole, since for a text the Ledger shows only as its hash
 * (over 4,096 characters shown: SIGN_TEXT 1.4) this panel is the only place the holder reads it.
 */
const SIGNS_TEXT = /_sign(Message|_?JsonMessage)$/;

function describeParams(params: unknown, whole = false): string {
  let text: string;
  try {
    text = JSON.stringify(params, null, 2) ?? '';
  } catch {
    text = String(params);
  }
  return !whole && text.length > 4000 ? `${text.slice(0, 4000)}\n… (${text.length} characters)` : text;
}
