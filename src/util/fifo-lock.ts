/**
 * A first-in, first-out lock with cancellation: the one queueing mechanism of the library, below everything that
 * queues. `ExclusiveTransport` holds it per device command (every exchange of a command, or of a whole provider
 * call); the file credential store per store file within a process.
 */
export type Release = () => void;

interface Waiter {
  start: () => void;
  fail: (reason: unknown) => void;
}

export class FifoLock {
  #busy = false;
  #waiters: Waiter[] = [];

  get busy(): boolean {
    return this.#busy;
  }

  /** Callers waiting for their turn (not counting the holder). */
  get pending(): number {
    return this.#waiters.length;
  }

  /** Resolves when it is this caller's turn; an aborted signal takes the caller out of the line at once. */
  async acquire(signal?: AbortSignal): Promise<Release> {
    signal?.throwIfAborted();
    if (this.#busy) {
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          const i = this.#waiters.indexOf(waiter);
          if (i >= 0) this.#waiters.splice(i, 1);
          reject(signal!.reason);
        };
        const waiter: Waiter = {
          start: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
          fail: (reason) => {
            signal?.removeEventListener('abort', onAbort);
            reject(reason);
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        this.#waiters.push(waiter);
      });
    }
    this.#busy = true;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiters.shift();
      if (next) next.start();
      else this.#busy = false;
    };
  }

  /** Runs `task` while holding the lock. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await task();
    } finally {
      release();
    }
  }

  /** Rejects every waiting caller (the holder keeps the lock until it releases). */
  failWaiting(reason: unknown): void {
    for (const waiter of this.#waiters.splice(0)) waiter.fail(reason);
  }
}
