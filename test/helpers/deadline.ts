/**
 * A provider deadline the test controls, for ProviderHttp's `deadline` option: a request times
 * out when the test calls `expire()` (typically from a fake's `onHeld`, once the fake holds the
 * request), never because the machine is busy. A request nobody expires is cut off after a
 * generous backstop as a network failure, not a timeout: a broken test fails instead of hanging.
 */
const backstopMs = 30_000;

export class TestDeadline {
  readonly #waiting = new Set<AbortController>();

  /** Pass as `new ProviderHttp({ deadline: deadline.signal })`. */
  readonly signal = (): AbortSignal => {
    const controller = new AbortController();
    this.#waiting.add(controller);
    setTimeout(
      () =>
        controller.abort(new Error(`No answer in ${backstopMs} ms, and the test's deadline never passed.`)),
      backstopMs,
    ).unref();
    return controller.signal;
  };

  /**
   * The delay of a fake's fault (`{ method: 'PUT', phase: 'after', ...deadline.held() }`): the
   * request is held far longer than the backstop, and the deadline passes as the hold begins.
   */
  held(): { delayMs: number; onHeld: () => void } {
    return { delayMs: 2 * backstopMs, onHeld: () => this.expire() };
  }

  /** Every request started so far times out now; later requests get a fresh deadline. */
  expire(): void {
    for (const controller of this.#waiting) {
      controller.abort(new DOMException('The provider took too long.', 'TimeoutError'));
    }
    this.#waiting.clear();
  }
}
