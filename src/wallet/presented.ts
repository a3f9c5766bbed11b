/**
 * Which stored credentials a presentation showed, for the wallet's record (./history.ts): the holder's answer to
 * the review (`confirmPresentation`) names them by store id. The review does not say which call it belongs to, so
 * the answer is attributed only while one presentation call of the site runs: with two at once the record says
 * nothing of the credentials rather than perhaps the wrong ones.
 */
import type { ConfirmPresentation } from '../presentations/context.js';

export class PresentedCredentials {
  /** Presentation calls running now. */
  #running = 0;
  /** Another call started while one ran, since the count was last zero: no answer can be attributed for sure. */
  #overlapped = false;
  /** The credential ids of the last answer given while calls ran. */
  #chosen: string[] | undefined;

  /** The page's review hook, its answer noted. */
  wrap(confirm: ConfirmPresentation | undefined): ConfirmPresentation | undefined {
    // Anything but a function is passed on as it is: the provider's option check refuses it, as without the host.
    if (typeof confirm !== 'function') return confirm;
    return async (review) => {
      const answer = await confirm(review);
      // `true` is the provider's default choice, which the wallet does not see: nothing is noted for it.
      this.#chosen =
        typeof answer === 'object' && answer !== null ? Object.values(answer).filter((id) => typeof id === 'string') : undefined;
      return answer;
    };
  }

  /** A presentation call starts. */
  begin(): void {
    if (this.#running++ > 0) this.#overlapped = true;
  }

  /** It ended: the ids the holder chose for it, when known for sure. */
  end(): string[] | undefined {
    const chosen = this.#overlapped ? undefined : this.#chosen;
    if (--this.#running === 0) {
      this.#overlapped = false;
      this.#chosen = undefined;
    }
    return chosen;
  }
}
