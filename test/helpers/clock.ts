import type { Clock } from '../../src/lib/clock.ts';

/** A clock that stands still until told to move. */
export class TestClock implements Clock {
  #now: Temporal.Instant;
  constructor(start = '2026-03-29T00:30:00Z') {
    this.#now = Temporal.Instant.from(start);
  }
  now(): Temporal.Instant {
    return this.#now;
  }
  advance(duration: Temporal.DurationLike): void {
    this.#now = this.#now.add(duration);
  }
}
