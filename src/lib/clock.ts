/** The source of "now", injected so that expiry rules are testable without waiting. */
export interface Clock {
  now(): Temporal.Instant;
}

export const systemClock: Clock = { now: () => Temporal.Now.instant() };

export const epochMs = (clock: Clock): number => clock.now().epochMilliseconds;
