/**
 * Nonces this provider has broadcast, per account. A node's `inferredNonce` can lag behind a transaction it just
 * accepted; the next command must still take the following nonce, never reuse one.
 */
export class NonceTracker {
  #lastUsed = new Map<string, number>();

  /** The nonce to use: the node's inferred nonce, or one past the last nonce broadcast here, whichever is larger. */
  next(address: string, inferred: number): number {
    const last = this.#lastUsed.get(address);
    return last === undefined ? inferred : Math.max(inferred, last + 1);
  }

  /**
   * Record a nonce the host chose once its transaction was accepted for broadcast. Never a page's own nonce: one far
   * ahead (2^32 − 1) would become the floor of every later call's, which then could not apply (or not be encoded).
   */
  used(address: string, nonce: number): void {
    const last = this.#lastUsed.get(address);
    if (last === undefined || nonce > last) this.#lastUsed.set(address, nonce);
  }
}
